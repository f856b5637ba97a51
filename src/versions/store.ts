// Versions' rows (`file_versions`: one per kept content, naming its file by space and relative
// path and where the bytes are kept) and files' creation times kept across saves
// (`file_created`, with the inode they belong to). The files are the service's.
import type { Database } from '../db/database.ts';
import type { RealLocation } from '../files/bindings.ts';

export interface VersionRow {
  id: string;
  space_root: string;
  relative: string;
  size: number;
  modified_at: string;
  stored_path: string;
  created_at: string;
  created_by: string | null;
}

export interface CreatedRow {
  space_root: string;
  relative: string;
  created_at: string;
  inode: string;
}

export interface VersionStore {
  get(id: string): VersionRow | undefined;
  insert(row: VersionRow): void;
  /** Bytes of the earlier contents an account's saves kept (quotas: versions count against whoever replaced). */
  bytesCreatedBy(username: string): number;
  /** The file's versions, newest first. */
  ofFile(root: string, relative: string): VersionRow[];
  /** Versions stored strictly between the bounds (files/own.ts `below`). */
  storedWithin(range: [string, string]): VersionRow[];
  setStored(id: string, storedPath: string): void;
  remove(id: string): void;
  created(root: string, relative: string): CreatedRow | undefined;
  putCreated(row: CreatedRow): void;
  /**
   * Versions and creation times at or under `from` follow it to `to` (a rename or move; the
   * caller's transaction); creation times already at `to` were another file's and go.
   */
  carry(from: RealLocation, to: RealLocation): void;
}

export function createVersionStore(db: Database): VersionStore {
  return {
    get: (id) => db.get<VersionRow>('SELECT * FROM file_versions WHERE id = ?', [id]),
    bytesCreatedBy: (username) =>
      db.get<{ n: number | null }>('SELECT SUM(size) AS n FROM file_versions WHERE created_by = ?', [username])?.n ?? 0,
    insert(r) {
      db.run(
        'INSERT INTO file_versions (id, space_root, relative, size, modified_at, stored_path, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [r.id, r.space_root, r.relative, r.size, r.modified_at, r.stored_path, r.created_at, r.created_by],
      );
    },
    ofFile: (root, relative) =>
      db.all<VersionRow>('SELECT * FROM file_versions WHERE space_root = ? AND relative = ? ORDER BY created_at DESC', [
        root,
        relative,
      ]),
    storedWithin: (range) =>
      db.all<VersionRow>('SELECT * FROM file_versions WHERE stored_path > ? AND stored_path < ?', range),
    setStored: (id, storedPath) =>
      void db.run('UPDATE file_versions SET stored_path = ? WHERE id = ?', [storedPath, id]),
    remove: (id) => void db.run('DELETE FROM file_versions WHERE id = ?', [id]),
    created: (root, relative) =>
      db.get<CreatedRow>('SELECT * FROM file_created WHERE space_root = ? AND relative = ?', [root, relative]),
    putCreated(r) {
      db.run(
        `INSERT INTO file_created (space_root, relative, created_at, inode) VALUES (?, ?, ?, ?)
       ON CONFLICT (space_root, relative) DO UPDATE SET created_at = excluded.created_at, inode = excluded.inode`,
        [r.space_root, r.relative, r.created_at, r.inode],
      );
    },
    carry(from, to) {
      const p = from.relative;
      db.run(
        `UPDATE file_versions SET space_root = ?, relative = ? || substr(relative, length(?) + 1)
        WHERE space_root = ? AND (relative = ? OR (relative >= ? AND relative < ?))`,
        [to.root, to.relative, p, from.root, p, p + '/', p + '0'],
      );
      // Creation times follow their files the same way (a row at the destination was another file's).
      db.run('DELETE FROM file_created WHERE space_root = ? AND (relative = ? OR (relative >= ? AND relative < ?))', [
        to.root,
        to.relative,
        to.relative + '/',
        to.relative + '0',
      ]);
      db.run(
        `UPDATE file_created SET space_root = ?, relative = ? || substr(relative, length(?) + 1)
        WHERE space_root = ? AND (relative = ? OR (relative >= ? AND relative < ?))`,
        [to.root, to.relative, p, from.root, p, p + '/', p + '0'],
      );
    },
  };
}
