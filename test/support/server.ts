// A real Burrow for tests: the HTTP server with temp VOLUME_ROOT, CONFIG_DIR, CACHE_DIR and
// USER_ROOT and the real database file. `restart()` keeps the folders and the port (state
// survives, clients keep working).
//
// One switch: BURROW_TEST_SERVER=executable starts every server from the built executable
// (dist/, built when stale, copied alone into a temp folder) instead of createApp in this
// process, so the same tests prove the bundle behaves like the source. Tests therefore only
// reach the server the way a user can: HTTP, its log lines, its folders, and its database
// file while it is stopped (`withDatabase`).
//
// BURROW_TEST_SERVER=cluster: every server is three executables on one PostgreSQL database (a
// test PostgreSQL started once per test process) and one shared volume and home folder, behind
// a round-robin balancer (support/balancer.ts) — issue 31's deployment, so the same test files
// prove that any instance answers any request with no two requests in a row on the same one.
// Each instance has its own CONFIG_DIR and CACHE_DIR, as separate machines would.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
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
import { startBalancer, type Balancer } from './balancer.ts';

export type ServerMode = 'source' | 'executable' | 'cluster';
export const serverMode: ServerMode =
  process.env.BURROW_TEST_SERVER === 'executable' || process.env.BURROW_TEST_SERVER === 'cluster'
    ? process.env.BURROW_TEST_SERVER
    : 'source';
/** How many instances a server is in cluster mode. */
export const CLUSTER_SIZE = 3;

/**
 * How many servers answer `s`'s address in turn (one, or a cluster's instances behind the
 * round-robin balancer): a condition asked this many times in a row, with no other request
 * between, has been asked of every one of them.
 */
export function instancesBehind(s: TestServer): number {
  return s.mode === 'cluster' ? CLUSTER_SIZE : 1;
}

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
  /**
   * Every server's CONFIG_DIR: `dirs.config`, and on a cluster each other instance's own beside
   * it (what an instance keeps for itself, such as a multipart upload's staged part, is there).
   */
  readonly configDirs: readonly string[];
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
  options: {
    env?: Record<string, string>;
    dirs?: TestDirs;
    volumes?: string[];
    uiDir?: string | null;
    /** This server a cluster whatever the mode (a bench that compares one instance with three). */
    cluster?: boolean;
  } = {},
): Promise<TestServer> {
  const dirs = options.dirs ?? makeDirs();
  for (const v of options.volumes ?? ['Files']) fs.mkdirSync(path.join(dirs.volumes, v), { recursive: true });
  const logs: Record<string, any>[] = [];
  let env: Record<string, string> = { ...serverEnv(dirs), ...options.env };
  if (serverMode === 'cluster' || options.cluster) return startCluster(dirs, env, logs);
  // BURROW_TEST_DATABASE=postgres: the same server on a database of its own in a test PostgreSQL.
  if (onPostgres && env.DATABASE_URL === undefined) env.DATABASE_URL = await (await testPostgres()).database();
  let app: App | undefined;
  const boot =
    serverMode === 'executable'
      ? // HTTPS on a free port of its own unless the test chose one: a restart passes PORT, which
        // would make HTTPS take its default (3443), another server's when two groups run at once.
        (port: number) => bootExecutable(dirs, { HTTPS_PORT: '0', ...env, PORT: String(port) }, logs)
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
    configDirs: [env.CONFIG_DIR!],
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
      return childrenOf(current?.pid ?? process.pid, command);
    },
    openFiles() {
      return openFilesOf(current?.pid ?? process.pid);
    },
  };
}

/**
 * BURROW_TEST_SERVER=cluster: CLUSTER_SIZE executables on one PostgreSQL database and the same
 * VOLUME_ROOT and USER_ROOT, behind a round-robin balancer whose address is the server's `url`.
 * Instance 0 keeps the test's CONFIG_DIR and CACHE_DIR; the others get their own beside them,
 * holding a copy of what the test put in CONFIG_DIR before the start (as an administrator
 * copies keys to every machine). `logs` gathers every instance's lines; `restart()` and
 * `withDatabase()` stop and start all of them; `pid()`, `children()` and `openFiles()` answer
 * for instance 0.
 */
