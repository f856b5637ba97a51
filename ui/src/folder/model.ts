// State of the open folder: its listing, how it is sorted and shown, what is selected.
// One folder is open at a time, so this is module state read by the folder components.
import { computed, signal } from '@preact/signals';
import { ApiError, api, joinPath } from '../api/client.ts';
import type { Access, FileItem, Listing } from '../api/types.ts';
import { isDir } from '../api/types.ts';
import { preferences } from '../state/session.ts';
import { askUntilFinal, collator } from '../util.ts';
import type { FolderFigure } from './selection.ts';
import { watchFolder } from '../live/live.ts';
import { loadFolderTags } from '../tags/tags.tsx';
import { fetchViewPrefs, hasLocalViewPrefs, loadViewPrefs, saveViewPrefs } from './viewPrefs.ts';

export type SortKey = 'name' | 'size' | 'modified' | 'kind';
export interface ViewPrefs {
  view: 'list' | 'grid';
  sortBy: SortKey;
  sortDir: 'asc' | 'desc';
}

export const folderPath = signal<string>('');
export const listing = signal<Listing | null>(null);
export const loading = signal(false);
export const loadError = signal<unknown>(null);
export const viewPrefs = signal<ViewPrefs>({ view: 'list', sortBy: 'name', sortDir: 'asc' });
export const selected = signal<ReadonlySet<string>>(new Set());
export const focusIndex = signal(0);
export const anchorIndex = signal(0);
/** Bumped by keyboard moves so the focused entry is scrolled into view even when it did not change. */
export const focusTick = signal(0);
export const folderSizes = signal<Record<string, FolderFigure>>({});
/** The folder-size index is being asked about the open folder's sub-folders. */
export const folderSizesPending = signal(false);
/** Touch selection mode (phone file managers): a long press starts it, then a tap toggles an
 *  entry instead of opening it; it ends when nothing is selected any more or the folder changes. */
export const selectMode = signal(false);
export const touchSelecting = computed(() => selectMode.value && selected.value.size > 0);
/** The filter box: shows only the loaded entries whose names contain it (nothing is asked of the server). */
export const filterText = signal('');
/** A name to select once the folder has loaded ("open containing folder"). */
export const revealName = signal<string | null>(null);

export const access = computed<Access | null>(() => listing.value?.access ?? null);

export const items = computed<FileItem[]>(() => {
  const list = listing.value?.items ?? [];
  const showHidden = preferences.value.showHiddenFiles;
  const needle = filterText.value.trim().toLocaleLowerCase();
  const visible = list.filter(
    (i) => (showHidden || !i.name.startsWith('.')) && (!needle || i.name.toLocaleLowerCase().includes(needle)),
  );
  const { sortBy, sortDir } = viewPrefs.value;
  const sizes = folderSizes.value;
  const dir = sortDir === 'asc' ? 1 : -1;
  const sizeOf = (i: FileItem) => (isDir(i) ? (sizes[i.name]?.bytes ?? -1) : i.size);
  const cmp = (a: FileItem, b: FileItem) => {
    const da = isDir(a),
      db = isDir(b);
    if (da !== db) return da ? -1 : 1;
    let r = 0;
    if (sortBy === 'size') r = sizeOf(a) - sizeOf(b);
    else if (sortBy === 'modified') r = Date.parse(a.dateModified) - Date.parse(b.dateModified);
    else if (sortBy === 'kind') r = collator.compare(a.kind, b.kind);
    return (r || collator.compare(a.name, b.name)) * dir;
  };
  return [...visible].sort(cmp);
});

export const selectedItems = computed(() => items.value.filter((i) => selected.value.has(i.name)));

let loadSeq = 0;
/** The server answered a saved view choice for the open folder. */
let chosen = false;

const PICTURES = new Set(['jpg', 'jpeg', 'png', 'gif', 'webp', 'avif', 'heic', 'heif', 'bmp', 'tif', 'tiff', 'svg']);
function mostlyPictures(list: FileItem[]): boolean {
  const files = list.filter((i) => !isDir(i) && !i.name.startsWith('.'));
  return files.length >= 4 && files.filter((i) => PICTURES.has(i.kind)).length / files.length >= 0.6;
}
export async function openFolder(path: string): Promise<void> {
  const changed = path !== folderPath.value || !listing.value;
  folderPath.value = path;
  const seq = ++loadSeq;
  if (changed) {
    selected.value = new Set();
    selectMode.value = false;
    focusIndex.value = 0;
    anchorIndex.value = 0;
    stopSizes();
    folderSizes.value = {};
    folderSizesPending.value = false;
    filterText.value = '';
    listing.value = null;
    chosen = false;
    viewPrefs.value = loadViewPrefs(path);
    // The server's choice (it follows renames and moves) replaces the local copy when it answers.
    void fetchViewPrefs(path).then((v) => {
      if (v && folderPath.value === path) {
        viewPrefs.value = v;
        chosen = true;
      }
    });
  }
  loading.value = true;
  loadError.value = null;
  try {
    const answer = await api('GET /api/browse/*', { params: { path } });
    if (seq !== loadSeq) return;
    listing.value = answer;
    // A folder mostly of pictures opens as a grid until the person chooses (the choice is kept).
    if (changed && !chosen && !hasLocalViewPrefs(path) && mostlyPictures(answer.items))
      viewPrefs.value = { ...viewPrefs.value, view: 'grid' };
    const names = new Set(answer.items.map((i) => i.name));
    selected.value = new Set([...selected.value].filter((n) => names.has(n)));
    const reveal = revealName.value;
    if (reveal && names.has(reveal)) {
      revealName.value = null;
      const index = items.value.findIndex((i) => i.name === reveal);
      if (index >= 0) selectOnly(index);
    }
    void loadFolderSizes(path, answer.items);
    void loadFolderTags(path);
  } catch (err) {
    if (seq === loadSeq) loadError.value = err;
  } finally {
    if (seq === loadSeq) loading.value = false;
  }
}

