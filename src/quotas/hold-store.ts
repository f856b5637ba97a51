// The holds of a cluster's writers against the quotas (quota_holds, 005_holds.sql): taken and
// grown by one statement under the scope's advisory lock (quota_hold_take, 005_holds.pg.sql),
// landed, let go. PostgreSQL only: the embedded database's one instance holds in its memory.
import type { Database } from '../db/database.ts';

export interface HoldRow {
  id: string;
  bytes: number;
  /** When it landed (ms), or null while its write is alive. */
  landed_at: number | null;
  /** What the write placed (JSON: Placement[], indexer/indexer.ts). */
  paths: string | null;
}

export interface TakeArgs {
  id: string;
  scope: string;
  instance: string;
  need: number;
  ahead: number;
  base: number;
  limit: number;
  takenAt: number;
  now: string;
  landedSince: number;
  counted: readonly string[];
}

export interface HoldStore {
  /** A scope's holds that count: live ones of instances whose lease runs, landed ones since `landedSince`. */
  rows(scope: string, now: string, landedSince: number): HoldRow[];
  /** Takes or grows hold `id` in `scope` (see quota_hold_take); answers what is used besides it. */
  take(a: TakeArgs): number;
  /** The hold's write placed `bytes` at `paths`: counted until each instance's index counted them. */
  land(id: string, scope: string, instance: string, bytes: number, at: number, root: string, paths: string): void;
  /** Lets go of hold `id` (live rows; this instance's, or any instance's when `instance` is null). */
  release(id: string, instance: string | null): void;
  /** Runs `fn` in one transaction (a hold of two limits: both taken or neither). */
  together<T>(fn: () => T): T;
}

export function createHoldStore(db: Database): HoldStore {
  return {
    together: (fn) => db.transaction(fn),
    rows: (scope, now, landedSince) =>
      db
        .all<HoldRow>(
          "SELECT h.id, h.bytes, h.landed_at, h.paths FROM quota_holds h WHERE h.scope_key = ? AND ((h.landed_at IS NULL AND EXISTS (SELECT 1 FROM cluster_leases l WHERE l.name = 'instance:' || h.instance AND l.expires_at >= ?)) OR h.landed_at >= ?)",
          [scope, now, landedSince],
        )
        .map((r) => ({
          ...r,
          bytes: Number(r.bytes),
          landed_at: r.landed_at === null ? null : Number(r.landed_at),
        })),
    take: (a) =>
      Number(
        db.get<{ used: number | string }>('SELECT quota_hold_take(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) AS used', [
          a.id,
          a.scope,
          a.instance,
          a.need,
          a.ahead,
          a.base,
          a.limit,
          a.takenAt,
          a.now,
          a.landedSince,
          a.counted.join(' '),
        ])!.used,
      ),
    land(id, scope, instance, bytes, at, root, paths) {
      db.run(
        'UPDATE quota_holds SET bytes = ?, landed_at = ?, root = ?, paths = ? WHERE id = ? AND scope_key = ? AND instance = ? AND landed_at IS NULL',
        [bytes, at, root, paths, id, scope, instance],
      );
    },
    release(id, instance) {
      if (instance === null) db.run('DELETE FROM quota_holds WHERE id = ? AND landed_at IS NULL', [id]);
      else db.run('DELETE FROM quota_holds WHERE id = ? AND instance = ? AND landed_at IS NULL', [id, instance]);
    },
  };
}
