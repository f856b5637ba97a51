// Passkeys as a capability: the relying party from PUBLIC_URL (and WEBAUTHN_RP_ID), the
// service, its rows, and a sweep of challenges nobody finished.
import { periodicJob, type JobGate } from '../core/periodic.ts';
import type { Capability } from '../http/capability.ts';
import type { Config } from '../config.ts';
import type { PasskeyStore } from './store.ts';
import type { AuthService } from '../auth/service.ts';
import type { IdentityAuthenticator, SessionCookies } from '../auth/authenticator.ts';
import type { UsersStore } from '../accounts/users-store.ts';
import type { ActivityService } from '../activity/service.ts';
import type { RateLimiter } from '../accounts/rate-limits.ts';
import type { Logger } from '../core/log.ts';
import type { TrustRule } from '../http/address.ts';
import { RelyingParties } from './relying-party.ts';
import { passkeyRoutes } from './routes.ts';
import { PasskeyService } from './service.ts';

const SWEEP_EVERY_MS = 15 * 60_000;

export function createPasskeysCapability(deps: {
  /** Where the challenge sweep runs (one instance of a cluster). */
  jobs?: JobGate;
  config: Config;
  store: PasskeyStore;
  log: Logger;
  auth: AuthService;
  authenticator: IdentityAuthenticator;
  cookies: SessionCookies;
  users: UsersStore;
  limits: RateLimiter;
  activity: ActivityService;
  trustProxy: TrustRule;
}): Capability {
  const { auth, authenticator, cookies, users, limits, activity } = deps;
  const relyingParties = new RelyingParties({
    publicUrl: deps.config.server.publicUrl,
    rpId: deps.config.auth.webauthnRpId,
  });
  const passkeys = new PasskeyService({ store: deps.store, users, limits, activity, auth, relyingParties });
  // Passkeys made before their name was recorded (migration passkeys/002) get the one they had.
  passkeys.adoptLegacy();
  const sweep = periodicJob({
    everyMs: SWEEP_EVERY_MS,
    first: 'later',
    log: deps.log,
    failed: 'passkey challenge sweep failed',
    ...(deps.jobs ? { job: { name: 'passkeys.sweep', gate: deps.jobs } } : {}),
    run: () => passkeys.sweep(),
  });
  return {
    routes: passkeyRoutes({ passkeys, auth, authenticator, cookies, trustProxy: deps.trustProxy }),
    start: sweep.start,
    stop: sweep.stop,
  };
}
