// Account security: the second factor (TOTP with a QR code, recovery codes to download) and
// passkeys (register with a name, rename, remove). Passkeys need a secure context: https, or
// localhost on this computer — on a LAN address over plain http the browser offers none.
import { browserSupportsWebAuthn, startRegistration } from '@simplewebauthn/browser';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api/client.ts';
import type { ApiAnswer } from '../../../src/contract.ts';
import { ErrorNote } from '../components/common.tsx';
import { askText, confirmDialog } from '../components/Dialog.tsx';
import { QrCode } from '../shares/Qr.tsx';
import { passkeyErrorWords } from './passkey-address.ts';
import { PasskeyWhere, thisPage } from './PasskeyWhere.tsx';
import { toast, toastError } from '../state/toasts.ts';
import { formatDate } from '../util.ts';

type TotpStatus = ApiAnswer<'GET /api/auth/totp'>;
type Passkey = ApiAnswer<'GET /api/auth/passkeys'>['passkeys'][number];

function downloadCodes(codes: string[]): void {
  const text = `Burrow recovery codes for ${location.host}\nEach code signs in once in place of the six-digit code.\n\n${codes.join('\n')}\n`;
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `burrow-recovery-codes-${location.hostname}.txt`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <div class="stack" aria-label="Recovery codes">
      <p>
        Keep these recovery codes somewhere safe. Each signs you in once if your phone is not at hand. They are shown
        only now.
      </p>
      <ul class="recovery-codes" style={{ fontFamily: 'monospace', columns: 2, listStyle: 'none', padding: 0 }}>
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <div>
        <button type="button" class="primary" onClick={() => downloadCodes(codes)}>
          Download recovery codes
        </button>
      </div>
    </div>
  );
}

