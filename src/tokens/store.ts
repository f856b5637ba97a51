// API tokens (`api_tokens`): one row per token, its secret kept only as a SHA-256; a revoked
// token stays as a tombstone without its hash. The service checks and decides; the SQL is here.
import type { Database } from '../db/database.ts';
import type { Scope } from '../core/caller.ts';

export interface TokenRow {
  id: string;
  user_id: string;
  name: string;
  scope: Scope;
  secret_hash: string | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
  revoked_at: string | null;
}

export interface TokenStore {
  /** The account's tokens neither revoked nor expired at `now`, newest first. */
  live(userId: string, now: string): TokenRow[];
  /**
   * Inserts a token unless the account already holds `maxLive` live ones (then undefined),
   * counted and written in one transaction.
   */
  insertUnderLimit(
    row: Pick<TokenRow, 'id' | 'user_id' | 'name' | 'scope' | 'secret_hash' | 'created_at' | 'expires_at'>,
    maxLive: number,
  ): TokenRow | undefined;
  /** The account's token, not revoked. */
  own(userId: string, id: string): TokenRow | undefined;
  get(id: string): TokenRow | undefined;
  rename(id: string, name: string): void;
  /** Keeps the row as a tombstone and forgets its hash. */
  revoke(id: string, at: string): void;
  /** Revokes every token of an account still live; how many. */
  revokeAllOf(userId: string, at: string): number;
  markUsed(id: string, at: string, ip: string): void;
}

export function createTokenStore(db: Database): TokenStore {
  const get = (id: string) => db.get<TokenRow>('SELECT * FROM api_tokens WHERE id = ?', [id]);
  return {
    live: (userId, now) =>
      db.all<TokenRow>(
        'SELECT * FROM api_tokens WHERE user_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) ORDER BY created_at DESC, id',
        [userId, now],
      ),
    insertUnderLimit: (r, maxLive) =>
      db.transaction(() => {
        const live = db.get<{ n: number }>(
          'SELECT COUNT(*) AS n FROM api_tokens WHERE user_id = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)',
          [r.user_id, r.created_at],
        )!.n;
        if (live >= maxLive) return undefined;
        db.run(
          'INSERT INTO api_tokens (id, user_id, name, scope, secret_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
          [r.id, r.user_id, r.name, r.scope, r.secret_hash, r.created_at, r.expires_at],
        );
        return get(r.id)!;
      }),
    own: (userId, id) =>
      db.get<TokenRow>('SELECT * FROM api_tokens WHERE id = ? AND user_id = ? AND revoked_at IS NULL', [id, userId]),
    get,
    rename: (id, name) => void db.run('UPDATE api_tokens SET name = ? WHERE id = ?', [name, id]),
    revoke: (id, at) => void db.run('UPDATE api_tokens SET revoked_at = ?, secret_hash = NULL WHERE id = ?', [at, id]),
    revokeAllOf: (userId, at) =>
      db.run('UPDATE api_tokens SET revoked_at = ?, secret_hash = NULL WHERE user_id = ? AND revoked_at IS NULL', [
        at,
        userId,
      ]).changes,
    markUsed: (id, at, ip) =>
      void db.run('UPDATE api_tokens SET last_used_at = ?, last_used_ip = ? WHERE id = ?', [at, ip, id]),
  };
}
