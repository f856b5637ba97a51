// WOPI locks: one per file id, a string chosen by the editing server, expiring 30 minutes
// after it was set or refreshed. Every change is one statement or one short transaction, so
// two editors racing for a lock cannot both get it.
import type { Database } from '../../db/database.ts';

export const LOCK_TTL_MS = 30 * 60 * 1000;
/** WOPI lock ids are at most 1024 ASCII characters. */
export const MAX_LOCK_LENGTH = 1024;

export type LockResult = { ok: true } | { ok: false; current: string };

export interface LockStore {
  /** The lock in force, '' when none (an expired one counts as none). */
  current(fileId: string): string;
  /** Whose lock is in force (null: none; userId null: taken without an account). */
  holder(fileId: string): { userId: string | null } | null;
  /** LOCK: take it when free, refresh it when it is ours; else report the lock held. */
  lock(fileId: string, value: string, userId: string): LockResult;
  /** UnlockAndRelock: swap `old` for `value` only while `old` holds. */
  relock(fileId: string, old: string, value: string, userId: string): LockResult;
  refresh(fileId: string, value: string): LockResult;
  unlock(fileId: string, value: string): LockResult;
}

export function createLockStore(db: Database, now: () => number = Date.now): LockStore {
  function current(fileId: string): string {
    const row = db.get<{ lock_value: string; expires_at: number }>(
      'SELECT lock_value, expires_at FROM office_locks WHERE file_id = ?',
      [fileId],
    );
    if (!row) return '';
    if (row.expires_at <= now()) {
      db.run('DELETE FROM office_locks WHERE file_id = ? AND expires_at <= ?', [fileId, now()]);
      return '';
    }
    return row.lock_value;
  }
  const set = (fileId: string, value: string, userId: string) =>
    db.run(
      'INSERT INTO office_locks (file_id, lock_value, user_id, expires_at, created_at) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (file_id) DO UPDATE SET lock_value = ?2, user_id = ?3, expires_at = ?4',
      [fileId, value, userId, now() + LOCK_TTL_MS, new Date(now()).toISOString()],
    );

  return {
    current,
    holder(fileId) {
      if (current(fileId) === '') return null;
      const row = db.get<{ user_id: string | null }>('SELECT user_id FROM office_locks WHERE file_id = ?', [fileId]);
      return row ? { userId: row.user_id } : null;
    },
    lock(fileId, value, userId) {
      return db.transaction(() => {
        const held = current(fileId);
        if (held !== '' && held !== value) return { ok: false, current: held };
        set(fileId, value, userId);
        return { ok: true };
      });
    },
    relock(fileId, old, value, userId) {
      return db.transaction(() => {
        const held = current(fileId);
        if (held === '' || held !== old) return { ok: false, current: held };
        set(fileId, value, userId);
        return { ok: true };
      });
    },
    refresh(fileId, value) {
      return db.transaction(() => {
        const held = current(fileId);
        if (held === '' || held !== value) return { ok: false, current: held };
        db.run('UPDATE office_locks SET expires_at = ? WHERE file_id = ?', [now() + LOCK_TTL_MS, fileId]);
        return { ok: true };
      });
    },
    unlock(fileId, value) {
      return db.transaction(() => {
        const held = current(fileId);
        if (held === '' || held !== value) return { ok: false, current: held };
        db.run('DELETE FROM office_locks WHERE file_id = ?', [fileId]);
        return { ok: true };
      });
    },
  };
}
