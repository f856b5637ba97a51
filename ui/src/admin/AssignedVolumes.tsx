// Host folders given to one account, picked with the server-files browser.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { ServerDirectories, User, UserVolume } from '../api/types.ts';
import { Dialog } from '../components/Dialog.tsx';
import { ErrorNote } from '../components/common.tsx';
import { toastError } from '../state/toasts.ts';

export function ServerFiles({ onPick }: { onPick: (path: string) => void }) {
  const [at, setAt] = useState<string | undefined>(undefined);
  const [dirs, setServerDirectories] = useState<ServerDirectories | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api('GET /api/admin/browse-directories', at ? { query: { path: at } } : {}).then((d) => {
      setServerDirectories(d);
      setError(null);
    }, setError);
  }, [at]);
  return (
    <div class="stack">
      <div class="muted small">
        Server folder: <code>{dirs?.current}</code>
      </div>
      <ul class="picker-list" aria-label="Server folders">
        {dirs?.parent && (
          <li>
            <button type="button" class="row-button" onClick={() => setAt(dirs.parent!)}>
              ↰ Up
            </button>
          </li>
        )}
        {dirs?.directories.map((d) => (
          <li key={d.path}>
            <button type="button" class="row-button" onClick={() => setAt(d.path)}>
              {d.name}
            </button>
          </li>
        ))}
      </ul>
      <ErrorNote error={error} />
      <div>
        <button type="button" disabled={!dirs} onClick={() => onPick(dirs!.current)}>
          Use this folder
        </button>
      </div>
    </div>
  );
}

export function AssignedVolumes({ user, onClose }: { user: User; onClose: () => void }) {
  const [list, setList] = useState<UserVolume[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [label, setLabel] = useState('');
  const [path, setPath] = useState('');
  const [mode, setMode] = useState<'readonly' | 'readwrite'>('readwrite');
  const [browsing, setBrowsing] = useState(false);
  const load = () =>
    api('GET /api/users/:id/volumes', { params: { id: user.id } }).then((a) => setList(a.volumes), setError);
  useEffect(() => {
    void load();
  }, []);
  const add = async (e: Event) => {
    e.preventDefault();
    try {
      await api('POST /api/users/:id/volumes', { params: { id: user.id }, body: { label, path, accessMode: mode } });
      setLabel('');
      setPath('');
      setError(null);
      void load();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Dialog title={`Volumes of ${user.username}`} onClose={onClose} wide>
      <div class="stack">
        <p class="muted small">
          An account with assigned volumes sees only these. For a group, add the folder as a volume for that group
          (Administration → Volumes): the group's level at its root, Hidden for everyone else.
        </p>
        <ul class="results">
          {list?.map((v) => (
            <li key={v.id}>
              <div class="grow">
                <strong dir="auto">{v.label}</strong>
                <div class="where">{v.path}</div>
              </div>
              <select
                aria-label={`Access to ${v.label}`}
                value={v.accessMode}
                onChange={(e) =>
                  api('PATCH /api/users/:id/volumes/:volumeId', {
                    params: { id: user.id, volumeId: v.id },
                    body: { accessMode: e.currentTarget.value as UserVolume['accessMode'] },
                  }).then(load, (err) => toastError(err))
                }
              >
                <option value="readwrite">Read and write</option>
                <option value="readonly">Read only</option>
              </select>
              <button
                type="button"
                class="small danger"
                onClick={() =>
                  api('DELETE /api/users/:id/volumes/:volumeId', { params: { id: user.id, volumeId: v.id } }).then(
                    load,
                    (err) => toastError(err),
                  )
                }
              >
                Remove
              </button>
            </li>
          ))}
          {list && !list.length && <li class="muted">None: the account sees the shared volumes.</li>}
        </ul>
        <form class="stack" onSubmit={add}>
          <div class="form-grid">
            <label>
              Label
              <input required value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
            </label>
            <label>
              Server folder
              <input required value={path} onInput={(e) => setPath(e.currentTarget.value)} />
            </label>
            <label>
              Access
              <select value={mode} onChange={(e) => setMode(e.currentTarget.value as any)}>
                <option value="readwrite">Read and write</option>
                <option value="readonly">Read only</option>
              </select>
            </label>
          </div>
          <div class="actions" style={{ justifyContent: 'flex-start' }}>
            <button type="button" onClick={() => setBrowsing(!browsing)}>
              {browsing ? 'Hide server folders' : 'Browse server folders…'}
            </button>
            <button class="primary">Assign</button>
          </div>
          {browsing && (
            <ServerFiles
              onPick={(p) => {
                setPath(p);
                setBrowsing(false);
              }}
            />
          )}
        </form>
        <ErrorNote error={error} />
      </div>
    </Dialog>
  );
}
