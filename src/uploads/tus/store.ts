// The uploads table (001_uploads.sql) behind small functions, so the service never writes SQL.
import type { Database } from '../../db/database.ts';

import type { ConflictPolicy, Displaced, Outcome } from '../../files/names.ts';

export type UploadState = 'incomplete' | 'finalize-failed' | 'complete';

/** What became of a placed upload (answered on every HEAD after). */
export interface UploadResult {
  outcome: Outcome;
  displaced?: Displaced;
}

export interface UploadRow {
  id: string;
  userId: string;
  state: UploadState;
  length: number;
  offset: number;
  metadata: string;
  filename: string;
  uploadTo: string;
  relativePath: string;
  conflict: ConflictPolicy;
  stagingPath: string;
  finalPath: string | null;
  finalizeError: string | null;
  finalizeStatus: number | null;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
  outcome: Outcome | null;
  /** JSON of Displaced, when a replace kept the old file. */
  displaced: string | null;
}

const COLUMNS = `id, user_id AS userId, state, upload_length AS length, upload_offset AS "offset", metadata, filename,
  upload_to AS uploadTo, relative_path AS relativePath, staging_path AS stagingPath, final_path AS finalPath,
  finalize_error AS finalizeError, finalize_status AS finalizeStatus, created_at AS createdAt, updated_at AS updatedAt,
  completed_at AS completedAt, conflict, outcome, displaced`;

export interface UploadStore {
  insert(
    row: Omit<
      UploadRow,
      'finalPath' | 'finalizeError' | 'finalizeStatus' | 'completedAt' | 'offset' | 'state' | 'outcome' | 'displaced'
    >,
  ): void;
  get(id: string): UploadRow | undefined;
  setOffset(id: string, offset: number, now: number): void;
  markComplete(id: string, finalPath: string | null, now: number, result?: UploadResult): void;
  markFinalizeFailed(id: string, error: string, status: number, now: number): void;
  remove(id: string): void;
  /** Rows untouched since before `cutoff` (the sweep's candidates), oldest first. */
  olderThan(cutoff: number, limit: number): UploadRow[];
  /** Is there a row with this id (for the orphan sweep)? */
  has(id: string): boolean;
}

export function createUploadStore(db: Database): UploadStore {
  return {
    insert(r) {
      db.run(
        `INSERT INTO uploads (id, user_id, state, upload_length, upload_offset, metadata, filename, upload_to, relative_path, conflict, staging_path, created_at, updated_at)
         VALUES (?, ?, 'incomplete', ?, 0, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          r.id,
          r.userId,
          r.length,
          r.metadata,
          r.filename,
          r.uploadTo,
          r.relativePath,
          r.conflict,
          r.stagingPath,
          r.createdAt,
          r.updatedAt,
        ],
      );
    },
    get(id) {
      return db.get<UploadRow>(`SELECT ${COLUMNS} FROM uploads WHERE id = ?`, [id]);
    },
    setOffset(id, offset, now) {
      db.run(`UPDATE uploads SET upload_offset = ?, updated_at = ? WHERE id = ? AND state = 'incomplete'`, [
        offset,
        now,
        id,
      ]);
    },
    markComplete(id, finalPath, now, result) {
      db.run(
        `UPDATE uploads SET state = 'complete', upload_offset = upload_length, final_path = ?, finalize_error = NULL, finalize_status = NULL,
           completed_at = ?, updated_at = ?, outcome = ?, displaced = ? WHERE id = ?`,
        [finalPath, now, now, result?.outcome ?? null, result?.displaced ? JSON.stringify(result.displaced) : null, id],
      );
    },
    markFinalizeFailed(id, error, status, now) {
      db.run(
        `UPDATE uploads SET state = 'finalize-failed', upload_offset = upload_length, finalize_error = ?, finalize_status = ?, updated_at = ? WHERE id = ?`,
        [error, status, now, id],
      );
    },
    remove(id) {
      db.run('DELETE FROM uploads WHERE id = ?', [id]);
    },
    olderThan(cutoff, limit) {
      return db.all<UploadRow>(`SELECT ${COLUMNS} FROM uploads WHERE updated_at < ? ORDER BY updated_at LIMIT ?`, [
        cutoff,
        limit,
      ]);
    },
    has(id) {
      return db.get('SELECT 1 AS x FROM uploads WHERE id = ?', [id]) !== undefined;
    },
  };
}
