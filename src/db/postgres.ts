// PostgreSQL behind Database's synchronous interface (DATABASE_URL=postgres://…). A worker
// thread (pg.worker.ts) owns one node-postgres connection; each call posts its statement there
// and blocks on Atomics.wait over a shared flag until the answer is posted back, then reads it
// with receiveMessageOnPort (the technique of synckit, written here in a few lines so the
// worker is bundled into the executable like every other `*.worker.ts`). The stores keep
// their synchronous calls and transactions; one connection serves the instance, in order.
//
// The cost per statement (README, "PostgreSQL instead of the embedded database"): a round trip
// to the server plus the hop between threads, milliseconds on busy cores where the embedded
// SQLite answers a lookup in tens of µs; the embedded default does not go through here.
import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { startWorker } from '../workers.ts';
import { DatabaseUnavailableError, type Database, type Params, type SqlValue } from './database.ts';
import { toPostgres } from './dialect.ts';
import type { PgReply, PgRequest } from './pg.worker.ts';

/** An error PostgreSQL answered (a constraint, a syntax error): `code` is its SQLSTATE. */
export class PostgresError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code: string | undefined) {
    super(message);
    this.code = code;
  }
}

export interface PostgresOptions {
  /** Longest a statement may run on the server (ms). */
  statementTimeoutMs?: number;
  /** Longest the caller waits for an answer before it calls the database unreachable (ms). */
  waitMs?: number;
}

/** The address with its password hidden (for logs and messages). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}

export function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//i.test(url);
}

function toValues(params: Params): SqlValue[] {
  if (params === undefined) return [];
  if (Array.isArray(params)) return params.map((v) => (v === undefined ? null : v));
  if (params !== null && typeof params === 'object' && !(params instanceof Uint8Array))
    throw new Error('named parameters are not supported with PostgreSQL');
  return [params as SqlValue];
}

export class PostgresDatabase implements Database {
  readonly file: string;
  readonly dialect = 'postgres' as const;
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly waitMs: number;
  private nextId = 1;
  private txDepth = 0;
  private open = true;

  constructor(url: string, options: PostgresOptions = {}) {
    this.file = redactUrl(url);
    this.waitMs = options.waitMs ?? 60_000;
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = startWorker('db/pg.worker.ts', {
      workerData: {
        url,
        flag: this.flag.buffer,
        port: port2,
        statementTimeoutMs: options.statementTimeoutMs ?? 30_000,
      },
      transferList: [port2],
    });
    // The thread must not keep the process alive on its own (close() ends it).
    this.worker.unref();
    this.port.unref();
  }

  /** Posts one request and sleeps until its answer (or the wait runs out). */
  private call(
    op: PgRequest['op'],
    sql: string,
    params?: SqlValue[],
  ): { rows: Record<string, unknown>[]; changes: number } {
    if (!this.open) throw new Error('the database is closed');
    const id = this.nextId++;
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage({ id, op, sql, params } satisfies PgRequest);
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0 || Atomics.wait(this.flag, 0, 0, left) === 'timed-out') {
        throw new DatabaseUnavailableError(`PostgreSQL did not answer within ${Math.round(this.waitMs / 1000)} s`);
      }
      Atomics.store(this.flag, 0, 0);
      let msg: { message: PgReply } | undefined;
      while ((msg = receiveMessageOnPort(this.port) as { message: PgReply } | undefined)) {
        const reply = msg.message;
        if (reply.id !== id) continue; // an answer to a call that gave up waiting
        if (reply.ok) return reply;
        if (reply.lost) {
          this.txDepth = 0;
          throw new DatabaseUnavailableError(`PostgreSQL cannot be reached: ${reply.message}`);
        }
        throw new PostgresError(reply.message, reply.code);
      }
    }
  }

  all<T = Record<string, SqlValue>>(sql: string, params?: Params): T[] {
    return this.call('query', toPostgres(sql), toValues(params)).rows as T[];
  }

  get<T = Record<string, SqlValue>>(sql: string, params?: Params): T | undefined {
    return this.all<T>(sql, params)[0];
  }

  run(sql: string, params?: Params): { changes: number; lastInsertRowid: number } {
    // No rowid: a store that needs the new row's id asks for it with RETURNING (both engines).
    return { changes: this.call('query', toPostgres(sql), toValues(params)).changes, lastInsertRowid: 0 };
  }

  /** Rows of a large scan, fetched whole (one answer) then handed out one by one. */
  *iterate<T = Record<string, SqlValue>>(sql: string, params?: Params): IterableIterator<T> {
    yield* this.all<T>(sql, params);
  }

  exec(sql: string): void {
    this.call('exec', toPostgres(sql));
  }

  /** BEGIN … COMMIT on the one connection (nested calls join the outer one through savepoints). */
  transaction<T>(fn: () => T): T {
    const savepoint = `sp${this.txDepth}`;
    this.exec(this.txDepth === 0 ? 'BEGIN' : `SAVEPOINT ${savepoint}`);
    this.txDepth++;
    try {
      const result = fn();
      if (result instanceof Promise) throw new Error('transaction bodies must be synchronous');
      this.txDepth--;
      this.exec(this.txDepth === 0 ? 'COMMIT' : `RELEASE SAVEPOINT ${savepoint}`);
      return result;
    } catch (err) {
      if (this.txDepth > 0) {
        this.txDepth--;
        try {
          this.exec(
            this.txDepth === 0 ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}`,
          );
        } catch {
          /* the connection is gone: the server rolled the transaction back */
        }
      }
      throw err;
    }
  }

  attach(): void {
    throw new Error('the index stays in its own SQLite file: it is not attached to PostgreSQL');
  }

  detach(): void {
    throw new Error('nothing is attached to PostgreSQL');
  }

  get isOpen(): boolean {
    return this.open;
  }

  reachable(): boolean {
    if (!this.open) return false;
    try {
      this.call('query', 'SELECT 1');
      return true;
    } catch (err) {
      if (err instanceof DatabaseUnavailableError) return false;
      throw err;
    }
  }

  close(): void {
    if (!this.open) return;
    try {
      this.waitFor('end');
    } catch {
      /* already gone */
    }
    this.open = false;
    void this.worker.terminate();
  }

  private waitFor(op: 'end'): void {
    this.call(op, '');
  }
}
