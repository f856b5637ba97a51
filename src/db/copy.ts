// `burrow db copy`: an installation's data from its embedded SQLite file into an empty
// PostgreSQL database (DATABASE_URL). The SQLite file is only read: a consistent copy of it
// (VACUUM INTO, beside it) is brought to this release's migrations and read, then removed.
// On PostgreSQL the migrations and every store's rows go in in one transaction, and each
// table's row count is compared before it commits: a failure leaves the target empty.
// The search and folder-size index (CACHE_DIR/index.db) is not copied: it stays a SQLite file
// of each instance and is rebuilt from the volumes.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Database, type SqlValue } from './database.ts';
import { acquireInstanceLock } from './instance-lock.ts';
import { loadMigrations, runMigrations } from './migrations.ts';
import { PostgresDatabase, redactUrl } from './postgres.ts';

export class CopyError extends Error {}

export interface CopyOptions {
  /** CONFIG_DIR: burrow.db and the instance lock are there. */
  configDir: string;
  /** The target, postgres://… */
  url: string;
  release: string;
  /** A line of progress. */
  say?: (line: string) => void;
}

export interface CopiedTable {
  table: string;
  rows: number;
}

export interface CopyResult {
  source: string;
  target: string;
  tables: CopiedTable[];
  rows: number;
}

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters for the widest table. */
const BATCH_PARAMS = 20_000;
/** Tables the migrations themselves fill on the target. */
const OWN_TABLES = new Set(['schema_migrations', 'burrow_meta']);

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Tables in order: a table after every table its foreign keys name. */
function dependencyOrder(db: Database, tables: readonly string[]): string[] {
  const parents = new Map<string, string[]>();
  for (const t of tables) {
    const refs = db
      .all<{ table: string }>(`PRAGMA foreign_key_list(${quote(t)})`)
      .map((r) => r.table)
      .filter((p) => p !== t && tables.includes(p));
    parents.set(t, refs);
  }
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (t: string, path: string[]) => {
    if (seen.has(t)) return;
    if (path.includes(t))
      throw new CopyError(`the tables ${path.join(' → ')} name each other: no order to copy them in`);
    for (const p of parents.get(t) ?? []) visit(p, [...path, t]);
    seen.add(t);
    out.push(t);
  };
  for (const t of [...tables].sort()) visit(t, []);
  return out;
}

/** The target's tables (an empty database has none). */
function targetTables(pg: Database): string[] {
  return pg
    .all<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
    )
    .map((r) => r.name);
}

function columnsOf(pg: Database, table: string): { names: Set<string>; identity: string[] } {
  const cols = pg.all<{ name: string; identity: string; def: string | null }>(
    'SELECT column_name AS name, is_identity AS identity, column_default AS def FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?',
    [table],
  );
  return {
    names: new Set(cols.map((c) => c.name)),
    identity: cols.filter((c) => c.identity === 'YES' || /^nextval\(/.test(c.def ?? '')).map((c) => c.name),
  };
}

function count(db: Database, table: string): number {
  return Number(db.get<{ n: number }>(`SELECT count(*) AS n FROM ${quote(table)}`)!.n);
}

export function copyToPostgres(options: CopyOptions): CopyResult {
  const say = options.say ?? (() => {});
  const source = path.join(options.configDir, 'burrow.db');
  const target = redactUrl(options.url);
  if (!fs.existsSync(source))
    throw new CopyError(`there is no embedded database at ${source} (CONFIG_DIR or --config names the folder)`);
  // No Burrow may write the file meanwhile: the same lock a server takes.
  const lock = acquireInstanceLock(options.configDir, source);
  const snapshot = path.join(options.configDir, `.burrow-copy-${randomBytes(6).toString('hex')}.db`);
  let pg: PostgresDatabase | undefined;
  try {
    pg = new PostgresDatabase(options.url);
    const existing = targetTables(pg);
    if (existing.length)
      throw new CopyError(
        `${target} is not empty: it has ${existing.length} table(s) (${existing.slice(0, 5).join(', ')}${existing.length > 5 ? ', …' : ''}). db copy fills an empty database only, so nothing is overwritten; nothing was changed. Give it a new database (createdb, or CREATE DATABASE) or empty this one first.`,
      );
    // The file is only read: its copy is brought to this release's tables.
    const original = new Database(source);
    try {
      original.run('VACUUM INTO ?', [snapshot]);
    } finally {
      original.close();
    }
    const sqlite = new Database(snapshot);
    try {
      const migrations = loadMigrations();
      const brought = runMigrations(sqlite, migrations);
      if (brought.length) say(`The copy of ${source} was brought to this release (${brought.length} migration(s)).`);
      const tables = dependencyOrder(
        sqlite,
        sqlite
          .all<{ name: string }>(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
          )
          .map((r) => r.name)
          .filter((t) => !OWN_TABLES.has(t)),
      );
      const copied: CopiedTable[] = [];
      pg.transaction(() => {
        runMigrations(pg!, migrations, { release: options.release });
        const onTarget = new Set(targetTables(pg!));
        for (const table of tables) {
          if (!onTarget.has(table))
            throw new CopyError(`the table ${table} has no counterpart in PostgreSQL: nothing was copied`);
          const { names, identity } = columnsOf(pg!, table);
          const columns = sqlite
            .all<{ name: string }>(`PRAGMA table_info(${quote(table)})`)
            .map((c) => c.name)
            .filter((c) => names.has(c));
          const batch = Math.max(1, Math.floor(BATCH_PARAMS / columns.length));
          const insert = (rows: Record<string, SqlValue>[]) => {
            const values = rows.map(
              (_, i) => `(${columns.map((__, j) => `?${i * columns.length + j + 1}`).join(', ')})`,
            );
            pg!.run(
              `INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')}) VALUES ${values.join(', ')}`,
              rows.flatMap((r) => columns.map((c) => r[c] ?? null)),
            );
          };
          let pending: Record<string, SqlValue>[] = [];
          // rowid order: the order the rows were made in.
          for (const row of sqlite.iterate<Record<string, SqlValue>>(
            `SELECT ${columns.map(quote).join(', ')} FROM ${quote(table)} ORDER BY rowid`,
          )) {
            pending.push(row);
            if (pending.length >= batch) {
              insert(pending);
              pending = [];
            }
          }
          if (pending.length) insert(pending);
          // Identity columns go on after the highest id copied.
          for (const col of identity)
            pg!.get(
              `SELECT setval(pg_get_serial_sequence(?, ?), GREATEST(COALESCE(max(${quote(col)}), 0), 1), max(${quote(col)}) IS NOT NULL) AS v FROM ${quote(table)}`,
              [quote(table), col],
            );
          const from = count(sqlite, table);
          const to = count(pg!, table);
          if (from !== to)
            throw new CopyError(`${table}: ${from} row(s) in SQLite but ${to} in PostgreSQL; nothing was copied`);
          copied.push({ table, rows: to });
        }
      });
      const rows = copied.reduce((n, t) => n + t.rows, 0);
      return { source, target, tables: copied, rows };
    } finally {
      sqlite.close();
    }
  } finally {
    pg?.close();
    fs.rmSync(snapshot, { force: true });
    fs.rmSync(`${snapshot}.lock`, { recursive: true, force: true });
    lock.release();
  }
}
