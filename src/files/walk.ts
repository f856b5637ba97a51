// Bounded tree totals (metadata, delete impact, download plans): counted at request time,
// stopped at a bound of entries or time and then marked truncated. Symlinks are not followed.
import type fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { openDirIn, type Dir } from './confined.ts';
import { isReservedName } from './names.ts';

export interface TreeTotals {
  totalSize: number;
  fileCount: number;
  dirCount: number;
  truncated: boolean;
}

export async function countTree(
  root: string,
  limits: { maxEntries?: number; maxMs?: number } = {},
): Promise<TreeTotals> {
  const maxEntries = limits.maxEntries ?? 200_000;
  const deadline = Date.now() + (limits.maxMs ?? 5000);
  const totals: TreeTotals = { totalSize: 0, fileCount: 0, dirCount: 0, truncated: false };
  const queue = [root];
  while (queue.length) {
    if (totals.fileCount + totals.dirCount >= maxEntries || Date.now() > deadline) {
      totals.truncated = true;
      break;
    }
    const dir = queue.pop()!;
    let names: string[];
    try {
      names = await fsp.readdir(dir);
    } catch {
      continue;
    }
    const visible = names.filter((n) => !(dir === root && isReservedName(n)) && !n.startsWith('.burrow-tmp-'));
    for (let i = 0; i < visible.length; i += 64) {
      const batch = visible.slice(i, i + 64);
      const stats = await Promise.all(batch.map((n) => fsp.lstat(path.join(dir, n)).catch(() => null)));
      stats.forEach((s, j) => {
        if (!s) return;
        if (s.isDirectory()) {
          totals.dirCount++;
          queue.push(path.join(dir, batch[j]!));
        } else {
          totals.fileCount++;
          totals.totalSize += s.size;
        }
      });
    }
  }
  return totals;
}

export interface WalkEntry {
  relative: string;
  /** a usable path through the checked top folder */ path: string;
  /** -1 for a file not stat'ed (statFiles false) */ size: number;
  /** null for a file not stat'ed (statFiles false) */ mtime: Date | null;
  isDirectory: boolean;
}

/**
 * Every file and folder under the checked folder `top` (relative names with '/'), for zip
 * downloads and plans. Each folder is listed through its own descriptor, opened through `top`
 * and confirmed inside `root` (confined.ts), so a folder swapped for a link during the walk is
 * left out instead of listing what it points to. Links are not followed. With `statFiles` false,
 * a file is taken as the folder's listing types it (no lstat: its opener learns size and time from
 * its own descriptor, and must not follow a link that replaced it since). `leaveOut` names what
 * the caller may not take away (access/): it is neither listed nor walked into.
 */
export async function* walkFiles(
  root: string,
  top: Dir,
  options: { showHidden: boolean; statFiles?: boolean; leaveOut?: (relative: string) => boolean },
): AsyncGenerator<WalkEntry> {
  const stack: string[] = [''];
  while (stack.length) {
    const rel = stack.pop()!;
    let dir: Dir;
    try {
      dir = rel === '' ? top : await openDirIn(root, `${top.path}/${rel}`);
    } catch {
      continue;
    }
    try {
      let entries: fs.Dirent[];
      try {
        entries = await fsp.readdir(dir.path, { withFileTypes: true });
      } catch {
        continue;
      }
      entries.sort((a, b) => a.name.localeCompare(b.name));
      for (const e of entries) {
        if (isReservedName(e.name) || (!options.showHidden && e.name.startsWith('.'))) continue;
        if (!e.isDirectory() && !e.isFile()) continue;
        const childRel = rel ? `${rel}/${e.name}` : e.name;
        // What the access model withholds (a hidden or view-only folder or file) is not taken, nor walked into.
        if (options.leaveOut?.(childRel)) continue;
        if (options.statFiles === false && e.isFile()) {
          yield { relative: childRel, path: `${top.path}/${childRel}`, size: -1, mtime: null, isDirectory: false };
          continue;
        }
        const s = await fsp.lstat(dir.at(e.name)).catch(() => null);
        if (!s) continue;
        if (s.isDirectory()) {
          yield { relative: childRel, path: `${top.path}/${childRel}`, size: 0, mtime: s.mtime, isDirectory: true };
          stack.push(childRel);
        } else if (s.isFile()) {
          yield {
            relative: childRel,
            path: `${top.path}/${childRel}`,
            size: s.size,
            mtime: s.mtime,
            isDirectory: false,
          };
        }
      }
    } finally {
      if (dir !== top) await dir.close();
    }
  }
}
