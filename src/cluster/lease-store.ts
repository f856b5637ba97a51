// The cluster's leases (cluster_leases): an instance's own (`instance:<id>`) and each background
// job's (`job:<name>`). Times are ISO strings: they compare in order as text in both dialects.
import type { Database } from '../db/database.ts';

export interface LeaseRow {
  name: string;
  owner: string;
  expires_at: string;
}

export interface LeaseStore {
  /** Takes or renews `name` for `owner` unless another owner's lease runs past `now`; true when held. */
  hold(name: string, owner: string, now: string, expiresAt: string): boolean;
  /** Gives `name` up (only `owner`'s). */
  release(name: string, owner: string): void;
  /** The lease `name`, lapsed or not. */
  get(name: string): LeaseRow | undefined;
  /** Every lease whose name starts with `prefix`. */
  list(prefix: string): LeaseRow[];
  /** Forgets the leases that lapsed before `before` (an instance's that stopped for good). */
  sweep(prefix: string, before: string): number;
}

export function createLeaseStore(db: Database): LeaseStore {
  return {
    hold(name, owner, now, expiresAt) {
      return (
        db.run(
          'INSERT INTO cluster_leases (name, owner, expires_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at WHERE cluster_leases.owner = excluded.owner OR cluster_leases.expires_at < ?',
          [name, owner, expiresAt, now],
        ).changes === 1
      );
    },
    release(name, owner) {
      db.run('DELETE FROM cluster_leases WHERE name = ? AND owner = ?', [name, owner]);
    },
    get: (name) => db.get<LeaseRow>('SELECT name, owner, expires_at FROM cluster_leases WHERE name = ?', [name]),
    list: (prefix) =>
      db.all<LeaseRow>(
        'SELECT name, owner, expires_at FROM cluster_leases WHERE substr(name, 1, ?) = ? ORDER BY name',
        [prefix.length, prefix],
      ),
    sweep: (prefix, before) =>
      db.run('DELETE FROM cluster_leases WHERE substr(name, 1, ?) = ? AND expires_at < ?', [
        prefix.length,
        prefix,
        before,
      ]).changes,
  };
}
