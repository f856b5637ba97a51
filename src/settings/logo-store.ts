// The uploaded logos' rows (002_logos.sql): a content-hash name and the image's bytes.
import type { Database } from '../db/database.ts';

export interface LogoRowStore {
  /** The bytes stored under `name`, or null. */
  bytes(name: string): Buffer | null;
  /** Stores `bytes` under `name`; the same name again keeps the first (it names the same bytes). */
  put(name: string, bytes: Uint8Array, at: string): void;
  /** Removes every logo but those named. */
  keepOnly(names: readonly string[]): void;
}

export function createLogoStore(db: Database): LogoRowStore {
  return {
    bytes(name) {
      const row = db.get<{ bytes: Uint8Array }>('SELECT bytes FROM branding_logos WHERE name = ?', [name]);
      return row ? Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength) : null;
    },
    put: (name, bytes, at) =>
      void db.run('INSERT INTO branding_logos (name, bytes, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [
        name,
        bytes,
        at,
      ]),
    keepOnly(names) {
      if (!names.length) return void db.run('DELETE FROM branding_logos');
      db.run(`DELETE FROM branding_logos WHERE name NOT IN (${names.map(() => '?').join(', ')})`, [...names]);
    },
  };
}
