// File operations on the open folder. Each one talks to the public API, reports through a
// toast or the operations tray, and reloads what changed.
import { signal } from '@preact/signals';
import { ApiError, api, apiFetch, apiUrl, errorFrom, joinPath, parentOf, readEvents } from '../api/client.ts';
import type { ConflictChoice } from '../components/ConflictDialog.tsx';
import type { ConflictsAnswer, DeleteEvent, DeleteImpact, FileItem } from '../api/types.ts';
import { isDir } from '../api/types.ts';
import { askText } from '../components/Dialog.tsx';
import { favorites } from '../state/session.ts';
import { startTask } from '../state/tasks.ts';
import { toast, toastError } from '../state/toasts.ts';
import { folderPath, reload } from './model.ts';
import { outcomesSaid } from '../util.ts';

export interface Ref {
  path: string;
  name: string;
}
export const refOf = (i: FileItem): Ref => ({ path: i.path, name: i.name });
export const fullPath = (i: Ref) => joinPath(i.path, i.name);

/** Ctrl+C / Ctrl+X: what a later paste copies or moves. */
export const clipboard = signal<{ mode: 'copy' | 'move'; items: Ref[] } | null>(null);

/** The server follows renames and moves in favourites and drops deleted ones: read them again. */
export async function refreshFavorites(): Promise<void> {
  try {
    const list = await api('GET /api/favorites');
    if (Array.isArray(list)) favorites.value = [...list].sort((a, b) => a.position - b.position);
  } catch {
    /* the sidebar keeps what it had */
  }
}

export function newFolder(): void {
  const parent = folderPath.value;
  askText({
    title: 'New folder',
    label: 'Name',
    value: 'New folder',
    confirm: 'Create',
    action: async (name) => {
      const answer = await api('POST /api/files/folder', { body: { path: parent, name } });
      toast(`Created ${answer.item.name}`);
      await reload();
    },
  });
}

export function newFile(): void {
  const parent = folderPath.value;
  askText({
    title: 'New file',
    label: 'Name',
    value: 'New file.txt',
    confirm: 'Create',
    selectStem: true,
    action: async (name) => {
      const answer = await api('POST /api/files/file', { body: { path: parent, name } });
      toast(`Created ${answer.item.name}`);
      await reload();
    },
  });
}

export function rename(item: FileItem): void {
  askText({
    title: `Rename “${item.name}”`,
    label: 'New name',
    value: item.name,
    confirm: 'Rename',
    selectStem: !isDir(item),
    action: async (newName) => {
      if (newName === item.name) return;
      await api('POST /api/files/rename', { body: { path: item.path, name: item.name, newName } });
      toast(`Renamed to ${newName}`);
      await reload();
      if (isDir(item)) void refreshFavorites();
    },
  });
}

/**
 * The names a copy or move would find taken, asked about (components/ConflictDialog.tsx): each
 * item's answer, or null when the user cancelled. A server that cannot say keeps both.
 */
async function askAboutTaken(
  mode: 'copy' | 'move',
  items: Ref[],
  destination: string,
): Promise<Map<string, ConflictChoice> | null> {
  let answer: ConflictsAnswer;
  try {
    answer = await api('POST /api/files/conflicts', { body: { destination, items } });
  } catch {
    return new Map();
  }
  if (!answer.conflicts.length) return new Map();
  const { askConflicts } = await import('../components/ConflictDialog.tsx');
  const byName = await askConflicts(
    answer.conflicts.map((c) => ({ ...c, name: c.from ?? c.name, incoming: undefined })),
    { verb: mode, destination },
  );
  return byName;
}

