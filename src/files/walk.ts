// Bounded tree totals (metadata, delete impact, download plans): counted at request time,
// stopped at a bound of entries or time and then marked truncated. Symlinks are not followed.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isReservedName } from './names.ts';

export interface TreeTotals { totalSize: number; fileCount: number; dirCount: number; truncated: boolean }

export async function countTree(root: string, limits: { maxEntries?: number; maxMs?: number } = {}): Promise<TreeTotals> {
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

/** Every file under `root` (relative names with '/'), bounded; for zip downloads and plans. */
export async function* walkFiles(root: string, options: { showHidden: boolean }): AsyncGenerator<{ relative: string; real: string; size: number; mtime: Date; isDirectory: boolean }> {
  const stack: string[] = [''];
  while (stack.length) {
    const rel = stack.pop()!;
    const dir = path.join(root, rel);
    let entries;
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (isReservedName(e.name) || (!options.showHidden && e.name.startsWith('.'))) continue;
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      const real = path.join(dir, e.name);
      if (e.isDirectory()) {
        const s = await fsp.stat(real).catch(() => null);
        if (!s) continue;
        yield { relative: childRel, real, size: 0, mtime: s.mtime, isDirectory: true };
        stack.push(childRel);
      } else if (e.isFile()) {
        const s = await fsp.stat(real).catch(() => null);
        if (s) yield { relative: childRel, real, size: s.size, mtime: s.mtime, isDirectory: false };
      }
    }
  }
}
