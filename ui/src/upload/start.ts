// Entry points for uploads from the always-loaded shell: collecting dropped files and folders
// (which must happen during the drop event) and handing them to the lazily loaded uploader.
import { chunkedUploads } from '../state/session.ts';
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

/** `endpoints`: a share link's upload routes instead of the account's. */
export async function startUpload(
  files: PickedFile[],
  target: string,
  onDone: () => void,
  endpoints?: UploadEndpoints,
): Promise<void> {
  if (!files.length) return;
  const { enqueue } = await import('./uploader.ts');
  enqueue(files, target, chunkedUploads.value, onDone, endpoints);
}

export async function uploadControl(action: 'pause' | 'resume' | 'cancel', id: number): Promise<void> {
  const m = await import('./uploader.ts');
  m[action](id);
}
