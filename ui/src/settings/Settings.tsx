// Account settings: preferences, password, the second factor, notifications, API tokens.
import { useState } from 'preact/hooks';
import { ApiError, api } from '../api/client.ts';
import { ErrorNote } from '../components/common.tsx';
import { Tabs, currentTab } from '../components/Tabs.tsx';
import { preferences, preferencesLoaded, savePreference, type Theme } from '../state/session.ts';
import { toast, toastError } from '../state/toasts.ts';
import { Tokens } from './Tokens.tsx';
import { Mount } from './Mount.tsx';
import { SecureAccess } from './SecureAccess.tsx';
import { Security } from './Security.tsx';
import { Notifications } from './Notifications.tsx';

function Preferences() {
  const p = preferences.value;
  const set = (key: string, value: unknown) =>
    savePreference(key, value).then(
      () => toast('Saved'),
      (err) => toastError(err, 'Not saved'),
    );
  return (
    // Disabled until the server's values are in, so a click never saves a default over them.
    <fieldset
      class="stack"
      style={{ maxWidth: '520px', border: 0, padding: 0, margin: 0 }}
      disabled={!preferencesLoaded.value}
      aria-busy={!preferencesLoaded.value}
    >
      <label class="check">
        <input
          type="checkbox"
          checked={p.showHiddenFiles}
          onChange={(e) => void set('showHiddenFiles', e.currentTarget.checked)}
        />{' '}
        Show hidden files (names starting with a dot)
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={p.showThumbnails !== false}
          onChange={(e) => void set('showThumbnails', e.currentTarget.checked)}
        />{' '}
        Show picture thumbnails in the grid
      </label>
      <label>
        Theme
        <select value={p.theme ?? 'system'} onChange={(e) => void set('theme', e.currentTarget.value as Theme)}>
          <option value="system">Follow the system</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </label>
    </fieldset>
  );
}

function Password() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [noPassword, setNoPassword] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    if (next !== repeat) {
      setError(new Error('The two new passwords differ.'));
      return;
    }
    setBusy(true);
    try {
      if (noPassword) await api('POST /api/auth/password/add', { body: { password: next } });
      else
        await api(
          'POST /api/auth/password',
          { body: { currentPassword: current, newPassword: next } },
          { allow401: true },
        );
      setCurrent('');
      setNext('');
      setRepeat('');
      toast(noPassword ? 'Password added' : 'Password changed; your other sessions were signed out');
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) setNoPassword(false);
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="stack" style={{ maxWidth: '420px' }} onSubmit={submit}>
      <label class="check">
        <input type="checkbox" checked={noPassword} onChange={(e) => setNoPassword(e.currentTarget.checked)} /> My
        account has no password yet (signed up through the identity provider)
      </label>
      {!noPassword && (
        <label>
          Current password
          <input
            type="password"
            autocomplete="current-password"
            required
            value={current}
            onInput={(e) => setCurrent(e.currentTarget.value)}
          />
        </label>
      )}
      <label>
        New password
        <input
          type="password"
          autocomplete="new-password"
          required
          value={next}
          onInput={(e) => setNext(e.currentTarget.value)}
        />
      </label>
      <label>
        New password again
        <input
          type="password"
          autocomplete="new-password"
          required
          value={repeat}
          onInput={(e) => setRepeat(e.currentTarget.value)}
        />
      </label>
      <ErrorNote error={error} />
      <div>
        <button class="primary" disabled={busy}>
          {noPassword ? 'Add password' : 'Change password'}
        </button>
      </div>
    </form>
  );
}

const TABS = ['preferences', 'password', 'security', 'notifications', 'tokens', 'drive', 'secure'];

export default function Settings() {
  const tab = currentTab('/settings', TABS);
  return (
    <section class="page">
      <h1>Settings</h1>
      <Tabs
        tabs={[
          { to: '/settings/preferences', label: 'Preferences' },
          { to: '/settings/password', label: 'Password' },
          { to: '/settings/security', label: 'Two-step & passkeys' },
          { to: '/settings/notifications', label: 'Notifications' },
          { to: '/settings/tokens', label: 'API tokens' },
          { to: '/settings/drive', label: 'Mount as a drive' },
          { to: '/settings/secure', label: 'Secure connection' },
        ]}
      />
      {tab === 'preferences' && <Preferences />}
      {tab === 'password' && <Password />}
      {tab === 'security' && <Security />}
      {tab === 'notifications' && <Notifications />}
      {tab === 'tokens' && <Tokens />}
      {tab === 'drive' && <Mount />}
      {tab === 'secure' && <SecureAccess />}
    </section>
  );
}
