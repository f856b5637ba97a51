// The browsers each account signed in from. The cookie carries a random token; the table keeps
// only HMAC(secret, token) per account, so a copy of the database names no usable cookie.
import { createHmac, randomBytes } from 'node:crypto';
import type { Database } from '../db/database.ts';

/** How long a device cookie lives, and how long an unseen device is remembered (browsers cap cookies at 400 days). */
export const DEVICE_MAX_AGE_MS = 400 * 86_400_000;

/** A token this server could have made: 32 random bytes, base64url. Anything else is no device. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export class DeviceStore {
  private readonly db: Database;
  private readonly secret: string;

  constructor(db: Database, secret: string) {
    this.db = db;
    this.secret = secret;
  }

  private hash(token: string): string {
    return createHmac('sha256', this.secret).update(`device:${token}`).digest('hex');
  }

  /** Whether `token` is a device this account signed in from (its last sighting moved to `at`). */
  seen(userId: string, token: string | undefined, at: string): boolean {
    if (!token || !TOKEN.test(token)) return false;
    return (
      this.db.run('UPDATE sign_in_devices SET last_at = ? WHERE user_id = ? AND token_hash = ?', [
        at,
        userId,
        this.hash(token),
      ]).changes > 0
    );
  }

  /** Whether the account has any device remembered (the first one is not news). */
  any(userId: string): boolean {
    return this.db.get('SELECT 1 AS one FROM sign_in_devices WHERE user_id = ? LIMIT 1', [userId]) !== undefined;
  }

  /** Remembers a new device for the account; returns its token (the cookie's value, never stored). */
  add(userId: string, browser: string, at: string): string {
    const token = randomBytes(32).toString('base64url');
    const forgotten = new Date(Date.parse(at) - DEVICE_MAX_AGE_MS).toISOString();
    this.db.transaction(() => {
      this.db.run('DELETE FROM sign_in_devices WHERE user_id = ? AND last_at < ?', [userId, forgotten]);
      this.db.run(
        'INSERT INTO sign_in_devices (user_id, token_hash, browser, first_at, last_at) VALUES (?, ?, ?, ?, ?)',
        [userId, this.hash(token), browser, at, at],
      );
    });
    return token;
  }
}
