// The shares tables (001_shares.sql): rows, named accounts and visitor sessions. SQL stays here.
import type { Database } from '../db/database.ts';

export interface ShareRow {
  id: string;
  token: string;
  user_id: string;
  path: string;
  is_directory: number;
  sharing_type: 'anyone' | 'users';
  password_hash: string | null;
  password_gen: number;
  expires_at: string | null;
  label: string | null;
  allow_download: number;
  allow_upload: number;
  allow_create_file: number;
  allow_create_folder: number;
  allow_rename: number;
  allow_delete: number;
  allow_edit: number;
  file_request: number;
  max_files: number | null;
  max_bytes: number | null;
  received_files: number;
  received_bytes: number;
  download_count: number;
  access_count: number;
  last_accessed_at: string | null;
  created_at: string;
  updated_at: string;
}

export type NewShare = Omit<
  ShareRow,
  'password_gen' | 'received_files' | 'received_bytes' | 'download_count' | 'access_count' | 'last_accessed_at'
>;

export type ShareChanges = Partial<
  Pick<
    ShareRow,
    | 'sharing_type'
    | 'password_hash'
    | 'expires_at'
    | 'label'
    | 'allow_download'
    | 'allow_upload'
    | 'allow_create_file'
    | 'allow_create_folder'
    | 'allow_rename'
    | 'allow_delete'
    | 'allow_edit'
    | 'file_request'
    | 'max_files'
    | 'max_bytes'
  >
>;

export interface AccountRow {
  id: string;
  username: string;
  email: string | null;
  display_name: string | null;
  roles: string;
}

export function createShareStore(db: Database) {
  return {
    insert(row: NewShare, userIds: readonly string[]): void {
      db.transaction(() => {
        const keys = Object.keys(row) as (keyof NewShare)[];
        db.run(
          `INSERT INTO shares (${keys.join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`,
          keys.map((k) => row[k]),
        );
        for (const u of userIds)
          db.run('INSERT OR IGNORE INTO share_users (share_id, user_id) VALUES (?, ?)', [row.id, u]);
      });
    },
    byId: (id: string) => db.get<ShareRow>('SELECT * FROM shares WHERE id = ?', [id]),
    byToken: (token: string) => db.get<ShareRow>('SELECT * FROM shares WHERE token = ?', [token]),
    ofOwner: (userId: string) =>
      db.all<ShareRow>('SELECT * FROM shares WHERE user_id = ? ORDER BY created_at DESC', [userId]),
    sharedWith: (userId: string) =>
      db.all<ShareRow>(
        "SELECT s.* FROM shares s JOIN share_users u ON u.share_id = s.id WHERE u.user_id = ? AND s.sharing_type = 'users' ORDER BY s.created_at DESC",
        [userId],
      ),
    userIds: (shareId: string) =>
      db
        .all<{ user_id: string }>('SELECT user_id FROM share_users WHERE share_id = ? ORDER BY user_id', [shareId])
        .map((r) => r.user_id),
    isPermitted: (shareId: string, userId: string) =>
      db.get<{ n: number }>('SELECT 1 AS n FROM share_users WHERE share_id = ? AND user_id = ?', [shareId, userId]) !==
      undefined,
    update(id: string, changes: ShareChanges, userIds: readonly string[] | undefined, endSessions: boolean): void {
      db.transaction(() => {
        const keys = Object.keys(changes) as (keyof ShareChanges)[];
        const sets = [...keys.map((k) => `${k} = ?`), 'updated_at = ?'];
        if (endSessions) sets.push('password_gen = password_gen + 1');
        db.run(`UPDATE shares SET ${sets.join(', ')} WHERE id = ?`, [
          ...keys.map((k) => changes[k] ?? null),
          new Date().toISOString(),
          id,
        ]);
        if (endSessions) db.run('DELETE FROM share_sessions WHERE share_id = ?', [id]);
        if (userIds) {
          db.run('DELETE FROM share_users WHERE share_id = ?', [id]);
          for (const u of userIds)
            db.run('INSERT OR IGNORE INTO share_users (share_id, user_id) VALUES (?, ?)', [id, u]);
        }
      });
    },
    remove: (id: string) => db.run('DELETE FROM shares WHERE id = ?', [id]).changes > 0,
    touch: (id: string, download: boolean) =>
      db.run(
        `UPDATE shares SET access_count = access_count + 1, last_accessed_at = ?${download ? ', download_count = download_count + 1' : ''} WHERE id = ?`,
        [new Date().toISOString(), id],
      ),
    /** Claims room for one more file of `bytes` under the request's limits; false when full. */
    reserve(id: string, bytes: number): boolean {
      return (
        db.run(
          'UPDATE shares SET received_files = received_files + 1, received_bytes = received_bytes + ? WHERE id = ? AND (max_files IS NULL OR received_files + 1 <= max_files) AND (max_bytes IS NULL OR received_bytes + ? <= max_bytes)',
          [bytes, id, bytes],
        ).changes > 0
      );
    },
    /** Corrects a reservation to what actually arrived (a multipart request may carry several files). */
    settle: (id: string, files: number, bytes: number) =>
      db.run(
        'UPDATE shares SET received_files = max(0, received_files + ?), received_bytes = max(0, received_bytes + ?) WHERE id = ?',
        [files, bytes, id],
      ),
    release: (id: string, bytes: number) =>
      db.run(
        'UPDATE shares SET received_files = max(0, received_files - 1), received_bytes = max(0, received_bytes - ?) WHERE id = ?',
        [bytes, id],
      ),
    sessionInsert: (idHash: string, shareId: string, gen: number, accountSession: string | null, expiresAt: string) =>
      db.run(
        'INSERT INTO share_sessions (id_hash, share_id, password_gen, account_session, expires_at) VALUES (?, ?, ?, ?, ?)',
        [idHash, shareId, gen, accountSession, expiresAt],
      ),
    sessionValid: (idHash: string, shareId: string, gen: number) =>
      db.get<{ n: number }>(
        'SELECT 1 AS n FROM share_sessions WHERE id_hash = ? AND share_id = ? AND password_gen = ? AND expires_at > ?',
        [idHash, shareId, gen, new Date().toISOString()],
      ) !== undefined,
    accountUnlocked: (accountSession: string, shareId: string, gen: number) =>
      db.get<{ n: number }>(
        'SELECT 1 AS n FROM share_sessions WHERE account_session = ? AND share_id = ? AND password_gen = ? AND expires_at > ?',
        [accountSession, shareId, gen, new Date().toISOString()],
      ) !== undefined,
    sweepSessions: () => db.run('DELETE FROM share_sessions WHERE expires_at <= ?', [new Date().toISOString()]).changes,
    account: (id: string) =>
      db.get<AccountRow>('SELECT id, username, email, display_name, roles FROM users WHERE id = ?', [id]),
    accounts: () => db.all<AccountRow>('SELECT id, username, email, display_name, roles FROM users ORDER BY username'),
  };
}
export type ShareStore = ReturnType<typeof createShareStore>;
