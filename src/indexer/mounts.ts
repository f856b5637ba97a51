// Network mounts get FOLDER_SIZE_NETWORK_CONCURRENCY instead of FOLDER_SIZE_CONCURRENCY. The
// mount table (/proc/self/mountinfo on Linux) says which file system holds a path.
import fs from 'node:fs';

const NETWORK = /^(nfs4?|cifs|smb3?|smbfs|sshfs|fuse\..*|9p|ceph|glusterfs|afs|davfs|webdav)$/;

export interface Mount {
  point: string;
  fsType: string;
}

/** Mount point → file-system type, from mountinfo text (fields: … 5 mount point … ' - ' fstype …). */
export function parseMountInfo(text: string): Mount[] {
  const out: Mount[] = [];
  for (const line of text.split('\n')) {
    const sep = line.indexOf(' - ');
    if (sep < 0) continue;
    const fields = line.slice(0, sep).split(' ');
    const after = line.slice(sep + 3).split(' ');
    if (fields.length < 5 || !after[0]) continue;
    const point = fields[4]!.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
    out.push({ point, fsType: after[0] });
  }
  return out;
}

export function isNetworkFs(fsType: string): boolean {
  return NETWORK.test(fsType);
}

/** The mount holding `path` (the longest mount point above it). */
export function mountOf(path: string, mounts: readonly Mount[]): Mount | undefined {
  let best: Mount | undefined;
  for (const m of mounts) {
    const inside =
      m.point === '/' || path === m.point || path.startsWith(m.point.endsWith('/') ? m.point : `${m.point}/`);
    if (inside && (!best || m.point.length > best.point.length)) best = m;
  }
  return best;
}

export function readMounts(): Mount[] {
  try {
    return parseMountInfo(fs.readFileSync('/proc/self/mountinfo', 'utf8'));
  } catch {
    return []; // not Linux: every path counts as local
  }
}
