// "Share → Burrow" from the phone's gallery or any app (Web Share Target): the service worker
// (public/sw.js) received the files and holds them in this browser under an id; here the person
// picks a folder, the files are uploaded there (resumable, as any upload), and the held copies go.
import { useEffect, useState } from 'preact/hooks';
import { FolderPicker } from '../components/FolderPicker.tsx';
import { ErrorNote, Icon } from '../components/common.tsx';
import { filesUrl, location, navigate } from '../state/router.ts';
import { startUpload } from '../upload/start.ts';

const SHARED = 'burrow-shared';

async function heldFiles(id: string): Promise<File[]> {
  const cache = await caches.open(SHARED);
  const prefix = `/shared/${id}/`;
  const keys = (await cache.keys()).filter((k) => new URL(k.url).pathname.startsWith(prefix));
  const files: { index: number; file: File }[] = [];
  for (const k of keys) {
    const index = Number(new URL(k.url).pathname.slice(prefix.length));
    if (!Number.isInteger(index)) continue;
    const res = (await cache.match(k))!;
    const name = decodeURIComponent(res.headers.get('X-Name') ?? `shared-${index}`);
    files.push({ index, file: new File([await res.blob()], name, { type: res.headers.get('Content-Type') ?? '' }) });
  }
  return files.sort((a, b) => a.index - b.index).map((f) => f.file);
}

async function forget(id: string): Promise<void> {
  const cache = await caches.open(SHARED);
  for (const k of await cache.keys()) if (new URL(k.url).pathname.startsWith(`/shared/${id}/`)) await cache.delete(k);
}

export default function ShareTarget() {
  const id = location.value.query.get('id') ?? '';
  const [files, setFiles] = useState<File[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [picking, setPicking] = useState(false);
  useEffect(() => {
    if (!id || typeof caches === 'undefined') return setFiles([]);
    heldFiles(id).then(setFiles, setError);
  }, [id]);
  return (
    <section class="share-target stack" aria-label="Shared to Burrow">
      <h1>Shared to Burrow</h1>
      <ErrorNote error={error} />
      {files && !files.length && <p>Nothing is waiting here: the shared files were uploaded or are gone.</p>}
      {files && files.length > 0 && (
        <>
          <p>{files.length === 1 ? 'One file' : `${files.length} files`} to upload. Choose the folder they go into.</p>
          <ul class="share-files">
            {files.map((f) => (
              <li key={f.name} dir="auto">
                <Icon name="file" size={16} /> {f.name}
              </li>
            ))}
          </ul>
          <button type="button" class="primary" onClick={() => setPicking(true)}>
            Choose a folder…
          </button>
        </>
      )}
      {picking && files && (
        <FolderPicker
          title="Upload the shared files to"
          start=""
          confirm="Upload here"
          onClose={() => setPicking(false)}
          onPick={async (folder) => {
            await startUpload(
              files.map((file) => ({ file, relativePath: file.name })),
              folder,
              () => void forget(id),
            );
            setPicking(false);
            navigate(filesUrl(folder));
          }}
        />
      )}
    </section>
  );
}
