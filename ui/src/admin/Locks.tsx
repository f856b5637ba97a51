// Administration → Locks: the WebDAV locks in force — which item, whose, which client, until
// when — and breaking one (a laptop that went away holding a file, or a lock on somebody's folder).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { ApiAnswer } from '../../../src/contract.ts';
import { ErrorNote } from '../components/common.tsx';
import { confirmDialog } from '../components/Dialog.tsx';
import { toastError } from '../state/toasts.ts';
import './admin.css';

type DavLock = ApiAnswer<'GET /api/admin/locks'>['locks'][number];

const until = (iso: string) => {
  const minutes = Math.max(0, Math.round((Date.parse(iso) - Date.now()) / 60_000));
  return minutes < 1 ? 'less than a minute' : minutes === 1 ? '1 minute' : `${minutes} minutes`;
};

export function Locks() {
  const [locks, setLocks] = useState<DavLock[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () =>
    api('GET /api/admin/locks').then(
      (a) => {
        setLocks(a.locks);
        setError(null);
      },
      (err) => setError(err),
    );
  useEffect(() => {
    void load();
  }, []);
  const breakLock = async (l: DavLock) => {
    const name = l.path.split(/[\\/]/).pop() || l.path;
    const sure = await confirmDialog({
      title: `Break the lock on “${name}”?`,
      body: `${l.username ?? 'Its account'}’s WebDAV client${l.client ? ` (${l.client})` : ''} loses it: a save it makes with this lock is refused, and other accounts may change the file again.`,
      confirm: 'Break lock',
      danger: true,
    });
    if (!sure) return;
    api('DELETE /api/admin/locks/:token', { params: { token: l.token } }).then(load, (err) => {
      toastError(err);
      void load();
    });
  };
  return (
    <div class="stack">
      <p class="muted small">
        WebDAV clients lock a file while they work on it; other accounts cannot change it meanwhile, here or through
        WebDAV. A lock ends after an hour unless its client renews it. Break one that a client left behind.
      </p>
      <div class="actions" style={{ justifyContent: 'flex-start' }}>
        <button type="button" class="small" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      <ul class="results host-volumes" aria-label="WebDAV locks">
        {locks?.map((l) => (
          <li key={l.token}>
            <div class="volume-what">
              <strong dir="auto">{l.path.split(/[\\/]/).pop() || l.path}</strong>
              <div class="where" dir="auto">
                {l.path}
              </div>
              <div class="muted small">
                {l.username ?? 'a removed account'}
                {l.client ? ` · ${l.client}` : ''} · {l.scope === 'exclusive' ? 'exclusive' : 'shared'}
                {l.depth === 'infinity' ? ', with everything inside' : ''}
                {l.createdEmptyFile ? ' · made by the lock' : ''} · ends in {until(l.expiresAt)}
              </div>
            </div>
            <div class="volume-actions">
              <button type="button" class="small danger" onClick={() => void breakLock(l)}>
                Break lock
              </button>
            </div>
          </li>
        ))}
        {locks && !locks.length && <li class="muted">No file is locked.</li>}
      </ul>
      <ErrorNote error={error} />
    </div>
  );
}
