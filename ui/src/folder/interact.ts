// What the pointer and keyboard do in the folder view.
import { signal } from '@preact/signals';
import type { FileItem } from '../api/types.ts';
import { isDir } from '../api/types.ts';
import { joinPath, parentOf } from '../api/client.ts';
import { openMenu, type MenuItem } from '../components/ContextMenu.tsx';
import { favorites } from '../state/session.ts';
import { filesUrl, navigate } from '../state/router.ts';
import { collectDropped, startUpload } from '../upload/start.ts';
import { addFromLink } from './fetch.ts';
import {
  clipboard,
  download,
  fullPath,
  newFile,
  newFolder,
  paste,
  refOf,
  rename,
  toggleFavorite,
  transfer,
} from './actions.ts';
import { confirmDelete, copyMoveDialog } from './dialogs.tsx';
import { openAtAddress, openViewer } from '../viewers/state.tsx';
import { officeKindFor } from '../office/state.tsx';
import { archiveUrl, isArchiveName } from '../archives/kinds.ts';
import { compressToZip, extractArchive, extractToDialog } from '../archives/actions.tsx';
import {
  access,
  focusIndex,
  focusTick,
  folderPath,
  items,
  reload,
  selectAll,
  selectOnly,
  selectRange,
  selected,
  selectedItems,
} from './model.ts';

/** The file whose details/versions panel is open. */
export const detailsItem = signal<FileItem | null>(null);

export function openItem(item: FileItem): void {
  if (isDir(item)) navigate(filesUrl(joinPath(item.path, item.name)));
  else if (isArchiveName(item.name)) navigate(archiveUrl(joinPath(item.path, item.name)));
  // A document an office integration handles opens in it, as in the peers' file managers, at
  // its own address (viewers/state.tsx opens the editor there: reload, a bookmark, Back).
  else if (officeKindFor(item.name)) openAtAddress(joinPath(item.path, item.name));
  else openViewer(item, items.value, access.value?.canWrite === true);
}

export function showItemMenu(x: number, y: number): void {
  const sel = selectedItems.value;
  const one = sel.length === 1 ? sel[0]! : null;
  const a = access.value;
  const fav = one && favorites.value.some((f) => f.path === fullPath(one));
  const entries: MenuItem[] = [
    ...(one ? [{ label: 'Open', action: () => openItem(one), shortcut: 'Enter' }] : []),
    ...(one && !isDir(one) && officeKindFor(one.name)
      ? [{ label: 'Open in editor', action: () => openAtAddress(joinPath(one.path, one.name)) }]
      : []),
    {
      label: sel.length > 1 ? `Download ${sel.length} items as zip` : 'Download',
      action: () =>
        void download(
          sel.map(refOf),
          sel.map((i) => i.kind),
        ),
      disabled: a?.canDownload === false,
    },
    'separator',
    ...(one ? [{ label: 'Rename…', action: () => rename(one), disabled: !a?.canWrite, shortcut: 'F2' }] : []),
    { label: 'Copy to…', action: () => copyMoveDialog('copy', sel) },
    { label: 'Move to…', action: () => copyMoveDialog('move', sel), disabled: !a?.canWrite },
    {
      label: 'Copy',
      action: () => {
        clipboard.value = { mode: 'copy', items: sel.map(refOf) };
      },
      shortcut: 'Ctrl+C',
    },
    {
      label: 'Cut',
      action: () => {
        clipboard.value = { mode: 'move', items: sel.map(refOf) };
      },
      disabled: !a?.canWrite,
      shortcut: 'Ctrl+X',
    },
    'separator',
    ...(one
      ? [
          {
            label: fav ? 'Remove from favourites' : 'Add to favourites',
            action: () => void toggleFavorite(fullPath(one)),
          },
        ]
      : []),
    ...(one
      ? [
          {
            label: 'Share…',
            action: () =>
              void import('../shares/ShareDialog.tsx').then((m) =>
                m.openShareDialog({ path: fullPath(one), name: one.name, isDirectory: isDir(one) }),
              ),
            disabled: a?.canShare === false,
          },
        ]
      : []),
    ...(one && isArchiveName(one.name)
      ? [
          {
            label: 'Extract here',
            action: () => void extractArchive(fullPath(one), [], undefined, () => void reload()),
            disabled: !a?.canWrite,
          },
          { label: 'Extract to…', action: () => extractToDialog(fullPath(one), [], () => void reload()) },
        ]
      : []),
    { label: 'Compress to zip…', action: () => compressSelection(sel), disabled: !a?.canWrite },
    { label: sel.length > 1 ? `Tag ${sel.length} items…` : 'Tags…', action: () => tagSelection(sel) },
    ...(one && !isDir(one)
      ? [
          {
            label: 'Details and versions',
            action: () => {
              detailsItem.value = one;
            },
          },
        ]
      : []),
    { label: 'Delete…', action: () => void confirmDelete(sel), danger: true, disabled: !a?.canWrite, shortcut: 'Del' },
  ];
  openMenu(x, y, entries);
}

