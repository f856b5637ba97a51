// Claimed personal folder names (`personal_folders`: one per account, kept when the account is
// deleted — 003_account_leftovers.sql — so no later account inherits the folder).
import type { Database } from '../db/database.ts';

export interface PersonalFolderStore {
  /** The folder name the account claimed. */
  folderOf(userId: string): string | undefined;
  /** Is the name claimed by any account (or a deleted one)? */
  taken(name: string): boolean;
  claim(userId: string, name: string, at: string): void;
  /** Every claimed name. */
  all(): string[];
}

export function createPersonalFolderStore(db: Database): PersonalFolderStore {
  return {
    folderOf: (userId) =>
      db.get<{ folder: string }>('SELECT folder FROM personal_folders WHERE user_id = ?', [userId])?.folder,
    taken: (name) => Boolean(db.get('SELECT 1 AS x FROM personal_folders WHERE folder = ?', [name])),
    claim(userId, name, at) {
      db.run('INSERT INTO personal_folders (user_id, folder, created_at) VALUES (?, ?, ?)', [userId, name, at]);
    },
    all: () => db.all<{ folder: string }>('SELECT folder FROM personal_folders').map((r) => r.folder),
  };
}
