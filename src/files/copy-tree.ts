// Copying a folder tree (copies, and moves across filesystems): directories walked one by one
// without following links, files copied a few at a time (reflink where the disk can), the
// times of files and folders kept. Never written over: every file and folder is created
// exclusively, so a taken name fails the copy instead of replacing anything.
//
// Confined at use (confined.ts): the selected item is opened and its descriptor confirmed
// inside `root`; below it every folder and file is opened relative to its parent's
// descriptor with O_NOFOLLOW, and bytes are copied from `/proc/self/fd/<fd>` — the file that
// was opened, not whatever the name points at a moment later. A folder or file swapped for a
// link during the copy is skipped, never followed. Created folders are opened the same way,
// so the copy cannot be led out of its destination either.
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
import { dirOf, openChildDir, openChildFile, openDirNoFollow, openEntryIn, within, type Dir } from './confined.ts';

export interface CopyReport {
  files: number;
  folders: number;
  links: number;
  skipped: number;
}

const DEFAULT_CONCURRENCY = 8;
/** Entries that changed kind under us (swapped for a link, removed): skipped, not followed. */
const CHANGED = new Set(['ELOOP', 'ENOTDIR', 'EISDIR', 'EINVAL', 'ENOENT', 'EMLINK']);

async function copyBytes(fromPath: string, to: string, st: fs.Stats): Promise<void> {
  await fsp.copyFile(fromPath, to, fs.constants.COPYFILE_EXCL | fs.constants.COPYFILE_FICLONE);
  // lutimes: the name we just created exclusively is never followed.
  await fsp.lutimes(to, st.atime, st.mtime);
}

/**
 * Copies `from` (file, folder or link; a path, possibly through a checked folder's descriptor)
 * to `to`, which must not exist. `root`: the source must lie inside it (default: anywhere).
 */
export async function copyTree(
  from: string,
  to: string,
  options: { concurrency?: number; root?: string; leaveOut?: (relative: string) => boolean } = {},
): Promise<CopyReport> {
  const report: CopyReport = { files: 0, folders: 0, links: 0, skipped: 0 };
  const top = await openEntryIn(options.root ?? path.parse(path.resolve(from)).root, from);
  try {
    if (!top.stat.isDirectory()) {
      if (!top.stat.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EINVAL' });
      await copyBytes(top.path, to, top.stat);
      report.files++;
      return report;
    }
    const limit = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
    const treeRoot = top.real;

    async function copyFolder(src: Dir, dstPath: string, srcStats: fs.Stats, rel: string): Promise<void> {
      await fsp.mkdir(dstPath);
      report.folders++;
      const dst = await openDirNoFollow(dstPath, dstPath);
      try {
        // What the caller may not take away (a hidden or view-only folder or file) is not copied.
        const entries = (await fsp.readdir(src.path, { withFileTypes: true })).filter(
          (e) => !options.leaveOut?.(rel ? `${rel}/${e.name}` : e.name),
        );
        const files = entries.filter((e) => e.isFile());
        for (let i = 0; i < files.length; i += limit) {
          await Promise.all(
            files.slice(i, i + limit).map(async (e) => {
              let file;
              try {
                file = await openChildFile(src, e.name);
              } catch (err) {
                if (!CHANGED.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
                report.skipped++;
                return;
              }
              try {
                await copyBytes(file.path, dst.at(e.name), file.stat);
                report.files++;
              } finally {
                await file.close();
              }
            }),
          );
        }
        for (const e of entries) {
          if (e.isFile() || e.isDirectory()) continue;
          if (e.isSymbolicLink()) {
            const target = await fsp.readlink(src.at(e.name));
            if (!path.isAbsolute(target) && within(treeRoot, path.resolve(src.real, target))) {
              await fsp.symlink(target, dst.at(e.name));
              report.links++;
              continue;
            }
          }
          report.skipped++;
        }
        for (const e of entries) {
          if (!e.isDirectory()) continue;
          let child: Dir;
          try {
            child = await openChildDir(src, e.name);
          } catch (err) {
            if (!CHANGED.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
            report.skipped++;
            continue;
          }
          try {
            await copyFolder(child, dst.at(e.name), await fsp.stat(child.path), rel ? `${rel}/${e.name}` : e.name);
          } finally {
            await child.close();
          }
        }
        // Set last: writing into a folder changes its mtime.
        if (dst.fd >= 0)
          await new Promise<void>((resolve) => fs.futimes(dst.fd, srcStats.atime, srcStats.mtime, () => resolve()));
        else await fsp.lutimes(dstPath, srcStats.atime, srcStats.mtime).catch(() => {});
      } finally {
        await dst.close();
      }
    }

    await copyFolder(dirOf(top), to, top.stat, '');
    return report;
  } finally {
    await top.close();
  }
}
