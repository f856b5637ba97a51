// Per-address attempt counters in fixed windows, kept in the database so that a restart does
// not hand an attacker a fresh budget. Checked before any password hashing, so a flood costs
// one indexed row update per request and never slows other people's sign-ins.
import type { RateLimitStore } from './rate-limits-store.ts';
import { tooMany } from '../core/errors.ts';

export interface Limit {
  readonly max: number;
  readonly windowMs: number;
}

/** Budgets per address. Failed sign-ins are counted separately from all attempts. */
export const LIMITS = {
  signInAttempts: { max: 60, windowMs: 60_000 },
  signInFailures: { max: 30, windowMs: 15 * 60_000 },
  setup: { max: 20, windowMs: 15 * 60_000 },
  credential: { max: 120, windowMs: 15 * 60_000 },
} satisfies Record<string, Limit>;

export class RateLimiter {
  private readonly store: RateLimitStore;
  constructor(store: RateLimitStore) {
    this.store = store;
  }

  private current(key: string, limit: Limit, now: number): { count: number; windowStart: number } {
    const row = this.store.get(key);
    if (!row || now - row.window_start >= limit.windowMs) return { count: 0, windowStart: now };
    return { count: row.count, windowStart: row.window_start };
  }

  /** Throws 429 with Retry-After when the budget is spent. */
  check(key: string, limit: Limit): void {
    const now = Date.now();
    const { count, windowStart } = this.current(key, limit, now);
    if (count >= limit.max)
      throw tooMany(
        'Too many attempts from this address. Try again later.',
        (windowStart + limit.windowMs - now) / 1000,
      );
  }

  /** Counts one attempt, then throws 429 when it went over the budget. */
  hit(key: string, limit: Limit): void {
    this.check(key, limit);
    this.count(key, limit);
  }

  /** Counts one attempt without refusing it (failures, judged by `check` on the next try). */
  count(key: string, limit: Limit): void {
    const now = Date.now();
    const { count, windowStart } = this.current(key, limit, now);
    this.store.put(key, windowStart, count + 1);
  }

  /** Drops windows that have ended (the longest window bounds what is kept). */
  sweep(): number {
    const longest = Math.max(...Object.values(LIMITS).map((l) => l.windowMs));
    return this.store.sweep(Date.now() - longest);
  }
}