/** "Tags…" of these entries of the open folder. */
export function tagSelection(sel: FileItem[]): void {
  void import('../tags/TagDialog.tsx').then((m) =>
    m.openTagDialog(sel.map((i) => ({ path: joinPath(i.path, i.name), name: i.name }))),
  );
}

/** "Compress to zip…" of these entries of the open folder (the name is asked first). */
export function compressSelection(sel: FileItem[]): void {
  const folder = folderPath.value;
  compressToZip(
    sel.map((i) => ({ path: i.path, name: i.name, isDirectory: isDir(i) })),
    folder.slice(folder.lastIndexOf('/') + 1),
    () => void reload(),
  );
}

export function pickFiles(folders: boolean): void {
  const input = document.createElement('input');
  input.type = 'file';
  input.multiple = true;
  if (folders) input.webkitdirectory = true;
  const target = folderPath.value;
  input.onchange = () => {
    const files = Array.from(input.files ?? []).map((file) => ({
      file,
      relativePath: file.webkitRelativePath || file.name,
    }));
    void startUpload(files, target, () => {
      if (folderPath.value === target) void reload();
    });
  };
  input.click();
}

export function showAreaMenu(x: number, y: number): void {
  const a = access.value;
  const c = clipboard.value;
  openMenu(x, y, [
    { label: 'New folder…', action: newFolder, disabled: !a?.canWrite },
    { label: 'New file…', action: newFile, disabled: !a?.canWrite },
    { label: 'Upload files…', action: () => pickFiles(false), disabled: !a?.canUpload },
    { label: 'Upload a folder…', action: () => pickFiles(true), disabled: !a?.canUpload },
    { label: 'Add from link…', action: addFromLink, disabled: !a?.canUpload },
    'separator',
    {
      label: c ? `Paste ${c.items.length} item${c.items.length === 1 ? '' : 's'}` : 'Paste',
      action: () => void paste(),
      disabled: !c || !a?.canWrite,
      shortcut: 'Ctrl+V',
    },
    { label: 'Select all', action: selectAll, shortcut: 'Ctrl+A' },
    { label: 'Refresh', action: () => void reload() },
  ]);
}

export function dragStart(e: DragEvent, item: FileItem): void {
  if (!selected.value.has(item.name)) selectOnly(items.value.indexOf(item));
  const refs = selectedItems.value.map(refOf);
  e.dataTransfer!.setData('application/x-burrow-items', JSON.stringify(refs));
  e.dataTransfer!.setData('text/plain', refs.map(fullPath).join('\n'));
  e.dataTransfer!.effectAllowed = 'copyMove';
}

/** A drop on a folder entry, on the empty area (`null` = this folder), a crumb or a favourite. */
export function dropOnto(e: DragEvent, item: FileItem | null, destinationPath?: string): void {
  const dt = e.dataTransfer!;
  const destination = destinationPath ?? (item ? joinPath(item.path, item.name) : folderPath.value);
  const ours = dt.getData('application/x-burrow-items');
  if (ours) {
    const refs = JSON.parse(ours) as { path: string; name: string }[];
    const moving = refs.filter((r) => (joinPath(r.path, r.name) !== destination && r.path !== destination) || e.altKey);
    if (!moving.length) return;
    void transfer(e.altKey ? 'copy' : 'move', moving, destination);
    return;
  }
  if (dt.types.includes('Files')) {
    const here = folderPath.value;
    void collectDropped(dt).then((files) =>
      startUpload(files, destination, () => {
        if (folderPath.value === here) void reload();
      }),
    );
  }
}