export async function transfer(mode: 'copy' | 'move', items: Ref[], destination: string): Promise<void> {
  if (!items.length) return;
  const answers = await askAboutTaken(mode, items, destination);
  if (!answers) return;
  const asked = items.map((i) => {
    const conflict = answers.get(fullPath(i));
    return conflict ? { ...i, conflict } : i;
  });
  const verb = mode === 'copy' ? 'Copying' : 'Moving';
  const controller = new AbortController();
  const update = startTask(`${verb} ${items.length === 1 ? items[0]!.name : `${items.length} items`}`, () =>
    controller.abort(),
  );
  try {
    const input = { body: { items: asked, destination } };
    const answer = await (mode === 'copy'
      ? api('POST /api/files/copy', input, { signal: controller.signal })
      : api('POST /api/files/move', input, { signal: controller.signal }));
    const skipped = answer.items.filter((r) => r.outcome === 'skipped');
    const said = outcomesSaid(answer.items.map((r) => ({ outcome: r.outcome, name: baseName(r.to) })));
    update({ state: 'done', progress: 1, detail: said.length ? said.join('; ') : undefined });
    // Undo moves back what moved; a replace is undone from Versions or the trash.
    const moved = mode === 'move' ? answer.items.filter((r) => r.outcome === 'placed' || r.outcome === 'renamed') : [];
    toast(
      skipped.length === answer.items.length
        ? `Nothing ${mode === 'copy' ? 'copied' : 'moved'}: every name was taken`
        : `${mode === 'copy' ? 'Copied' : 'Moved'} to ${destination || 'the top'}${said.length ? ` (${said.join('; ')})` : ''}`,
      'success',
      undefined,
      moved.length ? { label: 'Undo', run: () => moveBack(moved) } : undefined,
    );
  } catch (err) {
    if ((err as Error).name === 'AbortError')
      update({ state: 'cancelled', detail: 'Stopped; what was already done stays.' });
    else {
      update({ state: 'failed', detail: (err as Error).message, requestId: (err as ApiError).requestId });
      toastError(err, `${verb} failed`);
    }
  }
  await reload();
  if (mode === 'move') void refreshFavorites();
}

const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** Undo of a move: each item goes back to the folder it came from (under the name it has now). */
async function moveBack(moved: { from: string; to: string }[]): Promise<void> {
  const byOrigin = new Map<string, Ref[]>();
  for (const m of moved) {
    const origin = parentOf(m.from);
    byOrigin.set(origin, [...(byOrigin.get(origin) ?? []), { path: parentOf(m.to), name: baseName(m.to) }]);
  }
  try {
    for (const [origin, refs] of byOrigin)
      await api('POST /api/files/move', { body: { items: refs, destination: origin } });
    toast(`Moved back ${moved.length === 1 ? baseName(moved[0]!.from) : `${moved.length} items`}`);
  } catch (err) {
    toastError(err, 'Undo failed');
  }
  await reload();
  void refreshFavorites();
}

type Gone = Ref & { trashId?: string | null };

/** Undo of a delete: each item's trash entry (the one the delete named, else the newest of that
 *  name and folder) is restored where it was. */
async function restoreDeleted(gone: Gone[]): Promise<void> {
  try {
    const { items: trash } = await api('GET /api/trash');
    const newestFirst = [...trash].sort((a, b) => Date.parse(b.deletedAt) - Date.parse(a.deletedAt));
    let restored = 0;
    for (const g of gone) {
      const entry = newestFirst.find((e) => (g.trashId ? e.id === g.trashId : e.path === g.path && e.name === g.name));
      if (!entry) continue;
      await api('POST /api/trash/items/:id/restore', { params: { id: entry.id } });
      restored++;
    }
    if (restored < gone.length)
      toast(`Restored ${restored} of ${gone.length}; the rest are no longer in the trash`, 'error');
    else toast(`Restored ${gone.length === 1 ? gone[0]!.name : `${gone.length} items`}`);
  } catch (err) {
    toastError(err, 'Undo failed');
  }
  await reload();
  void refreshFavorites();
}

export async function paste(): Promise<void> {
  const c = clipboard.value;
  if (!c) return;
  await transfer(c.mode, c.items, folderPath.value);
  if (c.mode === 'move') clipboard.value = null;
}

export async function deleteImpact(items: FileItem[]): Promise<DeleteImpact> {
  return api('POST /api/files/delete-impact', {
    body: { items: items.map((i) => ({ path: i.path, name: i.name, kind: i.kind })) },
  });
}

