// What the rest of the server sees of the indexer and its maintenance: the folder-size and
// search services read figures and covers, browse reports folders on screen. Nothing else of
// the Indexer/Maintenance pair (walks, the worker, the store) leaks past indexer/.
import type { Coverage, FolderFigures, Placement } from './indexer.ts';

export type { Coverage, FolderFigures, Placement };

export interface Indexes {
  /** A space root the caller reached: known to the index from now on (walked when owed). */
  ensureRoot(realRoot: string): void;
  /** Size and entry count of a folder, as far as the index knows them. */
  figures(realPath: string): FolderFigures;
  /** A file's size as the index has it, or null when the index has no row of that file. */
  fileSize(realPath: string): number | null;
  /** Whether the index's totals count what a write placed (see Indexer.counts). */
  counts(placed: Placement): boolean;
  /** The root and relative path covering a folder, once that root's catalogue is complete; else null. */
  readyCover(realPath: string): Coverage | null;
  /** A folder is on screen: re-check its entries soon, in the background. */
  noteViewed(realPath: string): void;
}
