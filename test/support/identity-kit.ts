// Identity's services on a temp database, without the HTTP server: for service-level tests of
// sign-in factors (second factor, passkeys, identity provider) before their routes exist.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createActivity, type ActivityService } from '../../src/activity/service.ts';
import { createActivityStore } from '../../src/activity/store.ts';
import { RateLimiter } from '../../src/accounts/rate-limits.ts';
import { createRateLimitStore } from '../../src/accounts/rate-limits-store.ts';
import { AuthService, type SecondFactor } from '../../src/auth/service.ts';
import { SessionStore } from '../../src/accounts/sessions-store.ts';
import { DeviceStore } from '../../src/accounts/devices-store.ts';
import { UsersStore } from '../../src/accounts/users-store.ts';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { Database } from '../../src/db/database.ts';
import { loadMigrations, runMigrations } from '../../src/db/migrations.ts';
import type { Logger } from '../../src/core/log.ts';
import { createSettings, type SettingsService } from '../../src/settings/service.ts';
import { createSettingsStore } from '../../src/settings/store.ts';

export const quietLog = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return quietLog;
  },
} as unknown as Logger;

export interface IdentityKit {
  dir: string;
  configDir: string;
  config: Config;
  db: Database;
  users: UsersStore;
  sessions: SessionStore;
  limits: RateLimiter;
  settings: SettingsService;
  activity: ActivityService;
  auth: AuthService;
  /** Lets auth ask the given second factor (set before sign-ins that should see it). */
  useSecondFactor(factor: SecondFactor): void;
  addUser(
    username: string,
    opts?: { password?: string | null; email?: string | null; admin?: boolean },
  ): Promise<string>;
  activityRows(action?: string): { action: string; outcome: string; userId: string | null; detail: unknown }[];
  close(): void;
}

export async function identityKit(env: Record<string, string> = {}): Promise<IdentityKit> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-identity-'));
  const configDir = path.join(dir, 'config');
  fs.mkdirSync(configDir, { recursive: true });
  const config = loadConfig({
    CONFIG_DIR: configDir,
    VOLUME_ROOT: path.join(dir, 'volumes'),
    CACHE_DIR: path.join(dir, 'cache'),
    ...env,
  });
  const db = new Database(path.join(configDir, 'burrow.db'));
  runMigrations(db, loadMigrations());
  const users = new UsersStore(db);
  const settings = createSettings({ store: createSettingsStore(db) });
  settings.setActivity({ enabled: true });
  const activity = createActivity({ store: createActivityStore(db), log: quietLog, config: () => settings.activity() });
  const sessions = new SessionStore(db, 'test-secret', 30);
  const limits = new RateLimiter(createRateLimitStore(db));
  const devices = new DeviceStore(db, 'test-secret');
  const deps: ConstructorParameters<typeof AuthService>[0] = { config, db, users, sessions, devices, limits, activity };
  const auth = new AuthService(deps);
  return {
    dir,
    configDir,
    config,
    db,
    users,
    sessions,
    limits,
    settings,
    activity,
    auth,
    useSecondFactor(factor) {
      deps.secondFactor = factor;
    },
    async addUser(username, opts = {}) {
      const password = opts.password === undefined ? `${username}-password` : opts.password;
      const row = users.insert({
        username,
        email: opts.email === undefined ? `${username}@example.org` : opts.email,
        passwordHash: password ? await hashPassword(password) : null,
        roles: opts.admin ? ['admin'] : ['user'],
      });
      return row.id;
    },
    activityRows(action) {
      return activity.query({ limit: 500, ...(action ? { action } : {}) }).rows;
    },
    close() {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
