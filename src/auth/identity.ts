// Identity, composed: the services of accounts and sessions (auth/), API tokens (tokens/),
// administration of accounts (users/), the activity log (activity/) and settings (settings/),
// and their background sweep. app.ts builds this once, mounts each folder's route group over
// `services`, and hands the narrower views below to the capabilities that need them.
import type { Capability } from '../core/capability.ts';
import type { Config } from '../config.ts';
import { ActivityService, type ActivityEvent } from '../activity/service.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../core/log.ts';
import { LogoStore } from '../settings/logo.ts';
import { SettingsPanel } from '../settings/panel.ts';
import { SettingsService } from '../settings/service.ts';
import { installationSwitches, type InstallationSwitches } from '../settings/switches.ts';
import { TokenService } from '../tokens/service.ts';
import { UsersAdminService } from '../users/service.ts';
import { IdentityAuthenticator, SessionCookies } from './authenticator.ts';
import { RateLimiter } from './rate-limits.ts';
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
  /** Built by app.ts before the indexer (which reads the folder-size switch); made here when absent. */
  settings?: SettingsService;
  switches?: InstallationSwitches;
}

/** What the identity folders' route groups are built over. */
export interface IdentityServices {
  auth: AuthService;
  authenticator: IdentityAuthenticator;
  cookies: SessionCookies;
  tokens: TokenService;
  limits: RateLimiter;
  usersAdmin: UsersAdminService;
  activity: ActivityService;
  settings: SettingsService;
  panel: SettingsPanel;
  logos: LogoStore;
}

export interface Identity {
  /** The sweep of expired sessions, rate-limit windows and old activity rows (after listen; no routes). */
  background: Capability;
  services: IdentityServices;
  authenticator: IdentityAuthenticator;
  /** Accounts as other capabilities see them. */
  users: { get(id: string): UserInfo | null };
  settings: SettingsService;
  activity: { record(event: ActivityEvent): void };
  /** What checks a name and a password or token outside a session (WebDAV Basic). */
  credentials: {
    mode: string;
    auth: AuthService;
    tokens: TokenService;
    users: UsersStore;
    limits: RateLimiter;
    secondFactor: TwoFactorService;
  };
  /** What the sign-in methods beyond the password (twofactor/, passkeys/, oidc/) build on. */
  signIn: {
    auth: AuthService;
    authenticator: IdentityAuthenticator;
    cookies: SessionCookies;
    users: UsersStore;
    limits: RateLimiter;
    activity: ActivityService;
    twoFactor: TwoFactorService;
  };
}

export function createIdentity(deps: IdentityDeps): Identity {
  const { config, db, log, sessionSecret } = deps;
  const users = new UsersStore(db);
  const settings = deps.settings ?? new SettingsService(db);
  const switches = deps.switches ?? installationSwitches(config, settings, log);
  const activity = new ActivityService(
    db,
    log,
    () => settings.activity(),
    (id) => users.get(id)?.username ?? null,
  );
  const sessions = new SessionStore(db, sessionSecret, config.auth.sessionMaxAgeDays);
  const limits = new RateLimiter(db);
  const tokens = new TokenService(db, users, activity, {
    limits,
    confirmPassword: (userId, password, ip) => auth.confirmPasswordOf(userId, password, ip),
  });
  const cookies = new SessionCookies(config.server.publicUrl, sessions.maxAgeMs);
  const authenticator = new IdentityAuthenticator(config.auth.mode, users, sessions, tokens, cookies);
  // The second factor's seeds are sealed under a key in CONFIG_DIR; its password check is auth's.
  const twoFactor: TwoFactorService = new TwoFactorService({
    db,
    box: SecretBox.fromConfigDir(config.storage.configDir, 'totp-key'),
    users,
    limits,
    activity,
    confirmPassword: (userId, password, ip) => auth.confirmPasswordOf(userId, password, ip),
  });
  const auth: AuthService = new AuthService({
    config,
    db,
    users,
    sessions,
    limits,
    activity,
    secondFactor: twoFactor,
    oidcRoutes: true,
  });
  authStartupWarnings(config, log, true);
  const usersAdmin = new UsersAdminService({ config, db, users, sessions, settings, activity });

  // At startup, before the first request: never a password reset, only the role.
  if (config.auth.adminEmail) {
    const restored = users.restoreAdmin(config.auth.adminEmail);
    if (restored) {
      log.info('AUTH_ADMIN_EMAIL: the admin role was given back', { userId: restored.id });
      activity.record({
        action: 'admin.role-restore',
        outcome: 'success',
        userId: restored.id,
        detail: { via: 'AUTH_ADMIN_EMAIL' },
      });
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

  const logos = new LogoStore(config.storage.configDir);
  const background: Capability = {
    routes: [],
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
    background,
    services: {
      auth,
      authenticator,
      cookies,
      tokens,
      limits,
      usersAdmin,
      activity,
      settings,
      panel: new SettingsPanel({
        settings,
        activity,
        logos,
        switches,
        authDisabled: config.auth.mode === 'disabled',
        confirmPassword: (userId, password, ip) => auth.confirmPasswordOf(userId, password, ip),
      }),
      logos,
    },
    authenticator,
    users: {
      get: (id) => {
        const row = users.get(id);
        return row ? toInfo(row) : null;
      },
    },
    settings,
    activity,
    credentials: { mode: config.auth.mode, auth, tokens, users, limits, secondFactor: twoFactor },
    signIn: { auth, authenticator, cookies, users, limits, activity, twoFactor },
  };
}
