// Numbered migrations. Each capability keeps its own SQL beside its code
// (`src/<capability>/NNN_name.sql`); they run in number order (then capability name) at
// startup, all pending ones in one transaction: a failing migration changes nothing and
// stops startup with a message naming it.
import fs from 'node:fs';
import path from 'node:path';
import { readEmbeddedAsset } from '../assets.ts';
import type { Database } from './database.ts';
import { ddlToPostgres } from './dialect.ts';

export interface Migration {
  /** `<capability>/<NNN_name>`, e.g. `auth/001_users`. */
  readonly id: string;
  readonly sql: string;
  /** The PostgreSQL twin (`NNN_name.pg.sql` beside it) where the DDL has no common form. */
  readonly pgSql?: string;
}

export class MigrationError extends Error {}

const FILE = /^(\d{3})_[A-Za-z0-9_-]+\.sql$/;
const PG_TWIN = '.pg.sql';

/** Code-unit order: ids are ASCII, and localeCompare would load ICU's collation data at every start (~2 MB resident). */
const byCode = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function order(a: Migration, b: Migration): number {
  const [ca, na] = a.id.split('/') as [string, string];
  const [cb, nb] = b.id.split('/') as [string, string];
  return byCode(na.slice(0, 3), nb.slice(0, 3)) || byCode(ca, cb) || byCode(na, nb);
}

/**
 * Reads every `src/<capability>/NNN_name.sql` and `src/plugins/<plugin>/NNN_name.sql` below
 * `srcDir`. A plugin's tables exist whether or not it is configured, so turning it on later
 * needs no separate migration step (id `<plugin>/NNN_name`).
 */
export function collectMigrations(srcDir: string): Migration[] {
  const out: Migration[] = [];
  const plugins = path.join(srcDir, 'plugins');
  const folders = fs
    .readdirSync(srcDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'plugins')
    .map((e) => ({ name: e.name, dir: path.join(srcDir, e.name) }));
  if (fs.existsSync(plugins)) {
    for (const e of fs.readdirSync(plugins, { withFileTypes: true }))
      if (e.isDirectory()) folders.push({ name: e.name, dir: path.join(plugins, e.name) });
  }
  for (const entry of folders) {
    const dir = entry.dir;
    const files = fs.readdirSync(dir);
    for (const file of files) {
      if (!FILE.test(file)) continue;
      const twin = `${file.slice(0, -4)}${PG_TWIN}`;
      out.push({
        id: `${entry.name}/${file.slice(0, -4)}`,
        sql: fs.readFileSync(path.join(dir, file), 'utf8'),
        ...(files.includes(twin) ? { pgSql: fs.readFileSync(path.join(dir, twin), 'utf8') } : {}),
      });
    }
  }
  return out.sort(order);
}

/** The migrations of this build: embedded in the executable, or read from the source tree. */
export function loadMigrations(): Migration[] {
  const embedded = readEmbeddedAsset('migrations.json');
  if (embedded) return (JSON.parse(embedded.toString('utf8')) as Migration[]).sort(order);
  return collectMigrations(path.join(path.dirname(new URL(import.meta.url).pathname), '..'));
}

/** A database that has migrations this build does not know: written by a newer Burrow. */
export class NewerDatabaseError extends MigrationError {}

export interface MigrateOptions {
  /** Where a snapshot is kept before pending migrations run on an existing database (CONFIG_DIR/backups). */
  backupDir?: string;
  /** The release that writes the database (recorded in burrow_meta). */
  release?: string;
  /** Snapshots kept (the oldest go first). */
  keepBackups?: number;
}

function meta(db: Database, key: string): string | undefined {
  return db.get<{ value: string }>('SELECT value FROM burrow_meta WHERE key = ?', [key])?.value;
}

/**
 * A consistent copy of the database before it is changed: VACUUM INTO (node-sqlite3-wasm has
 * no backup API; VACUUM INTO reads one transaction's view), written under a temporary name and
 * renamed, so a crash leaves no half-written backup. Returns the file.
 */
