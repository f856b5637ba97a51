// The shares tables (001_shares.sql): rows, named accounts and visitor sessions. SQL stays here.
// A link's token is stored as its SHA-256 (the lookup) and sealed under a key that is not in the
// database (the owner's "copy link"), never in clear (002_link_token_hash.sql): a copy of the
// database or of its backups opens no link. Rows give the token back in clear as `token`.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Database, type SqlValue } from '../db/database.ts';
import type { SecretBox } from '../db/secret-box.ts';
import { pathTable } from '../files/bindings-store.ts';
import type { BindingTable } from '../files/bindings.ts';

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
  /** 003_allow_location: the link's photos keep their GPS */
  allow_location: number;
  /** 004_allow_transcode: the link's videos may be converted by ffmpeg for its holders */
  allow_transcode: number;
  file_request: number;
  max_files: number | null;
  max_bytes: number | null;
  /** Downloads the link gives in all (1: one-time), or null. */
  max_downloads: number | null;
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
    | 'allow_location'
    | 'allow_transcode'
    | 'file_request'
    | 'max_files'
    | 'max_bytes'
    | 'max_downloads'
  >
>;

export interface AccountRow {
  id: string;
  username: string;
  email: string | null;
  display_name: string | null;
  roles: string;
}

/** What a link is looked up by: SHA-256 of its token (a random 144-bit secret: no key needed). */
export const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** A row as stored: the token's hash and seal in place of the token. */
type StoredRow = Omit<ShareRow, 'token'> & {
  token_hash: string;
  token_sealed: string | null;
  told_until: string | null;
};

/** A token sealed by SecretBox (a token itself is base64url: never a dot). */
const SEALED = 'v1.';
const sealContext = (id: string) => `share-token:${id}`;

/**
 * The snapshots in CONFIG_DIR/backups keep the schema they were taken with, so that the release
 * that wrote one still starts on it; one taken before 002_link_token_hash holds each link's token
 * in clear. Each such token is replaced by its seal (the key is not in the snapshot): the
 * snapshot opens no link, the release before this one still runs on it (its links stay closed),
 * and this release on a restored snapshot opens them again (the conversion above reads seals).
 */
export function sealBackups(backupDir: string, box: SecretBox): number {
  let sealed = 0;
  const files = fs.existsSync(backupDir) ? fs.readdirSync(backupDir).filter((f) => /^burrow-.*\.db$/.test(f)) : [];
  for (const f of files) {
    const snap = new Database(path.join(backupDir, f));
    try {
      const columns = snap.all<{ name: string }>("SELECT name FROM pragma_table_info('shares')").map((c) => c.name);
      if (!columns.includes('token')) continue;
      const clear = snap.all<{ id: string; token: string }>(
        'SELECT id, token FROM shares WHERE substr(token, 1, 3) <> ?',
        [SEALED],
      );
      if (!clear.length) continue;
      snap.exec('PRAGMA secure_delete = ON');
      snap.transaction(() => {
        for (const r of clear)
          snap.run('UPDATE shares SET token = ? WHERE id = ?', [box.seal(r.token, sealContext(r.id)), r.id]);
      });
      sealed += clear.length;
    } finally {
      snap.close();
    }
  }
  return sealed;
}

