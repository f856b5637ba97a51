// Administration → Groups: create, rename, delete, and who is a member. Rules name groups
// (Administration → Permissions, a folder's "Who has access"); a deleted group takes its rules along.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { ApiAnswer } from '../../../src/contract.ts';
import { askText, confirmDialog } from '../components/Dialog.tsx';
import { ErrorNote } from '../components/common.tsx';
import { toast, toastError } from '../state/toasts.ts';
import './admin.css';
import { DIRECTORIES } from './origins.ts';

type Group = ApiAnswer<'GET /api/access/groups'>['groups'][number];
type Account = ApiAnswer<'GET /api/users'>['users'][number];

/** The directories that keep some of a group's members, in words ("LDAP", "single sign-on"). */
function keptBy(group: Group): string | null {
  const sources = new Set(group.members.map((m) => m.source).filter((s) => s !== null));
  if (sources.size === 0) return null;
  return [...sources].map((s) => DIRECTORIES[s].short).join(' and ');
}

function AddMember({ group, accounts, onAdded }: { group: Group; accounts: Account[]; onAdded: () => void }) {
  const [userId, setUserId] = useState('');
  const candidates = accounts.filter((a) => !group.members.some((m) => m.id === a.id));
  if (candidates.length === 0) return null;
  const add = (e: Event) => {
    e.preventDefault();
    if (!userId) return;
    api('POST /api/access/groups/:id/members', { params: { id: group.id }, body: { userId } }).then(() => {
      setUserId('');
      toast('Member added');
      onAdded();
    }, toastError);
  };
  return (
    <form class="inline-form" onSubmit={add} aria-label={`Add a member to ${group.name}`}>
      <select
        aria-label={`Account to add to ${group.name}`}
        value={userId}
        onChange={(e) => setUserId(e.currentTarget.value)}
      >
        <option value="">Choose an account…</option>
        {candidates.map((a) => (
          <option key={a.id} value={a.id}>
            {a.username}
          </option>
        ))}
      </select>
      <button class="small" disabled={!userId}>
        Add
      </button>
    </form>
  );
}

export function Groups() {
  const [groups, setGroups] = useState<Group[] | null>(null);
  const [accounts, setAccounts] = useState<Account[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [name, setName] = useState('');
  const load = () =>
    Promise.all([
      api('GET /api/access/groups').then((a) => setGroups(a.groups)),
      api('GET /api/users').then((a) => setAccounts(a.users)),
    ]).then(() => setError(null), setError);
  useEffect(() => {
    void load();
  }, []);
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      await api('POST /api/access/groups', { body: { name: name.trim() } });
      setName('');
      setError(null);
      toast('Group created');
      void load();
    } catch (err) {
      setError(err);
    }
  };
  const rename = (g: Group) =>
    askText({
      title: `Rename ${g.name}`,
      label: 'Name',
      value: g.name,
      confirm: 'Rename',
      action: async (next) => {
        await api('PATCH /api/access/groups/:id', { params: { id: g.id }, body: { name: next.trim() } });
        toast('Group renamed');
        void load();
      },
    });
  const remove = async (g: Group) => {
    if (
      !(await confirmDialog({
        title: `Delete ${g.name}?`,
        body: 'Its members stay; the rules that name this group go with it, so what they allowed or hid changes at once.',
        confirm: 'Delete group',
        danger: true,
      }))
    )
      return;
    api('DELETE /api/access/groups/:id', { params: { id: g.id } }).then(() => {
      toast('Group deleted');
      void load();
    }, toastError);
  };
  const leave = (g: Group, m: Group['members'][number]) =>
    api('DELETE /api/access/groups/:id/members/:userId', { params: { id: g.id, userId: m.id } }).then(() => {
      toast(`${m.username} left ${g.name}`);
      void load();
    }, toastError);
  return (
    <div class="stack">
      <p class="muted small">
        A group gathers accounts (“Kids”, “Accounting”) so that one rule in Permissions, or in a folder's “Who has
        access”, speaks for all of them.
      </p>
      <form class="inline-form" onSubmit={create} aria-label="Create a group">
        <label>
          New group
          <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button class="primary">Create group</button>
      </form>
      <ErrorNote error={error} />
      {groups && groups.length === 0 && <p class="muted">No groups yet.</p>}
      <ul class="results groups" aria-label="Groups">
        {groups?.map((g) => {
          const kept = keptBy(g);
          return (
            <li key={g.id} aria-label={g.name}>
              <div class="group-what">
                <strong dir="auto">{g.name}</strong>
                {kept && (
                  <span
                    class="badge"
                    title="Sign-ins through the directory add and remove these members; members added here stay"
                  >
                    Kept by {kept}
                  </span>
                )}
                <ul class="members" aria-label={`Members of ${g.name}`}>
                  {g.members.length === 0 && <li class="muted small">No members</li>}
                  {g.members.map((m) => (
                    <li key={m.id} class="chip">
                      <span dir="auto">{m.username}</span>
                      {m.source && (
                        <span
                          class="badge"
                          title={`Kept by the ${DIRECTORIES[m.source].name}: it adds or removes this membership at every sign-in.`}
                        >
                          {DIRECTORIES[m.source].member}
                        </span>
                      )}
                      <button
                        type="button"
                        class="icon-button small"
                        aria-label={`Remove ${m.username} from ${g.name}`}
                        title={
                          m.source
                            ? `Remove from the group (the ${DIRECTORIES[m.source].name} adds it again at the next sign-in)`
                            : 'Remove from the group'
                        }
                        onClick={() => void leave(g, m)}
                      >
                        ×
                      </button>
                    </li>
                  ))}
                </ul>
                <AddMember group={g} accounts={accounts} onAdded={() => void load()} />
              </div>
              <div class="volume-actions">
                <button type="button" class="small" onClick={() => rename(g)}>
                  Rename
                </button>
                <button type="button" class="small danger" onClick={() => void remove(g)}>
                  Delete
                </button>
              </div>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
