// The trash's rows (`trash_items`): one per deleted item, naming its space, where it was and
// where it is kept (`stored_path`, in the space's own folder). The files are the service's.
import type { Database } from '../db/database.ts';

export interface TrashRow {
  id: string;
  space_root: string;
  original_relative: string;
  name: string;
  is_directory: number;
  size: number | null;
  stored_path: string;
  deleted_by: string;
  deleted_at: string;
}

export interface TrashStore {
  get(id: string): TrashRow | undefined;
  /** Every entry, newest first. */
  newestFirst(): TrashRow[];
  /** Every entry, in no order. */
  all(): TrashRow[];
  /** Entries stored strictly between the bounds (files/own.ts `below`). */
  storedWithin(range: [string, string]): TrashRow[];
  insert(row: TrashRow): void;
  setStored(id: string, storedPath: string): void;
  remove(id: string): void;
  removeStored(storedPath: string): void;
  /** Bytes of the files an account deleted that the trash still keeps (quotas: the trash counts against whoever deleted). */
  bytesDeletedBy(username: string): number;
}

export function createTrashStore(db: Database): TrashStore {
  return {
    get: (id) => db.get<TrashRow>('SELECT * FROM trash_items WHERE id = ?', [id]),
    newestFirst: () => db.all<TrashRow>('SELECT * FROM trash_items ORDER BY deleted_at DESC'),
    all: () => db.all<TrashRow>('SELECT * FROM trash_items'),
    bytesDeletedBy: (username) =>
      db.get<{ n: number | null }>('SELECT SUM(size) AS n FROM trash_items WHERE deleted_by = ?', [username])?.n ?? 0,
    storedWithin: (range) =>
      db.all<TrashRow>('SELECT * FROM trash_items WHERE stored_path > ? AND stored_path < ?', range),
    insert(r) {
      db.run(
        'INSERT INTO trash_items (id, space_root, original_relative, name, is_directory, size, stored_path, deleted_by, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          r.id,
          r.space_root,
          r.original_relative,
          r.name,
          r.is_directory,
          r.size,
          r.stored_path,
          r.deleted_by,
          r.deleted_at,
        ],
      );
    },
    setStored: (id, storedPath) => void db.run('UPDATE trash_items SET stored_path = ? WHERE id = ?', [storedPath, id]),
    remove: (id) => void db.run('DELETE FROM trash_items WHERE id = ?', [id]),
    removeStored: (storedPath) => void db.run('DELETE FROM trash_items WHERE stored_path = ?', [storedPath]),
  };
}
