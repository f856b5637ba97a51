// Identity, composed: accounts and sessions (auth/), API tokens (tokens/), administration of
// accounts (users/), the activity log (activity/) and settings (settings/). app.ts builds this
// once and hands the services below to the capabilities that need them.
import type { Capability } from '../core/capability.ts';
import type { Config } from '../config.ts';
import { ActivityService, type ActivityEvent } from '../activity/service.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../core/log.ts';
import { activityRoutes } from '../activity/routes.ts';
import type { TrustRule } from '../http/address.ts';
import { LogoStore } from '../settings/logo.ts';
import { settingsRoutes } from '../settings/routes.ts';
import { SettingsService } from '../settings/service.ts';
import { tokenRoutes } from '../tokens/routes.ts';
import { TokenService } from '../tokens/service.ts';
import { usersRoutes } from '../users/routes.ts';
import { UsersAdminService } from '../users/service.ts';
import { IdentityAuthenticator, SessionCookies } from './authenticator.ts';
import { RateLimiter } from './rate-limits.ts';
import { authRoutes } from './routes.ts';
import { authStartupWarnings } from './warnings.ts';
import { AuthService } from './service.ts';
import { SessionStore } from './sessions.ts';
import { toInfo, UsersStore, type UserInfo } from './users-store.ts';
import { SecretBox } from '../twofactor/secret-box.ts';
import { TwoFactorService } from '../twofactor/service.ts';

const SWEEP_EVERY_MS = 60 * 60_000;

export interface IdentityDeps {
  config: Config;
  db: Database;
  log: Logger;
  sessionSecret: string;
  trustProxy: TrustRule;
}

export interface Identity {
  capabilities: Capability[];
  authenticator: IdentityAuthenticator;
  /** Accounts as other capabilities see them. */
  users: { get(id: string): UserInfo | null };
  settings: SettingsService;
  activity: { record(event: ActivityEvent): void };
  /** What checks a name and a password or token outside a session (WebDAV Basic). */
  credentials: { mode: string; auth: AuthService; tokens: TokenService; users: UsersStore; limits: RateLimiter };
  /** What the sign-in methods beyond the password (twofactor/, passkeys/, oidc/) build on. */
  signIn: { auth: AuthService; authenticator: IdentityAuthenticator; cookies: SessionCookies; users: UsersStore; limits: RateLimiter; activity: ActivityService; twoFactor: TwoFactorService };
}

export function createIdentity({ config, db, log, sessionSecret, trustProxy }: IdentityDeps): Identity {
  const users = new UsersStore(db);
  const settings = new SettingsService(db);
  const activity = new ActivityService(db, log, () => settings.activity());
  activity.usernameOf = (id) => users.get(id)?.username ?? null;
  const sessions = new SessionStore(db, sessionSecret, config.auth.sessionMaxAgeDays);
  const limits = new RateLimiter(db);
  const tokens = new TokenService(db, users, activity);
  const cookies = new SessionCookies(config.server.publicUrl, sessions.maxAgeMs);
  const authenticator = new IdentityAuthenticator(config.auth.mode, users, sessions, tokens, cookies);
  // The second factor's seeds are sealed under a key in CONFIG_DIR; its password check is auth's.
  const twoFactor: TwoFactorService = new TwoFactorService({
    db, box: SecretBox.fromConfigDir(config.storage.configDir, 'totp-key'), users, limits, activity,
    confirmPassword: (userId, password, ip) => auth.confirmPasswordOf(userId, password, ip),
  });
  const auth: AuthService = new AuthService({ config, db, users, sessions, limits, activity, secondFactor: twoFactor, oidcRoutes: true });
  authStartupWarnings(config, log, true);
  const usersAdmin = new UsersAdminService({ config, db, users, sessions, settings, activity });

  // At startup, before the first request: never a password reset, only the role.
  if (config.auth.adminEmail) {
    const restored = users.restoreAdmin(config.auth.adminEmail);
    if (restored) {
      log.info('AUTH_ADMIN_EMAIL: the admin role was given back', { userId: restored.id });
      activity.record({ action: 'admin.role-restore', outcome: 'success', userId: restored.id, detail: { via: 'AUTH_ADMIN_EMAIL' } });
    }
  }

  const sweep = () => {
    try {
      const removed = { sessions: sessions.sweep(), rateLimits: limits.sweep(), activity: activity.sweep() };
      log.debug('identity sweep', removed);
    } catch (err) {
      log.warn('identity sweep failed', { err });
    }
  };
  let timer: NodeJS.Timeout | undefined;

  const capability: Capability = {
    routes: [
      ...authRoutes({ auth, authenticator, cookies }),
      ...tokenRoutes({ tokens, auth, limits }),
      ...usersRoutes(usersAdmin),
      ...activityRoutes(activity, trustProxy),
      ...settingsRoutes({ settings, activity, logos: new LogoStore(config.storage.configDir) }),
    ],
    start() {
      setImmediate(sweep);
      timer = setInterval(sweep, SWEEP_EVERY_MS);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };

  return {
    capabilities: [capability],
    authenticator,
    users: { get: (id) => { const row = users.get(id); return row ? toInfo(row) : null; } },
    settings,
    activity,
    credentials: { mode: config.auth.mode, auth, tokens, users, limits },
    signIn: { auth, authenticator, cookies, users, limits, activity, twoFactor },
  };
}
