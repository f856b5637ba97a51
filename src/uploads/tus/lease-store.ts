// Which instance works on an upload, across the instances of a cluster (DATABASE_URL=postgres://…):
// a session-level advisory lock of PostgreSQL per upload, taken on the instance's own connection
// for a request's lifetime. PostgreSQL lets go of it by itself when that connection ends — the
// instance stopped, was killed, or its machine went away (TCP keepalive) — so a dead instance
// never keeps an upload from resuming elsewhere. The embedded database has no such store: one
// process is the only writer there.
import type { Database } from '../../db/database.ts';

export interface UploadLeaseStore {
  /** Takes the upload's lock unless another connection holds it; true when taken. Never waits. */
  tryHold(key: string): boolean;
  /** Does this connection still hold it (a connection lost and made again holds nothing)? */
  holds(key: string): boolean;
  release(key: string): void;
}

export function createUploadLeaseStore(db: Database): UploadLeaseStore {
  return {
    tryHold(key) {
      return db.get<{ taken: number }>('SELECT pg_try_advisory_lock(CAST(? AS BIGINT)) AS taken', [key])?.taken === 1;
    },
    holds(key) {
      return (
        db.get(
          `SELECT 1 AS x FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted AND objsubid = 1
             AND ((CAST(classid AS BIGINT) << 32) | CAST(objid AS BIGINT)) = CAST(? AS BIGINT)`,
          [key],
        ) !== undefined
      );
    },
    release(key) {
      db.get('SELECT pg_advisory_unlock(CAST(? AS BIGINT)) AS released', [key]);
    },
  };
}
