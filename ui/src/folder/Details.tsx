// A file's details: facts from the server, download, its earlier versions (restore, restore
// as a copy), and "Edit text" into the full-window editor. Loaded on first use.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, joinPath } from '../api/client.ts';
import type { FileItem, Metadata, Version } from '../api/types.ts';
import { ErrorNote, Spinner } from '../components/common.tsx';
import { toast, toastError } from '../state/toasts.ts';
import { formatBytes, formatDate, iconFor } from '../util.ts';
import { download, refOf } from './actions.ts';
import { reload } from './model.ts';
import { editing } from '../viewers/state.tsx';

// `rev` counts saves and restores in this panel (and the editor closing): the facts and versions reload on it.
// A text file's version shows its text on demand: a date and a size alone do not say which of
// several saves made the same minute holds the words one wants back.
function Versions({
  path,
  rev,
  onRestored,
  isText,
}: {
  path: string;
  rev: number;
  onRestored: () => void;
  isText: boolean;
}) {
  const [list, setList] = useState<Version[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  /** The texts shown, by version id (an Error: it could not be read). */
  const [shown, setShown] = useState<Record<string, string | Error>>({});
  const toggle = async (v: Version) => {
    if (v.id in shown) {
      const { [v.id]: _, ...rest } = shown;
      setShown(rest);
      return;
    }
    try {
      const a = await api('GET /api/versions/:id/text', { params: { id: v.id } });
      setShown((s) => ({ ...s, [v.id]: a.content }));
    } catch (err) {
      setShown((s) => ({ ...s, [v.id]: err instanceof Error ? err : new Error(String(err)) }));
    }
  };
  const load = () =>
    api('GET /api/versions', { query: { path } }).then((a) => {
      setList(a.items);
      setError(null);
    }, setError);
  useEffect(() => {
    void load();
  }, [path, rev]);
  const restore = async (v: Version, asCopy: boolean) => {
    try {
      if (asCopy) {
        const a = await api('POST /api/versions/:id/restore-copy', { params: { id: v.id } });
        toast(`Restored as ${a.item.name}`);
      } else {
        await api('POST /api/versions/:id/restore', { params: { id: v.id } });
        toast('Version restored');
      }
      onRestored();
      void reload();
    } catch (err) {
      toastError(err, 'Restore failed');
    }
  };
  return (
    <section aria-label="Versions">
      <h3>Earlier versions</h3>
      <ErrorNote error={error} />
      {!list && !error && <Spinner />}
      {list && !list.length && (
        <p class="muted small">No earlier versions. A version is kept each time the file is saved over.</p>
      )}
      <ul class="results">
        {list?.map((v) => (
          <li key={v.id}>
            <div class="grow">
              {formatDate(v.modifiedAt)}
              <div class="where">{formatBytes(v.size)}</div>
              {isText && (
                <button type="button" class="link small" aria-expanded={v.id in shown} onClick={() => void toggle(v)}>
                  {v.id in shown ? 'Hide text' : 'Show text'}
                </button>
              )}
              {shown[v.id] instanceof Error ? (
                <ErrorNote error={shown[v.id]} />
              ) : (
                v.id in shown && (
                  <pre
                    class="version-text"
                    dir="auto"
                    aria-label={`Text of the version of ${formatDate(v.modifiedAt)}`}
                  >
                    {shown[v.id] as string}
                  </pre>
                )
              )}
            </div>
            <button type="button" class="small" onClick={() => void restore(v, false)}>
              Restore
            </button>
            <button type="button" class="small" onClick={() => void restore(v, true)}>
              Restore as copy
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

export default function Details({ item, onClose }: { item: FileItem; onClose: () => void }) {
  const path = joinPath(item.path, item.name);
  const [meta, setMeta] = useState<Metadata | null>(null);
  const [rev, setRev] = useState(0);
  const bump = () => setRev((r) => r + 1);
  const editingThis = editing.value?.path === path;
  const wasEditing = useRef(false);
  // Saves made in the editor are new versions: read them when it closes.
  useEffect(() => {
    if (wasEditing.current && !editingThis) {
      bump();
      void reload();
    }
    wasEditing.current = editingThis;
  }, [editingThis]);
  useEffect(() => {
    api('GET /api/metadata/*', { params: { path } }).then(setMeta, () => setMeta(null));
  }, [path, rev]);
  const isText = iconFor(item.kind) === 'text';
  const panel = useRef<HTMLElement>(null);
  // Focus moves into the panel so the keyboard (and a screen reader) follows what opened.
  useEffect(() => {
    panel.current?.focus();
  }, [path]);
  return (
    <aside
      ref={panel}
      tabIndex={-1}
      class="side-panel stack"
      aria-label={`Details of ${item.name}`}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <div class="actions" style={{ justifyContent: 'space-between' }}>
        <h2 dir="auto" style={{ margin: 0 }}>
          {item.name}
        </h2>
        <button type="button" class="icon-button" aria-label="Close details" onClick={onClose}>
          ×
        </button>
      </div>
      <dl class="facts">
        <dt>Size</dt>
        <dd>{formatBytes(meta?.size ?? item.size)}</dd>
        <dt>Modified</dt>
        <dd>{formatDate(meta?.dateModified ?? item.dateModified)}</dd>
        {meta?.dateCreated && (
          <>
            <dt>Created</dt>
            <dd>{formatDate(meta.dateCreated)}</dd>
          </>
        )}
        <dt>Where</dt>
        <dd dir="auto">{item.path}</dd>
        {meta?.image?.width && (
          <>
            <dt>Dimensions</dt>
            <dd>
              {meta.image.width} × {meta.image.height}
            </dd>
          </>
        )}
        {meta?.video?.duration && (
          <>
            <dt>Duration</dt>
            <dd>{Math.round(meta.video.duration)} s</dd>
          </>
        )}
      </dl>
      <div class="actions" style={{ justifyContent: 'flex-start' }}>
        <button type="button" onClick={() => void download([refOf(item)], [item.kind])}>
          Download
        </button>
        {isText && (
          <button
            type="button"
            onClick={() => {
              editing.value = { path, name: item.name, kind: item.kind };
            }}
          >
            Edit text
          </button>
        )}
      </div>
      <Versions path={path} rev={rev} onRestored={bump} isText={isText} />
    </aside>
  );
}
