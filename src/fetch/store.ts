// The fetches' rows (`fetch_jobs`, 001_fetch_jobs.sql): what GET /api/fetch answers on any
// instance, and the cancel a running fetch's instance reads.
import type { Database } from '../db/database.ts';
import type { FetchJob } from './wire.ts';

export interface FetchRow {
  id: string;
  user_id: string;
  owner: string;
  url: string;
  upload_to: string;
  name: string;
  state: FetchJob['state'];
  received: number;
  total: number | null;
  started_at: string;
  finished_at: string | null;
  finished_ms: number;
  item: string | null;
  error_code: string | null;
  error_message: string | null;
  cancel_asked: number;
}

/** How a fetch ends: its state, the placed file or why not, and the bytes received. */
export interface FetchEnd {
  state: Exclude<FetchJob['state'], 'running'>;
  received: number;
  item?: FetchJob['item'];
  error?: { code: string; message: string };
}

export interface FetchStore {
  insert(
    row: Omit<FetchRow, 'finished_at' | 'finished_ms' | 'item' | 'error_code' | 'error_message' | 'cancel_asked'> & {
      item?: FetchJob['item'];
    },
  ): void;
  get(id: string): FetchRow | undefined;
  ofUser(userId: string): FetchRow[];
  /** Bytes received so far (a running fetch's); answers whether a cancel was asked meanwhile. */
  progress(id: string, received: number): boolean;
  /** Ends a running fetch; false when it was not running any more (another instance failed it). */
  end(id: string, end: FetchEnd, at: Date): boolean;
  /** Asks the instance receiving a running fetch to stop it; false when it is not running. */
  askCancel(id: string): boolean;
  remove(id: string): void;
  /** Forgets an account's finished fetches beyond the newest `keep`, and anyone's finished before `before` (ms). */
  prune(userId: string, keep: number, before: number): void;
}

export function createFetchStore(db: Database): FetchStore {
  return {
    insert(r) {
      const now = r.state === 'running' ? null : r.started_at;
      db.run(
        'INSERT INTO fetch_jobs (id, user_id, owner, url, upload_to, name, state, received, total, started_at, finished_at, finished_ms, item) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          r.id,
          r.user_id,
          r.owner,
          r.url,
          r.upload_to,
          r.name,
          r.state,
          r.received,
          r.total,
          r.started_at,
          now,
          now ? Date.parse(now) : 0,
          r.item ? JSON.stringify(r.item) : null,
        ],
      );
    },
    get: (id) => db.get<FetchRow>('SELECT * FROM fetch_jobs WHERE id = ?', [id]),
    ofUser: (userId) =>
      db.all<FetchRow>('SELECT * FROM fetch_jobs WHERE user_id = ? ORDER BY started_at DESC, id', [userId]),
    progress: (id, received) =>
      db.get<{ asked: number }>(
        "UPDATE fetch_jobs SET received = ? WHERE id = ? AND state = 'running' RETURNING cancel_asked AS asked",
        [received, id],
      )?.asked === 1,
    end: (id, e, at) =>
      db.run(
        "UPDATE fetch_jobs SET state = ?, received = ?, item = ?, error_code = ?, error_message = ?, finished_at = ?, finished_ms = ? WHERE id = ? AND state = 'running'",
        [
          e.state,
          e.received,
          e.item ? JSON.stringify(e.item) : null,
          e.error?.code ?? null,
          e.error?.message ?? null,
          at.toISOString(),
          at.getTime(),
          id,
        ],
      ).changes === 1,
    askCancel: (id) =>
      db.run("UPDATE fetch_jobs SET cancel_asked = 1 WHERE id = ? AND state = 'running'", [id]).changes === 1,
    remove(id) {
      db.run('DELETE FROM fetch_jobs WHERE id = ?', [id]);
    },
    prune(userId, keep, before) {
      db.run("DELETE FROM fetch_jobs WHERE state <> 'running' AND finished_ms < ?", [before]);
      db.run(
        "DELETE FROM fetch_jobs WHERE user_id = ?1 AND state <> 'running' AND (finished_ms < ?2 OR id NOT IN (SELECT id FROM fetch_jobs WHERE user_id = ?1 AND state <> 'running' ORDER BY finished_ms DESC, id LIMIT ?3))",
        [userId, before, keep],
      );
    },
  };
}
