// WOPI locks: one per file id, a string chosen by the editing server, expiring 30 minutes
// after it was set or refreshed. Every change is one statement or one short transaction, so
// two editors racing for a lock cannot both get it. Each lock remembers its document's place on
// this computer: the other doors (WebDAV, the HTTP API) find it there, on the file and inside a
// folder (files/locks.ts). Built by the composition root whether or not the editor is configured:
// a lock taken before it was turned off binds until it expires.
import type { Database } from '../../db/database.ts';
import type { LockProbe } from '../../files/locks.ts';

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
  lock(fileId: string, value: string, holder: LockHolder): LockResult;
  /** UnlockAndRelock: swap `old` for `value` only while `old` holds. */
  relock(fileId: string, old: string, value: string, holder: LockHolder): LockResult;
  refresh(fileId: string, value: string, realPath: string): LockResult;
  unlock(fileId: string, value: string): LockResult;
  /** Whose locks are in force on the document at `realPath` (withBelow: on any document inside that folder). */
  heldAt(realPath: string, withBelow: boolean): { userId: string | null }[];
}

/** Who takes a lock, and the document's place on this computer. */
export interface LockHolder {
  userId: string;
  realPath: string;
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
  const set = (fileId: string, value: string, holder: LockHolder) =>
    db.run(
      'INSERT INTO office_locks (file_id, lock_value, user_id, expires_at, created_at, real_path) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (file_id) DO UPDATE SET lock_value = ?2, user_id = ?3, expires_at = ?4, real_path = ?6',
      [fileId, value, holder.userId, now() + LOCK_TTL_MS, new Date(now()).toISOString(), holder.realPath],
    );

  return {
    current,
    holder(fileId) {
      if (current(fileId) === '') return null;
      const row = db.get<{ user_id: string | null }>('SELECT user_id FROM office_locks WHERE file_id = ?', [fileId]);
      return row ? { userId: row.user_id } : null;
    },
    lock(fileId, value, holder) {
      return db.transaction(() => {
        const held = current(fileId);
        if (held !== '' && held !== value) return { ok: false, current: held };
        set(fileId, value, holder);
        return { ok: true };
      });
    },
    relock(fileId, old, value, holder) {
      return db.transaction(() => {
        const held = current(fileId);
        if (held === '' || held !== old) return { ok: false, current: held };
        set(fileId, value, holder);
        return { ok: true };
      });
    },
    refresh(fileId, value, realPath) {
      return db.transaction(() => {
        const held = current(fileId);
        if (held === '' || held !== value) return { ok: false, current: held };
        db.run('UPDATE office_locks SET expires_at = ?, real_path = ? WHERE file_id = ?', [
          now() + LOCK_TTL_MS,
          realPath,
          fileId,
        ]);
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
    heldAt(realPath, withBelow) {
      const at = now();
      if (!withBelow)
        return db.all<{ userId: string | null }>(
          'SELECT user_id AS userId FROM office_locks WHERE real_path = ? AND expires_at > ?',
          [realPath, at],
        );
      // The folder and every path below it: a range on real_path ('/' sorts just before '0').
      const inside = realPath.endsWith('/') ? realPath : realPath + '/';
      return db.all<{ userId: string | null }>(
        'SELECT user_id AS userId FROM office_locks WHERE (real_path = ? OR (real_path >= ? AND real_path < ?)) AND expires_at > ?',
        [realPath, inside, inside.slice(0, -1) + '0', at],
      );
    },
  };
}

/** The office editor's locks as the other doors ask for them (files/locks.ts). */
export const officeLockProbe =
  (store: LockStore): LockProbe =>
  (item, withBelow) =>
    item.realPath
      ? store.heldAt(item.realPath, withBelow).map((l) => ({ kind: 'office' as const, userId: l.userId }))
      : [];
