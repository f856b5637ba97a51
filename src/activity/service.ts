// The activity log: who did what, when, from where. Off until an administrator turns it on.
// Writing a row never fails the request it describes: errors are logged and swallowed.
import type { Caller } from '../core/caller.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../core/log.ts';
import type { ActivityPage, ActivityQuery, ActivityRow } from './wire.ts';

export type { ActivityQuery, ActivityRow } from './wire.ts';

export type Outcome = 'success' | 'failure';

export interface ActivityEvent {
  action: string;
  outcome: Outcome;
  userId?: string | null;
  username?: string | null;
  ip?: string | null;
  detail?: Record<string, unknown> | string | null;
}

export interface ActivityConfig {
  enabled: boolean;
  retentionDays: number;
}

/** The kinds of event this build writes (others' capabilities may add theirs through `record`). */
export const ACTIONS = [
  'auth.setup',
  'auth.login',
  'auth.logout',
  'auth.lockout',
  'auth.password-change',
  'auth.password-add',
  'auth.totp-enable',
  'auth.totp-disable',
  'auth.totp-recovery-codes',
  'auth.passkey-add',
  'auth.passkey-remove',
  'auth.passkey-clone-suspected',
  'auth.oidc-create',
  'auth.oidc-link',
  'auth.oidc-role-change',
  'token.issue',
  'token.rename',
  'token.revoke',
  'token.refused',
  'admin.user-create',
  'admin.user-update',
  'admin.user-delete',
  'admin.password-reset',
  'admin.user-unlock',
  'admin.role-restore',
  'admin.settings-change',
  'admin.activity-clear',
  'admin.totp-remove',
  'admin.passkeys-remove',
  'admin.lock-break',
  'terminal.start',
  'terminal.end',
  'dav.put',
  'dav.delete',
  'dav.mkcol',
  'dav.copy',
  'dav.move',
  'files.upload',
  'files.create-folder',
  'files.create-file',
  'files.rename',
  'files.move',
  'files.copy',
  'files.delete',
  'trash.restore',
  'trash.purge',
  'trash.empty',
  'editor.save',
  'office.save',
  'archive.extract',
  'archive.compress',
  'share.create',
  'share.update',
  'share.delete',
  'share.file-request.received',
] as const;

interface DbRow {
  id: number;
  at: string;
  action: string;
  outcome: string;
  user_id: string | null;
  username: string | null;
  ip: string | null;
  detail: string | null;
}

export class ActivityService {
  private readonly db: Database;
  private readonly log: Logger;
  private readonly config: () => ActivityConfig;
  private readonly extraActions = new Set<string>();
  /** Names of accounts, for rows that give only the id. */
  private readonly usernameOf: (id: string) => string | null;

  constructor(
    db: Database,
    log: Logger,
    config: () => ActivityConfig,
    usernameOf: (id: string) => string | null = () => null,
  ) {
    this.db = db;
    this.log = log;
    this.config = config;
    this.usernameOf = usernameOf;
  }

  get enabled(): boolean {
    try {
      return this.config().enabled;
    } catch {
      return false;
    }
  }

