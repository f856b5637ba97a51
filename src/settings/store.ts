// The installation's settings (`settings`: one JSON document per section) and each account's
// preferences (`user_prefs`: one JSON document per account). The service parses and merges the
// documents; this store only reads and writes their text.
import type { Database } from '../db/database.ts';

export interface SettingsStore {
  /** The stored text of a section, or undefined when it was never written. */
  section(key: string): string | undefined;
  writeSection(key: string, value: string): void;
  /** The stored text of an account's preferences, or undefined. */
  prefs(userId: string): string | undefined;
  /**
   * Reads an account's preferences, hands them to `change` and writes what it answers, in one
   * transaction (a throw in `change` writes nothing).
   */
  changePrefs<T>(userId: string, change: (stored: string | undefined) => { text: string; result: T }): T;
  forgetPrefs(userId: string): void;
}

export function createSettingsStore(db: Database): SettingsStore {
  const prefs = (userId: string) =>
    db.get<{ prefs: string }>('SELECT prefs FROM user_prefs WHERE user_id = ?', [userId])?.prefs;
  return {
    section: (key) => db.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [key])?.value,
    writeSection(key, value) {
      db.run(
        'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
        [key, value, new Date().toISOString()],
      );
    },
    prefs,
    changePrefs: (userId, change) =>
      db.transaction(() => {
        const { text, result } = change(prefs(userId));
        db.run(
          'INSERT INTO user_prefs (user_id, prefs, updated_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET prefs = excluded.prefs, updated_at = excluded.updated_at',
          [userId, text, new Date().toISOString()],
        );
        return result;
      }),
    forgetPrefs: (userId) => void db.run('DELETE FROM user_prefs WHERE user_id = ?', [userId]),
  };
}
