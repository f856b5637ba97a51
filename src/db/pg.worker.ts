// The thread that owns the PostgreSQL connection (postgres.ts is the other half). The main
// thread posts one request on `port`, then sleeps on Atomics.wait over `flag`; this thread runs
// it with node-postgres, posts the answer and wakes the main thread. So the stores keep
// Database's synchronous calls while the connection does its I/O here.
import { workerData, type MessagePort } from 'node:worker_threads';
import pg from 'pg';

export interface PgRequest {
  readonly id: number;
  /** query: one statement with parameters; exec: statements without parameters (simple protocol). */
  readonly op: 'query' | 'exec' | 'end';
  readonly sql: string;
  readonly params?: readonly unknown[];
}

export type PgReply =
  | { readonly id: number; readonly ok: true; readonly rows: Record<string, unknown>[]; readonly changes: number }
  | {
      readonly id: number;
      readonly ok: false;
      readonly message: string;
      /** SQLSTATE, or Node's error code (ECONNREFUSED…) when the server could not be reached. */
      readonly code: string | undefined;
      /** The connection is gone (refused, reset, the server shut down): the caller answers 503. */
      readonly lost: boolean;
    };

interface Data {
  readonly url: string;
  readonly flag: SharedArrayBuffer;
  readonly port: MessagePort;
  readonly statementTimeoutMs: number;
}

const { url, flag, port, statementTimeoutMs } = workerData as Data;
const signal = new Int32Array(flag);

// The stores read numbers as numbers: counts and BIGINT columns (int8) and sums (numeric) would
// be strings otherwise; booleans are 1/0 as SQLite gives them.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));
pg.types.setTypeParser(16, (v) => (v === 't' ? 1 : 0));

let client: pg.Client | null = null;

async function connection(): Promise<pg.Client> {
  if (client) return client;
  const c = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 5000,
    keepAlive: true,
    statement_timeout: statementTimeoutMs,
    application_name: 'burrow',
  });
  // A connection that dies between requests is dropped: the next request connects again.
  c.on('error', () => {
    if (client === c) client = null;
  });
  c.on('end', () => {
    if (client === c) client = null;
  });
  await c.connect();
  client = c;
  return c;
}

// Class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now), and Node's socket errors.
const LOST = /^(08|57P0[1-3]|E[A-Z]+$)/;

function value(v: unknown): unknown {
  // Structured cloning turns a Buffer into a Uint8Array: node-postgres sends a Buffer as bytea.
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint') return v.toString();
  return v;
}

function answer(reply: PgReply): void {
  port.postMessage(reply);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
}

async function handle(req: PgRequest): Promise<void> {
  if (req.op === 'end') {
    const c = client;
    client = null;
    await c?.end().catch(() => undefined);
    answer({ id: req.id, ok: true, rows: [], changes: 0 });
    port.close();
    return;
  }
  try {
    const c = await connection();
    const result =
      req.op === 'exec'
        ? await c.query(req.sql)
        : await c.query({ text: req.sql, values: (req.params ?? []).map(value) });
    // exec of several statements answers an array of results: the last one counts.
    const last = (Array.isArray(result) ? result[result.length - 1] : result) as pg.QueryResult | undefined;
    answer({ id: req.id, ok: true, rows: last?.rows ?? [], changes: last?.rowCount ?? 0 });
  } catch (err) {
    const e = err as Error & { code?: string };
    const lost = client === null || LOST.test(e.code ?? '') || /Connection terminated|not queryable/i.test(e.message);
    if (lost) {
      const c = client;
      client = null;
      c?.end().catch(() => undefined);
    }
    answer({ id: req.id, ok: false, message: e.message, code: e.code, lost });
  }
}

// One request at a time: the main thread waits for each answer before it posts the next.
let chain: Promise<void> = Promise.resolve();
port.on('message', (req: PgRequest) => {
  chain = chain.then(() => handle(req));
});
