// Copying a folder tree (copies, and moves across filesystems): directories walked one by one
// without following links, files copied a few at a time (reflink where the disk can), the
// times of files and folders kept. Never written over: every file and folder is created
// exclusively, so a taken name fails the copy instead of replacing anything.
//
// Symlinks: a link inside the tree is copied as a link only when its target is relative and
// stays inside the tree being copied — so the copy points at its own copy of the target and
// can never lead out of the volume it lands in. Every other link (absolute, or climbing out of
// the tree) is skipped, as are sockets, FIFOs and devices. A selected item that is itself a
// link (the resolver has already confirmed its target lies inside its volume) is copied as
// what it points to.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

export interface CopyReport { files: number; folders: number; links: number; skipped: number }

const DEFAULT_CONCURRENCY = 8;

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

async function copyFileKeepingTimes(from: string, to: string, st: fs.Stats): Promise<void> {
  await fsp.copyFile(from, to, fs.constants.COPYFILE_EXCL | fs.constants.COPYFILE_FICLONE);
  await fsp.utimes(to, st.atime, st.mtime);
}

/** Copies `from` (file, folder or link) to `to`, which must not exist. */
export async function copyTree(from: string, to: string, options: { concurrency?: number } = {}): Promise<CopyReport> {
  const report: CopyReport = { files: 0, folders: 0, links: 0, skipped: 0 };
  let source = from;
  let st = await fsp.lstat(source);
  if (st.isSymbolicLink()) {
    source = await fsp.realpath(from);
    st = await fsp.stat(source);
  }
  if (!st.isDirectory()) {
    if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EINVAL' });
    await copyFileKeepingTimes(source, to, st);
    report.files++;
    return report;
  }

  const limit = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  const inFlight = new Set<Promise<void>>();
  let failure: unknown = null;
  const schedule = async (task: () => Promise<void>) => {
    while (inFlight.size >= limit) await Promise.race(inFlight);
    if (failure) throw failure;
    const p: Promise<void> = task().catch((err) => { failure ??= err; }).finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  // Folder times are set last, deepest first: writing into a folder changes its mtime.
  const folderTimes: [string, Date, Date][] = [];
  const root = source;

  async function copyFolder(src: string, dst: string, srcStats: fs.Stats): Promise<void> {
    await fsp.mkdir(dst);
    report.folders++;
    folderTimes.push([dst, srcStats.atime, srcStats.mtime]);
    const subfolders: string[] = [];
    for await (const entry of await fsp.opendir(src)) {
      if (failure) throw failure;
      const s = path.join(src, entry.name);
      const d = path.join(dst, entry.name);
      if (entry.isDirectory()) {
        subfolders.push(entry.name);
      } else if (entry.isFile()) {
        await schedule(async () => {
          await copyFileKeepingTimes(s, d, await fsp.lstat(s));
          report.files++;
        });
      } else if (entry.isSymbolicLink()) {
        const target = await fsp.readlink(s);
        if (!path.isAbsolute(target) && inside(root, path.resolve(src, target))) {
          await fsp.symlink(target, d);
          report.links++;
        } else {
          report.skipped++;
        }
      } else {
        report.skipped++;
      }
    }
    for (const name of subfolders) {
      const s = path.join(src, name);
      await copyFolder(s, path.join(dst, name), await fsp.lstat(s));
    }
  }

  try {
    await copyFolder(source, to, st);
  } catch (err) {
    failure ??= err;
  }
  await Promise.all(inFlight);
  if (failure) throw failure;
  for (const [dir, atime, mtime] of folderTimes.reverse()) await fsp.utimes(dir, atime, mtime).catch(() => {});
  return report;
}