export function createShareStore(db: Database, box: SecretBox, backupDir?: string) {
  const opened = (sealed: string, id: string): string | null => {
    try {
      return box.open(sealed, sealContext(id));
    } catch {
      return null;
    }
  };
  /** The stored row as the service sees it; a seal that does not open (another key) gives ''. */
  const shown = (row: StoredRow | undefined, token?: string): ShareRow | undefined => {
    if (!row) return undefined;
    const { token_hash: _hash, token_sealed: sealed, told_until: _told, ...rest } = row;
    return { ...rest, token: token ?? (sealed ? opened(sealed, row.id) : null) ?? '' };
  };

  // Tokens written in clear before 002_link_token_hash, or sealed in a snapshot (sealBackups)
  // that was restored: hashed and sealed once, at start. secure_delete: the clear token leaves
  // no copy in the page's free space.
  const pending = db.all<{ id: string; token_hash: string }>(
    'SELECT id, token_hash FROM shares WHERE token_sealed IS NULL',
  );
  const sqlite = db.dialect === 'sqlite';
  if (pending.length) {
    if (sqlite) db.exec('PRAGMA secure_delete = ON');
    try {
      db.transaction(() => {
        for (const r of pending) {
          const token = r.token_hash.startsWith(SEALED) ? opened(r.token_hash, r.id) : r.token_hash;
          // A snapshot sealed under a key since lost: that link cannot open any more.
          const row =
            token === null
              ? [tokenHash(r.token_hash), r.token_hash]
              : [tokenHash(token), box.seal(token, sealContext(r.id))];
          db.run('UPDATE shares SET token_hash = ?, token_sealed = ? WHERE id = ?', [...row, r.id]);
        }
      });
    } finally {
      if (sqlite) db.exec('PRAGMA secure_delete = OFF');
    }
  }
  // Snapshots are SQLite files: a PostgreSQL database is backed up by its own tools.
  if (backupDir && sqlite && !db.get("SELECT 1 AS n FROM burrow_meta WHERE key = 'backup_link_tokens_sealed'")) {
    sealBackups(backupDir, box);
    db.run("INSERT INTO burrow_meta (key, value) VALUES ('backup_link_tokens_sealed', ?) ON CONFLICT DO NOTHING", [
      new Date().toISOString(),
    ]);
  }

  return {
    /** Tokens hashed and sealed at this start (rows from before 002_link_token_hash). */
    converted: pending.length,
    insert(share: NewShare, userIds: readonly string[]): void {
      db.transaction(() => {
        const { token, ...rest } = share;
        const row: Record<string, SqlValue> = {
          ...rest,
          token_hash: tokenHash(token),
          token_sealed: box.seal(token, sealContext(share.id)),
        };
        const keys = Object.keys(row);
        db.run(
          `INSERT INTO shares (${keys.join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`,
          keys.map((k) => row[k]!),
        );
        for (const u of userIds)
          db.run('INSERT INTO share_users (share_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING', [share.id, u]);
      });
    },
    byId: (id: string) => shown(db.get<StoredRow>('SELECT * FROM shares WHERE id = ?', [id])),
    byToken: (token: string) =>
      shown(db.get<StoredRow>('SELECT * FROM shares WHERE token_hash = ?', [tokenHash(token)]), token),
    ofOwner: (userId: string) =>
      db
        .all<StoredRow>('SELECT * FROM shares WHERE user_id = ? ORDER BY created_at DESC', [userId])
        .map((r) => shown(r)!),
    sharedWith: (userId: string) =>
      db
        .all<StoredRow>(
          "SELECT s.* FROM shares s JOIN share_users u ON u.share_id = s.id WHERE u.user_id = ? AND s.sharing_type = 'users' ORDER BY s.created_at DESC",
          [userId],
        )
        .map((r) => shown(r)!),
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
            db.run('INSERT INTO share_users (share_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING', [id, u]);
        }
      });
    },
    remove: (id: string) => db.run('DELETE FROM shares WHERE id = ?', [id]).changes > 0,
    touch: (id: string, download: boolean) =>
      db.run(
        `UPDATE shares SET access_count = access_count + 1, last_accessed_at = ?${download ? ', download_count = download_count + 1' : ''} WHERE id = ?`,
        [new Date().toISOString(), id],
      ),
    /** Whether `taker` (an HMAC of their cookie) took `file` of link `id` lately (before `now`, ISO, it ends). */
    tookLately: (taker: string, id: string, file: string, now: string): boolean =>
      db.get('SELECT 1 AS x FROM share_takers WHERE taker = ? AND share_id = ? AND file = ? AND until_at > ?', [
        taker,
        id,
        file,
        now,
      ]) !== undefined,
    /** Whether `taker` took any file of link `id` lately. */
    takingAny: (taker: string, id: string, now: string): boolean =>
      db.get('SELECT 1 AS x FROM share_takers WHERE taker = ? AND share_id = ? AND until_at > ? LIMIT 1', [
        taker,
        id,
        now,
      ]) !== undefined,
    /** `taker` took `file` of link `id`: the same download until `until` (ISO). The rows past their time go. */
    markTaken(taker: string, id: string, file: string, until: string, now: string): void {
      db.run('DELETE FROM share_takers WHERE until_at <= ?', [now]);
      db.run(
        'INSERT INTO share_takers (taker, share_id, file, until_at) VALUES (?, ?, ?, ?) ON CONFLICT (taker, share_id, file) DO UPDATE SET until_at = excluded.until_at',
        [taker, id, file, until],
      );
    },
    /** Whether the owner of link `id` is to be told of its downloads now (ISO `now`): claims the telling until `until`; false while an earlier telling holds, through whichever instance it was. */
    claimTelling: (id: string, now: string, until: string): boolean =>
      db.run('UPDATE shares SET told_until = ? WHERE id = ? AND (told_until IS NULL OR told_until <= ?)', [
        until,
        id,
        now,
      ]).changes > 0,
    /** Counts one download of a limited link, only while it has one left; false past its count. */
    claimDownload: (id: string): boolean =>
      db.run(
        'UPDATE shares SET access_count = access_count + 1, download_count = download_count + 1, last_accessed_at = ? WHERE id = ? AND (max_downloads IS NULL OR download_count < max_downloads)',
        [new Date().toISOString(), id],
      ).changes > 0,
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
        // CASE rather than SQLite's two-argument max(): the same text in PostgreSQL.
        `UPDATE shares SET received_files = CASE WHEN received_files + ?1 < 0 THEN 0 ELSE received_files + ?1 END,
           received_bytes = CASE WHEN received_bytes + ?2 < 0 THEN 0 ELSE received_bytes + ?2 END WHERE id = ?3`,
        [files, bytes, id],
      ),
    release: (id: string, bytes: number) =>
      db.run(
        `UPDATE shares SET received_files = CASE WHEN received_files < 1 THEN 0 ELSE received_files - 1 END,
           received_bytes = CASE WHEN received_bytes < ?1 THEN 0 ELSE received_bytes - ?1 END WHERE id = ?2`,
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

/** A link follows the item it shares (files/bindings.ts). */
export const shareBindings = (db: Database): BindingTable => pathTable(db, 'shares');
