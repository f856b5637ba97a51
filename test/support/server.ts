// A real Burrow for tests: the HTTP server with temp VOLUME_ROOT, CONFIG_DIR, CACHE_DIR and
// USER_ROOT and the real database file. `restart()` keeps the folders and the port (state
// survives, clients keep working).
//
// One switch: BURROW_TEST_SERVER=executable starts every server from the built executable
// (dist/, built when stale, copied alone into a temp folder) instead of createApp in this
// process, so the same tests prove the bundle behaves like the source. Tests therefore only
// reach the server the way a user can: HTTP, its log lines, its folders, and its database
// file while it is stopped (`withDatabase`).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { Database } from '../../src/db/database.ts';
import { createLogger, type Logger } from '../../src/core/log.ts';
import { openApiPath } from '../../src/http/openapi.ts';
import { sandbox, type Sandbox } from '../binary/harness.ts';
import { waitFor } from './wait.ts';
import { onPostgres, testPostgres } from './postgres.ts';
import { PostgresDatabase } from '../../src/db/postgres.ts';

export type ServerMode = 'source' | 'executable';
export const serverMode: ServerMode = process.env.BURROW_TEST_SERVER === 'executable' ? 'executable' : 'source';

export interface TestDirs {
  root: string;
  volumes: string;
  config: string;
  cache: string;
  users: string;
}

export interface TestServer {
  readonly url: string;
  readonly mode: ServerMode;
  readonly dirs: TestDirs;
  /** Lines the server logged, at debug level (JSON objects), across restarts. */
  readonly logs: Record<string, any>[];
  /** Resolves once the log lines of every request answered so far are in `logs`. */
  settleLogs(): Promise<void>;
  /**
   * The mounted routes (method + OpenAPI path). From source: the server's own route table.
   * From the executable, which cannot be asked: the described ones (/api/openapi.json) — the
   * source run proves the two equal.
   */
  routes(): Promise<{ method: string; path: string }[]>;
  /**
   * Stops the server, opens its database as the server does (burrow.db, the index file
   * attached as `idx` when there is one; or its PostgreSQL database, without the index), runs `fn`, closes it and starts the server again on
   * the same port. The one way to read or change rows behind the API.
   */
  withDatabase<T>(fn: (db: Database) => T | Promise<T>): Promise<T>;
  restart(extraEnv?: Record<string, string>): Promise<void>;
  close(): Promise<void>;
  /** Where the files the server holds open are named now (`/proc/<pid>/fd` link targets). */
  openFiles(): string[];
  /** The server's process (this one when it runs from source): its children are in `/proc`. */
  pid(): number;
  /** The server's child processes running `command` now (`/proc/*\/stat`), with their arguments. */
  children(command: string): { pid: number; args: string[] }[];
}

export function makeDirs(prefix = 'burrow-test-'): TestDirs {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const dirs = {
    root,
    volumes: path.join(root, 'volumes'),
    config: path.join(root, 'config'),
    cache: path.join(root, 'cache'),
    users: path.join(root, 'users'),
  };
  fs.mkdirSync(dirs.volumes, { recursive: true });
  return dirs;
}

/** One running server of either kind. */
interface Instance {
  readonly port: number;
  /** The process serving: this one from source, the child for the executable. */
  readonly pid: number;
  stop(): Promise<void>;
}

/** A server's environment on `dirs`: loopback, any free port, every folder in the sandbox. */
export function serverEnv(dirs: TestDirs): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    PORT: '0',
    // Tests that listen on every interface announce nothing on the machine's real network.
    MDNS_ENABLED: 'false',
    VOLUME_ROOT: dirs.volumes,
    CONFIG_DIR: dirs.config,
    CACHE_DIR: dirs.cache,
    USER_ROOT: dirs.users,
  };
}

