// API tokens: issue (name, scope, expiry; the secret shown once), list with last use,
// rename, revoke.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { ApiToken } from '../api/types.ts';
import { askText, confirmDialog } from '../components/Dialog.tsx';
import { ErrorNote } from '../components/common.tsx';
import { useSubmit } from '../components/useSubmit.ts';
import { toast, toastError } from '../state/toasts.ts';
import { formatDate } from '../util.ts';
import { status } from '../state/session.ts';

/**
 * How this account proves it is itself before a token is made: its password here, its directory
 * password (LDAP: the server checks it with a bind), or — single sign-on, no password at all — a
 * sign-in within the last minutes (the server answers "Sign in again" otherwise).
 */
type Proof = 'password' | 'directory' | 'sign-in';

function useProof(): Proof {
  const [proof, setProof] = useState<Proof>(status.value?.strategies.local === false ? 'sign-in' : 'password');
  useEffect(() => {
    api('GET /api/auth/methods').then(
      ({ methods }) => {
        const has = (type: string) => methods.some((m) => m.type === type);
        setProof(has('local_password') ? 'password' : has('ldap') ? 'directory' : 'sign-in');
      },
      () => undefined,
    );
  }, []);
  return proof;
}

function IssueForm({ onIssued }: { onIssued: (secret: string) => void }) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'read' | 'write'>('read');
  const [days, setDays] = useState('90');
  const [password, setPassword] = useState('');
  const proof = useProof();
  const { busy, error, setError, run } = useSubmit();
  const submit = (e: Event) => {
    e.preventDefault();
    // Said before sending: an empty field is not a wrong password.
    if (!password && proof !== 'sign-in') {
      setError(
        new Error(`Your ${proof === 'directory' ? 'directory password' : 'password'} is required to issue a token.`),
      );
      return;
    }
    return run(async () => {
      const body = { name: name.trim(), scope, expiresInDays: days === 'never' ? null : Number(days) };
      const a = await api(
        'POST /api/auth/tokens',
        { body: password ? { ...body, password } : body },
        { allow401: true },
      );
      setName('');
      setPassword('');
      onIssued(a.secret);
    });
  };
  return (
    <form class="stack" onSubmit={submit} aria-label="Issue a token">
      <div class="form-grid">
        <label>
          Name
          <input
            required
            maxLength={100}
            value={name}
            placeholder="backup script"
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <label>
          Scope
          <select value={scope} onChange={(e) => setScope(e.currentTarget.value as 'read' | 'write')}>
            <option value="read">Read (list and download)</option>
            <option value="write">Write (also upload, move, delete)</option>
          </select>
        </label>
        <label>
          Expires
          <select value={days} onChange={(e) => setDays(e.currentTarget.value)}>
            <option value="7">in 7 days</option>
            <option value="30">in 30 days</option>
            <option value="90">in 90 days</option>
            <option value="365">in a year</option>
            <option value="never">never (until revoked)</option>
          </select>
        </label>
        {proof !== 'sign-in' && (
          <label>
            {proof === 'directory' ? 'Your directory password' : 'Your password'}
            <input
              type="password"
              autocomplete="current-password"
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </label>
        )}
      </div>
      {proof === 'directory' && (
        <p class="muted small">The password you sign in with, checked by your organisation’s directory.</p>
      )}
      {proof === 'sign-in' && (
        <p class="muted small">
          Your account has no password here: if you signed in a while ago, you will be asked to sign in again first.
        </p>
      )}
      <ErrorNote error={error} />
      <div>
        <button class="primary" disabled={busy}>
          Issue token
        </button>
      </div>
    </form>
  );
}

function Secret({ secret, onDone }: { secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      const r = document.createRange();
      r.selectNodeContents(document.getElementById('token-secret')!);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(r);
    }
  };
  return (
    <div class="warning stack" role="alert">
      <strong>Copy this token now. It is shown only once; Burrow keeps only a fingerprint of it.</strong>
      <div class="secret">
        <code id="token-secret">{secret}</code>
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <span class="small">
        Send it as <code>Authorization: Bearer …</code>. Anyone who has it can act with its scope.
      </span>
      <div>
        <button type="button" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </div>
  );
}

export function Tokens() {
  const [tokens, setTokens] = useState<ApiToken[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const load = () =>
    api('GET /api/auth/tokens').then((a) => {
      setTokens(a.tokens);
      setError(null);
    }, setError);
  useEffect(() => {
    void load();
    // "Last used" changes while the page is open (a script uses a token): keep it current.
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void load();
    }, 15_000);
    const onFocus = () => void load();
    window.addEventListener('focus', onFocus);
    return () => {
      clearInterval(timer);
      window.removeEventListener('focus', onFocus);
    };
  }, []);
  const rename = (t: ApiToken) =>
    askText({
      title: 'Rename token',
      label: 'Name',
      value: t.name,
      confirm: 'Rename',
      action: async (name) => {
        await api('PATCH /api/auth/tokens/:id', { params: { id: t.id }, body: { name } });
        void load();
      },
    });
  const revoke = async (t: ApiToken) => {
    if (
      !(await confirmDialog({
        title: `Revoke “${t.name}”?`,
        body: 'Scripts using it stop working on their next request.',
        confirm: 'Revoke',
        danger: true,
      }))
    )
      return;
    try {
      await api('DELETE /api/auth/tokens/:id', { params: { id: t.id } });
      toast('Token revoked');
      void load();
    } catch (err) {
      toastError(err);
    }
  };
  const lastUse = (t: ApiToken) => {
    if (!t.lastUsedAt) return 'never';
    return `${formatDate(t.lastUsedAt)}${t.lastUsedIp ? ` from ${t.lastUsedIp}` : ''}`;
  };
  return (
    <div class="stack">
      <p class="muted">
        Tokens let scripts use the same API as this page. They cannot sign in, change your account or administer.
      </p>
      {secret ? (
        <Secret secret={secret} onDone={() => setSecret(null)} />
      ) : (
        <IssueForm
          onIssued={(s) => {
            setSecret(s);
            void load();
          }}
        />
      )}
      <ErrorNote error={error} />
      {tokens && !tokens.length && <p class="muted">No tokens yet.</p>}
      {tokens && tokens.length > 0 && (
        <div class="table-wrap">
          <table class="data" aria-label="API tokens">
            <thead>
              <tr>
                <th>Name</th>
                <th>Scope</th>
                <th>Issued</th>
                <th>Last used</th>
                <th>Expires</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => (
                <tr key={t.id}>
                  <td dir="auto">
                    <strong>{t.name}</strong>
                  </td>
                  <td data-label="Scope">{t.scope}</td>
                  <td data-label="Issued">{formatDate(t.createdAt)}</td>
                  <td data-label="Last used">{lastUse(t)}</td>
                  <td data-label="Expires">{t.expiresAt ? formatDate(t.expiresAt) : 'never'}</td>
                  <td class="actions">
                    <button type="button" class="small" onClick={() => rename(t)}>
                      Rename
                    </button>
                    <button type="button" class="small danger" onClick={() => void revoke(t)}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
