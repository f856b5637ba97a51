// Sign-in through the identity provider as a capability: the service when a provider is
// configured (and AUTH_MODE allows it), the rows either way (404 without it), and a sweep of
// hand-offs and app codes nobody finished.
import { periodicJob, type JobGate } from '../core/periodic.ts';
import type { Capability } from '../http/capability.ts';
import type { Config } from '../config.ts';
import type { OidcStore } from './store.ts';
import type { AuthService } from '../auth/service.ts';
import type { IdentityAuthenticator, SessionCookies } from '../auth/authenticator.ts';
import type { UsersStore } from '../accounts/users-store.ts';
import type { ActivityService } from '../activity/service.ts';
import type { Logger } from '../core/log.ts';
import type { TrustRule } from '../http/address.ts';
import type { DirectoryGroups } from '../access/service.ts';
import { oidcRoutes } from './routes.ts';
import { OidcService, oidcOptions } from './service.ts';

const SWEEP_EVERY_MS = 15 * 60_000;

export function createOidcCapability(deps: {
  /** Where the state sweep runs (one instance of a cluster). */
  jobs?: JobGate;
  config: Config;
  store: OidcStore;
  log: Logger;
  auth: AuthService;
  authenticator: IdentityAuthenticator;
  cookies: SessionCookies;
  users: UsersStore;
  activity: ActivityService;
  trustProxy: TrustRule;
  groups: DirectoryGroups;
}): Capability {
  const { auth, authenticator, cookies, users, activity } = deps;
  const options = oidcOptions(deps.config, deps.config.oidc.timeoutMs);
  const oidc = options
    ? new OidcService({ store: deps.store, users, activity, auth, groups: deps.groups }, options)
    : null;
  const sweep = oidc
    ? periodicJob({
        everyMs: SWEEP_EVERY_MS,
        first: 'later',
        log: deps.log,
        failed: 'identity-provider sweep failed',
        ...(deps.jobs ? { job: { name: 'oidc.sweep', gate: deps.jobs } } : {}),
        run: () => oidc.sweep(),
      })
    : null;
  return {
    routes: oidcRoutes({
      oidc,
      auth,
      authenticator,
      cookies,
      publicUrl: deps.config.server.publicUrl,
      trustProxy: deps.trustProxy,
    }),
    start: () => sweep?.start(),
    stop: () => sweep?.stop(),
  };
}
