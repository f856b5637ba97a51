// The accounts table and its sign-in methods. Handlers never see this SQL; services do.
import { randomUUID } from 'node:crypto';
import { AppError } from '../core/errors.ts';
import type { Database } from '../db/database.ts';
import { foldName } from '../core/fold.ts';
import type { WireUser } from './wire.ts';

export interface UserRow {
  id: string;
  username: string;
  email: string | null;
  /** The username and email as compared (auth/004_name_keys.sql); null on rows written before them. */
  name_key: string | null;
  email_key: string | null;
  display_name: string | null;
  password_hash: string | null;
  roles: string;
  email_verified: number;
  failed_count: number;
  locked_until: string | null;
  created_at: string;
  updated_at: string;
}

/** What other capabilities may know about an account. */
export interface UserInfo {
  id: string;
  username: string;
  email: string | null;
  displayName: string | null;
  roles: string[];
}

export type { WireUser } from './wire.ts';

export type Role = 'admin' | 'user';

export function parseRoles(text: string): string[] {
  try {
    const roles = JSON.parse(text);
    return Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string') : [];
  } catch {
    return [];
  }
}

/** Stored roles: exactly one of admin / user. */
export function normaliseRoles(roles: readonly string[]): Role[] {
  return roles.map((r) => r.toLowerCase()).includes('admin') ? ['admin'] : ['user'];
}

export const isAdminRow = (row: Pick<UserRow, 'roles'>) => parseRoles(row.roles).includes('admin');

export function toInfo(row: UserRow): UserInfo {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    displayName: row.display_name,
    roles: parseRoles(row.roles),
  };
}

