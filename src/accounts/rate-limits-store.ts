// The rate-limit windows (`rate_limits`: one row per key, its window's start and count). The
// budgets and the judgement are rate-limits.ts's.
import type { Database } from '../db/database.ts';

export interface RateWindow {
  window_start: number;
  count: number;
}

export interface RateLimitStore {
  get(key: string): RateWindow | undefined;
  put(key: string, windowStart: number, count: number): void;
  /** Drops windows that started before `before`; answers how many. */
  sweep(before: number): number;
}

export function createRateLimitStore(db: Database): RateLimitStore {
  return {
    get: (key) => db.get<RateWindow>('SELECT window_start, count FROM rate_limits WHERE key = ?', [key]),
    put(key, windowStart, count) {
      db.run(
        'INSERT INTO rate_limits (key, window_start, count) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET window_start = excluded.window_start, count = excluded.count',
        [key, windowStart, count],
      );
    },
    sweep: (before) => db.run('DELETE FROM rate_limits WHERE window_start < ?', [before]).changes,
  };
}
