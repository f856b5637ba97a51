// What a database file says about the Burrow that wrote it, read without changing it (the
// doctor uses this when no server holds the file).
import { Database } from './database.ts';
import { loadMigrations } from './migrations.ts';

export interface DatabaseRelease {
  /** The release recorded by the last Burrow that migrated or opened it. */
  release: string | null;
  /** Migrations in the file that this build does not know (a newer Burrow wrote it). */
  unknown: string[];
  newer: boolean;
  /** Migrations of this build the file does not have yet. */
  pending: number;
  hostVolumes: { label: string; path: string }[];
}

const has = (db: Database, table: string) =>
  Boolean(db.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?", [table]));

export function readDatabaseRelease(file: string): DatabaseRelease {
  const db = new Database(file);
  try {
    const applied = has(db, 'schema_migrations')
      ? db.all<{ id: string }>('SELECT id FROM schema_migrations').map((r) => r.id)
      : [];
    const known = loadMigrations().map((m) => m.id);
    const unknown = applied.filter((id) => !known.includes(id));
    const release = has(db, 'burrow_meta')
      ? (db.get<{ value: string }>("SELECT value FROM burrow_meta WHERE key = 'release'")?.value ?? null)
      : null;
    const hostVolumes = has(db, 'host_volumes')
      ? db.all<{ label: string; path: string }>('SELECT label, path FROM host_volumes ORDER BY label')
      : [];
    return {
      release,
      unknown,
      newer: unknown.length > 0,
      pending: known.filter((id) => !applied.includes(id)).length,
      hostVolumes,
    };
  } finally {
    db.close();
  }
}
