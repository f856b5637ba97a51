// Which file is open full-window (viewer or editor). Tiny and in the first page's bundle; the
// viewer and the editor themselves are loaded on first use.
//
// The viewer follows the address bar: an open file's address is `/files/<its path>` (see
// state/router.ts), so reload, a bookmark, a link and Back/Forward all show the same file. Opened
// from its folder, the viewer stands on a history entry of its own (`burrowViewer`), so Back
// closes it; opened from an address, closing it goes to the folder.
import { effect, signal, untracked } from '@preact/signals';
import { baseName, joinPath, parentOf } from '../api/client.ts';
import type { FileItem } from '../api/types.ts';
import { isDir } from '../api/types.ts';
import { archiveUrl, isArchiveName } from '../archives/kinds.ts';
import { Lazy } from '../components/Lazy.tsx';
import { access, items as folderItems, listing } from '../folder/model.ts';
import { officeKindFor, officeOpen, openInOfficeEditor } from '../office/state.tsx';
import { addressOf, fileOf, filesUrl, learnAddress, location, navigate } from '../state/router.ts';

export interface Viewing {
  items: FileItem[];
  index: number;
  canWrite: boolean;
}
export const viewing = signal<Viewing | null>(null);
/** The file open in the editor (full path, name). */
export const editing = signal<{ path: string; name: string; kind: string } | null>(null);

const pathOf = (i: FileItem) => joinPath(i.path, i.name);
/** Files the server answered at their own address (a hidden file is missing from its folder's listing). */
const answered = new Map<string, FileItem>();

function show(item: FileItem, siblings: FileItem[], canWrite: boolean): void {
  const files = siblings.filter((i) => !isDir(i));
  const index = files.findIndex((i) => i.name === item.name && i.path === item.path);
  viewing.value = index < 0 ? { items: [item], index: 0, canWrite } : { items: files, index, canWrite };
}

/** Opens `item` in the viewer, at its own address; next/previous walk `siblings` (the folder's files, in its order). */
export function openViewer(item: FileItem, siblings: FileItem[], canWrite: boolean): void {
  const path = pathOf(item);
  show(item, siblings, canWrite);
  learnAddress(path, 'file');
  navigate(filesUrl(path), { state: { burrowViewer: true }, keepScroll: true });
}

/**
 * Opens a file at its own address as a new history entry (Back leaves it): the viewer, or the
 * office editor for a document an office integration handles — whatever the address opens.
 */
export function openAtAddress(path: string): void {
  learnAddress(path, 'file');
  navigate(filesUrl(path), { state: { burrowViewer: true }, keepScroll: true });
}

/** Shows the viewer's file number `index` (next/previous): the address follows, on the same history entry. */
export function viewAt(index: number): void {
  const v = viewing.value;
  const item = v?.items[index];
  if (!v || !item) return;
  viewing.value = { ...v, index };
  learnAddress(pathOf(item), 'file');
  navigate(filesUrl(pathOf(item)), { replace: true, state: history.state, keepScroll: true });
}

/** Closes the viewer: Back off its own entry, or to its folder when it was opened from an address. */
export function closeViewer(): void {
  const v = viewing.value;
  if (history.state?.burrowViewer) history.back();
  else if (v) navigate(filesUrl(parentOf(pathOf(v.items[v.index]!))), { keepScroll: true });
  else viewing.value = null;
}

/** The viewer's files as `fresh` (a new listing of their folder) has them: sizes and dates after a save. */
export function refreshViewed(fresh: FileItem[]): void {
  const v = viewing.value;
  if (!v) return;
  const byKey = new Map(fresh.map((i) => [`${i.path}\0${i.name}`, i]));
  const items = v.items.map((i) => byKey.get(`${i.path}\0${i.name}`) ?? i);
  if (items.some((i, k) => i !== v.items[k])) viewing.value = { ...v, items };
}

// The address decides what is open. Runs when the address or the folder's listing changes.
effect(() => {
  const loc = location.value;
  const l = listing.value;
  const file = fileOf(loc);
  const target = addressOf(loc);
  untracked(() => {
    if (target && !file && l) {
      // The address names an entry of the folder on screen (Back, Forward, a Markdown link)…
      const entry = l.path === parentOf(target) ? l.items.find((i) => i.name === baseName(target)) : undefined;
      // …or the server answered the address itself with one file (a reload, a bookmark).
      if (l.path === target && !l.current.isDirectory && l.items[0]) answered.set(target, l.items[0]);
      if ((entry && !isDir(entry)) || answered.has(target)) return learnAddress(target, 'file'); // runs this again
      // A folder; or taken for a file and not in its folder (hidden, gone): listed at its own address.
      if (l.path === target || l.path === parentOf(target)) learnAddress(target, 'folder');
    }
    const v = viewing.value;
    const office = officeOpen.value;
    if (office && joinPath(office.path, office.name) !== file) officeOpen.value = null;
    if (!file) {
      if (v) viewing.value = null;
      return;
    }
    if (v && pathOf(v.items[v.index]!) === file) return;
    if (office && joinPath(office.path, office.name) === file) return;
    if (!l || l.path !== parentOf(file) || !l.current.isDirectory) {
      // Its folder is still loading; the viewer opens with the listing.
      if (v) viewing.value = null;
      return;
    }
    const item = l.items.find((i) => i.name === baseName(file)) ?? answered.get(file);
    if (!item || isDir(item)) {
      // Gone, or a folder now: the address is asked again, and shows what the server answers.
      answered.delete(file);
      return learnAddress(file, 'folder');
    }
    if (isArchiveName(item.name)) return navigate(archiveUrl(file), { replace: true });
    // A document an office integration handles opens in its editor, as from the list.
    if (officeKindFor(item.name)) {
      if (v) viewing.value = null;
      return openInOfficeEditor(item.path, item.name, access.value?.canWrite === true);
    }
    show(item, folderItems.value, access.value?.canWrite === true);
  });
});

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
