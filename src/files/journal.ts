// Work in flight that a crash must not leave half done, one row each (`file_op_journal`): a tree
// built under a hidden temporary name (an extraction, a new zip, a WebDAV PUT or Depth 0 COPY, an
// editor or office save, a restored version, an upload or a copy across file systems), and for a
// move also the source to remove once the copy is placed. The row is written before the temporary
// exists and ended once it took its name or was removed, on every path. At the next start the
// transfer's recovery (transfer.ts) reads the rows left: phase 'copying' removes the temporary,
// 'placed' removes the source. Paths are real paths: no descriptor survives a restart.
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { WorkJournal } from './journal-store.ts';
import type { Dir } from './confined.ts';
import { temporaryName } from './names.ts';

export type { JournalRow, WorkJournal } from './journal-store.ts';

/**
 * Runs `build` with a fresh temporary in `dir` (its path through `dir`, and its name), on the journal from
 * before anything exists under it until `build` settles. `build` gives it its name or leaves it;
 * when `build` fails, whatever it left there is removed (and the failure is what is thrown).
 */
export async function withTemporary<T>(
  journal: WorkJournal,
  dir: Dir,
  build: (temp: string, name: string) => Promise<T>,
): Promise<T> {
  const name = temporaryName();
  const row = journal.begin(path.join(dir.real, name));
  try {
    return await build(dir.at(name), name);
  } catch (err) {
    await fsp.rm(dir.at(name), { recursive: true, force: true }).catch(() => {});
    throw err;
  } finally {
    journal.end(row);
  }
}
