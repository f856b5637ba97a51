// The embedded database: one node-sqlite3-wasm connection in the server process, synchronous
// calls, short transactions. node-sqlite3-wasm locks with a `<db>.lock` directory that a crash
// leaves behind, so Burrow holds its own instance lock (instance-lock.ts) and clears a stale
// SQLite lock only once it knows no other Burrow runs on the folder.
//
// Journal: WAL with synchronous=NORMAL. node-sqlite3-wasm's file layer has no shared memory,
// which WAL needs only between connections: with locking_mode=EXCLUSIVE set before the first
// read, SQLite keeps the WAL index in the process's memory and never asks for `-shm`. A commit
// is then one append to `<db>-wal` without an fsync (fsync at checkpoints only): measured on one
// disk, a one-row transaction took 4.5–15 ms with the rollback journal (DELETE, NORMAL), 3.6–5.9
// ms in WAL with FULL and 0.02–1 ms in WAL with NORMAL. A killed process loses nothing committed
// (the WAL is in the kernel's cache and is replayed at the next open); a power cut can lose the
// last commits, never the file's consistency. The committed state is the database file plus its
// `-wal` (written back at each checkpoint and at a clean close, which deletes the WAL): whatever
// moves, copies or removes the database takes both (WAL_SIDE_FILES).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { wasmBaselineOnly } from './wasm-tier.ts';
import { AppError } from '../core/errors.ts';

export type SqlValue = string | number | bigint | boolean | null | Uint8Array;
export type Params = SqlValue[] | Record<string, SqlValue> | SqlValue | undefined;

interface WasmStatement {
  run(values?: Params): { changes: number; lastInsertRowid: number | bigint };
  all(values?: Params): Record<string, SqlValue>[];
  get(values?: Params): Record<string, SqlValue> | null;
  iterate(values?: Params): IterableIterator<Record<string, SqlValue>>;
  finalize(): void;
  readonly isFinalized: boolean;
  /** The library's own sqlite3_reset + clear_bindings (get() leaves the statement on its row). */
  _reset(): boolean;
}

interface WasmDatabase {
  exec(sql: string): void;
  run(sql: string, values?: Params): { changes: number; lastInsertRowid: number | bigint };
  all(sql: string, values?: Params): Record<string, SqlValue>[];
  get(sql: string, values?: Params): Record<string, SqlValue> | null;
  prepare(sql: string): WasmStatement;
  close(): void;
  readonly inTransaction: boolean;
  readonly isOpen: boolean;
  function(name: string, fn: (...args: any[]) => unknown, opts?: { deterministic?: boolean }): void;
}

type WasmModule = { Database: new (file: string, opts?: { fileMustExist?: boolean }) => WasmDatabase };

let wasmModule: WasmModule | undefined;
function sqlite(): WasmModule {
  // Loaded on first use; the bundle for the executable feeds the .wasm bytes from an asset.
  // Requiring it compiles the WebAssembly: the compiler tier is chosen first.
  if (!wasmModule) wasmBaselineOnly();
  wasmModule ??= createRequire(import.meta.url)('node-sqlite3-wasm') as WasmModule;
  return wasmModule;
}

/**
 * What every store is written against: synchronous calls, short transactions. Two engines
 * implement it: the embedded SQLite file (the default, below) and PostgreSQL (postgres.ts,
 * DATABASE_URL), whose statements are the stores' own, translated where the dialects differ.
 */
export interface Database {
  /** The SQLite file, or the PostgreSQL address without its password. */
  readonly file: string;
  readonly dialect: 'sqlite' | 'postgres';
  all<T = Record<string, SqlValue>>(sql: string, params?: Params): T[];
  get<T = Record<string, SqlValue>>(sql: string, params?: Params): T | undefined;
  run(sql: string, params?: Params): { changes: number; lastInsertRowid: number };
  iterate<T = Record<string, SqlValue>>(sql: string, params?: Params): IterableIterator<T>;
  exec(sql: string): void;
  transaction<T>(fn: () => T): T;
  attach(file: string, schema: string): void;
  detach(schema: string): void;
  readonly isOpen: boolean;
  /** Whether a statement can run now (PostgreSQL: one round trip; the embedded file: open). */
  reachable(): boolean;
  close(): void;
}

/** Seconds a client is told to wait (Retry-After) while the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The database cannot be reached now (PostgreSQL down or restarting): the request answers 503
 * DATABASE_UNAVAILABLE with Retry-After, and the next statement connects again.
 */
export class DatabaseUnavailableError extends AppError<'DATABASE_UNAVAILABLE'> {
  constructor(reason: string) {
    super('DATABASE_UNAVAILABLE', undefined, {
      headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
      cause: new Error(reason),
    });
  }
}

/** A UNIQUE or PRIMARY KEY constraint refused the statement, in either engine. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === '23505' || /UNIQUE constraint failed/i.test(String(e?.message ?? ''));
}

/**
 * The files beside a SQLite database that belong to it: the WAL holds committed transactions not
 * yet written back (a copy without it misses them; a stale one put beside another copy of the
 * database is replayed onto it), `-shm` is what another SQLite program makes when it opens the
 * file, `-journal` the rollback journal of an older build.
 */
