// Ways in beside the password form: a passkey, the identity provider (with a guard against
// hand-off loops), and the boot page's reload offer. Spec §5, client behaviour of the sign-in screen.
import { startAuthentication, browserSupportsWebAuthn } from '@simplewebauthn/browser';
import { useEffect, useState } from 'preact/hooks';
import { api, apiUrl } from '../api/client.ts';
import type { AuthStatus, User } from '../api/types.ts';
import { ErrorNote } from '../components/common.tsx';
import { useSubmit } from '../components/useSubmit.ts';
import { passkeyErrorWords } from '../settings/passkey-address.ts';
import { PasskeyWhere, thisPage } from '../settings/PasskeyWhere.tsx';

const HANDOFFS_KEY = 'burrow.oidcHandoffs';
const LOOP_WINDOW_MS = 10_000;
const LOOP_COUNT = 3;

function handoffs(): number[] {
  try {
    const list = JSON.parse(sessionStorage.getItem(HANDOFFS_KEY) ?? '[]') as unknown;
    return Array.isArray(list)
      ? list.filter((t): t is number => typeof t === 'number' && Date.now() - t < LOOP_WINDOW_MS)
      : [];
  } catch {
    return [];
  }
}

/** Notes a hand-off to the provider (kept for this tab only). */
export function recordHandoff(): void {
  try {
    sessionStorage.setItem(HANDOFFS_KEY, JSON.stringify([...handoffs(), Date.now()]));
  } catch {
    /* private mode */
  }
}

/** Three hand-offs within ten seconds that came back without a session: the provider and Burrow disagree. */
export function handoffLoop(): boolean {
  return handoffs().length >= LOOP_COUNT;
}

export function forgetHandoffs(): void {
  try {
    sessionStorage.removeItem(HANDOFFS_KEY);
  } catch {
    /* private mode */
  }
}

/** The provider's name as a person knows it: the issuer's host. */
export function providerName(s: AuthStatus | null): string {
  try {
    return s?.oidc?.issuer ? new URL(s.oidc.issuer).hostname : 'your identity provider';
  } catch {
    return 'your identity provider';
  }
}

export function providerLoginUrl(): string {
  const here = window.location.pathname + window.location.search;
  return apiUrl('GET /api/auth/oidc/login', { query: { redirect: here } });
}

export function ProviderButton({ s }: { s: AuthStatus | null }) {
  if (handoffLoop()) return <LoopNote s={s} />;
  return (
    <a class="button" href={providerLoginUrl()} onClick={recordHandoff}>
      Sign in with {providerName(s)}
    </a>
  );
}

export function LoopNote({ s }: { s: AuthStatus | null }) {
  return (
    <div class="error-note" role="alert">
      Signing in through {providerName(s)} came back three times without a session, so Burrow stopped sending you there.
      Check the provider's settings for this server (callback address, clock, allowed accounts), then{' '}
      <button
        type="button"
        class="link"
        onClick={() => {
          forgetHandoffs();
          window.location.reload();
        }}
      >
        try again
      </button>
      .
    </div>
  );
}

/** With AUTH_MODE=oidc the provider is the only way in: go there at once, unless that keeps failing. */
export function useAutoHandoff(s: AuthStatus | null, only: boolean): void {
  useEffect(() => {
    if (!only || handoffLoop()) return;
    recordHandoff();
    window.location.assign(providerLoginUrl());
  }, [only, s]);
}

export function PasskeyButton({ onAnswer }: { onAnswer: (answer: { user?: User; totpRequired?: boolean }) => void }) {
  const { busy, error, run } = useSubmit();
  const [explain, setExplain] = useState(false);
  if (!browserSupportsWebAuthn()) return null;
  // At 127.0.0.1, or a LAN address over http, the browser would refuse with a bare "127.0.0.1 is
  // an invalid domain": the button says why instead, with a link to where passkeys work.
  const place = thisPage();
  const signIn = () => {
    if (place) return setExplain(true);
    return run(async () => {
      const start = await api('POST /api/auth/login/passkey/start');
      let response;
      try {
        response = await startAuthentication({ optionsJSON: start.options });
      } catch (err) {
        throw passkeyErrorWords(err, place);
      }
      onAnswer(
        await api('POST /api/auth/login/passkey/finish', { body: { response: { ...response } } }, { allow401: true }),
      );
    });
  };
  return (
    <>
      <button type="button" class="button" disabled={busy} onClick={() => void signIn()}>
        Sign in with a passkey
      </button>
      {explain && place && <PasskeyWhere place={place} />}
      <ErrorNote error={error} />
    </>
  );
}

/** The boot page: a logo while the first answer is awaited, and a reload offer past twelve seconds. */
export function BootWait() {
  const [late, setLate] = useState(false);
  useEffect(() => {
    const t = setTimeout(() => setLate(true), 12_000);
    return () => clearTimeout(t);
  }, []);
  return (
    <div class="center boot stack" role="status" aria-live="polite">
      <img src="/favicon.svg" width="48" height="48" alt="Burrow" />
      {late && (
        <>
          <p>This is taking longer than it should.</p>
          <button type="button" class="primary" onClick={() => window.location.reload()}>
            Reload
          </button>
        </>
      )}
    </div>
  );
}
