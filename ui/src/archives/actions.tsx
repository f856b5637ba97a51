// Archive operations from the UI: extraction with its progress in the operations tray (the
// NDJSON events of POST /api/archive/extract), and a selection into a new zip under a name asked.
import { api, ApiError, apiFetch, joinPath, readEvents } from '../api/client.ts';
import type { ExtractEvent } from '../api/types.ts';
import { askText, showDialog } from '../components/Dialog.tsx';
import { FolderPicker } from '../components/FolderPicker.tsx';
import { startTask } from '../state/tasks.ts';
import { toast, toastError } from '../state/toasts.ts';
import { outcomesSaid } from '../util.ts';
import { defaultZipStem, zipName } from '../../../src/archives/zip-name.ts';
import type { ExtractEvents } from '../../../src/archives/wire.ts';
import type { ConflictChoice } from '../components/ConflictDialog.tsx';

/** A selected item as it landed (its name, and what became of it when the name was taken). */
type Landed = ExtractEvents['done']['landed'][number];

const nameOf = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const folderOfPath = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');

/** The listing's `2024-05-01 13:45:07` (the server's local time) as a date every browser reads. */
const listedDate = (modified: string | null) => (modified ? modified.replace(' ', 'T') : undefined);

/**
 * The selected items whose names are taken in the destination, asked about
 * (components/ConflictDialog.tsx): each entry's answer, or null when the user cancelled. A
 * server that cannot say (an archive too large to list first) keeps both.
 */
async function askAboutTaken(
  archivePath: string,
  entries: string[],
  destination: string | undefined,
): Promise<Map<string, ConflictChoice> | null> {
  let answer;
  try {
    answer = await api('POST /api/archive/conflicts', {
      body: { path: archivePath, entries, ...(destination !== undefined ? { destination } : {}) },
    });
  } catch {
    return new Map();
  }
  if (!answer.conflicts.length) return new Map();
  const { askConflicts } = await import('../components/ConflictDialog.tsx');
  return askConflicts(
    answer.conflicts.map((c) => ({
      name: c.entry,
      existing: c.existing,
      sameKind: c.sameKind,
      canReplace: c.canReplace,
      incoming: {
        isDirectory: c.incoming.isDirectory,
        ...(c.incoming.size !== null ? { size: c.incoming.size } : {}),
        ...(listedDate(c.incoming.modified) ? { modified: listedDate(c.incoming.modified)! } : {}),
      },
    })),
    { verb: 'extract', destination: answer.destination },
  );
}

/**
 * Extracts `entries` (all when empty) of the archive into `destination` (its own folder when
 * absent), asking first about names already taken there. Resolves with what became of each
 * selected item, or null when it failed or was cancelled.
 */
export async function extractArchive(
  archivePath: string,
  entries: string[],
  destination?: string,
  onDone?: () => void,
): Promise<Landed[] | null> {
  const answers = await askAboutTaken(archivePath, entries, destination);
  if (!answers) {
    onDone?.();
    return null;
  }
  const controller = new AbortController();
  const what =
    entries.length === 1 ? nameOf(entries[0]!) : entries.length ? `${entries.length} items` : nameOf(archivePath);
  const update = startTask(`Extracting ${what}`, () => controller.abort());
  try {
    const body = {
      path: archivePath,
      entries,
      ...(destination !== undefined ? { destination } : {}),
      ...(answers.size ? { conflictFor: Object.fromEntries(answers) } : {}),
    };
    const res = await apiFetch(
      'POST /api/archive/extract',
      { body },
      { signal: controller.signal, headers: { accept: 'application/x-ndjson' } },
    );
    let done: Extract<ExtractEvent, { type: 'done' }> | undefined;
    await readEvents<ExtractEvent>(res, (ev) => {
      if (ev.type === 'progress')
        update({
          progress: ev.totalBytes ? ev.bytes / ev.totalBytes : null,
          detail: `${ev.entries}${ev.totalEntries ? ` of ${ev.totalEntries}` : ''} files`,
        });
      else if (ev.type === 'error') throw Object.assign(new Error(ev.message), { status: ev.statusCode });
      else if (ev.type === 'done') done = ev;
    });
    if (!done) throw new Error('The extraction stopped without finishing.');
    const landed = done.landed.filter((l) => l.outcome !== 'skipped').map((l) => l.name);
    const said = outcomesSaid(done.landed);
    const where = (destination ?? folderOfPath(archivePath)) || 'the folder';
    update({
      state: 'done',
      progress: 1,
      detail: [
        landed.length ? `Landed as ${landed.join(', ')}` : 'Nothing written',
        ...said,
        ...(done.skipped.length ? [`${done.skipped.length} links or devices not written`] : []),
      ].join(' · '),
    });
    toast(
      landed.length
        ? `Extracted to ${where}: ${landed.join(', ')}${said.length ? ` (${said.join('; ')})` : ''}`
        : `Nothing extracted: every name was taken in ${where}`,
      'success',
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
    const answer = await api('POST /api/files/zip/compress', { body: { items, name } });
    update({ state: 'done', progress: 1, detail: `Created ${answer.item.name}` });
    toast(`Created ${joinPath(answer.item.path, answer.item.name)}`);
  } catch (err) {
    update({ state: 'failed', detail: (err as Error).message, requestId: (err as ApiError).requestId });
    toastError(err, 'Compressing failed');
  } finally {
    onDone?.();
  }
}
