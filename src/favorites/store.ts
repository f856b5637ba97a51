// Favourites of each account, in the order the account chose (`favorites`, a binding: see
// files/bindings.ts). The path is resolved by the service before it reaches the store.
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { pathTable } from '../files/bindings-store.ts';
import type { BindingTable } from '../files/bindings.ts';
import type { Favorite, FavoriteChange } from './wire.ts';

interface Row {
  id: string;
  path: string;
  label: string | null;
  icon: string;
  color: string | null;
  position: number;
  created_at: string;
  updated_at: string;
}
const toFavorite = (r: Row): Favorite => ({
  id: r.id,
  path: r.path,
  label: r.label,
  icon: r.icon,
  color: r.color,
  position: r.position,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface FavoriteStore {
  list(userId: string): Favorite[];
  /** Adds the favourite of a path, or changes the one it already has. */
  put(userId: string, path: string, change: FavoriteChange): Favorite;
  change(userId: string, id: string, change: FavoriteChange): Favorite | undefined;
  /** false when `order` does not name every favourite exactly once. */
  reorder(userId: string, order: string[]): boolean;
  removePath(userId: string, path: string): void;
  remove(userId: string, id: string): void;
}

export function createFavoriteStore(db: Database): FavoriteStore {
  const byId = (id: string) => toFavorite(db.get<Row>('SELECT * FROM favorites WHERE id = ?', [id])!);
  const update = (row: Row, change: FavoriteChange) => {
    db.run('UPDATE favorites SET label = ?, icon = ?, color = ?, updated_at = ? WHERE id = ?', [
      change.label !== undefined ? change.label : row.label,
      change.icon ?? row.icon,
      change.color !== undefined ? change.color : row.color,
      new Date().toISOString(),
      row.id,
    ]);
    return byId(row.id);
  };
  return {
    list: (userId) =>
      db.all<Row>('SELECT * FROM favorites WHERE user_id = ? ORDER BY position, created_at', [userId]).map(toFavorite),
    put(userId, path, change) {
      const existing = db.get<Row>('SELECT * FROM favorites WHERE user_id = ? AND path = ?', [userId, path]);
      if (existing) return update(existing, change);
      const now = new Date().toISOString();
      const position = db.get<{ n: number | null }>('SELECT MAX(position) AS n FROM favorites WHERE user_id = ?', [
        userId,
      ])!.n;
      const id = randomUUID();
      db.run(
        'INSERT INTO favorites (id, user_id, path, label, icon, color, position, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          id,
          userId,
          path,
          change.label ?? null,
          change.icon ?? 'outline:StarIcon',
          change.color ?? null,
          position === null ? 0 : position + 1,
          now,
          now,
        ],
      );
      return byId(id);
    },
    change(userId, id, change) {
      const row = db.get<Row>('SELECT * FROM favorites WHERE id = ? AND user_id = ?', [id, userId]);
      return row ? update(row, change) : undefined;
    },
    reorder(userId, order) {
      const ids = db.all<{ id: string }>('SELECT id FROM favorites WHERE user_id = ?', [userId]).map((r) => r.id);
      const wanted = new Set(order);
      if (wanted.size !== order.length || wanted.size !== ids.length || ids.some((id) => !wanted.has(id))) return false;
      const now = new Date().toISOString();
      db.transaction(() =>
        order.forEach((id, i) =>
          db.run('UPDATE favorites SET position = ?, updated_at = ? WHERE id = ? AND user_id = ?', [
            i,
            now,
            id,
            userId,
          ]),
        ),
      );
      return true;
    },
    removePath: (userId, path) => void db.run('DELETE FROM favorites WHERE user_id = ? AND path = ?', [userId, path]),
    remove: (userId, id) => void db.run('DELETE FROM favorites WHERE user_id = ? AND id = ?', [userId, id]),
  };
}

/** Favourites follow their path (files/bindings.ts). */
export const favoriteBindings = (db: Database): BindingTable => pathTable(db, 'favorites');
