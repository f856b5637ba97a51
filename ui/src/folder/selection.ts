// What a selection weighs, in words: files by their size, folders by the folder-size index's
// recursive figure; "…" while the index is being asked or still counts a folder, "at least" while
// a figure is a lower bound, and said plainly when a folder's size is not known (the index off,
// shallow, or excluded) — never counted as 0 bytes, and a partial figure never read as final.
import type { FileItem } from '../api/types.ts';
import { isDir } from '../api/types.ts';
import { formatBytes } from '../util.ts';

/** The index's answer for a folder: its figure (null: none) and whether it is final. */
export interface FolderFigure {
  bytes: number | null;
  complete: boolean;
}

export function selectionSize(
  sel: Pick<FileItem, 'name' | 'kind' | 'size'>[],
  /** The index's answer per folder name (missing: not asked or not answered yet). */
  folderSizes: Record<string, FolderFigure>,
  index: { recursive: boolean; pending: boolean },
): string {
  let bytes = 0;
  let unknown = 0;
  let partial = false;
  for (const i of sel) {
    if (!isDir(i)) bytes += i.size;
    else {
      const f = index.recursive ? folderSizes[i.name] : null;
      if (f === undefined && index.recursive && index.pending) return '…';
      if (f && f.bytes === null && !f.complete) return '…'; // its first count is under way
      if (f && f.bytes !== null) {
        bytes += f.bytes;
        partial ||= !f.complete;
      } else unknown++;
    }
  }
  const sum = `${partial ? 'at least ' : ''}${formatBytes(bytes)}`;
  if (!unknown) return sum;
  if (unknown === sel.length) return 'size unknown';
  return `${sum} and ${unknown === 1 ? '1 folder' : `${unknown} folders`} of unknown size`;
}

/** A folder's figure in the list's size column: '≥' before a lower bound, '…' while counted. */
export function folderSizeCell(f: FolderFigure | undefined): string {
  if (!f) return '—';
  if (f.bytes === null) return f.complete ? '—' : '…';
  return `${f.complete ? '' : '≥ '}${formatBytes(f.bytes)}`;
}
