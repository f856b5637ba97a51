// Administration of accounts: list, create, update, delete, password reset, unlock.
// The last administrator can be neither deleted nor demoted; nobody deletes themselves.
import type { ActivityService } from '../activity/service.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../core/log.ts';
import type { Database } from '../db/database.ts';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import { hashPassword } from '../accounts/passwords.ts';
import type { SessionStore } from '../accounts/sessions-store.ts';
import {
  isAdminRow,
  normaliseRoles,
  toWire,
  type UserRow,
  type UsersStore,
  type WireUser,
} from '../accounts/users-store.ts';
import type { SettingsService } from '../settings/service.ts';
import type { AdminUser, NewUser, ShareableUser, UserPatch } from './wire.ts';

export interface UsersAdminDeps {
  config: Config;
  db: Database;
  users: UsersStore;
  sessions: SessionStore;
  settings: SettingsService;
  activity: ActivityService;
}

export type { NewUser, UserPatch } from './wire.ts';

/** Turns a UNIQUE violation into the message an administrator can act on. */
function uniqueConflict(err: unknown): never {
  const message = (err as Error).message ?? '';
  if (/UNIQUE/i.test(message) && /email/i.test(message)) throw new AppError('EMAIL_TAKEN');
  if (/UNIQUE/i.test(message) && /username/i.test(message)) throw new AppError('USERNAME_TAKEN');
  throw err;
}

export class UsersAdminService {
  private readonly deps: UsersAdminDeps;
  constructor(deps: UsersAdminDeps) {
    this.deps = deps;
  }

  private row(id: string): UserRow {
    const row = this.deps.users.get(id);
    if (!row) throw new AppError('USER_NOT_FOUND');
    return row;
  }

  list(): AdminUser[] {
    const methods = this.deps.users.methodsByUser();
    return this.deps.users.list().map((row) => ({
      ...toWire(row),
      authMethods: (methods.get(row.id) ?? []).map((m) => ({
        method: m.type,
        provider: m.type === 'local_password' ? null : m.provider,
      })),
      locked: Boolean(row.locked_until && Date.parse(row.locked_until) > Date.now()),
    }));
  }

  /** Everyone but the caller, for choosing whom to share with. */
  shareable(callerId: string): ShareableUser[] {
    return this.deps.users
      .list()
      .filter((r) => r.id !== callerId)
      .map((r) => ({ id: r.id, email: r.email, username: r.username, displayName: r.display_name }));
  }

  async create(admin: Caller, input: NewUser, ip: string): Promise<WireUser> {
    if (input.password !== undefined && this.deps.config.auth.mode === 'oidc')
      throw new AppError('AUTH_METHOD_DISABLED', 'Local passwords cannot be created on this installation.');
    if (input.password === undefined && this.deps.config.auth.mode !== 'oidc')
      throw new AppError('INVALID_BODY', 'Invalid body: password: Required.');
    const email = input.email?.trim() || null;
    const username = input.username?.trim() || email?.split('@')[0];
    if (!username) throw new AppError('INVALID_BODY', 'Invalid body: username: Required when there is no email.');
    const hash = input.password === undefined ? null : await hashPassword(input.password);
    let row: UserRow;
    try {
      row = this.deps.users.insert({
        username,
        email,
        displayName: input.displayName ?? null,
        passwordHash: hash,
        roles: normaliseRoles(input.roles ?? []),
      });
    } catch (err) {
      uniqueConflict(err);
    }
    this.deps.activity.record({
      action: 'admin.user-create',
      outcome: 'success',
      userId: admin.userId,
      ip,
      detail: { targetId: row.id, username: row.username, roles: JSON.parse(row.roles) },
    });
    return toWire(row);
  }

  update(admin: Caller, id: string, patch: UserPatch, ip: string): WireUser {
    return this.deps.db.transaction(() => {
      const row = this.row(id);
      const roles = patch.roles === undefined ? undefined : normaliseRoles(patch.roles);
      if (roles && isAdminRow(row) && !roles.includes('admin') && this.deps.users.adminCount() <= 1) {
        throw new AppError('LAST_ADMIN');
      }
      if (patch.username !== undefined && !patch.username.trim())
        throw new AppError('INVALID_BODY', 'Invalid body: username: must not be empty.');
      try {
        this.deps.users.update(id, {
          ...(patch.username !== undefined ? { username: patch.username.trim() } : {}),
          ...(patch.email !== undefined ? { email: patch.email?.trim() || null } : {}),
          ...(patch.displayName !== undefined ? { displayName: patch.displayName } : {}),
          ...(roles ? { roles } : {}),
        });
      } catch (err) {
        uniqueConflict(err);
      }
      const changed = Object.keys(patch).filter((k) => (patch as Record<string, unknown>)[k] !== undefined);
      this.deps.activity.record({
        action: 'admin.user-update',
        outcome: 'success',
        userId: admin.userId,
        ip,
        detail: { targetId: id, changed, ...(roles ? { roles } : {}) },
      });
      return toWire(this.row(id));
    });
  }

  delete(admin: Caller, id: string, ip: string): void {
    this.deps.db.transaction(() => {
      if (id === admin.userId) throw new AppError('CANNOT_DELETE_SELF');
      const row = this.row(id);
      if (isAdminRow(row) && this.deps.users.adminCount() <= 1)
        throw new AppError('LAST_ADMIN', 'The last administrator cannot be deleted.');
      // Sessions, tokens and sign-in methods go with the row (ON DELETE CASCADE).
      this.deps.users.delete(id);
      this.deps.settings.forgetUser(id);
      this.deps.activity.record({
        action: 'admin.user-delete',
        outcome: 'success',
        userId: admin.userId,
        ip,
        detail: { targetId: id, username: row.username },
      });
    });
  }

  async resetPassword(admin: Caller, id: string, newPassword: string, ip: string): Promise<void> {
    if (this.deps.config.auth.mode === 'oidc')
      throw new AppError('AUTH_METHOD_DISABLED', 'Local passwords cannot be created on this installation.');
    this.row(id);
    const hash = await hashPassword(newPassword);
    this.deps.db.transaction(() => {
      this.row(id);
      this.deps.users.setPassword(id, hash);
      this.deps.sessions.deleteForUser(id);
    });
    this.deps.activity.record({
      action: 'admin.password-reset',
      outcome: 'success',
      userId: admin.userId,
      ip,
      detail: { targetId: id },
    });
  }

  unlock(admin: Caller, id: string, ip: string): WireUser {
    this.row(id);
    this.deps.users.clearFailures(id);
    this.deps.activity.record({
      action: 'admin.user-unlock',
      outcome: 'success',
      userId: admin.userId,
      ip,
      detail: { targetId: id },
    });
    return toWire(this.row(id));
  }
}

/** AUTH_ADMIN_EMAIL, at startup before the first request: the admin role given back, never a password reset. */
export function restoreAdminRole(
  email: string | null | undefined,
  deps: { users: UsersStore; activity: Pick<ActivityService, 'record'>; log: Logger },
): void {
  if (!email) return;
  const restored = deps.users.restoreAdmin(email);
  if (!restored) return;
  deps.log.info('AUTH_ADMIN_EMAIL: the admin role was given back', { userId: restored.id });
  deps.activity.record({
    action: 'admin.role-restore',
    outcome: 'success',
    userId: restored.id,
    detail: { via: 'AUTH_ADMIN_EMAIL' },
  });
}