export async function startServer(
  options: { env?: Record<string, string>; dirs?: TestDirs; volumes?: string[]; uiDir?: string | null } = {},
): Promise<TestServer> {
  const dirs = options.dirs ?? makeDirs();
  for (const v of options.volumes ?? ['Files']) fs.mkdirSync(path.join(dirs.volumes, v), { recursive: true });
  const logs: Record<string, any>[] = [];
  let env: Record<string, string> = { ...serverEnv(dirs), ...options.env };
  // BURROW_TEST_DATABASE=postgres: the same server on a database of its own in a test PostgreSQL.
  if (onPostgres && env.DATABASE_URL === undefined) env.DATABASE_URL = await (await testPostgres()).database();
  let app: App | undefined;
  const boot =
    serverMode === 'executable'
      ? (port: number) => bootExecutable(dirs, { ...env, PORT: String(port) }, logs)
      : async (port: number): Promise<Instance> => {
          const log: Logger = createLogger('debug', {}, (line) => {
            logs.push(JSON.parse(line));
          });
          const a = await createApp(loadConfig(env), { log, uiDir: options.uiDir ?? null });
          app = a;
          const address = await a.listen(port, env.HOST ?? '127.0.0.1');
          return { port: address.port, pid: process.pid, stop: () => a.close(1000) };
        };
  let current: Instance | null = await boot(0);
  let port = current.port;
  const stop = async () => {
    const running = current;
    current = null;
    await running?.stop();
    if (running) forgetConnections();
  };
  const start = async () => {
    current = await boot(port);
    port = current.port;
  };
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    mode: serverMode,
    dirs,
    logs,
    async settleLogs() {
      if (serverMode === 'source' || !current) return;
      // Lines arrive through a pipe: the line of a request made now comes after every
      // line written before it.
      const res = await fetch(`${url}/healthz`);
      await res.arrayBuffer();
      const id = res.headers.get('x-request-id');
      await waitFor(() => logs.some((l) => l.msg === 'request' && l.requestId === id), {
        what: 'the log line of the request of settleLogs() (is LOG_LEVEL debug?)',
        everyMs: 10,
      });
    },
    async routes() {
      if (serverMode === 'source') return app!.routes.map((r) => ({ method: r.method, path: openApiPath(r.path) }));
      const doc = (await (await fetch(`${url}/api/openapi.json`)).json()) as {
        paths: Record<string, Record<string, unknown>>;
      };
      return Object.entries(doc.paths).flatMap(([p, ops]) =>
        Object.keys(ops).map((m) => ({ method: m.toUpperCase(), path: p })),
      );
    },
    async withDatabase(fn) {
      await stop();
      try {
        const db = env.DATABASE_URL
          ? new PostgresDatabase(env.DATABASE_URL)
          : new Database(path.join(env.CONFIG_DIR!, 'burrow.db'));
        try {
          const index = path.join(env.CACHE_DIR!, 'index.db');
          if (fs.existsSync(index) && db.dialect === 'sqlite') db.attach(index, 'idx');
          return await fn(db);
        } finally {
          db.close();
        }
      } finally {
        await start();
      }
    },
    async restart(extraEnv = {}) {
      await stop();
      env = { ...env, ...extraEnv };
      await start();
    },
    close: stop,
    pid: () => current?.pid ?? process.pid,
    children(command) {
      const parent = current?.pid ?? process.pid;
      return fs.readdirSync('/proc').flatMap((d) => {
        if (!/^\d+$/.test(d)) return [];
        try {
          const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
          const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
          if (comm !== command || ppid !== parent) return [];
          const args = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').slice(0, -1);
          return [{ pid: Number(d), args }];
        } catch {
          return [];
        }
      });
    },
    openFiles() {
      const dir = `/proc/${current?.pid ?? process.pid}/fd`;
      return fs.readdirSync(dir).flatMap((d) => {
        try {
          return [fs.readlinkSync(`${dir}/${d}`)];
        } catch {
          return [];
        }
      });
    },
  };
}

/**
 * Drops this process's pooled keep-alive connections (fetch's global dispatcher), as a
 * browser does when a server went away: a restarted server listens on the same port, and a
 * request written into a socket the old one closed fails with "other side closed" (fetch
 * retries only idempotent requests). Node does not export the class; the instance has it.
 */
function forgetConnections(): void {
  const key = Symbol.for('undici.globalDispatcher.1');
  const old = (globalThis as Record<symbol, any>)[key];
  if (!old) return;
  (globalThis as Record<symbol, any>)[key] = new old.constructor();
  void old.destroy().catch(() => {});
}

let box: Sandbox | undefined;
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  box?.remove();
});

/**
 * The executable with the environment a service manager gives it (PATH, HOME) plus the
 * test's. Always at debug level, like the source server's logger, so `logs` is the same in
 * both modes. Its output goes to `logs` (JSON lines); anything else is kept for the error
 * that reports an unexpected exit, which fails the test at `close()`.
 */
async function bootExecutable(
  dirs: TestDirs,
  env: Record<string, string>,
  logs: Record<string, any>[],
): Promise<Instance> {
  box ??= sandbox();
  const child = spawn(box.binary, [], {
    cwd: dirs.root,
    env: { PATH: '/usr/bin:/bin', HOME: dirs.root, ...env, LOG_LEVEL: 'debug' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let other = '';
  let stopping = false;
  let partial = '';
  let onListening: ((port: number) => void) | undefined;
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      let parsed: Record<string, any> | undefined;
      try {
        parsed = JSON.parse(line);
      } catch {
        /* not a log line */
      }
      if (!parsed || typeof parsed !== 'object') {
        other += line + '\n';
        continue;
      }
      logs.push(parsed);
      if (parsed.msg === 'Burrow is listening') onListening?.(parsed.port);
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    other += chunk;
  });
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve(signal ?? String(code));
    }),
  );
  let died: Error | undefined;
  void exited.then((how) => {
    if (stopping) return;
    died = new Error(`the executable exited on its own (${how}); its other output:\n${other.slice(-4000)}`);
    process.stderr.write(`\n${died.message}\n`);
  });
  const port = await new Promise<number>((resolve, reject) => {
    // A deadline, not a pause: the listening line is waited for as it comes.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the executable did not listen within 60 s; output:\n${other}`));
    }, 60_000);
    onListening = (p) => {
      clearTimeout(timer);
      resolve(p);
    };
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`the executable exited (${how}) before listening; output:\n${other}`));
    });
  });
  return {
    port,
    pid: child.pid!,
    async stop() {
      if (died) throw died;
      stopping = true;
      child.kill('SIGTERM');
      // A deadline, not a pause: the exit is waited for; a server that does not stop is killed.
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const how = await exited;
      clearTimeout(timer);
      if (how !== '0')
        throw new Error(`the executable did not stop cleanly on SIGTERM (${how}); output:\n${other.slice(-4000)}`);
    },
  };
}

/**
 * How to start a server process by hand in this run's mode, for tests that must kill it:
 * `node src/main.ts` with this process's environment, or the executable with a bare one.
 */
export function serverCommand(): { file: string; args: string[]; env: Record<string, string> } {
  if (serverMode === 'source') {
    const main = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'src', 'main.ts');
    return { file: process.execPath, args: [main], env: { ...process.env } as Record<string, string> };
  }
  box ??= sandbox();
  return { file: box.binary, args: [], env: { PATH: '/usr/bin:/bin', HOME: os.tmpdir() } };
}

/** Removes a test's folders (best effort; read-only bits are reset first). */
export function removeDirs(dirs: TestDirs): void {
  fs.rmSync(dirs.root, { recursive: true, force: true, maxRetries: 3 });
}
