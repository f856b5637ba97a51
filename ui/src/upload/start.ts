// Entry points for uploads from the always-loaded shell: collecting dropped files and folders
// (which must happen during the drop event) and handing them to the lazily loaded uploader.
import { api } from '../api/client.ts';
import type { ApiAnswer } from '../../../src/contract.ts';
import type { ConflictAsk, ConflictChoice } from '../components/ConflictDialog.tsx';
import { chunkedUploads } from '../state/session.ts';
import { toast } from '../state/toasts.ts';
import type { PickedFile, UploadEndpoints } from './uploader.ts';

type Entry = FileSystemEntry;

function readAll(reader: FileSystemDirectoryReader): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const out: Entry[] = [];
    const step = () =>
      reader.readEntries((batch) => {
        if (!batch.length) {
          resolve(out);
          return;
        }
        out.push(...batch);
        step();
      }, reject);
    step();
  });
}

async function walk(entry: Entry, prefix: string, out: PickedFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ file, relativePath: prefix + entry.name });
  } else if (entry.isDirectory) {
    const children = await readAll((entry as FileSystemDirectoryEntry).createReader());
    for (const child of children) await walk(child, `${prefix}${entry.name}/`, out);
  }
}

/** Files and whole folders from a drop. Entries are taken synchronously, then walked. */
export function collectDropped(data: DataTransfer): Promise<PickedFile[]> {
  const entries: Entry[] = [];
  const loose: File[] = [];
  for (const item of Array.from(data.items)) {
    if (item.kind !== 'file') continue;
    const entry = item.webkitGetAsEntry?.();
    if (entry) entries.push(entry);
    else {
      const f = item.getAsFile();
      if (f) loose.push(f);
    }
  }
  return (async () => {
    const out: PickedFile[] = loose.map((file) => ({ file, relativePath: file.name }));
    for (const e of entries) await walk(e, '', out);
    return out;
  })();
}

/** Files from an <input type=file> (with `webkitdirectory` they carry their folder path). */
export function collectPicked(list: FileList): PickedFile[] {
  return Array.from(list).map((file) => ({ file, relativePath: file.webkitRelativePath || file.name }));
}

/** Most names asked about in one request (the server takes 10,000). */
const PLAN_BATCH = 5000;

/**
 * Asks the server which files would meet a taken name, then the user what to do with each
 * (components/ConflictDialog.tsx). Null: cancelled. A server that cannot say is not asked again:
 * every file then keeps both, as uploads always did.
 */
async function askAboutTaken(
  files: PickedFile[],
  target: string,
  taken: TakenNames,
): Promise<Map<string, ConflictChoice> | null> {
  const conflicts: ConflictAsk[] = [];
  try {
    for (let i = 0; i < files.length; i += PLAN_BATCH) {
      const batch = files.slice(i, i + PLAN_BATCH);
      const answer = await taken(batch.map((f) => f.relativePath));
      const byPath = new Map(batch.map((f) => [f.relativePath, f.file]));
      for (const c of answer.conflicts) {
        const file = byPath.get(c.name);
        conflicts.push({ ...c, incoming: { size: file?.size, isDirectory: false, modified: file?.lastModified } });
      }
    }
  } catch {
    return new Map();
  }
  if (!conflicts.length) return new Map();
  const { askConflicts } = await import('../components/ConflictDialog.tsx');
  return askConflicts(conflicts, { verb: 'upload', destination: target });
}

/** Which of these paths inside the destination are taken (POST /api/files/conflicts, or a link's own row). */
export type TakenNames = (names: string[]) => Promise<ApiAnswer<'POST /api/files/conflicts'>>;

/**
 * `endpoints`: a share link's upload routes instead of the account's; `taken`: how a link holder
 * who may see the folder asks which names are taken (without it, as on a file request, every
 * file keeps both and the answer says under which name it was kept).
 */
export async function startUpload(
  files: PickedFile[],
  target: string,
  onDone: () => void,
  endpoints?: UploadEndpoints,
  taken?: TakenNames,
): Promise<void> {
  if (!files.length) return;
  let chosen = files;
  const ask: TakenNames | undefined = endpoints
    ? taken
    : (names) => api('POST /api/files/conflicts', { body: { destination: target, names } });
  if (ask) {
    const answers = await askAboutTaken(files, target, ask);
    if (!answers) return;
    chosen = files
      .filter((f) => answers.get(f.relativePath) !== 'skip')
      .map((f) => ({ ...f, conflict: answers.get(f.relativePath) }));
    const skipped = files.length - chosen.length;
    if (skipped)
      toast(
        `Skipped ${skipped === 1 ? files.find((f) => !chosen.includes(f))?.file.name : `${skipped} files`}: the name is taken`,
      );
    if (!chosen.length) return;
  }
  const { enqueue } = await import('./uploader.ts');
  enqueue(chosen, target, chunkedUploads.value, onDone, endpoints);
}

/**
 * Takes up the uploads an earlier page of this account left queued or running (kept.ts): they
 * go on from where the server stopped, once the page is open again.
 */
export async function resumeKeptUploads(account: string): Promise<void> {
  const { keptOf } = await import('./kept.ts');
  const kept = await keptOf(account);
  if (!kept.length) return;
  const { restore } = await import('./uploader.ts');
  restore(kept);
}

export async function uploadControl(action: 'pause' | 'resume' | 'cancel', id: number): Promise<void> {
  const m = await import('./uploader.ts');
  m[action](id);
}
