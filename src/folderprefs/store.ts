// Per-folder view and sort preferences of an account (`folder_prefs`, a binding: forgotten when
// the folder is deleted, carried when it is renamed or moved — see files/bindings.ts).
import type { Database } from '../db/database.ts';
import { pathTable } from '../files/bindings-store.ts';
import type { BindingTable } from '../files/bindings.ts';
import { folderPrefs, type FolderPrefs, type FolderPrefsAnswer } from './wire.ts';

const DEFAULTS: FolderPrefs = { view: 'list', sortBy: 'name', sortDir: 'asc' };

export interface FolderPrefStore {
  /** The defaults with `saved: false` when the account never chose for this folder. */
  read(userId: string, folder: string): FolderPrefsAnswer;
  write(userId: string, folder: string, prefs: FolderPrefs): void;
  forget(userId: string, folder: string): void;
}

export function createFolderPrefStore(db: Database): FolderPrefStore {
  return {
    read(userId, folder) {
      const row = db.get<{ prefs: string; updated_at: string }>(
        'SELECT prefs, updated_at FROM folder_prefs WHERE user_id = ? AND path = ?',
        [userId, folder],
      );
      let stored: Partial<FolderPrefs> = {};
      if (row) {
        // A row written by an older release may miss keys or hold values no longer offered.
        try {
          stored = folderPrefs.partial().catch({}).parse(JSON.parse(row.prefs));
        } catch {
          stored = {};
        }
      }
      return { path: folder, ...DEFAULTS, ...stored, saved: Boolean(row), updatedAt: row?.updated_at ?? null };
    },
    write: (userId, folder, prefs) =>
      void db.run(
        'INSERT INTO folder_prefs (user_id, path, prefs, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (user_id, path) DO UPDATE SET prefs = excluded.prefs, updated_at = excluded.updated_at',
        [userId, folder, JSON.stringify(prefs), new Date().toISOString()],
      ),
    forget: (userId, folder) =>
      void db.run('DELETE FROM folder_prefs WHERE user_id = ? AND path = ?', [userId, folder]),
  };
}

/** A folder's preferences follow it (files/bindings.ts). */
export const folderPrefBindings = (db: Database): BindingTable => pathTable(db, 'folder_prefs');
