// Choosing a destination folder: volumes at the top, then folders only.
import { useEffect, useState } from 'preact/hooks';
import { encodePath, get, joinPath, parentOf } from '../api/client.ts';
import type { Listing, Volume } from '../api/types.ts';
import { isDir } from '../api/types.ts';
import { collator } from '../util.ts';
import { Dialog } from './Dialog.tsx';
import { ErrorNote, Icon } from './common.tsx';

export function FolderPicker({ title, start, confirm, onPick, onClose }: { title: string; start: string; confirm: string; onPick: (path: string) => Promise<void> | void; onClose: () => void }) {
  const [at, setAt] = useState(start);
  const [entries, setEntries] = useState<{ name: string; path: string }[] | null>(null);
  const [writable, setWritable] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    setEntries(null); setError(null);
    (async () => {
      try {
        if (!at) {
          const vols = await get<Volume[]>('/api/volumes');
          if (live) { setEntries(vols.map((v) => ({ name: v.name, path: v.path }))); setWritable(false); }
        } else {
          const l = await get<Listing>(`/api/browse/${encodePath(at)}`);
          if (live) {
            setEntries(l.items.filter(isDir).sort((a, b) => collator.compare(a.name, b.name)).map((d) => ({ name: d.name, path: joinPath(at, d.name) })));
            setWritable(l.access.canWrite);
          }
        }
      } catch (err) { if (live) setError(err); }
    })();
    return () => { live = false; };
  }, [at]);
  const choose = async () => {
    setBusy(true);
    try { await onPick(at); onClose(); } catch (err) { setError(err); } finally { setBusy(false); }
  };
  const crumbs = at ? at.split('/') : [];
  return (
    <Dialog title={title} onClose={onClose}>
      <div class="stack picker">
        <nav class="crumbs" aria-label="Location">
          <button type="button" class="link" onClick={() => setAt('')}>All volumes</button>
          {crumbs.map((c, i) => <><span aria-hidden="true">/</span><button type="button" class="link" onClick={() => setAt(crumbs.slice(0, i + 1).join('/'))}>{c}</button></>)}
        </nav>
        <ul class="picker-list" role="listbox" aria-label="Folders">
          {at && <li><button type="button" class="row-button" onClick={() => setAt(parentOf(at))}>↰ Up</button></li>}
          {entries?.map((e) => <li key={e.path}><button type="button" class="row-button" onDblClick={() => setAt(e.path)} onClick={() => setAt(e.path)}><Icon name="folder" size={18} /> <span class="name">{e.name}</span></button></li>)}
          {entries && !entries.length && <li class="muted empty">No folders here.</li>}
          {!entries && !error && <li class="muted empty">Loading…</li>}
        </ul>
        <ErrorNote error={error} />
        <div class="actions">
          <span class="muted grow">{at ? `Into ${at}` : 'Pick a volume first'}</span>
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="button" class="primary" disabled={!at || !writable || busy} onClick={choose}>{confirm}</button>
        </div>
      </div>
    </Dialog>
  );
}
