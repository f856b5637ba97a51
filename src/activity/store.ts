// The activity log's rows (`activity`) and the claims that throttle repeated events
// (`activity_throttle`). The service decides what is written and when; this store holds the SQL.
import type { Database } from '../db/database.ts';

export interface ActivityDbRow {
  id: number;
  at: string;
  action: string;
  outcome: string;
  user_id: string | null;
  username: string | null;
  ip: string | null;
  detail: string | null;
}

/** What narrows a page of the log (every field optional; `needle` already lower-cased). */
export interface ActivityFilter {
  action?: string | undefined;
  outcome?: string | undefined;
  user?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  needle?: string | undefined;
  before?: number | undefined;
}

export interface ActivityStore {
  /** Writes a row and answers its id. */
  insert(row: Omit<ActivityDbRow, 'id'>): number;
  /** Runs `fn` in one transaction (a row and what follows from it are written together). */
  atomically<T>(fn: () => T): T;
  /** Claims `key` unless it was claimed after `since`; true when this call claimed it. */
  claim(key: string, now: number, since: number): boolean;
  /** Newest first, at most `limit` rows. */
  page(filter: ActivityFilter, limit: number): ActivityDbRow[];
  /** Empties the log and the throttle claims in one transaction; answers how many rows went. */
  clear(): number;
  /** Drops rows written before `cutoff` and claims older than `claimsBefore`; answers how many rows went. */
  sweep(cutoff: string, claimsBefore: number): number;
}

export function createActivityStore(db: Database): ActivityStore {
  return {
    insert(r) {
      return db.get<{ id: number }>(
        'INSERT INTO activity (at, action, outcome, user_id, username, ip, detail) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id',
        [r.at, r.action, r.outcome, r.user_id, r.username, r.ip, r.detail],
      )!.id;
    },
    atomically: (fn) => db.transaction(fn),
    claim: (key, now, since) =>
      db.run(
        'INSERT INTO activity_throttle (key, logged_at) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET logged_at = ?2 WHERE activity_throttle.logged_at <= ?3',
        [key, now, since],
      ).changes > 0,
    page(q, limit) {
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
      if (q.needle) {
        where.push(
          "(instr(lower(action), ?) > 0 OR instr(lower(coalesce(username, '')), ?) > 0 OR instr(lower(coalesce(ip, '')), ?) > 0 OR instr(lower(coalesce(detail, '')), ?) > 0)",
        );
        values.push(q.needle, q.needle, q.needle, q.needle);
      }
      if (q.before !== undefined) {
        where.push('id < ?');
        values.push(q.before);
      }
      const sql = `SELECT * FROM activity ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY id DESC LIMIT ?`;
      return db.all<ActivityDbRow>(sql, [...values, limit]);
    },
    clear: () =>
      db.transaction(() => {
        db.run('DELETE FROM activity_throttle');
        return db.run('DELETE FROM activity').changes;
      }),
    sweep(cutoff, claimsBefore) {
      const removed = db.run('DELETE FROM activity WHERE at < ?', [cutoff]).changes;
      db.run('DELETE FROM activity_throttle WHERE logged_at < ?', [claimsBefore]);
      return removed;
    },
  };
}
