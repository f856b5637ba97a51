// Administration → Volumes: host folders of this computer served as volumes beside the folders
// of VOLUME_ROOT, each named, read-only or read-write. Also the first step after setup.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { ApiAnswer, ApiBody } from '../../../src/contract.ts';
import { ErrorNote } from '../components/common.tsx';
import { location, navigate } from '../state/router.ts';
import { refreshVolumes } from '../state/session.ts';
import { toastError } from '../state/toasts.ts';
import { LEVEL_WORDS } from './access-rules.tsx';
import { ServerFiles } from './AssignedVolumes.tsx';
import './admin.css';

type HostVolumeList = ApiAnswer<'GET /api/admin/volumes'>;
type HostVolume = HostVolumeList['volumes'][number];
type Group = ApiAnswer<'GET /api/access/groups'>['groups'][number];
type GroupLevel = ApiBody<'POST /api/admin/volumes/:id/group'>['level'];
/** The levels a volume can be given to a group at, in the words of Administration → Permissions. */
const GROUP_LEVELS: readonly GroupLevel[] = ['read', 'write', 'manage'];

function LevelSelect(props: { value: GroupLevel; onChange: (level: GroupLevel) => void; label: string }) {
  return (
    <select
      aria-label={props.label}
      value={props.value}
      onChange={(e) => props.onChange(e.currentTarget.value as GroupLevel)}
    >
      {GROUP_LEVELS.map((l) => (
        <option key={l} value={l}>
          {LEVEL_WORDS[l].name} — {LEVEL_WORDS[l].says}
        </option>
      ))}
    </select>
  );
}

/** "Give to a group…" on a volume already served: the group's level at its root, hidden for everyone else. */
function GiveToGroup(props: { volume: HostVolume; groups: Group[]; onDone: () => void; onCancel: () => void }) {
  const [groupId, setGroupId] = useState(props.groups[0]?.id ?? '');
  const [level, setLevel] = useState<GroupLevel>('write');
  const [error, setError] = useState<unknown>(null);
  const give = async (e: Event) => {
    e.preventDefault();
    try {
      await api('POST /api/admin/volumes/:id/group', { params: { id: props.volume.id }, body: { id: groupId, level } });
      props.onDone();
    } catch (err) {
      setError(err);
    }
  };
  if (!props.groups.length)
    return (
      <p class="muted small" role="note">
        No groups yet: create one in <GroupsLink /> first.
      </p>
    );
  return (
    <form class="give-group" onSubmit={give} aria-label={`Give ${props.volume.label} to a group`}>
      <select aria-label="Group" value={groupId} onChange={(e) => setGroupId(e.currentTarget.value)}>
        {props.groups.map((g) => (
          <option key={g.id} value={g.id}>
            {g.name}
          </option>
        ))}
      </select>
      <LevelSelect label="The group's level" value={level} onChange={setLevel} />
      <button class="primary small">Give</button>
      <button type="button" class="small" onClick={props.onCancel}>
        Cancel
      </button>
      <span class="muted small">Everyone else: Hidden.</span>
      <ErrorNote error={error} />
    </form>
  );
}

function GroupsLink() {
  return (
    <a
      href="/admin/groups"
      onClick={(e) => {
        e.preventDefault();
        navigate('/admin/groups');
      }}
    >
      Administration → Groups
    </a>
  );
}

export function Volumes() {
  const [data, setData] = useState<HostVolumeList | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [label, setLabel] = useState('');
  const [path, setPath] = useState('');
  const [mode, setMode] = useState<'readonly' | 'readwrite'>('readwrite');
  const [browsing, setBrowsing] = useState(false);
  const [groups, setGroups] = useState<Group[]>([]);
  const [forGroup, setForGroup] = useState('');
  const [groupLevel, setGroupLevel] = useState<GroupLevel>('write');
  const [giving, setGiving] = useState<string | null>(null);
  const welcome = location.value.query.get('welcome') !== null;
  // The sidebar and Home list the volumes too: they follow every change made here.
  const load = () => Promise.all([api('GET /api/admin/volumes').then(setData, setError), refreshVolumes()]);
  useEffect(() => {
    void load();
    api('GET /api/access/groups').then((g) => setGroups(g.groups), setError);
  }, []);
  const add = async (e: Event) => {
    e.preventDefault();
    try {
      await api('POST /api/admin/volumes', {
        body: {
          label: label.trim(),
          path,
          accessMode: mode,
          ...(forGroup ? { group: { id: forGroup, level: groupLevel } } : {}),
        },
      });
      setLabel('');
      setPath('');
      setForGroup('');
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
        A volume for one group: choose the group when adding the folder, or “Give to a group…” on a volume here. Burrow
        sets the group's level at the volume and Hidden for everyone else — administrators included, unless they are in
        the group. The rules are then in Administration → Permissions.
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
                class="small"
                aria-expanded={giving === v.id}
                onClick={() => setGiving(giving === v.id ? null : v.id)}
              >
                Give to a group…
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
            {giving === v.id && (
              <GiveToGroup
                volume={v}
                groups={groups}
                onCancel={() => setGiving(null)}
                onDone={() => {
                  setGiving(null);
                  void load();
                }}
              />
            )}
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
          <label>
            For
            <select aria-label="For" value={forGroup} onChange={(e) => setForGroup(e.currentTarget.value)}>
              <option value="">Everyone</option>
              {groups.map((g) => (
                <option key={g.id} value={g.id}>
                  The group {g.name} only
                </option>
              ))}
            </select>
          </label>
          {forGroup && (
            <label>
              The group's level
              <LevelSelect label="The group's level" value={groupLevel} onChange={setGroupLevel} />
            </label>
          )}
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
