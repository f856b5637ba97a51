// Host folders added as volumes: rows in host_volumes, read by the path resolver on every
// listing of the spaces (a handful of rows), so a change shows at once.
import { randomUUID } from 'node:crypto';
import { isUniqueViolation as isUnique, type Database } from '../db/database.ts';

export interface HostVolume {
  id: string;
  label: string;
  path: string;
  accessMode: 'readonly' | 'readwrite';
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: string;
  label: string;
  path: string;
  access_mode: 'readonly' | 'readwrite';
  created_at: string;
  updated_at: string;
}

const toVolume = (r: Row): HostVolume => ({
  id: r.id,
  label: r.label,
  path: r.path,
  accessMode: r.access_mode,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface HostVolumeStore {
  list(): HostVolume[];
  get(id: string): HostVolume | undefined;
  /** null when the label is taken (UNIQUE, case-insensitive): the name is claimed by the insert itself. */
  add(input: { label: string; path: string; accessMode: 'readonly' | 'readwrite' }): HostVolume | null;
  /** undefined: no such volume; null: the new label is taken. */
  update(id: string, input: { label?: string; accessMode?: 'readonly' | 'readwrite' }): HostVolume | undefined | null;
  remove(id: string): boolean;
}

export function createHostVolumeStore(db: Database): HostVolumeStore {
  const store: HostVolumeStore = {
    list: () => db.all<Row>('SELECT * FROM host_volumes ORDER BY label COLLATE NOCASE').map(toVolume),
    get(id) {
      const row = db.get<Row>('SELECT * FROM host_volumes WHERE id = ?', [id]);
      return row ? toVolume(row) : undefined;
    },
    add(input) {
      const now = new Date().toISOString();
      const id = randomUUID();
      try {
        db.run(
          'INSERT INTO host_volumes (id, label, path, access_mode, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
          [id, input.label, input.path, input.accessMode, now, now],
        );
      } catch (err) {
        if (isUnique(err)) return null;
        throw err;
      }
      return store.get(id)!;
    },
    update(id, input) {
      const current = store.get(id);
      if (!current) return undefined;
      try {
        db.run('UPDATE host_volumes SET label = ?, access_mode = ?, updated_at = ? WHERE id = ?', [
          input.label ?? current.label,
          input.accessMode ?? current.accessMode,
          new Date().toISOString(),
          id,
        ]);
      } catch (err) {
        if (isUnique(err)) return null;
        throw err;
      }
      return store.get(id);
    },
    remove: (id) => db.run('DELETE FROM host_volumes WHERE id = ?', [id]).changes > 0,
  };
  return store;
}
