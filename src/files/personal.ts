// Personal folders: one per account under USER_ROOT, its name claimed once (database row +
// exclusive mkdir) and kept, so no account ever inherits another's folder.
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Database } from '../db/database.ts';

export interface PersonalFolders {
  /** The account's folder (created on first use), absolute. */
  folderFor(userId: string, username: string): Promise<string>;
  /** Every claimed folder, absolute (to keep other accounts out of them). */
  all(): string[];
}

function safeFolderName(username: string): string {
  const cleaned = username
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}._-]+/gu, '_')
    .replace(/^[._]+/, '')
    .slice(0, 64);
  return cleaned || 'user';
}

export function createPersonalFolders(db: Database, userRoot: string): PersonalFolders {
  const claiming = new Map<string, Promise<string>>();

  async function claim(userId: string, username: string): Promise<string> {
    const row = db.get<{ folder: string }>('SELECT folder FROM personal_folders WHERE user_id = ?', [userId]);
    if (row) {
      const dir = path.join(userRoot, row.folder);
      await fsp.mkdir(dir, { recursive: true });
      return dir;
    }
    await fsp.mkdir(userRoot, { recursive: true });
    const base = safeFolderName(username);
    for (let n = 0; n < 1000; n++) {
      const name = n === 0 ? base : `${base}-${n + 1}`;
      if (db.get('SELECT 1 AS x FROM personal_folders WHERE folder = ?', [name])) continue;
      try {
        // A folder already on disk but unclaimed (an older database) belongs to nobody we know.
        await fsp.mkdir(path.join(userRoot, name));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw err;
      }
      db.run('INSERT INTO personal_folders (user_id, folder, created_at) VALUES (?, ?, ?)', [
        userId,
        name,
        new Date().toISOString(),
      ]);
      return path.join(userRoot, name);
    }
    throw new Error('no personal folder name left');
  }

  return {
    folderFor(userId, username) {
      let pending = claiming.get(userId);
      if (!pending) {
        pending = claim(userId, username).finally(() => claiming.delete(userId));
        claiming.set(userId, pending);
      }
      return pending;
    },
    all() {
      return db
        .all<{ folder: string }>('SELECT folder FROM personal_folders')
        .map((r) => path.join(userRoot, r.folder));
    },
  };
}