// Type-ahead find: letters typed within a second of each other make a prefix; the first entry
// whose name starts with it is selected (one letter typed again steps through its names).
let typed = '';
let typedAt = 0;
function typeAhead(e: KeyboardEvent): void {
  e.preventDefault();
  const now = Date.now();
  const key = e.key.toLocaleLowerCase();
  typed = now - typedAt > 1000 ? key : typed + key;
  typedAt = now;
  const list = items.value;
  const names = list.map((i) => i.name.toLocaleLowerCase());
  const repeat = typed.length > 1 && [...typed].every((c) => c === key);
  let index = -1;
  if (repeat) {
    const from = focusIndex.value + 1;
    for (let k = 0; k < list.length && index < 0; k++) {
      const at = (from + k) % list.length;
      if (names[at]!.startsWith(key)) index = at;
    }
  } else index = names.findIndex((n) => n.startsWith(typed));
  if (index < 0) return;
  focusTick.value++;
  selectOnly(index);
}

export function handleKey(e: KeyboardEvent, cols: number, page: number): void {
  const list = items.value;
  const n = list.length;
  const i = focusIndex.value;
  const mod = e.ctrlKey || e.metaKey;
  const go = (to: number) => {
    e.preventDefault();
    focusTick.value++;
    const t = Math.max(0, Math.min(n - 1, to));
    if (e.shiftKey) selectRange(t);
    else if (mod) focusIndex.value = t;
    else selectOnly(t);
  };
  switch (e.key) {
    case 'ArrowDown':
      return go(i + cols);
    case 'ArrowUp':
      return go(i - cols);
    case 'ArrowRight':
      if (cols > 1) go(i + 1);
      return;
    case 'ArrowLeft':
      if (cols > 1) go(i - 1);
      return;
    case 'Home':
      return go(0);
    case 'End':
      return go(n - 1);
    case 'PageDown':
      return go(i + page * cols);
    case 'PageUp':
      return go(i - page * cols);
    case ' ':
      if (mod) {
        e.preventDefault();
        const it = list[i];
        if (it) {
          const s = new Set(selected.value);
          if (s.has(it.name)) s.delete(it.name);
          else s.add(it.name);
          selected.value = s;
        }
      }
      return;
    case 'Escape':
      if (selected.value.size) {
        e.preventDefault();
        selected.value = new Set();
      }
      return;
    case 'Enter': {
      e.preventDefault();
      const it = selectedItems.value[0] ?? list[i];
      if (it) openItem(it);
      return;
    }
    case 'Backspace':
      e.preventDefault();
      if (folderPath.value.includes('/')) navigate(filesUrl(parentOf(folderPath.value)));
      else navigate('/');
      return;
    case 'Delete':
      e.preventDefault();
      if (selectedItems.value.length && access.value?.canWrite) void confirmDelete(selectedItems.value);
      return;
    case 'F2': {
      e.preventDefault();
      const one = selectedItems.value;
      if (one.length === 1 && access.value?.canWrite) rename(one[0]!);
      return;
    }
    case 'ContextMenu': {
      e.preventDefault();
      const el = document.getElementById(`entry-${i}`);
      const r = el?.getBoundingClientRect();
      if (list[i] && !selected.value.has(list[i]!.name)) selectOnly(i);
      showItemMenu(r?.left ?? 100, r?.bottom ?? 100);
      return;
    }
  }
  if (!mod && !e.altKey && e.key.length === 1 && (e.key !== ' ' || typed)) {
    typeAhead(e);
    return;
  }
  if (!mod) return;
  const k = e.key.toLowerCase();
  if (k === 'a') {
    e.preventDefault();
    selectAll();
  } else if (k === 'c' && selectedItems.value.length) {
    e.preventDefault();
    clipboard.value = { mode: 'copy', items: selectedItems.value.map(refOf) };
  } else if (k === 'x' && selectedItems.value.length) {
    e.preventDefault();
    clipboard.value = { mode: 'move', items: selectedItems.value.map(refOf) };
  } else if (k === 'v') {
    e.preventDefault();
    void paste();
  }
}
