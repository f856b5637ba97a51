// Name claims across the instances of a cluster (name_claims): a row per candidate path held
// while one instance places an entry there.
import type { Database } from '../db/database.ts';

export interface ClaimStore {
  /** Takes the row for `pathHash` unless a live claim holds it; true when taken. */
  hold(pathHash: string, owner: string, now: string, expiresAt: string): boolean;
  release(pathHash: string, owner: string): void;
}

export function createClaimStore(db: Database): ClaimStore {
  return {
    hold(pathHash, owner, now, expiresAt) {
      return (
        db.run(
          'INSERT INTO name_claims (path_hash, owner, expires_at) VALUES (?, ?, ?) ON CONFLICT (path_hash) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at WHERE name_claims.expires_at < ?',
          [pathHash, owner, expiresAt, now],
        ).changes === 1
      );
    },
    release(pathHash, owner) {
      db.run('DELETE FROM name_claims WHERE path_hash = ? AND owner = ?', [pathHash, owner]);
    },
  };
}
