// First-run setup and sign-in. The sign-in form is also shown over a running workspace when
// a session expires, so whatever the person was typing underneath stays where it was.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api/client.ts';
import type { User } from '../api/types.ts';
import { ErrorNote } from '../components/common.tsx';
import { useSubmit } from '../components/useSubmit.ts';
import { signedIn, status, user } from '../state/session.ts';
import { toast } from '../state/toasts.ts';
import { navigate } from '../state/router.ts';
import { formatDuration } from '../util.ts';
import { forgetHandoffs, PasskeyButton, ProviderButton, useAutoHandoff } from './signin-methods.tsx';

function useCountdown(): [number, (s: number) => void] {
  const [left, setLeft] = useState(0);
  useEffect(() => {
    if (left <= 0) return;
    const t = setTimeout(() => setLeft(left - 1), 1000);
    return () => clearTimeout(t);
  }, [left]);
  return [left, setLeft];
}

function LockoutNote({ error, left }: { error: unknown; left: number }) {
  if (!(error instanceof ApiError) || error.status !== 429) return <ErrorNote error={error} />;
  return (
    <ErrorNote error={error}>
      <span class="retry" role="timer">
        {left > 0 ? `You can try again in ${formatDuration(left)}.` : 'You can try again now.'}
      </span>
    </ErrorNote>
  );
}

export function Brand() {
  return (
    <div class="brand">
      <img src="/favicon.svg" width="36" height="36" alt="" />
      <span>Burrow</span>
    </div>
  );
}

export function SetupScreen() {
  const [email, setEmail] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, setError, run } = useSubmit();
  const submit = (e: Event) => {
    e.preventDefault();
    if (password.length < 8) {
      setError(new Error('The password needs at least 8 characters.'));
      return;
    }
    return run(async () => {
      const body = { email, password };
      const answer = await api('POST /api/auth/setup', {
        body: username.trim() ? { ...body, username: username.trim() } : body,
      });
      // The next step of a new installation: which folders of this computer to show.
      navigate('/admin/volumes?welcome');
      signedIn(answer.user);
    });
  };
  return (
    <main class="auth-page">
      <form class="auth-card stack" onSubmit={submit} aria-labelledby="setup-title">
        <Brand />
        <h1 id="setup-title">Welcome to Burrow</h1>
        <p class="muted">Create the first account. It administers this installation.</p>
        <label>
          Email
          <input
            name="email"
            type="email"
            autocomplete="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
        <label>
          Username <span class="muted">(optional)</span>
          <input
            name="username"
            autocomplete="username"
            value={username}
            placeholder={email.split('@')[0] || ''}
            onInput={(e) => setUsername(e.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autocomplete="new-password"
            required
            minLength={8}
            aria-describedby="password-rule"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <p id="password-rule" class={`muted small${password && password.length < 8 ? ' rule-unmet' : ''}`}>
          At least 8 characters{password && password.length < 8 ? ` (${8 - password.length} more)` : ''}.
        </p>
        <ErrorNote error={error} />
        <button class="primary" disabled={busy}>
          Create account
        </button>
      </form>
    </main>
  );
}

/**
 * The sign-in form: the sign-in screen; `overlay`, over the workspace when the session ended;
 * `confirm`, over the workspace when an account without a password here must show it is itself
 * (AUTH_CONFIRM_REQUIRED) — its own way in again (the directory's password, a passkey or the
 * provider, which brings the browser back to this page), then the action is tried again.
 */
export function SignInForm({
  onDone,
  overlay,
  confirm,
}: {
  onDone?: () => void;
  overlay?: boolean;
  confirm?: boolean;
}) {
  const s = status.value;
  const [identifier, setIdentifier] = useState(confirm ? (user.value?.username ?? '') : '');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needCode, setNeedCode] = useState(Boolean(s?.totpPending));
  const { busy, error, setError, run } = useSubmit();
  const [left, setLeft] = useCountdown();
  const local = s?.strategies.local !== false && s?.authMode !== 'oidc';
  const oidc = Boolean(s?.strategies.oidc);
  const passkey = local && Boolean(s?.strategies.passkey);
  useAutoHandoff(s, oidc && !local && !overlay && !confirm);

  const finish = (answer: { user?: User; totpRequired?: boolean }) => {
    if (answer.totpRequired) {
      setNeedCode(true);
      return;
    }
    if (answer.user) {
      forgetHandoffs();
      signedIn(answer.user);
      if (confirm) toast('Signed in again: try it once more now.');
      onDone?.();
    }
  };
  const fail = (err: unknown) => {
    setError(err);
    if (err instanceof ApiError && err.status === 429) setLeft(err.retryAfter ?? 60);
  };
  const submit = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      if (needCode) finish(await api('POST /api/auth/login/totp', { body: { code: code.trim() } }, { allow401: true }));
      else
        finish(
          await api('POST /api/auth/login', { body: { identifier: identifier.trim(), password } }, { allow401: true }),
        );
    }, fail);
  };
  return (
    <form class="auth-card stack" onSubmit={submit} aria-labelledby="signin-title">
      <Brand />
      <h1 id="signin-title">{confirm ? 'Confirm it is you' : overlay ? 'Your session ended' : 'Sign in'}</h1>
      {overlay && <p class="muted">Sign in again to carry on. Nothing you typed is lost.</p>}
      {confirm && (
        <p class="muted">
          Your account has no password here, so this is asked only just after signing in. Sign in again the way you
          usually do, then try once more.
        </p>
      )}
      {!local && !oidc && (
        <p class="error-note" role="alert">
          No way to sign in is configured on this server. Ask its administrator.
        </p>
      )}
      {local && !needCode && (
        <>
          <label>
            Email or username
            <input
              name="identifier"
              autocomplete="username"
              required
              value={identifier}
              onInput={(e) => setIdentifier(e.currentTarget.value)}
            />
          </label>
          <label>
            Password
            <input
              name="password"
              type="password"
              autocomplete="current-password"
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </label>
        </>
      )}
      {needCode && (
        <label>
          Code from your authenticator app (or a recovery code)
          <input
            name="code"
            inputMode="numeric"
            autocomplete="one-time-code"
            required
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
        </label>
      )}
      <LockoutNote error={error} left={left} />
      {local && (
        <button class="primary" disabled={busy || left > 0}>
          {needCode ? 'Verify' : 'Sign in'}
        </button>
      )}
      {passkey && !needCode && <PasskeyButton onAnswer={finish} />}
      {oidc && !needCode && <ProviderButton s={s} />}
      {confirm && (
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      )}
    </form>
  );
}

export function SignInScreen() {
  return (
    <main class="auth-page">
      <SignInForm />
    </main>
  );
}
