// How full the disks under Burrow's folders are, for the volume check's "disk nearly full": one
// reading per file system (the folders on one disk are named together, so a disk holding the
// data folder and three volumes is told of once, not four times).
import fs from 'node:fs';

/** A folder whose disk is watched, and what a person calls it. */
export interface DiskFolder {
  name: string;
  path: string;
}

export interface DiskReading {
  /** The file system (its device number): the same disk, the same key. */
  key: string;
  /** Every watched folder on it, in the order given. */
  names: string[];
  sizeBytes: number;
  /** What an unprivileged writer (Burrow) may still use. */
  freeBytes: number;
}

export async function readDisks(folders: readonly DiskFolder[]): Promise<DiskReading[]> {
  const byDevice = new Map<string, DiskReading>();
  for (const f of folders) {
    let device: string;
    let size: number;
    let free: number;
    try {
      device = String((await fs.promises.stat(f.path)).dev);
      const s = await fs.promises.statfs(f.path);
      size = s.blocks * s.bsize;
      free = s.bavail * s.bsize;
    } catch {
      continue; // a folder gone or unreadable is the volume check's "missing"
    }
    if (!(size > 0)) continue; // a pseudo file system with no size of its own
    const at = byDevice.get(device);
    if (at) {
      if (!at.names.includes(f.name)) at.names.push(f.name);
    } else byDevice.set(device, { key: device, names: [f.name], sizeBytes: size, freeBytes: free });
  }
  return [...byDevice.values()];
}

/** "a", "a and b", "a, b and c". */
export const listed = (names: readonly string[]): string =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
