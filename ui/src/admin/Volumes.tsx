// Administration → Volumes: host folders of this computer served as volumes beside the folders
// of VOLUME_ROOT, each named, read-only or read-write. Also the first step after setup.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { ApiAnswer, ApiBody } from '../../../src/contract.ts';
import { ErrorNote } from '../components/common.tsx';
import { location, navigate } from '../state/router.ts';
import { refreshVolumes } from '../state/session.ts';
import { toastError } from '../state/toasts.ts';
import { ServerFiles } from './AssignedVolumes.tsx';
import './admin.css';

type HostVolumeList = ApiAnswer<'GET /api/admin/volumes'>;
type HostVolume = HostVolumeList['volumes'][number];

export function Volumes() {
  const [data, setData] = useState<HostVolumeList | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [label, setLabel] = useState('');
  const [path, setPath] = useState('');
  const [mode, setMode] = useState<'readonly' | 'readwrite'>('readwrite');
  const [browsing, setBrowsing] = useState(false);
  const welcome = location.value.query.get('welcome') !== null;
  // The sidebar and Home list the volumes too: they follow every change made here.
  const load = () => Promise.all([api('GET /api/admin/volumes').then(setData, setError), refreshVolumes()]);
  useEffect(() => {
    void load();
  }, []);
  const add = async (e: Event) => {
    e.preventDefault();
    try {
      await api('POST /api/admin/volumes', { body: { label: label.trim(), path, accessMode: mode } });
      setLabel('');
      setPath('');
      setError(null);
      void load();
    } catch (err) {
      setError(err);
    }
  };
  const change = (v: HostVolume, body: ApiBody<'PATCH /api/admin/volumes/:id'>) =>
    api('PATCH /api/admin/volumes/:id', { params: { id: v.id }, body }).then(load, (err) => toastError(err));
  return (
    <div class="stack">
      {welcome && (
        <p class="notice" role="status">
          Your account is ready. Now choose the folders of this computer that Burrow should show — for example your
          Documents or Pictures.
        </p>
      )}
      <p class="muted small">
        Every folder inside <code>{data?.volumeRoot}</code> is a volume. Add other folders of this computer here: every
        account sees them too (an account with assigned volumes sees only those).
      </p>
      <p class="muted small" role="note" aria-label="A volume for one group">
        A volume for one group is a volume with rules at its root: add the folder here, then in{' '}
        <a
          href="/admin/permissions"
          onClick={(e) => {
            e.preventDefault();
            navigate('/admin/permissions');
          }}
        >
          Administration → Permissions
        </a>{' '}
        give the group its level at the volume and Everyone <em>Hidden</em> there.
      </p>
      {data && data.looseFiles.length > 0 && (
        <p class="notice" role="note">
          {data.looseFiles.length} file{data.looseFiles.length > 1 ? 's' : ''} at the top of{' '}
          <code>{data.volumeRoot}</code> {data.looseFiles.length > 1 ? 'are' : 'is'} not shown (
          {data.looseFiles.slice(0, 5).join(', ')}
          {data.looseFiles.length > 5 ? ', …' : ''}): only the folders there are volumes. Move{' '}
          {data.looseFiles.length > 1 ? 'them' : 'it'} into a folder, or add that folder itself below.
        </p>
      )}
      <ul class="results host-volumes" aria-label="Host folder volumes">
        {data?.volumes.map((v) => (
          <li key={v.id}>
            <div class="volume-what">
              <strong dir="auto">{v.label}</strong>
              <div class="where">{v.path}</div>
              {!v.available && (
                <div class="rule-unmet small">Burrow cannot read this folder now (missing disk or permissions).</div>
              )}
              {v.available && v.storageReadOnly && v.accessMode === 'readwrite' && (
                <div class="muted small">The folder itself is read-only for Burrow.</div>
              )}
            </div>
            <div class="volume-actions">
              <select
                aria-label={`Access to ${v.label}`}
                value={v.accessMode}
                onChange={(e) => change(v, { accessMode: e.currentTarget.value as HostVolume['accessMode'] })}
              >
                <option value="readwrite">Read and write</option>
                <option value="readonly">Read only</option>
              </select>
              <button
                type="button"
                class="small"
                onClick={() => {
                  const name = prompt('New name', v.label);
                  if (name && name.trim() && name !== v.label) void change(v, { label: name.trim() });
                }}
              >
                Rename
              </button>
              <button
                type="button"
                class="small danger"
                onClick={() =>
                  api('DELETE /api/admin/volumes/:id', { params: { id: v.id } }).then(load, (err) => toastError(err))
                }
              >
                Remove
              </button>
            </div>
          </li>
        ))}
        {data && !data.volumes.length && <li class="muted">No host folders added yet.</li>}
      </ul>
      <form class="stack" onSubmit={add} aria-label="Add a folder">
        <h2>Add a folder</h2>
        <div class="form-grid">
          <label>
            Name
            <input required value={label} placeholder="Documents" onInput={(e) => setLabel(e.currentTarget.value)} />
          </label>
          <label>
            Folder on this computer
            <input required value={path} onInput={(e) => setPath(e.currentTarget.value)} />
          </label>
          <label>
            Access
            <select value={mode} onChange={(e) => setMode(e.currentTarget.value as 'readonly' | 'readwrite')}>
              <option value="readwrite">Read and write</option>
              <option value="readonly">Read only</option>
            </select>
          </label>
        </div>
        <div class="actions" style={{ justifyContent: 'flex-start' }}>
          <button type="button" onClick={() => setBrowsing(!browsing)}>
            {browsing ? 'Hide the folders of this computer' : 'Browse this computer…'}
          </button>
          <button class="primary">Add folder</button>
        </div>
        {browsing && (
          <ServerFiles
            onPick={(p) => {
              setPath(p);
              if (!label.trim()) setLabel(p.split(/[\\/]/).filter(Boolean).pop() ?? '');
              setBrowsing(false);
            }}
          />
        )}
      </form>
      <ErrorNote error={error} />
    </div>
  );
}
