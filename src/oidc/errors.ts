// What can go wrong at the identity provider, as answers: unreachable or too slow → 503,
// an answer we cannot use (error, bad signature, wrong nonce, other subject) → 502, a
// callback that is not ours → 400, a person we may not let in → 403.
import { AppError } from '../core/errors.ts';

export const OIDC_UNAVAILABLE = 'OIDC_PROVIDER_UNAVAILABLE';
export const OIDC_BAD_ANSWER = 'OIDC_PROVIDER_ERROR';
export const OIDC_STATE = 'OIDC_STATE_INVALID';
export const OIDC_DENIED = 'OIDC_ACCESS_DENIED';
export const OIDC_NOT_CONFIGURED = 'OIDC_NOT_CONFIGURED';
export const OIDC_EXCHANGE_REJECTED = 'OIDC_EXCHANGE_REJECTED';

export class OidcError extends AppError {}

export const unavailable = (detail: string) =>
  new OidcError(OIDC_UNAVAILABLE, `The identity provider cannot be reached: ${detail}`);
export const badAnswer = (detail: string) =>
  new OidcError(OIDC_BAD_ANSWER, `The identity provider's answer could not be used: ${detail}`);
export const badState = (detail: string) => new OidcError(OIDC_STATE, detail);
export const denied = (detail: string) => new OidcError(OIDC_DENIED, detail);

function chain(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = err; e && out.length < 8; e = (e as { cause?: unknown }).cause) out.push(e);
  return out;
}

/** Maps what openid-client threw to one of the answers above (an OidcError passes through). */
export function classify(err: unknown, during: string): OidcError {
  if (err instanceof OidcError) return err;
  const errors = chain(err);
  const timedOut = errors.some((e) => ['TimeoutError', 'AbortError'].includes((e as Error).name));
  if (timedOut) return unavailable(`no answer in time ${during}.`);
  const network = errors.some(
    (e) =>
      (e as Error).message === 'fetch failed' ||
      /ECONNREFUSED|ENOTFOUND|ECONNRESET|EHOSTUNREACH/.test(
        String((e as { code?: string }).code ?? (e as Error).message),
      ),
  );
  if (network) return unavailable(`connection failed ${during}.`);
  const first = err as { error?: string; error_description?: string; code?: string; message?: string };
  if (
    first.error === 'access_denied' ||
    first.error === 'login_required' ||
    first.error === 'consent_required' ||
    first.error === 'interaction_required'
  ) {
    return denied(
      `The identity provider did not sign you in (${first.error}${first.error_description ? `: ${first.error_description}` : ''}).`,
    );
  }
  if (first.error)
    return badAnswer(`${first.error}${first.error_description ? ` (${first.error_description})` : ''} ${during}.`);
  return badAnswer(`${first.message ?? String(err)} ${during}.`);
}
