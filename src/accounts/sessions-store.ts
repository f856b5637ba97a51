// Session rows. The cookie carries a random id; the table stores only HMAC(secret, id), so a
// copy of the database hands nobody a usable session. Expiry slides forward on use (the
// cookie value never changes, only its lifetime is sent again).
import { createHmac, randomBytes } from 'node:crypto';
import type { Database } from '../db/database.ts';

export interface SessionRow {
  id_hash: string;
  user_id: string;
  state: 'active' | 'held';
  method: string;
  held_until: string | null;
  created_at: string;
  expires_at: string;
  renewed_at: string;
  ip: string | null;
}

/** How long a held sign-in (waiting for its second step) stays usable. */
export const HELD_MS = 5 * 60_000;
/** Sliding renewal is written at most this often per session. */
const RENEW_EVERY_MS = 60 * 60_000;

export class SessionStore {
  private readonly db: Database;
  private readonly secret: string;
  readonly maxAgeMs: number;

  constructor(db: Database, secret: string, maxAgeDays: number) {
    this.db = db;
    this.secret = secret;
    this.maxAgeMs = maxAgeDays * 86_400_000;
  }

  hash(id: string): string {
    return createHmac('sha256', this.secret).update(id).digest('hex');
  }

  /** Opens a session; returns the cookie value (never stored). */
  create(
    userId: string,
    method: string,
    ip: string,
    state: 'active' | 'held' = 'active',
  ): { id: string; hash: string } {
    const id = randomBytes(32).toString('base64url');
    const hash = this.hash(id);
    const now = Date.now();
    this.db.run(
      'INSERT INTO sessions (id_hash, user_id, state, method, held_until, created_at, expires_at, renewed_at, ip) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [
        hash,
        userId,
        state,
        method,
        state === 'held' ? new Date(now + HELD_MS).toISOString() : null,
        new Date(now).toISOString(),
        new Date(now + this.maxAgeMs).toISOString(),
        new Date(now).toISOString(),
        ip,
      ],
    );
    return { id, hash };
  }

  /** The live row for a cookie value (expired rows are removed on sight). */
  find(id: string): SessionRow | undefined {
    const row = this.db.get<SessionRow>('SELECT * FROM sessions WHERE id_hash = ?', [this.hash(id)]);
    if (!row) return undefined;
    const now = new Date().toISOString();
    if (row.expires_at <= now || (row.state === 'held' && (row.held_until ?? '') <= now)) {
      this.db.run('DELETE FROM sessions WHERE id_hash = ?', [row.id_hash]);
      return undefined;
    }
    return row;
  }

  /** The session stored under `hash` while it is signed in (not held, not expired). */
  active(hash: string): SessionRow | undefined {
    const row = this.db.get<SessionRow>('SELECT * FROM sessions WHERE id_hash = ?', [hash]);
    return row && row.state === 'active' && row.expires_at > new Date().toISOString() ? row : undefined;
  }

  /** Slides the expiry when the last renewal is old enough; true when the cookie should be sent again. */
  renew(row: SessionRow): boolean {
    const now = Date.now();
    if (now - Date.parse(row.renewed_at) < RENEW_EVERY_MS) return false;
    this.db.run('UPDATE sessions SET expires_at = ?, renewed_at = ? WHERE id_hash = ?', [
      new Date(now + this.maxAgeMs).toISOString(),
      new Date(now).toISOString(),
      row.id_hash,
    ]);
    return true;
  }

  delete(hash: string): void {
    this.db.run('DELETE FROM sessions WHERE id_hash = ?', [hash]);
  }

  /** Ends every session of the account except `keepHash` (none kept when null). */
  deleteForUser(userId: string, keepHash: string | null = null): number {
    return this.db.run('DELETE FROM sessions WHERE user_id = ?1 AND (CAST(?2 AS TEXT) IS NULL OR id_hash <> ?2)', [
      userId,
      keepHash,
    ]).changes;
  }

  sweep(): number {
    const now = new Date().toISOString();
    return this.db.run("DELETE FROM sessions WHERE expires_at <= ?1 OR (state = 'held' AND held_until <= ?1)", [now])
      .changes;
  }
}