export function toWire(row: UserRow): WireUser {
  return {
    ...toInfo(row),
    emailVerified: row.email_verified === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface MethodRow {
  id: string;
  user_id: string;
  type: string;
  provider: string;
  last_used_at: string | null;
  created_at: string;
}

// `roles` is a JSON array of strings written by this store: a LIKE on the quoted role reads the
// same in both engines (SQLite's json_each has no common form in PostgreSQL).
const ADMIN_COUNT = `SELECT COUNT(*) AS n FROM users WHERE roles LIKE '%"admin"%'`;

/** A key among PostgreSQL's advisory locks: a new account's check and insert ('1stA'). */
const FIRST_ACCOUNT_LOCK = 0x3173_7441;

/** An email as its key (auth/004_name_keys.sql): folded, or null for none. */
const emailKey = (email: string | null | undefined): string | null => (email ? foldName(email) : null);

export class UsersStore {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
    this.fillKeys();
  }

  /**
   * Writes the keys of accounts that have none (rows from before auth/004_name_keys.sql, or
   * copied from such a database): one read of an index when there are none, as at every start
   * after the first. In the order of their ids: instances starting together on one PostgreSQL
   * each lock the rows in the same order (the later one waits, then finds them keyed), never
   * in two orders that deadlock.
   */
  private fillKeys(): void {
    const unkeyed = this.db.all<{ id: string; username: string; email: string | null }>(
      'SELECT id, username, email FROM users WHERE name_key IS NULL ORDER BY id',
    );
    if (unkeyed.length === 0) return;
    this.db.transaction(() => {
      for (const u of unkeyed)
        this.db.run('UPDATE users SET name_key = ?, email_key = ? WHERE id = ? AND name_key IS NULL', [
          foldName(u.username),
          emailKey(u.email),
          u.id,
        ]);
    });
  }

  /**
   * The accounts whose username or email may fold to one of `keys`: those keyed so (index
   * probes), and any without keys (written by a release before them), which the callers compare
   * by their names as they compare the others.
   */
  private keyed(keys: string[]): UserRow[] {
    const marks = keys.map(() => '?').join(', ');
    return this.db.all<UserRow>(
      `SELECT * FROM users WHERE name_key IN (${marks}) OR email_key IN (${marks}) OR name_key IS NULL ORDER BY created_at, username`,
      [...keys, ...keys],
    );
  }

  /**
   * Called in the transaction that checks an account is not there yet and makes it — the first
   * account (setup), or a directory person's at their first sign-in (LDAP, OIDC): holds every
   * other such transaction until this one ends. SQLite's one writer does so already; on
   * PostgreSQL several instances would each find none and insert (two administrators, two
   * accounts for one person, or a unique-name violation and a 500 for the second), so each
   * waits on a transaction-level advisory lock and then looks again at what the one before it
   * committed (READ COMMITTED: each statement sees what was committed before it began).
   */
  lockForNewAccount(): void {
    if (this.db.dialect === 'postgres') this.db.get(`SELECT pg_advisory_xact_lock(${FIRST_ACCOUNT_LOCK}) AS locked`);
  }

  /**
   * A directory person's account, in the transaction that makes it when there is none: `find`
   * once (a known subject takes no lock), else — a first sign-in, which the same person's first
   * sign-in on another instance may be making now — after lockForNewAccount, again (one account,
   * every sign-in in it).
   */
  findBeforeMaking(find: () => UserRow | undefined): UserRow | undefined {
    const found = find();
    if (found) return found;
    this.lockForNewAccount();
    return find();
  }

  count(): number {
    return this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM users')!.n;
  }

  adminCount(): number {
    return this.db.get<{ n: number }>(ADMIN_COUNT)!.n;
  }

  get(id: string): UserRow | undefined {
    return this.db.get<UserRow>('SELECT * FROM users WHERE id = ?', [id]);
  }

  /**
   * Every account the identifier names, as an email or a username, in any letter case of any
   * script and either Unicode form (JÖRG, jörg, and jörg typed decomposed): the columns' `NOCASE`
   * folds ASCII alone on SQLite, so the accounts are found by their folded keys (PostgreSQL's
   * collation folds them all, and agrees).
   */
  findByIdentifier(identifier: string): UserRow[] {
    const wanted = foldName(identifier.trim());
    return this.keyed([wanted]).filter(
      (u) => foldName(u.username) === wanted || (u.email !== null && foldName(u.email) === wanted),
    );
  }

  findByEmail(email: string): UserRow | undefined {
    const wanted = foldName(email.trim());
    return this.keyed([wanted]).find((u) => u.email !== null && foldName(u.email) === wanted);
  }

  /** Refuses a username or email another account has in another case or form (USERNAME_TAKEN, EMAIL_TAKEN). */
  private refuseTaken(username: string | undefined, email: string | null | undefined, except?: string): void {
    const keys = [username, email].filter((k): k is string => !!k).map(foldName);
    if (keys.length === 0) return;
    for (const u of this.keyed(keys)) {
      if (u.id === except) continue;
      if (username !== undefined && foldName(u.username) === foldName(username)) throw new AppError('USERNAME_TAKEN');
      if (email && u.email !== null && foldName(u.email) === foldName(email)) throw new AppError('EMAIL_TAKEN');
    }
  }

  list(): UserRow[] {
    return this.db.all<UserRow>('SELECT * FROM users ORDER BY created_at, username');
  }

  /** Inserts an account (and its password method when it has a password). Throws on a taken name. */
  insert(input: {
    username: string;
    email: string | null;
    displayName?: string | null;
    passwordHash: string | null;
    roles: Role[];
  }): UserRow {
    const now = new Date().toISOString();
    const id = randomUUID();
    this.db.transaction(() => {
      this.refuseTaken(input.username, input.email);
      this.db.run(
        'INSERT INTO users (id, username, email, name_key, email_key, display_name, password_hash, roles, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          id,
          input.username,
          input.email,
          foldName(input.username),
          emailKey(input.email),
          input.displayName ?? null,
          input.passwordHash,
          JSON.stringify(input.roles),
          now,
          now,
        ],
      );
      if (input.passwordHash) this.addMethod(id, 'local_password', 'local');
    });
    return this.get(id)!;
  }

  update(
    id: string,
    patch: { username?: string; email?: string | null; displayName?: string | null; roles?: Role[] },
  ): void {
    const sets: string[] = [];
    const values: (string | null)[] = [];
    if (patch.username !== undefined) {
      sets.push('username = ?', 'name_key = ?');
      values.push(patch.username, foldName(patch.username));
    }
    if (patch.email !== undefined) {
      sets.push('email = ?', 'email_key = ?');
      values.push(patch.email, emailKey(patch.email));
    }
    if (patch.displayName !== undefined) {
      sets.push('display_name = ?');
      values.push(patch.displayName);
    }
    if (patch.roles !== undefined) {
      sets.push('roles = ?');
      values.push(JSON.stringify(patch.roles));
    }
    if (sets.length === 0) return;
    this.refuseTaken(patch.username, patch.email, id);
    sets.push('updated_at = ?');
    values.push(new Date().toISOString(), id);
    this.db.run(`UPDATE users SET ${sets.join(', ')} WHERE id = ?`, values);
  }

  setPassword(id: string, hash: string): void {
    this.db.transaction(() => {
      this.db.run(
        'UPDATE users SET password_hash = ?, failed_count = 0, locked_until = NULL, updated_at = ? WHERE id = ?',
        [hash, new Date().toISOString(), id],
      );
      this.addMethod(id, 'local_password', 'local');
    });
  }

  delete(id: string): boolean {
    return this.db.run('DELETE FROM users WHERE id = ?', [id]).changes > 0;
  }

  /** Counts a failed attempt; locks when the count reaches `max`. Returns the lock end when it locked. */
  recordFailure(id: string, max: number, lockMs: number): string | null {
    // One UPDATE counts (no read first): on PostgreSQL the row stays locked until the commit, so
    // failures arriving at several instances at once each count.
    return this.db.transaction(() => {
      const row = this.db.get<{ failed_count: number }>(
        'UPDATE users SET failed_count = failed_count + 1 WHERE id = ? RETURNING failed_count',
        [id],
      );
      if (!row || row.failed_count < max) return null;
      const until = new Date(Date.now() + lockMs).toISOString();
      this.db.run('UPDATE users SET failed_count = 0, locked_until = ? WHERE id = ?', [until, id]);
      return until;
    });
  }

  clearFailures(id: string): void {
    this.db.run(
      'UPDATE users SET failed_count = 0, locked_until = NULL WHERE id = ? AND (failed_count != 0 OR locked_until IS NOT NULL)',
      [id],
    );
  }

  methods(userId: string): MethodRow[] {
    return this.db.all<MethodRow>(
      'SELECT id, user_id, type, provider, last_used_at, created_at FROM auth_methods WHERE user_id = ? ORDER BY created_at',
      [userId],
    );
  }

  methodsByUser(): Map<string, MethodRow[]> {
    const out = new Map<string, MethodRow[]>();
    for (const m of this.db.all<MethodRow>(
      'SELECT id, user_id, type, provider, last_used_at, created_at FROM auth_methods ORDER BY created_at',
    )) {
      const list = out.get(m.user_id) ?? [];
      list.push(m);
      out.set(m.user_id, list);
    }
    return out;
  }

  /** The account an identity provider's subject is linked to. */
  byOidcSubject(provider: string, subject: string): UserRow | undefined {
    const m = this.db.get<{ user_id: string }>(
      "SELECT user_id FROM auth_methods WHERE type = 'oidc' AND provider = ? AND subject = ?",
      [provider, subject],
    );
    return m ? this.get(m.user_id) : undefined;
  }

  /** The account a directory's name for a person is linked to (LDAP). */
  byLdapSubject(subject: string): UserRow | undefined {
    const m = this.db.get<{ user_id: string }>(
      "SELECT user_id FROM auth_methods WHERE type = 'ldap' AND provider = 'ldap' AND subject = ?",
      [subject],
    );
    return m ? this.get(m.user_id) : undefined;
  }

  /** Every directory account (LDAP): its id and the directory's name for it. */
  ldapAccounts(): { userId: string; subject: string }[] {
    return this.db.all<{ userId: string; subject: string }>(
      "SELECT user_id AS userId, subject FROM auth_methods WHERE type = 'ldap' AND provider = 'ldap' AND subject IS NOT NULL ORDER BY user_id",
    );
  }

  /** The directory's name for an account (LDAP), or undefined when it is not a directory account. */
  ldapSubjectOf(userId: string): string | undefined {
    return (
      this.db.get<{ subject: string | null }>(
        "SELECT subject FROM auth_methods WHERE type = 'ldap' AND provider = 'ldap' AND user_id = ?",
        [userId],
      )?.subject ?? undefined
    );
  }

  /**
   * Runs fn in one transaction (what it reads and writes through this store, and through any
   * other store of the same database, commits together or not at all).
   */
  atomically<T>(fn: () => T): T {
    return this.db.transaction(fn);
  }

  addMethod(
    userId: string,
    type: 'local_password' | 'oidc' | 'ldap',
    provider: string,
    subject: string | null = null,
  ): void {
    this.db.run(
      'INSERT INTO auth_methods (id, user_id, type, provider, subject, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      [randomUUID(), userId, type, provider, subject, new Date().toISOString()],
    );
  }

  touchMethod(userId: string, type: string, provider: string): void {
    this.db.run('UPDATE auth_methods SET last_used_at = ? WHERE user_id = ? AND type = ? AND provider = ?', [
      new Date().toISOString(),
      userId,
      type,
      provider,
    ]);
  }

  /** AUTH_ADMIN_EMAIL: gives the account with that address the admin role back. */
  restoreAdmin(email: string): UserRow | undefined {
    const row = this.findByEmail(email);
    if (!row || isAdminRow(row)) return undefined;
    this.update(row.id, { roles: ['admin'] });
    return this.get(row.id);
  }
}