async function startCluster(
  dirs: TestDirs,
  firstEnv: Record<string, string>,
  logs: Record<string, any>[],
): Promise<TestServer> {
  let env: Record<string, string> = {
    // Every instance signs with the secrets sealed in the database under this one key.
    CLUSTER_KEY: crypto.randomBytes(32).toString('base64url'),
    ...firstEnv,
  };
  // A copy of a database migrated once per test process: the instances find nothing pending.
  if (env.DATABASE_URL === undefined) env.DATABASE_URL = await (await testPostgres()).migratedDatabase();
  // Each its own HTTPS port (0: a free one) unless the test chose.
  const httpsFixed = env.HTTPS_PORT !== undefined && env.HTTPS_PORT !== '0';
  const nodeEnv = (i: number, port: number): Record<string, string> => {
    const own: Record<string, string> = { PORT: String(port) };
    if (!httpsFixed) own.HTTPS_PORT = env.HTTPS_PORT ?? '0';
    if (i > 0) {
      own.CONFIG_DIR = `${env.CONFIG_DIR}-node${i}`;
      own.CACHE_DIR = `${env.CACHE_DIR}-node${i}`;
      if (fs.existsSync(env.CONFIG_DIR!) && !fs.existsSync(own.CONFIG_DIR))
        fs.cpSync(env.CONFIG_DIR!, own.CONFIG_DIR, { recursive: true });
    }
    return { ...env, ...own };
  };
  let current: (Instance | null)[] = [];
  const ports: number[] = [];
  const start = async () => {
    try {
      // All together, as a service manager starts them: a migration still pending (a test's
      // own DATABASE_URL) is run by whichever gets the migration lock, the others wait for it.
      // Every instance's folders (a copy of CONFIG_DIR as the test left it) are made before any
      // starts: copied later, the copy would race with what instance 0 writes there (its TLS
      // certificate), and another instance could start on half of it.
      const envs = Array.from({ length: CLUSTER_SIZE }, (_, i) => nodeEnv(i, ports[i] ?? 0));
      const started = await Promise.allSettled(envs.map((e) => bootExecutable(dirs, e, logs)));
      current = started.map((r) => (r.status === 'fulfilled' ? r.value : null));
      const failed = started.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      if (!ports.length) ports.push(...current.map((node) => node!.port));
    } catch (err) {
      // The instances that did start are stopped: left running, they would keep the test
      // process (and the run) from ever ending.
      await stop();
      throw err;
    }
  };
  const stop = async () => {
    const running = current;
    current = [];
    await Promise.all(running.map((node) => node?.stop()));
    if (running.length) forgetConnections();
  };
  await start();
  let balancer = await startBalancer(ports.map((p) => `http://127.0.0.1:${p}`));
  const balancerPort = Number(new URL(balancer.url).port);
  balancers.add(balancer);
  const url = balancer.url;
  const first = () => current[0] ?? null;
  return {
    url,
    mode: 'cluster',
    dirs,
    configDirs: Array.from({ length: CLUSTER_SIZE }, (_, i) => (i ? `${env.CONFIG_DIR}-node${i}` : env.CONFIG_DIR!)),
    logs,
    async settleLogs() {
      // Each instance's line of a request made now comes after every line it wrote before.
      await Promise.all(
        ports.map(async (port) => {
          const res = await fetch(`http://127.0.0.1:${port}/healthz`);
          await res.arrayBuffer();
          const id = res.headers.get('x-request-id');
          await waitFor(() => logs.some((l) => l.msg === 'request' && l.requestId === id), {
            what: 'the log line of the request of settleLogs() on every instance',
            everyMs: 10,
          });
        }),
      );
    },
    async routes() {
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
        const db = new PostgresDatabase(env.DATABASE_URL!);
        try {
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
      if (!balancers.has(balancer)) {
        balancer = await startBalancer(
          ports.map((p) => `http://127.0.0.1:${p}`),
          balancerPort,
        );
        balancers.add(balancer);
      }
    },
    async close() {
      await stop();
      balancers.delete(balancer);
      await balancer.close();
    },
    pid: () => first()?.pid ?? process.pid,
    children(command) {
      return childrenOf(first()?.pid ?? process.pid, command);
    },
    openFiles() {
      return openFilesOf(first()?.pid ?? process.pid);
    },
  };
}
const balancers = new Set<Balancer>();

/** The child processes of `parent` running `command` now (`/proc/*\/stat`), with their arguments. */
function childrenOf(parent: number, command: string): { pid: number; args: string[] }[] {
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
}

/** Where the files `pid` holds open are named now (`/proc/<pid>/fd` link targets). */
function openFilesOf(pid: number): string[] {
  const dir = `/proc/${pid}/fd`;
  return fs.readdirSync(dir).flatMap((d) => {
    try {
      return [fs.readlinkSync(`${dir}/${d}`)];
    } catch {
      return [];
    }
  });
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
  seedCache(box, dirs.cache);
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
      keepExtracted(box!, dirs.cache); // by now its add-on check (and any first page) unpacked them
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
 * What an executable extracts into its CACHE_DIR — its native add-ons (`native/addon-<name>-<hash>/`,
 * the image add-on 18 MB unpacked from 6 MB of brotli by the add-on check's child: 0.8 s of its
 * 1.2 s of CPU) and its UI (`ui-<hash>/`, at the first page) — is kept, hard-linked, from the
 * servers of this process as they stop (`<sandbox>/extracted/`), and linked into each later
 * server's fresh CACHE_DIR: they start as on a machine where Burrow ran before. Only folders the
 * executable marked complete are taken; the extraction itself (and its interruption) is what
 * test/binary and the assets unit tests check, on sandboxes of their own.
 */
function completeFolders(root: string): string[] {
  const under = (dir: string, keep: (name: string) => boolean) => {
    try {
      return fs
        .readdirSync(path.join(root, dir))
        .filter(keep)
        .map((n) => path.join(dir, n))
        .filter((rel) => fs.existsSync(path.join(root, rel, '.complete')));
    } catch {
      return [];
    }
  };
  return [...under('native', () => true), ...under('.', (n) => n.startsWith('ui-'))];
}

function linkTree(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const [a, b] = [path.join(from, e.name), path.join(to, e.name)];
    if (e.isDirectory()) linkTree(a, b);
    else fs.linkSync(a, b);
  }
}

/** Links `rel` of `from` to `to` under a temporary name first: `to` has it whole or not at all. */
function linkFolder(from: string, to: string, rel: string): void {
  if (fs.existsSync(path.join(to, rel))) return;
  const temp = `${path.join(to, rel)}.linking-${process.pid}`;
  try {
    linkTree(path.join(from, rel), temp);
    fs.renameSync(temp, path.join(to, rel));
  } catch {
    // Not linked (another process's copy, a full disk): the server extracts for itself.
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

const extractedIn = (box: Sandbox) => path.join(box.dir, 'extracted');

function keepExtracted(box: Sandbox, cacheDir: string): void {
  for (const rel of completeFolders(cacheDir)) linkFolder(cacheDir, extractedIn(box), rel);
}

function seedCache(box: Sandbox, cacheDir: string): void {
  for (const rel of completeFolders(extractedIn(box))) linkFolder(extractedIn(box), cacheDir, rel);
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