function SecondFactor() {
  const [status, setStatus] = useState<TotpStatus | null>(null);
  const [setup, setSetup] = useState<ApiAnswer<'POST /api/auth/totp/start'> | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const load = () => api('GET /api/auth/totp').then(setStatus, setError);
  useEffect(() => {
    void load();
  }, []);
  const act = async (fn: () => Promise<void>) => {
    setError(null);
    setBusy(true);
    try {
      await fn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const start = () =>
    act(async () => {
      setCodes(null);
      setSetup(await api('POST /api/auth/totp/start'));
    });
  const confirm = (e: Event) => {
    e.preventDefault();
    return act(async () => {
      const answer = await api('POST /api/auth/totp/confirm', { body: { code: code.trim() } }, { allow401: true });
      setCodes(answer.recoveryCodes);
      setSetup(null);
      setCode('');
      toast('Two-step sign-in is on');
      await load();
    });
  };
  const regenerate = (e: Event) => {
    e.preventDefault();
    return act(async () => {
      const answer = await api('POST /api/auth/totp/recovery-codes', { body: { password } }, { allow401: true });
      setCodes(answer.recoveryCodes);
      setPassword('');
      await load();
    });
  };
  const turnOff = async () => {
    if (
      !(await confirmDialog({
        title: 'Turn off two-step sign-in?',
        body: 'Signing in will ask only for your password.',
        confirm: 'Turn off',
        danger: true,
      }))
    )
      return;
    await act(async () => {
      await api('DELETE /api/auth/totp', { body: { password } }, { allow401: true });
      setPassword('');
      setCodes(null);
      toast('Two-step sign-in is off');
      await load();
    });
  };
  if (!status) return <ErrorNote error={error} />;
  return (
    <section class="stack" style={{ maxWidth: '560px' }} aria-labelledby="totp-title">
      <h2 id="totp-title">Two-step sign-in</h2>
      {codes && <RecoveryCodes codes={codes} />}
      {!status.enabled && !setup && (
        <>
          <p class="muted">
            After your password, Burrow asks for a six-digit code from an authenticator app on your phone.
          </p>
          <div>
            <button type="button" class="primary" disabled={busy} onClick={() => void start()}>
              Set up two-step sign-in
            </button>
          </div>
        </>
      )}
      {setup && (
        <form class="stack" onSubmit={confirm}>
          <p>Scan this code with your authenticator app, or type the key by hand.</p>
          <QrCode text={setup.uri} />
          <p>
            Key: <code data-testid="totp-secret">{setup.secret}</code>
          </p>
          <label>
            Six-digit code from the app
            <input
              name="code"
              inputMode="numeric"
              autocomplete="one-time-code"
              pattern="\d{6}"
              required
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
          </label>
          <div>
            <button class="primary" disabled={busy}>
              Turn on
            </button>
          </div>
        </form>
      )}
      {status.enabled && (
        <>
          <p>
            On since {status.confirmedAt ? formatDate(status.confirmedAt) : '—'}. Recovery codes left:{' '}
            {status.recoveryCodesLeft}.
          </p>
          <form class="stack" onSubmit={regenerate}>
            <label>
              Password
              <input
                type="password"
                autocomplete="current-password"
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
            </label>
            <div class="row" style={{ gap: '8px', display: 'flex' }}>
              <button class="button" disabled={busy}>
                New recovery codes
              </button>
              <button type="button" class="button danger" disabled={busy} onClick={() => void turnOff()}>
                Turn off
              </button>
            </div>
          </form>
        </>
      )}
      <ErrorNote error={error} />
    </section>
  );
}

function Passkeys() {
  const [list, setList] = useState<Passkey[] | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const load = () => api('GET /api/auth/passkeys').then((a) => setList(a.passkeys), setError);
  useEffect(() => {
    void load();
  }, []);
  // Where this page is (127.0.0.1, a LAN address over http…) may rule passkeys out: said in words.
  const place = thisPage();
  const supported = browserSupportsWebAuthn();
  const secure = supported && !place;
  const add = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const start = await api('POST /api/auth/passkeys/register/start');
      let response;
      try {
        response = await startRegistration({ optionsJSON: start.options });
      } catch (err) {
        throw passkeyErrorWords(err, place);
      }
      await api('POST /api/auth/passkeys/register/finish', {
        body: { response: { ...response }, name: name.trim() || undefined },
      });
      setName('');
      toast('Passkey added');
      await load();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const rename = (p: Passkey) =>
    askText({
      title: 'Rename passkey',
      label: 'Name',
      value: p.name,
      confirm: 'Rename',
      action: async (value) => {
        await api('PATCH /api/auth/passkeys/:id', { params: { id: p.id }, body: { name: value } });
        await load();
      },
    });
  const remove = (p: Passkey) =>
    askText({
      title: `Remove “${p.name}”`,
      label: 'Your password (leave empty if the account has none)',
      confirm: 'Remove',
      secret: true,
      action: async (value) => {
        try {
          await api(
            'DELETE /api/auth/passkeys/:id',
            { params: { id: p.id }, body: value ? { password: value } : {} },
            { allow401: true },
          );
        } catch (err) {
          if (err instanceof ApiError && err.status === 409) toastError(err, 'Not removed');
          throw err;
        }
        toast('Passkey removed');
        await load();
      },
    });
  return (
    <section class="stack" style={{ maxWidth: '560px' }} aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <p class="muted">
        Sign in with your fingerprint, face or device PIN instead of a password. Passkeys need a secure connection —
        https, or this computer's own address (localhost) — and each works at the name it was made at: one made at
        localhost is not offered at burrow.local, so add one at each name you open Burrow by.
      </p>
      {place && <PasskeyWhere place={place} />}
      {!place && !supported && (
        <p class="error-note" role="note">
          This browser does not offer passkeys.
        </p>
      )}
      {list && list.length === 0 && <p>No passkeys yet.</p>}
      {list && list.length > 0 && (
        <ul class="passkeys" style={{ listStyle: 'none', padding: 0 }}>
          {list.map((p) => (
            <li
              key={p.id}
              style={{ display: 'flex', flexWrap: 'wrap', gap: '8px', alignItems: 'center', padding: '4px 0' }}
            >
              <span style={{ flex: 1, minWidth: '12rem' }}>
                <strong>{p.name}</strong>{' '}
                <span class="muted small">
                  added {formatDate(p.createdAt)}
                  {p.lastUsedAt ? `, last used ${formatDate(p.lastUsedAt)}` : ''}
                  {p.backedUp ? ', synced' : ''}
                </span>
                <br />
                <span class="small passkey-rp" data-rp={p.rpId}>
                  {p.rpId === window.location.hostname.toLowerCase()
                    ? `Works at ${p.rpId} (this address)`
                    : `Works at ${p.rpId} only, not at this address (${window.location.hostname})`}
                </span>
              </span>
              <button type="button" class="button" onClick={() => rename(p)}>
                Rename
              </button>
              <button type="button" class="button danger" onClick={() => remove(p)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {secure && (
        <form class="stack" onSubmit={add}>
          <label>
            Name for the new passkey
            <input
              name="passkey-name"
              maxLength={64}
              placeholder="e.g. Laptop"
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </label>
          <div>
            <button class="primary" disabled={busy}>
              Add a passkey
            </button>
          </div>
        </form>
      )}
      <ErrorNote error={error} />
    </section>
  );
}

export function Security() {
  return (
    <div class="stack">
      <SecondFactor />
      <Passkeys />
    </div>
  );
}
