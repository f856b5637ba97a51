// API tokens: issue, list, rename, revoke, and recognise a bearer secret. The secret is
// `burrow_<id>_<random>`; the id finds the row, the SHA-256 of the whole secret is compared in
// constant time. Forged, unknown, revoked and expired tokens look the same to the caller; the
// reason goes to the activity log at most once an hour per token.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ActivityService } from '../activity/service.ts';
import { AppError } from '../core/errors.ts';
import type { Caller, Scope } from '../core/caller.ts';
import type { WireToken } from './wire.ts';
import type { TokenRow, TokenStore } from './store.ts';
import type { UsersStore } from '../accounts/users-store.ts';
import { LIMITS, type RateLimiter } from '../accounts/rate-limits.ts';
import { callerOf } from '../accounts/caller.ts';

export const TOKEN_PREFIX = 'burrow';
export const MAX_LIVE_TOKENS = 50;
const LAST_USE_EVERY_MS = 60_000;
const REFUSAL_LOG_EVERY_MS = 3_600_000;

const SECRET = /^burrow_([A-Za-z0-9]{16})_([A-Za-z0-9_-]{43})$/;
const sha256 = (text: string) => createHash('sha256').update(text).digest();

function toWire(row: TokenRow): WireToken {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    lastUsedIp: row.last_used_ip,
  };
}

function newId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(16)].map((b) => alphabet[b % alphabet.length]).join('');
}

/** Issuing a token is a credential step: rate-limited per address, the password proved (auth's check). */
export interface TokenCredentials {
  limits: RateLimiter;
  confirmPassword: (userId: string, password: string | undefined, ip: string, sessionId?: string) => Promise<void>;
}

export interface TokenDeps {
  store: TokenStore;
  users: UsersStore;
  activity: ActivityService;
  credentials: TokenCredentials;
}

export type TokenService = ReturnType<typeof createTokens>;

export function createTokens({ store, users, activity, credentials }: TokenDeps) {
  const own = (userId: string, id: string): TokenRow => {
    const row = store.own(userId, id);
    // Another account's token, a tombstone and an unknown id all read as "no such token".
    if (!row) throw new AppError('TOKEN_NOT_FOUND');
    return row;
  };

  return {
    list: (userId: string): WireToken[] => store.live(userId, new Date().toISOString()).map(toWire),

    /** Issues a token once the account's password is proved. The secret is returned only here. */
    async issue(
      userId: string,
      input: { name: string; scope: Scope; expiresInDays: number | null; password?: string },
      ip: string,
      /** The request's session (the guard's hash): an account without a password proves a fresh sign-in. */
      sessionId?: string,
    ): Promise<{ token: WireToken; secret: string }> {
      credentials.limits.hit(`credential:${ip}`, LIMITS.credential);
      await credentials.confirmPassword(userId, input.password, ip, sessionId);
      const name = input.name.trim();
      if (!name) throw new AppError('INVALID_BODY', 'Invalid body: name: must not be empty.');
      const now = new Date();
      const id = newId();
      const secret = `${TOKEN_PREFIX}_${id}_${randomBytes(32).toString('base64url')}`;
      const expiresAt =
        input.expiresInDays === null ? null : new Date(now.getTime() + input.expiresInDays * 86_400_000).toISOString();
      const row = store.insertUnderLimit(
        {
          id,
          user_id: userId,
          name,
          scope: input.scope,
          secret_hash: sha256(secret).toString('hex'),
          created_at: now.toISOString(),
          expires_at: expiresAt,
        },
        MAX_LIVE_TOKENS,
      );
      if (!row)
        throw new AppError(
          'TOKEN_LIMIT',
          `An account may hold at most ${MAX_LIVE_TOKENS} live API tokens; revoke one first.`,
        );
      const result = { token: toWire(row), secret };
      activity.record({
        action: 'token.issue',
        outcome: 'success',
        userId,
        ip,
        detail: { tokenId: result.token.id, name, scope: input.scope, expiresAt: result.token.expiresAt },
      });
      return result;
    },

    rename(userId: string, id: string, name: string, ip: string): WireToken {
      const trimmed = name.trim();
      if (!trimmed) throw new AppError('INVALID_BODY', 'Invalid body: name: must not be empty.');
      const row = own(userId, id);
      store.rename(row.id, trimmed);
      activity.record({
        action: 'token.rename',
        outcome: 'success',
        userId,
        ip,
        detail: { tokenId: id, from: row.name, to: trimmed },
      });
      return toWire({ ...row, name: trimmed });
    },

    revoke(userId: string, id: string, ip: string): void {
      const row = own(userId, id);
      store.revoke(row.id, new Date().toISOString());
      activity.record({
        action: 'token.revoke',
        outcome: 'success',
        userId,
        ip,
        detail: { tokenId: id, name: row.name },
      });
    },

    /** Every live token of an account revoked (a directory account the directory no longer knows); how many. */
    revokeAllOf(userId: string): number {
      return store.revokeAllOf(userId, new Date().toISOString());
    },

    /** The caller behind a bearer secret, or null (the refusal reason is logged, throttled). */
    authenticate(secret: string, ip: string): Caller | null {
      const m = SECRET.exec(secret);
      const row = m ? store.get(m[1]!) : undefined;
      const refuse = (reason: string, key: string, userId?: string) => {
        activity.recordThrottled(`token:${key}`, REFUSAL_LOG_EVERY_MS, {
          action: 'token.refused',
          outcome: 'failure',
          userId: userId ?? null,
          ip,
          detail: { reason, ...(row ? { tokenId: row.id } : {}) },
        });
        return null;
      };
      if (!row) return refuse(m ? 'unknown' : 'forged', `unknown@${ip}`);
      const presented = sha256(secret);
      const stored = row.secret_hash ? Buffer.from(row.secret_hash, 'hex') : Buffer.alloc(32);
      const matches = timingSafeEqual(presented, stored.length === 32 ? stored : Buffer.alloc(32));
      if (row.revoked_at) return refuse('revoked', row.id, row.user_id);
      if (!matches) return refuse('forged', row.id, row.user_id);
      const now = new Date();
      if (row.expires_at && row.expires_at <= now.toISOString()) return refuse('expired', row.id, row.user_id);
      // The account is read on every request, so a removed admin role applies at once.
      const user = users.get(row.user_id);
      if (!user) return refuse('unknown', row.id);
      if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) >= LAST_USE_EVERY_MS)
        store.markUsed(row.id, now.toISOString(), ip);
      return callerOf(user, 'token', { tokenId: row.id, tokenScope: row.scope });
    },
  };
}
