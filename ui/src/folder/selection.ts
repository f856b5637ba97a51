// What a selection weighs, in words: files by their size, folders by the folder-size index's
// recursive figure; "…" while the index is being asked, and said plainly when a folder's size
// is not known (the index off, shallow, or not there yet) — never counted as 0 bytes.
import type { FileItem } from '../api/types.ts';
import { isDir } from '../api/types.ts';
import { formatBytes } from '../util.ts';

export function selectionSize(
  sel: Pick<FileItem, 'name' | 'kind' | 'size'>[],
  /** The index's answer per folder name (null: not indexed; missing: not asked or not answered yet). */
  folderSizes: Record<string, number | null>,
  index: { recursive: boolean; pending: boolean },
): string {
  let bytes = 0;
  let unknown = 0;
  for (const i of sel) {
    if (!isDir(i)) bytes += i.size;
    else {
      const s = index.recursive ? folderSizes[i.name] : null;
      if (typeof s === 'number') bytes += s;
      else if (s === undefined && index.recursive && index.pending) return '…';
      else unknown++;
    }
  }
  if (!unknown) return formatBytes(bytes);
  if (unknown === sel.length) return 'size unknown';
  return `${formatBytes(bytes)} and ${unknown === 1 ? '1 folder' : `${unknown} folders`} of unknown size`;
}
