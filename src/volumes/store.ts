// Assigned volumes (USER_VOLUMES): labelled host folders an administrator gives an account.
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.ts';

export interface UserVolume {
  id: string;
  userId: string;
  label: string;
  path: string;
  accessMode: 'readonly' | 'readwrite';
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: string;
  user_id: string;
  label: string;
  path: string;
  access_mode: 'readonly' | 'readwrite';
  created_at: string;
  updated_at: string;
}

const toVolume = (r: Row): UserVolume => ({
  id: r.id,
  userId: r.user_id,
  label: r.label,
  path: r.path,
  accessMode: r.access_mode,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface UserVolumeStore {
  list(userId: string): UserVolume[];
  get(userId: string, id: string): UserVolume | undefined;
  add(userId: string, input: { label: string; path: string; accessMode: 'readonly' | 'readwrite' }): UserVolume;
  update(
    userId: string,
    id: string,
    input: { label?: string; accessMode?: 'readonly' | 'readwrite' },
  ): UserVolume | undefined;
  remove(userId: string, id: string): boolean;
  /** The account exists (always true where the accounts table is not there). */
  accountExists(userId: string): boolean;
  /** Every assigned folder's host path, once each (whoever it is assigned to). */
  paths(): string[];
}

export function createUserVolumeStore(db: Database): UserVolumeStore {
  const store: UserVolumeStore = {
    list: (userId) =>
      db.all<Row>('SELECT * FROM user_volumes WHERE user_id = ? ORDER BY label', [userId]).map(toVolume),
    get(userId, id) {
      const row = db.get<Row>('SELECT * FROM user_volumes WHERE user_id = ? AND id = ?', [userId, id]);
      return row ? toVolume(row) : undefined;
    },
    add(userId, input) {
      const now = new Date().toISOString();
      const id = randomUUID();
      db.run(
        'INSERT INTO user_volumes (id, user_id, label, path, access_mode, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [id, userId, input.label, input.path, input.accessMode, now, now],
      );
      return store.get(userId, id)!;
    },
    update(userId, id, input) {
      const current = store.get(userId, id);
      if (!current) return undefined;
      db.run('UPDATE user_volumes SET label = ?, access_mode = ?, updated_at = ? WHERE id = ? AND user_id = ?', [
        input.label ?? current.label,
        input.accessMode ?? current.accessMode,
        new Date().toISOString(),
        id,
        userId,
      ]);
      return store.get(userId, id);
    },
    paths: () => db.all<{ path: string }>('SELECT DISTINCT path FROM user_volumes').map((r) => r.path),
    remove: (userId, id) => db.run('DELETE FROM user_volumes WHERE user_id = ? AND id = ?', [userId, id]).changes > 0,
    accountExists: (userId) =>
      !db.get(
        db.dialect === 'sqlite'
          ? "SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'users'"
          : "SELECT 1 AS x FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'users'",
      ) || Boolean(db.get('SELECT 1 AS x FROM users WHERE id = ?', [userId])),
  };
  return store;
}
