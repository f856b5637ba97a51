// Archive operations from the UI: extraction with its progress in the operations tray (the
// NDJSON events of POST /api/archive/extract), and a selection into a new zip under a name asked.
import { ApiError, errorFrom, joinPath, post } from '../api/client.ts';
import type { ItemAnswer } from '../api/types.ts';
import { askText, showDialog } from '../components/Dialog.tsx';
import { FolderPicker } from '../components/FolderPicker.tsx';
import { startTask } from '../state/tasks.ts';
import { toast, toastError } from '../state/toasts.ts';
import { defaultZipStem, zipName } from '../../../src/archives/zip-name.ts';

type ExtractEvent =
  | { type: 'start'; archive: string; entries: number | null; bytes: number | null }
  | { type: 'progress'; entries: number; bytes: number; totalEntries: number | null; totalBytes: number | null }
  | {
      type: 'done';
      entries: number;
      bytes: number;
      landed: { entry: string; name: string }[];
      skipped: { entry: string; reason: string }[];
    }
  | { type: 'error'; message: string; statusCode: number; code?: string };

const nameOf = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const folderOfPath = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');

/**
 * Extracts `entries` (all when empty) of the archive into `destination` (its own folder when
 * absent). Resolves with the names the entries landed under, or null when it failed.
 */
export async function extractArchive(
  archivePath: string,
  entries: string[],
  destination?: string,
  onDone?: () => void,
): Promise<{ entry: string; name: string }[] | null> {
  const controller = new AbortController();
  const what =
    entries.length === 1 ? nameOf(entries[0]!) : entries.length ? `${entries.length} items` : nameOf(archivePath);
  const update = startTask(`Extracting ${what}`, () => controller.abort());
  try {
    const res = await fetch('/api/archive/extract', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify({ path: archivePath, entries, ...(destination !== undefined ? { destination } : {}) }),
      signal: controller.signal,
    });
    if (!res.ok) throw await errorFrom(res);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let done: Extract<ExtractEvent, { type: 'done' }> | undefined;
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) break;
      buffer += value;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (!line) continue;
        const ev = JSON.parse(line) as ExtractEvent;
        if (ev.type === 'progress')
          update({
            progress: ev.totalBytes ? ev.bytes / ev.totalBytes : null,
            detail: `${ev.entries}${ev.totalEntries ? ` of ${ev.totalEntries}` : ''} files`,
          });
        else if (ev.type === 'error') throw Object.assign(new Error(ev.message), { status: ev.statusCode });
        else if (ev.type === 'done') done = ev;
      }
    }
    if (!done) throw new Error('The extraction stopped without finishing.');
    const landed = done.landed.map((l) => l.name);
    const renamed = done.landed.filter((l) => l.name !== nameOf(l.entry));
    update({
      state: 'done',
      progress: 1,
      detail: `Landed as ${landed.join(', ')}${done.skipped.length ? ` · ${done.skipped.length} links or devices not written` : ''}`,
    });
    toast(
      `Extracted to ${(destination ?? folderOfPath(archivePath)) || 'the folder'}: ${landed.join(', ')}${renamed.length ? ' (renamed to avoid overwriting)' : ''}`,
    );
    return done.landed;
  } catch (err) {
    if ((err as Error).name === 'AbortError')
      update({ state: 'cancelled', detail: 'Stopped; nothing it had written was kept.' });
    else {
      update({ state: 'failed', detail: (err as Error).message, requestId: (err as ApiError).requestId });
      toastError(err, 'Extraction failed');
    }
    return null;
  } finally {
    onDone?.();
  }
}

/** "Extract to…": pick a folder, then extract there. */
export function extractToDialog(archivePath: string, entries: string[], onDone?: () => void): void {
  showDialog((close) => (
    <FolderPicker
      title={`Extract ${entries.length === 1 ? `“${nameOf(entries[0]!)}”` : entries.length ? `${entries.length} items` : `“${nameOf(archivePath)}”`} to…`}
      start={folderOfPath(archivePath)}
      confirm="Extract here"
      onClose={close}
      onPick={(dest) => {
        void extractArchive(archivePath, entries, dest, onDone);
      }}
    />
  ));
}

/**
 * "Compress to zip": asks for the zip's name, proposing what the server would choose (one item's
 * name, a file's without its extension, or the folder's, with `.zip`), then makes it beside the
 * items. The server's rules still apply: `.zip` is added when missing, `name (1).zip` when taken.
 */
export function compressToZip(
  items: { path: string; name: string; isDirectory: boolean }[],
  folderName: string,
  onDone?: () => void,
): void {
  if (!items.length) return;
  askText({
    title: items.length === 1 ? `Compress “${items[0]!.name}” to zip` : `Compress ${items.length} items to zip`,
    label: 'Name of the zip',
    value: zipName(defaultZipStem(items, folderName)),
    confirm: 'Compress',
    selectStem: true,
    action: (name) => {
      void compress(
        items.map(({ path, name }) => ({ path, name })),
        name.trim(),
        onDone,
      );
    },
  });
}

async function compress(items: { path: string; name: string }[], name: string, onDone?: () => void): Promise<void> {
  const update = startTask(`Compressing ${items.length === 1 ? items[0]!.name : `${items.length} items`} into ${name}`);
  try {
    const answer = await post<ItemAnswer>('/api/files/zip/compress', { items, name });
    update({ state: 'done', progress: 1, detail: `Created ${answer.item.name}` });
    toast(`Created ${joinPath(answer.item.path, answer.item.name)}`);
  } catch (err) {
    update({ state: 'failed', detail: (err as Error).message, requestId: (err as ApiError).requestId });
    toastError(err, 'Compressing failed');
  } finally {
    onDone?.();
  }
}