  record(event: ActivityEvent): void {
    try {
      if (!this.enabled) return;
      if (!(ACTIONS as readonly string[]).includes(event.action)) this.extraActions.add(event.action);
      const username = event.username ?? (event.userId ? this.usernameOf(event.userId) : null);
      const detail =
        event.detail == null
          ? null
          : typeof event.detail === 'string'
            ? JSON.stringify(event.detail)
            : JSON.stringify(event.detail);
      this.db.run(
        'INSERT INTO activity (at, action, outcome, user_id, username, ip, detail) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [
          new Date().toISOString(),
          event.action,
          event.outcome,
          event.userId ?? null,
          username,
          event.ip ?? null,
          detail,
        ],
      );
    } catch (err) {
      this.log.warn('could not write an activity row', { action: event.action, err });
    }
  }

  /** Records once per `windowMs` per key (refused token uses). */
  recordThrottled(key: string, windowMs: number, event: ActivityEvent): void {
    try {
      if (!this.enabled) return;
      const now = Date.now();
      const claimed =
        this.db.run(
          'INSERT INTO activity_throttle (key, logged_at) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET logged_at = ?2 WHERE logged_at <= ?3',
          [key, now, now - windowMs],
        ).changes > 0;
      if (claimed) this.record(event);
    } catch (err) {
      this.log.warn('could not write an activity row', { action: event.action, err });
    }
  }

  actions(): string[] {
    return [...ACTIONS, ...[...this.extraActions].sort()];
  }

  query(q: ActivityQuery): { rows: ActivityRow[]; nextBefore: string | null } {
    if (!this.enabled) return { rows: [], nextBefore: null };
    const where: string[] = [];
    const values: (string | number)[] = [];
    if (q.action) {
      where.push('action = ?');
      values.push(q.action);
    }
    if (q.outcome) {
      where.push('outcome = ?');
      values.push(q.outcome);
    }
    if (q.user) {
      where.push('(user_id = ? OR username = ? COLLATE NOCASE)');
      values.push(q.user, q.user);
    }
    if (q.from) {
      where.push('at >= ?');
      values.push(q.from);
    }
    if (q.to) {
      where.push('at <= ?');
      values.push(q.to);
    }
    if (q.q) {
      where.push(
        "(instr(lower(action), ?) > 0 OR instr(lower(coalesce(username, '')), ?) > 0 OR instr(lower(coalesce(ip, '')), ?) > 0 OR instr(lower(coalesce(detail, '')), ?) > 0)",
      );
      const needle = q.q.toLowerCase();
      values.push(needle, needle, needle, needle);
    }
    if (q.before !== undefined) {
      where.push('id < ?');
      values.push(q.before);
    }
    const sql = `SELECT * FROM activity ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id DESC LIMIT ?`;
    const rows = this.db.all<DbRow>(sql, [...values, q.limit + 1]);
    const more = rows.length > q.limit;
    const page = rows.slice(0, q.limit).map(toWire);
    return { rows: page, nextBefore: more ? page[page.length - 1]!.id : null };
  }

  /** One page of rows, with what the log screen needs beside them. */
  page(q: ActivityQuery): ActivityPage {
    const { rows, nextBefore } = this.query(q);
    return { rows, nextBefore, enabled: this.enabled, actions: this.actions() };
  }

  clear(): number {
    return this.db.transaction(() => {
      this.db.run('DELETE FROM activity_throttle');
      return this.db.run('DELETE FROM activity').changes;
    });
  }

  /** Empties the log, then records who did it and how many rows went. */
  clearBy(admin: Caller, ip: string): { removed: number } {
    const removed = this.clear();
    this.record({
      action: 'admin.activity-clear',
      outcome: 'success',
      userId: admin.userId,
      username: admin.username,
      ip,
      detail: { removed },
    });
    return { removed };
  }

  /** Drops rows older than the retention period. */
  sweep(): number {
    const { retentionDays } = this.config();
    const cutoff = new Date(Date.now() - retentionDays * 86_400_000).toISOString();
    const removed = this.db.run('DELETE FROM activity WHERE at < ?', [cutoff]).changes;
    this.db.run('DELETE FROM activity_throttle WHERE logged_at < ?', [Date.now() - 86_400_000]);
    return removed;
  }
}

function toWire(row: DbRow): ActivityRow {
  let detail: unknown = null;
  if (row.detail) {
    try {
      detail = JSON.parse(row.detail);
    } catch {
      detail = row.detail;
    }
  }
  return {
    id: String(row.id),
    time: row.at,
    action: row.action,
    outcome: row.outcome,
    userId: row.user_id,
    username: row.username,
    address: row.ip,
    detail,
  };
}
