// Moving and copying without ever writing over anything. Within a filesystem a move is a
// rename onto a claimed name. Across filesystems (and for every copy) the item is first
// copied to a hidden temporary beside its destination, then placed under a free name, then —
// for a move — the source is removed. A journal row (journal.ts) makes a crash leave the old or
// the new state: at startup an incomplete temporary is removed, a placed copy's source is removed.
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { WorkJournal } from './journal.ts';
import type { Dir } from './confined.ts';
import { copyTree } from './copy-tree.ts';
import { placeEntry, temporaryName, type ConflictPolicy, type PlacedEntry, type Replacer } from './names.ts';

/**
 * An entry to move or copy: `path` names it through its checked parent folder's descriptor
 * (confined.ts), `real` is its real path for the journal, `root` the space it must stay in.
 */
export interface SourceEntry {
  path: string;
  real: string;
  root: string;
  /** A copy's paths below the entry (relative, '/') the caller may not take away: not copied (access/). */
  leaveOut?: (relative: string) => boolean;
}

/** A bare path is taken as it is (not confined at use): prefer a SourceEntry and a checked Dir. */
type From = SourceEntry | string;
type Into = Pick<Dir, 'path' | 'real' | 'at'> | string;
const entryOf = (f: From): SourceEntry =>
  typeof f === 'string' ? { path: f, real: f, root: path.parse(path.resolve(f)).root } : f;
const dirOf = (d: Into): Pick<Dir, 'path' | 'real' | 'at'> =>
  typeof d === 'string' ? { path: d, real: d, at: (n) => path.join(d, n) } : d;

/** What to do when the name is taken (default: keep both, the newcomer as `name (1)`). */
export interface OnConflict {
  policy: ConflictPolicy;
  /** Required for `replace`: takes the taken name, keeping what held it (names.ts Replacer). */
  replacer?: Replacer;
}
const KEEP_BOTH: OnConflict = { policy: 'rename' };

export interface Transfer {
  /** Moves `from` into the checked folder `dir` under a free name (or by `conflict`); a skipped item stays. */
  move(
    from: From,
    dir: Into,
    name: string,
    isDirectory: boolean,
    conflict?: OnConflict,
  ): Promise<PlacedEntry & { crossDevice: boolean }>;
  copy(from: From, dir: Into, name: string, isDirectory: boolean, conflict?: OnConflict): Promise<PlacedEntry>;
  /** Finishes or rolls back what a crash interrupted (startup); returns the sources it removed. */
  recover(): Promise<{ count: number; removedSources: string[] }>;
}

export interface TransferOptions {
  /** Test seam: the rename used for same-filesystem moves (inject EXDEV to simulate another disk). */
  rename?: (from: string, dir: string, name: string, isDirectory: boolean) => Promise<string>;
}

/** Copies one entry (file, folder, or what a selected link points to) to `to`, which must not exist. See copy-tree.ts for links inside folders. */
export async function copyEntry(from: SourceEntry, to: string): Promise<void> {
  await copyTree(from.path, to, { root: from.root, ...(from.leaveOut ? { leaveOut: from.leaveOut } : {}) });
}

class Skipped extends Error {
  readonly placed: PlacedEntry;
  constructor(placed: PlacedEntry) {
    super('skipped');
    this.placed = placed;
  }
}

export function createTransfer(journal: WorkJournal, options: TransferOptions = {}): Transfer {
  /** The same-filesystem move: a rename onto the name by the policy (the test seam stands in for keep-both). */
  const renameFree = async (from: string, dir: string, name: string, isDirectory: boolean, c: OnConflict) => {
    if (options.rename && c.policy === 'rename') {
      const final = await options.rename(from, dir, name, isDirectory);
      return { name: final, outcome: final === name ? 'placed' : 'renamed' } as PlacedEntry;
    }
    return placeEntry(from, dir, name, isDirectory, c.policy, c.replacer);
  };

  async function copyPlaced(
    from: SourceEntry,
    dir: Pick<Dir, 'path' | 'real' | 'at'>,
    name: string,
    removeSource: boolean,
    conflict: OnConflict,
  ): Promise<PlacedEntry> {
    const tempName = temporaryName();
    const temp = dir.at(tempName);
    const id = journal.begin(path.join(dir.real, tempName), removeSource ? from.real : undefined);
    let placed: PlacedEntry;
    try {
      await copyEntry(from, temp);
      // A selected link arrives as what it points to: place by what the temporary holds.
      const isDirectory = (await fsp.lstat(temp)).isDirectory();
      placed = await placeEntry(temp, dir.path, name, isDirectory, conflict.policy, conflict.replacer);
      // Skipped: the copy was for nothing, and a move's source stays where it is.
      if (placed.outcome === 'skipped') throw new Skipped(placed);
    } catch (err) {
      await fsp.rm(temp, { recursive: true, force: true }).catch(() => {});
      journal.end(id);
      if (err instanceof Skipped) return err.placed;
      throw err;
    }
    if (removeSource) {
      journal.placed(id, path.join(dir.real, placed.name));
      await fsp.rm(from.path, { recursive: true, force: true });
    }
    journal.end(id);
    return placed;
  }

  return {
    async move(fromArg, dirArg, name, isDirectory, conflict = KEEP_BOTH) {
      const from = entryOf(fromArg);
      const dir = dirOf(dirArg);
      try {
        return { ...(await renameFree(from.path, dir.path, name, isDirectory, conflict)), crossDevice: false };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      }
      return { ...(await copyPlaced(from, dir, name, true, conflict)), crossDevice: true };
    },
    copy(from, dir, name, _isDirectory, conflict = KEEP_BOTH) {
      return copyPlaced(entryOf(from), dirOf(dir), name, false, conflict);
    },
    async recover() {
      const rows = journal.left();
      const removedSources: string[] = [];
      let count = 0;
      for (const row of rows) {
        // Another instance may be finishing the same dead instance's rows: one of them takes each.
        if (!journal.claim(row)) continue;
        count++;
        if (row.phase === 'copying') {
          await fsp.rm(row.temp_path, { recursive: true, force: true }).catch(() => {});
        } else if (row.remove_source) {
          await fsp.rm(row.source_path, { recursive: true, force: true }).catch(() => {});
          removedSources.push(row.source_path);
        }
        journal.end(row.id);
      }
      return { count, removedSources };
    },
  };
}