export function snapshotDatabase(db: Database, backupDir: string, label: string, keep = 5): string {
  fs.mkdirSync(backupDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  const file = path.join(backupDir, `burrow-${label.replace(/[^\w.+-]/g, '_')}-${stamp}.db`);
  const temp = `${file}.partial`;
  fs.rmSync(temp, { force: true });
  db.run('VACUUM INTO ?', [temp]);
  fs.renameSync(temp, file);
  const old = fs
    .readdirSync(backupDir)
    .filter((f) => /^burrow-.*\.db$/.test(f))
    .map((f) => ({ f, t: fs.statSync(path.join(backupDir, f)).mtimeMs }))
    .sort((a, b) => b.t - a.t || byCode(b.f, a.f));
  for (const { f } of old.slice(Math.max(1, keep))) fs.rmSync(path.join(backupDir, f), { force: true });
  return file;
}

/** The statements of a migration for this database's engine. */
export function migrationSql(db: Database, m: Migration): string {
  if (db.dialect === 'sqlite') return m.sql;
  return m.pgSql ?? ddlToPostgres(m.sql);
}

/**
 * What PostgreSQL needs before the first migration: SQLite's NOCASE as a collation (ICU,
 * case-insensitive: the same UNIQUE and = for names), and instr() for the stores' substring
 * tests. Run under the migration lock.
 */
const PG_PRELUDE = `
CREATE COLLATION IF NOT EXISTS nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE OR REPLACE FUNCTION instr(haystack TEXT, needle TEXT) RETURNS INTEGER
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT strpos(haystack, needle)';
`;

/** A key for pg_advisory_lock: the instances of one installation migrate one at a time. */
const MIGRATION_LOCK = 0x6275_7277; // 'burw'

export function runMigrations(db: Database, migrations: readonly Migration[], options: MigrateOptions = {}): string[] {
  if (db.dialect === 'sqlite') return migrate(db, migrations, options);
  // Several instances may start together: whichever gets the lock migrates, the others wait
  // for it and then find nothing pending. Snapshots are SQLite's; PostgreSQL has its own tools.
  db.get('SELECT pg_advisory_lock(?) AS locked', [MIGRATION_LOCK]);
  try {
    db.exec(PG_PRELUDE);
    const { backupDir: _none, ...rest } = options;
    return migrate(db, migrations, rest);
  } finally {
    try {
      db.get('SELECT pg_advisory_unlock(?) AS unlocked', [MIGRATION_LOCK]);
    } catch {
      /* the connection is gone, and the lock with it */
    }
  }
}

function migrate(db: Database, migrations: readonly Migration[], options: MigrateOptions): string[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
  db.exec('CREATE TABLE IF NOT EXISTS burrow_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  const applied = new Set(db.all<{ id: string }>('SELECT id FROM schema_migrations').map((r) => r.id));
  const known = new Set(migrations.map((m) => m.id));
  const unknown = [...applied].filter((id) => !known.has(id)).sort();
  if (unknown.length) {
    // Never alter what a newer release wrote: its tables may mean things this one does not know.
    const by = meta(db, 'release');
    throw new NewerDatabaseError(
      `The database ${db.file} was written by a newer Burrow${by ? ` (${by})` : ''}${options.release ? ` than this one (${options.release})` : ''}: it has changes this release does not know (${unknown.slice(0, 3).join(', ')}${unknown.length > 3 ? ', …' : ''}). Nothing was changed. Run that release or a newer one, or start this one on a backup from ${options.backupDir ?? 'CONFIG_DIR/backups'}.`,
    );
  }
  const pending = [...migrations].sort(order).filter((m) => !applied.has(m.id));
  const record = () => {
    if (options.release && meta(db, 'release') !== options.release) {
      db.run(
        "INSERT INTO burrow_meta (key, value) VALUES ('release', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [options.release],
      );
    }
  };
  if (pending.length === 0) {
    record();
    return [];
  }
  if (applied.size > 0 && options.backupDir) {
    try {
      snapshotDatabase(db, options.backupDir, meta(db, 'release') ?? 'before-release-record', options.keepBackups);
    } catch (err) {
      throw new MigrationError(
        `Could not back up the database before migrating it, nothing was changed: ${(err as Error).message}`,
      );
    }
  }
  let current = '';
  try {
    db.transaction(() => {
      for (const m of pending) {
        current = m.id;
        db.exec(migrationSql(db, m));
        db.run('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)', [m.id, new Date().toISOString()]);
      }
      record();
    });
  } catch (err) {
    throw new MigrationError(`Database migration ${current} failed, nothing was changed: ${(err as Error).message}`);
  }
  return pending.map((m) => m.id);
}
