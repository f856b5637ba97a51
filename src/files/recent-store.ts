// Recent destinations: the folders an account last copied or moved into (a binding, carried
// and forgotten with the folder — see bindings.ts).
import type { Database } from '../db/database.ts';
import { pathTable } from './bindings-store.ts';
import type { BindingTable } from './bindings.ts';
import type { RecentDestination } from './wire.ts';

export interface RecentDestinations {
  record(userId: string, path: string): void;
  /** Newest first, at most 20. */
  list(userId: string): RecentDestination[];
}

export function createRecentDestinations(db: Database): RecentDestinations {
  return {
    record: (userId, path) =>
      db.run(
        'INSERT INTO recent_destinations (user_id, path, used_at) VALUES (?, ?, ?) ON CONFLICT (user_id, path) DO UPDATE SET used_at = excluded.used_at',
        [userId, path, new Date().toISOString()],
      ),
    list: (userId) =>
      db
        .all<{ path: string; used_at: string }>(
          'SELECT path, used_at FROM recent_destinations WHERE user_id = ? ORDER BY used_at DESC LIMIT 20',
          [userId],
        )
        .map((r) => ({ path: r.path, usedAt: r.used_at })),
  };
}

/** Recent destinations follow their folder (bindings.ts). */
export const recentBindings = (db: Database): BindingTable => pathTable(db, 'recent_destinations');
