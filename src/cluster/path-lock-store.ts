// A file's save lock across the instances of a cluster (DATABASE_URL=postgres://…): a
// session-level advisory lock of PostgreSQL in the two-key form (its class, then 32 bits of the
// path's hash), so it never meets the one-key locks of uploads and migrations. It lives on the
// instance's own connection; PostgreSQL lets go of it by itself when that connection ends (the
// instance stopped or was killed), so a dead instance never keeps a file from being saved.
import type { Database } from '../db/database.ts';

/** The class of the save locks among PostgreSQL's advisory locks ('bsav'). */
const SAVE_LOCK_CLASS = 0x6273_6176;

export interface PathLockStore {
  /** Takes the lock of `key` unless another connection holds it; true when taken. Never waits. */
  tryHold(key: number): boolean;
  release(key: number): void;
}

export function createPathLockStore(db: Database): PathLockStore {
  return {
    tryHold: (key) =>
      db.get<{ taken: number }>('SELECT pg_try_advisory_lock(?, ?) AS taken', [SAVE_LOCK_CLASS, key])?.taken === 1,
    release: (key) => void db.get('SELECT pg_advisory_unlock(?, ?) AS released', [SAVE_LOCK_CLASS, key]),
  };
}
