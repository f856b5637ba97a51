// Accounts: create, change role, reset password, unlock, delete, assigned volumes.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { AdminUser } from '../api/types.ts';
import { askText, confirmDialog, showDialog } from '../components/Dialog.tsx';
import { ErrorNote } from '../components/common.tsx';
import { features, user as me } from '../state/session.ts';
import { toast, toastError } from '../state/toasts.ts';
import { formatDate } from '../util.ts';
import { codeWords } from './activity-words.ts';
import { AssignedVolumes } from './AssignedVolumes.tsx';
import { accountOrigin } from './origins.ts';

function CreateUser({ onCreated }: { onCreated: () => void }) {
  const [email, setEmail] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [admin, setAdmin] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const body = { email, password, roles: admin ? ['admin' as const] : [] };
      await api('POST /api/users', { body: username.trim() ? { ...body, username: username.trim() } : body });
      setEmail('');
      setUsername('');
      setPassword('');
      setAdmin(false);
      toast('Account created');
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="stack" onSubmit={submit} aria-label="Create an account">
      <div class="form-grid">
        <label>
          Email
          <input type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label>
          Username
          <input
            value={username}
            placeholder={email.split('@')[0]}
            onInput={(e) => setUsername(e.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            autocomplete="new-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <label class="check">
          <input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.currentTarget.checked)} /> Administrator
        </label>
      </div>
      <ErrorNote error={error} />
      <div>
        <button class="primary">Create account</button>
      </div>
    </form>
  );
}

export function Users() {
  const [users, setUsers] = useState<AdminUser[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () =>
    api('GET /api/users').then((a) => {
      setUsers(a.users);
      setError(null);
    }, setError);
  useEffect(() => {
    void load();
  }, []);
  const act = (fn: () => Promise<unknown>, done: string) =>
    fn().then(
      () => {
        toast(done);
        void load();
      },
      (err) => toastError(err),
    );
  const setRole = (u: AdminUser, admin: boolean) =>
    act(
      () => api('PATCH /api/users/:id', { params: { id: u.id }, body: { roles: admin ? ['admin'] : [] } }),
      'Role changed',
    );
  const reset = (u: AdminUser) =>
    askText({
      title: `New password for ${u.username}`,
      label: 'New password (every session of the account is signed out)',
      confirm: 'Reset password',
      secret: true,
      action: async (pw) => {
        await api('POST /api/users/:id/password', { params: { id: u.id }, body: { newPassword: pw } });
        toast('Password reset');
      },
    });
  const remove = async (u: AdminUser) => {
    if (
      !(await confirmDialog({
        title: `Delete ${u.username}?`,
        body: 'The account, its sessions and its API tokens go. Files stay where they are.',
        confirm: 'Delete account',
        danger: true,
      }))
    )
      return;
    void act(() => api('DELETE /api/users/:id', { params: { id: u.id } }), 'Account deleted');
  };
  const volumesOf = (u: AdminUser) => showDialog((close) => <AssignedVolumes user={u} onClose={close} />);
  return (
    <div class="stack">
      <h2>New account</h2>
      <CreateUser onCreated={() => void load()} />
      <h2>Accounts</h2>
      <ErrorNote error={error} />
      {users && (
        <div class="table-wrap">
          <table class="data" aria-label="Accounts">
            <thead>
              <tr>
                <th>User</th>
                <th>Role</th>
                <th>Sign-in</th>
                <th>Created</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {users.map((u) => {
                const admin = Boolean(u.roles?.includes('admin'));
                const origin = accountOrigin(u);
                return (
                  <tr key={u.id}>
                    <td>
                      <strong dir="auto">{u.username}</strong>
                      <div class="muted small" dir="auto">
                        {u.email}
                      </div>
                      <div class="badges">
                        <span class="badge" title={origin.note}>
                          {origin.label}
                        </span>
                        {u.locked && <span class="badge read-only">Locked after failed sign-ins</span>}
                      </div>
                    </td>
                    <td data-label="Role">
                      <select
                        aria-label={`Role of ${u.username}`}
                        value={admin ? 'admin' : 'user'}
                        disabled={u.id === me.value?.id}
                        onChange={(e) => void setRole(u, e.currentTarget.value === 'admin')}
                      >
                        <option value="user">User</option>
                        <option value="admin">Administrator</option>
                      </select>
                    </td>
                    <td class="small" data-label="Sign-in">
                      {u.authMethods.map((m) => codeWords(m.method)).join(', ')}
                    </td>
                    <td class="small" data-label="Created">
                      {formatDate(u.createdAt)}
                    </td>
                    <td class="actions">
                      {/* The directory's accounts have no password here to reset. */}
                      {origin.source !== 'ldap' && (
                        <button type="button" class="small" onClick={() => reset(u)}>
                          Reset password
                        </button>
                      )}
                      {u.locked && (
                        <button
                          type="button"
                          class="small"
                          onClick={() =>
                            void act(
                              () => api('POST /api/users/:id/unlock', { params: { id: u.id } }),
                              'Account unlocked',
                            )
                          }
                        >
                          Unlock
                        </button>
                      )}
                      {features.value.userVolumes?.enabled === true && (
                        <button type="button" class="small" onClick={() => volumesOf(u)}>
                          Volumes
                        </button>
                      )}
                      <button
                        type="button"
                        class="small danger"
                        disabled={u.id === me.value?.id}
                        onClick={() => void remove(u)}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
