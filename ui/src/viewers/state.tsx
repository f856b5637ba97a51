// Which file is open full-window (viewer or editor). Tiny and in the first page's bundle; the
// viewer and the editor themselves are loaded on first use.
import { signal } from '@preact/signals';
import type { FileItem } from '../api/types.ts';
import { isDir } from '../api/types.ts';
import { Lazy } from '../components/Lazy.tsx';

export interface Viewing {
  items: FileItem[];
  index: number;
  canWrite: boolean;
}
export const viewing = signal<Viewing | null>(null);
/** The file open in the editor (full path, name). */
export const editing = signal<{ path: string; name: string; kind: string } | null>(null);

/** Opens `item` in the viewer; next/previous walk `siblings` (the folder's files, in its order). */
export function openViewer(item: FileItem, siblings: FileItem[], canWrite: boolean): void {
  const files = siblings.filter((i) => !isDir(i));
  const index = Math.max(
    0,
    files.findIndex((i) => i.name === item.name && i.path === item.path),
  );
  viewing.value = { items: files.length ? files : [item], index: files.length ? index : 0, canWrite };
}

/** The viewer's files as `fresh` (a new listing of their folder) has them: sizes and dates after a save. */
export function refreshViewed(fresh: FileItem[]): void {
  const v = viewing.value;
  if (!v) return;
  const byKey = new Map(fresh.map((i) => [`${i.path}\0${i.name}`, i]));
  const items = v.items.map((i) => byKey.get(`${i.path}\0${i.name}`) ?? i);
  if (items.some((i, k) => i !== v.items[k])) viewing.value = { ...v, items };
}

export function ViewerHost() {
  return (
    <>
      {viewing.value && !editing.value && <Lazy load={() => import('./Viewer.tsx')} props={{}} />}
      {editing.value && (
        <Lazy
          load={() => import('../editor/Editor.tsx')}
          props={{
            file: editing.value,
            onClose: () => {
              editing.value = null;
            },
          }}
        />
      )}
    </>
  );
}
