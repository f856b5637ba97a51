// Choosing a destination folder: volumes at the top, then folders only; the account's recent
// destinations (kept by the server, which follows renames and forgets deleted folders) above,
// and a new folder made where the picker stands.
import { useEffect, useState } from 'preact/hooks';
import { api, joinPath, parentOf } from '../api/client.ts';
import { isDir } from '../api/types.ts';
import { collator } from '../util.ts';
import { Dialog } from './Dialog.tsx';
import { ErrorNote, Icon } from './common.tsx';

export function FolderPicker({
  title,
  start,
  confirm,
  onPick,
  onClose,
}: {
  title: string;
  start: string;
  confirm: string;
  onPick: (path: string) => Promise<void> | void;
  onClose: () => void;
}) {
  const [at, setAt] = useState(start);
  const [entries, setEntries] = useState<{ name: string; path: string }[] | null>(null);
  const [writable, setWritable] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [recent, setRecent] = useState<string[]>([]);
  const [naming, setNaming] = useState<string | null>(null);
  const [reloadTick, setReloadTick] = useState(0);
  useEffect(() => {
    api('GET /api/files/recent-destinations').then(
      (a) => setRecent(a.destinations.map((d) => d.path).slice(0, 6)),
      () => setRecent([]),
    );
  }, []);
  const makeFolder = async (e: Event) => {
    e.preventDefault();
    const name = naming?.trim();
    if (!name) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await api('POST /api/files/folder', { body: { path: at, name } });
      setNaming(null);
      setAt(joinPath(at, answer.item.name));
      setReloadTick((n) => n + 1);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    let live = true;
    setEntries(null);
    setError(null);
    (async () => {
      try {
        if (!at) {
          const vols = await api('GET /api/volumes');
          if (live) {
            setEntries(vols.map((v) => ({ name: v.name, path: v.path })));
            setWritable(false);
          }
        } else {
          const l = await api('GET /api/browse/*', { params: { path: at } });
          if (live) {
            setEntries(
              l.items
                .filter(isDir)
                .sort((a, b) => collator.compare(a.name, b.name))
                .map((d) => ({ name: d.name, path: joinPath(at, d.name) })),
            );
            setWritable(l.access.canWrite);
          }
        }
      } catch (err) {
        if (live) setError(err);
      }
    })();
    return () => {
      live = false;
    };
  }, [at, reloadTick]);
  const choose = async () => {
    setBusy(true);
    try {
      await onPick(at);
      onClose();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const crumbs = at ? at.split('/') : [];
  return (
    <Dialog title={title} onClose={onClose}>
      <div class="stack picker">
        <nav class="crumbs" aria-label="Location">
          <button type="button" class="link" onClick={() => setAt('')}>
            All volumes
          </button>
          {crumbs.map((c, i) => (
            <>
              <span aria-hidden="true">/</span>
              <button type="button" class="link" onClick={() => setAt(crumbs.slice(0, i + 1).join('/'))}>
                {c}
              </button>
            </>
          ))}
        </nav>
        {naming !== null && (
          <form class="picker-new" onSubmit={makeFolder}>
            <input
              aria-label="New folder name"
              value={naming}
              autoFocus
              onInput={(e) => setNaming(e.currentTarget.value)}
              onKeyDown={(e) => {
                if (e.key === 'Escape') {
                  e.stopPropagation();
                  setNaming(null);
                }
              }}
            />
            <button type="submit" disabled={busy || !naming.trim()}>
              Create
            </button>
          </form>
        )}
        {recent.length > 0 && (
          <div class="picker-recent" role="group" aria-label="Recent destinations">
            <span class="muted small">Recent:</span>
            {recent.map((p) => (
              <button type="button" class="small" key={p} aria-pressed={p === at} title={p} onClick={() => setAt(p)}>
                {p.slice(p.lastIndexOf('/') + 1) || p}
              </button>
            ))}
          </div>
        )}
        <ul class="picker-list" role="listbox" aria-label="Folders">
          {at && (
            <li>
              <button type="button" class="row-button" onClick={() => setAt(parentOf(at))}>
                ↰ Up
              </button>
            </li>
          )}
          {entries?.map((e) => (
            <li key={e.path}>
              <button type="button" class="row-button" onDblClick={() => setAt(e.path)} onClick={() => setAt(e.path)}>
                <Icon name="folder" size={18} /> <span class="name">{e.name}</span>
              </button>
            </li>
          ))}
          {entries && !entries.length && <li class="muted empty">No folders here.</li>}
          {!entries && !error && <li class="muted empty">Loading…</li>}
        </ul>
        <ErrorNote error={error} />
        <div class="actions">
          <span class="muted grow">{at ? `Into ${at}` : 'Pick a volume first'}</span>
          <button
            type="button"
            disabled={!at || !writable || busy || naming !== null}
            onClick={() => setNaming('New folder')}
          >
            New folder
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="button" class="primary" disabled={!at || !writable || busy} onClick={choose}>
            {confirm}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