/** Deletes to trash through the streaming route, so long deletes show progress and can stop. */
export async function deleteItems(items: FileItem[]): Promise<void> {
  const body = { items: items.map((i) => ({ path: i.path, name: i.name, kind: i.kind })) };
  const controller = new AbortController();
  const update = startTask(`Deleting ${items.length === 1 ? items[0]!.name : `${items.length} items`}`, () =>
    controller.abort(),
  );
  try {
    const res = await apiFetch('POST /api/files/delete-stream', { body }, { signal: controller.signal });
    let failed: string | undefined;
    let gone: Gone[] = [];
    await readEvents<DeleteEvent>(res, (ev) => {
      if (ev.type === 'progress') update({ progress: ev.done / ev.total, detail: `${ev.done} of ${ev.total}` });
      else if (ev.type === 'error')
        failed = failed ? `${failed}; ${ev.name}: ${ev.message}` : `${ev.name}: ${ev.message}`;
      // The server's record also names the trash entry (and may give a full path without a name).
      else if (ev.type === 'done')
        gone = ev.items
          .filter((r) => r.status === 'deleted')
          .map((r) =>
            r.name
              ? { path: r.path, name: r.name, trashId: r.trashId }
              : { path: parentOf(r.path), name: baseName(r.path), trashId: r.trashId },
          );
    });
    if (failed) throw new Error(failed);
    update({ state: 'done', progress: 1 });
    toast(
      `Moved ${items.length === 1 ? items[0]!.name : `${items.length} items`} to the trash`,
      'success',
      undefined,
      gone.length ? { label: 'Undo', run: () => restoreDeleted(gone) } : undefined,
    );
  } catch (err) {
    if ((err as Error).name === 'AbortError')
      update({ state: 'cancelled', detail: 'Stopped; what was already deleted is in the trash.' });
    else {
      update({ state: 'failed', detail: (err as Error).message, requestId: (err as ApiError).requestId });
      toastError(err, 'Delete failed');
    }
  }
  await reload();
  void refreshFavorites();
}

/** Downloads one file or a selection (zip), with progress and cancel in the tray. */
export async function download(items: Ref[], kinds?: string[]): Promise<void> {
  if (!items.length) return;
  const single = items.length === 1 ? items[0]! : null;
  if (single && kinds?.[0] !== 'directory') {
    // One file: the browser's own download (streamed to disk, resumable, its own progress).
    const a = document.createElement('a');
    a.href = apiUrl('GET /api/download/*', { params: { path: fullPath(single) } });
    a.download = single.name;
    document.body.append(a);
    a.click();
    a.remove();
    return;
  }
  const body = single ? { path: fullPath(single) } : { paths: items.map(fullPath) };
  const controller = new AbortController();
  const update = startTask(`Downloading ${single ? single.name : `${items.length} items`}`, () => controller.abort());
  try {
    // fetch itself, not apiFetch: the answer is the file, read with its progress.
    const res = await fetch(apiUrl('POST /api/download', { body }), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: '*/*' },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    if (!res.ok) throw await errorFrom(res);
    const total = Number(res.headers.get('content-length') ?? 0);
    const chunks: Uint8Array[] = [];
    let got = 0;
    const reader = res.body!.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
      got += value.length;
      update({ progress: total ? got / total : null, detail: total ? undefined : `${Math.round(got / 1024)} KB` });
    }
    const name = fileNameFrom(res.headers.get('content-disposition')) ?? (single ? single.name : 'download.zip');
    const url = URL.createObjectURL(
      new Blob(chunks as BlobPart[], { type: res.headers.get('content-type') ?? 'application/octet-stream' }),
    );
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    update({ state: 'done', progress: 1 });
  } catch (err) {
    if ((err as Error).name === 'AbortError') update({ state: 'cancelled' });
    else {
      update({ state: 'failed', detail: (err as Error).message, requestId: (err as ApiError).requestId });
      toastError(err, 'Download failed');
    }
  }
}

function fileNameFrom(header: string | null): string | null {
  if (!header) return null;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[1]!);
    } catch {
      /* fall through */
    }
  }
  const plain = /filename="?([^";]+)"?/i.exec(header);
  return plain ? plain[1]! : null;
}

export async function toggleFavorite(path: string): Promise<void> {
  const existing = favorites.value.find((f) => f.path === path);
  try {
    if (existing) {
      await api('DELETE /api/favorites', { body: { path } });
      favorites.value = favorites.value.filter((f) => f.id !== existing.id);
      toast('Removed from favourites');
    } else {
      const fav = await api('POST /api/favorites', { body: { path } });
      favorites.value = [...favorites.value, fav];
      toast('Added to favourites');
    }
  } catch (err) {
    toastError(err);
  }
}

export async function reorderFavorites(order: string[]): Promise<void> {
  const before = favorites.value;
  const byId = new Map(before.map((f) => [f.id, f]));
  favorites.value = order.map((id, position) => ({ ...byId.get(id)!, position }));
  try {
    const answer = await api('PATCH /api/favorites/reorder', { body: { order } });
    if (Array.isArray(answer)) favorites.value = answer;
  } catch (err) {
    favorites.value = before;
    toastError(err, 'Could not reorder favourites');
  }
}