export const reload = () => openFolder(folderPath.value);

/**
 * Keeps the open folder in step with what happens to it elsewhere (another tab, another
 * person, a shell on the server): its listing is fetched again, in place, when the server says
 * it changed, and after the live socket came back from an absence (nothing is replayed).
 */
export function followFolder(path: string): () => void {
  let first = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let sizesAgain: ReturnType<typeof setTimeout> | undefined;
  const stop = watchFolder(path, (m) => {
    if (m.type === 'pong') return;
    if (m.type === 'watching' && first) {
      first = false;
      return;
    }
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (path === folderPath.value) void openFolder(path);
    }, 50);
    // A sub-folder's recursive size is counted by the index a moment after the write: asked once more.
    if (m.type === 'changes' && m.events.some((e) => e.type === 'size')) {
      clearTimeout(sizesAgain);
      sizesAgain = setTimeout(() => {
        const l = listing.value;
        if (l && path === folderPath.value) void loadFolderSizes(path, l.items);
      }, 1500);
    }
  });
  return () => {
    clearTimeout(timer);
    clearTimeout(sizesAgain);
    stop();
  };
}

/** Stops asking again about the last folder's sizes. */
let stopSizes = () => {};

/**
 * Recursive sizes of the sub-folders, from the index (a lookup; never a scan), asked again while
 * any is still being counted (a first walk, a part counted again), so the figures become final.
 */
async function loadFolderSizes(path: string, list: FileItem[]): Promise<void> {
  stopSizes();
  stopSizes = () => {};
  const dirs = list.filter(isDir).slice(0, 500);
  if (!dirs.length || !path) return;
  folderSizesPending.value = true;
  await new Promise<void>((resolve) => {
    let first = true;
    const done = () => {
      if (first) {
        first = false;
        if (path === folderPath.value) folderSizesPending.value = false;
        resolve();
      }
    };
    stopSizes = askUntilFinal(
      () => api('POST /api/folder-size/batch', { body: { paths: dirs.map((d) => joinPath(path, d.name)) } }),
      (answer) => answer.items.some((r) => !r.complete),
      (answer) => {
        if (path === folderPath.value) {
          const sizes: Record<string, FolderFigure> = {};
          // One record per asked path, in order.
          answer.items.forEach((r, i) => {
            sizes[dirs[i]!.name] = { bytes: r.indexed ? r.sizeBytes : null, complete: r.complete };
          });
          folderSizes.value = sizes;
        }
        done();
      },
      (err) => {
        done();
        // Folder sizes are a bonus: an index that is off or missing leaves the column empty.
        if (!(err instanceof ApiError)) throw err;
      },
    );
  });
}

export function setViewPrefs(patch: Partial<ViewPrefs>): void {
  viewPrefs.value = { ...viewPrefs.value, ...patch };
  saveViewPrefs(folderPath.value, viewPrefs.value);
}

export function sortBy(key: SortKey): void {
  const v = viewPrefs.value;
  setViewPrefs(v.sortBy === key ? { sortDir: v.sortDir === 'asc' ? 'desc' : 'asc' } : { sortBy: key, sortDir: 'asc' });
}

export function selectOnly(index: number): void {
  const item = items.value[index];
  selected.value = new Set(item ? [item.name] : []);
  focusIndex.value = index;
  anchorIndex.value = index;
}

export function selectRange(to: number, additive = false): void {
  const list = items.value;
  const [a, b] = [Math.min(anchorIndex.value, to), Math.max(anchorIndex.value, to)];
  const next = new Set(additive ? selected.value : []);
  for (let i = a; i <= b; i++) next.add(list[i]!.name);
  selected.value = next;
  focusIndex.value = to;
}

export function toggle(index: number): void {
  const item = items.value[index];
  if (!item) return;
  const next = new Set(selected.value);
  if (next.has(item.name)) next.delete(item.name);
  else next.add(item.name);
  selected.value = next;
  focusIndex.value = index;
  anchorIndex.value = index;
}

export function selectAll(): void {
  selected.value = new Set(items.value.map((i) => i.name));
  // On a touch screen, "Select all" starts selection mode: taps then take entries out.
  selectMode.value = true;
}
