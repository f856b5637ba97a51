// A file's details: facts from the server, download, its earlier versions (restore, restore
// as a copy), and a plain text editor for text files. Loaded on first use.
import { useEffect, useState } from 'preact/hooks';
import { encodePath, get, joinPath, post, put } from '../api/client.ts';
import type { FileItem } from '../api/types.ts';
import { ErrorNote, Spinner } from '../components/common.tsx';
import { toast, toastError } from '../state/toasts.ts';
import { formatBytes, formatDate, iconFor } from '../util.ts';
import { download, refOf } from './actions.ts';
import { reload } from './model.ts';

interface Version { id: string; size?: number; createdAt?: string; modifiedAt?: string }

function Versions({ path }: { path: string }) {
  const [list, setList] = useState<Version[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () => get<any>(`/api/versions?path=${encodeURIComponent(path)}`).then((a) => setList(Array.isArray(a) ? a : a?.versions ?? a?.items ?? []), setError);
  useEffect(() => { void load(); }, [path]);
  const restore = async (v: Version, asCopy: boolean) => {
    try {
      const a = await post<any>(`/api/versions/${encodeURIComponent(v.id)}/${asCopy ? 'restore-copy' : 'restore'}`, {});
      toast(asCopy ? `Restored as ${a?.item?.name ?? a?.name ?? 'a copy'}` : 'Version restored');
      void load(); void reload();
    } catch (err) { toastError(err, 'Restore failed'); }
  };
  return (
    <section aria-label="Versions">
      <h3>Earlier versions</h3>
      <ErrorNote error={error} />
      {!list && !error && <Spinner />}
      {list && !list.length && <p class="muted small">No earlier versions. A version is kept each time the file is saved over.</p>}
      <ul class="results">
        {list?.map((v) => (
          <li key={v.id}>
            <div class="grow">{formatDate(v.createdAt ?? v.modifiedAt)}<div class="where">{formatBytes(v.size)}</div></div>
            <button type="button" class="small" onClick={() => void restore(v, false)}>Restore</button>
            <button type="button" class="small" onClick={() => void restore(v, true)}>Restore as copy</button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function TextEditor({ path }: { path: string }) {
  const [text, setText] = useState<string | null>(null);
  const [dirty, setDirty] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => { get<{ content: string }>(`/api/editor?path=${encodeURIComponent(path)}`).then((a) => setText(a.content), setError); }, [path]);
  const save = async () => {
    try { await put('/api/editor', { path, content: text }); setDirty(false); toast('Saved'); void reload(); } catch (err) { setError(err); }
  };
  if (error && text === null) return <ErrorNote error={error} />;
  if (text === null) return <Spinner />;
  return (
    <div class="stack">
      <textarea aria-label="File text" dir="auto" spellcheck={false} value={text} onInput={(e) => { setText(e.currentTarget.value); setDirty(true); }} />
      <ErrorNote error={error} />
      <div class="actions"><button type="button" class="primary" disabled={!dirty} onClick={() => void save()}>Save</button></div>
    </div>
  );
}

export default function Details({ item, onClose }: { item: FileItem; onClose: () => void }) {
  const path = joinPath(item.path, item.name);
  const [meta, setMeta] = useState<Record<string, any> | null>(null);
  const [edit, setEdit] = useState(false);
  useEffect(() => { setEdit(false); get(`/api/metadata/${encodePath(path)}`).then(setMeta, () => setMeta(null)); }, [path]);
  const isText = iconFor(item.kind) === 'text';
  return (
    <aside class="side-panel stack" aria-label={`Details of ${item.name}`} onKeyDown={(e) => { if (e.key === 'Escape') onClose(); }}>
      <div class="actions" style={{ justifyContent: 'space-between' }}>
        <h2 dir="auto" style={{ margin: 0 }}>{item.name}</h2>
        <button type="button" class="icon-button" aria-label="Close details" onClick={onClose}>×</button>
      </div>
      <dl class="facts">
        <dt>Size</dt><dd>{formatBytes(meta?.size ?? item.size)}</dd>
        <dt>Modified</dt><dd>{formatDate(meta?.dateModified ?? item.dateModified)}</dd>
        {meta?.dateCreated && <><dt>Created</dt><dd>{formatDate(meta.dateCreated)}</dd></>}
        <dt>Where</dt><dd dir="auto">{item.path}</dd>
        {meta?.image?.width && <><dt>Dimensions</dt><dd>{meta.image.width} × {meta.image.height}</dd></>}
        {meta?.video?.duration && <><dt>Duration</dt><dd>{Math.round(meta.video.duration)} s</dd></>}
      </dl>
      <div class="actions" style={{ justifyContent: 'flex-start' }}>
        <button type="button" onClick={() => void download([refOf(item)], [item.kind])}>Download</button>
        {isText && <button type="button" onClick={() => setEdit(!edit)}>{edit ? 'Close editor' : 'Edit text'}</button>}
      </div>
      {edit && <TextEditor path={path} />}
      <Versions path={path} />
    </aside>
  );
}