export const WAL_SIDE_FILES = ['-wal', '-shm', '-journal'] as const;

/** The bytes the WAL is cut back to after a checkpoint (it is reused from its start, not grown). */
const WAL_SIZE_LIMIT = 8 * 1024 * 1024;

/** Removes a SQLite database file and everything that belongs to it (WAL, shared memory, journal, lock). */
export function removeDatabaseFiles(file: string): void {
  for (const f of [file, ...WAL_SIDE_FILES.map((s) => file + s)]) fs.rmSync(f, { force: true });
  fs.rmSync(`${file}.lock`, { recursive: true, force: true });
}

/** The embedded database (the default): one node-sqlite3-wasm connection in this process. */
export class SqliteDatabase implements Database {
  readonly file: string;
  readonly dialect = 'sqlite' as const;
  private readonly db: WasmDatabase;
  private readonly statements = new Map<string, WasmStatement>();
  private txDepth = 0;

  constructor(file: string) {
    this.file = file;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.db = new (sqlite().Database)(file);
    // One process owns the file (instance lock), so keep SQLite's lock for the whole run
    // instead of a mkdir/rmdir pair around every statement; it must come before the first read
    // for WAL to work without shared memory (see the top of this file).
    this.db.exec(
      `PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL; PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16000;`,
    );
  }

  /** A cached prepared statement (finalized at close). */
  private statement(sql: string): WasmStatement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * Runs a cached statement. A statement whose step failed (e.g. a UNIQUE violation) keeps the
   * error: its next reset and its finalize report it again. So it leaves the cache at once and
   * is finalized here, its repeated error swallowed, and the next call prepares a fresh one.
   */
  private use<T>(sql: string, fn: (stmt: WasmStatement) => T): T {
    const stmt = this.statement(sql);
    try {
      return fn(stmt);
    } catch (err) {
      this.statements.delete(sql);
      try {
        if (!stmt.isFinalized) stmt.finalize();
      } catch {
        /* the same error again */
      }
      throw err;
    }
  }

  all<T = Record<string, SqlValue>>(sql: string, params?: Params): T[] {
    return this.use(sql, (stmt) => stmt.all(params) as T[]);
  }

  get<T = Record<string, SqlValue>>(sql: string, params?: Params): T | undefined {
    // The library's get() steps once and leaves the statement open on that row: a later VACUUM
    // INTO (the snapshot before a migration) then failed with "SQL statements in progress".
    return this.use(sql, (stmt) => {
      const row = stmt.get(params);
      stmt._reset();
      return (row ?? undefined) as T | undefined;
    });
  }

  run(sql: string, params?: Params): { changes: number; lastInsertRowid: number } {
    const info = this.use(sql, (stmt) => stmt.run(params));
    return { changes: info.changes, lastInsertRowid: Number(info.lastInsertRowid) };
  }

  /** Iterates rows without building an array (large scans). Finish the loop before other calls on the same SQL. */
  *iterate<T = Record<string, SqlValue>>(sql: string, params?: Params): IterableIterator<T> {
    const stmt = this.db.prepare(sql);
    try {
      yield* stmt.iterate(params) as IterableIterator<T>;
    } finally {
      stmt.finalize();
    }
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  /** Runs fn in a transaction (nested calls join the outer one through savepoints). */
  transaction<T>(fn: () => T): T {
    const savepoint = `sp${this.txDepth}`;
    this.db.exec(this.txDepth === 0 ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${savepoint}`);
    this.txDepth++;
    try {
      const result = fn();
      if (result instanceof Promise) throw new Error('transaction bodies must be synchronous');
      this.txDepth--;
      this.db.exec(this.txDepth === 0 ? 'COMMIT' : `RELEASE ${savepoint}`);
      return result;
    } catch (err) {
      this.txDepth--;
      this.db.exec(this.txDepth === 0 ? 'ROLLBACK' : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
      throw err;
    }
  }

  /**
   * Attaches another database file to the one connection as `schema` (a rebuildable index
   * with its own durability settings). Statements name its tables unqualified or `schema.table`.
   */
  attach(file: string, schema: string): void {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.db.run(`ATTACH DATABASE ? AS ${schema}`, [file]);
  }

  /** Detaches a schema attached with attach() (its cached statements are dropped first). */
  detach(schema: string): void {
    for (const stmt of this.statements.values()) if (!stmt.isFinalized) stmt.finalize();
    this.statements.clear();
    this.db.exec(`DETACH DATABASE ${schema}`);
  }

  /** Registers a scalar SQL function (e.g. for byte-exact prefix tests). */
  fn(name: string, impl: (...args: any[]) => unknown, deterministic = true): void {
    this.db.function(name, impl, { deterministic });
  }

  get isOpen(): boolean {
    return this.db.isOpen;
  }

  reachable(): boolean {
    return this.db.isOpen;
  }

  close(): void {
    if (!this.db.isOpen) return;
    for (const stmt of this.statements.values()) if (!stmt.isFinalized) stmt.finalize();
    this.statements.clear();
    this.db.close();
  }
}

/** `new Database(file)` opens the embedded SQLite file. */
export const Database = SqliteDatabase;
