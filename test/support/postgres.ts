// A real PostgreSQL for tests (Debian's `postgresql`): initdb and pg_ctl in a temporary folder,
// run as an unprivileged user when the tests run as root (CI does; PostgreSQL refuses root),
// on a free loopback port. One server per test process, started on first use and removed at
// exit; each Burrow gets a database of its own (`database()`).
//
//   BURROW_TEST_DATABASE=postgres  every startServer() runs Burrow with DATABASE_URL on it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export const onPostgres = process.env.BURROW_TEST_DATABASE === 'postgres';

export interface TestPostgres {
  /** The server's address with a database name. */
  url(database: string): string;
  /** A new empty database; answers its address. */
  database(): Promise<string>;
  /**
   * A new database with this build's migrations already applied: a copy of a template
   * database migrated once per test process (CREATE DATABASE … TEMPLATE), so a cluster's
   * first instance finds nothing pending instead of running every migration again.
   */
  migratedDatabase(): Promise<string>;
  /** Stops the server (fast shutdown: connections are cut, as when it goes down). */
  stop(): void;
  start(): void;
  readonly port: number;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'pg_ctl')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length) throw new Error('PostgreSQL is not installed (Debian package `postgresql`)');
  return path.join(root, versions[0]!, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL program as the unprivileged owner of its folder. */
function run(user: string | null, file: string, args: string[]): void {
  const [cmd, argv] = user ? ['runuser', ['-u', user, '--', file, ...args]] : [file, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${path.basename(file)} failed (${r.status}): ${r.stderr || r.stdout}`);
}

let started: Promise<TestPostgres> | undefined;

export function testPostgres(): Promise<TestPostgres> {
  started ??= boot();
  return started;
}

async function boot(): Promise<TestPostgres> {
  const bin = binDir();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-pg-'));
  const data = path.join(root, 'data');
  let user: string | null = null;
  if (process.getuid?.() === 0) {
    user = spawnSync('id', ['-u', 'postgres']).status === 0 ? 'postgres' : 'nobody';
    const uid = Number(spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim());
    fs.chownSync(root, uid, gid);
  }
  const port = await freePort();
  run(user, path.join(bin, 'initdb'), ['-D', data, '-U', 'burrow', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  // fsync off: a test server's data need not survive a power loss (the tests run faster).
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () =>
    run(user, path.join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', path.join(root, 'log'), '-w', 'start']);
  const stop = () => run(user, path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
  start();
  let running = true;
  process.on('exit', () => {
    if (running)
      spawnSync(user ? 'runuser' : path.join(bin, 'pg_ctl'), [
        ...(user ? ['-u', user, '--', path.join(bin, 'pg_ctl')] : []),
        '-D',
        data,
        '-m',
        'immediate',
        'stop',
      ]);
    fs.rmSync(root, { recursive: true, force: true });
  });
  const url = (database: string) => `postgres://burrow@127.0.0.1:${port}/${database}`;
  let n = 0;
  const create = async (template?: string) => {
    const name = `burrow_${process.pid}_${++n}`;
    const client = new pg.Client(url('postgres'));
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
    } finally {
      await client.end();
    }
    return name;
  };
  let template: Promise<string> | undefined;
  // Copies are made one at a time: PostgreSQL refuses to copy a template another session is in.
  let copying: Promise<unknown> = Promise.resolve();
  return {
    port,
    url,
    async database() {
      return url(await create());
    },
    async migratedDatabase() {
      template ??= (async () => {
        const name = await create();
        // The migrations of the source, which are the executable's (it is rebuilt when any source changes).
        const { PostgresDatabase } = await import('../../src/db/postgres.ts');
        const { loadMigrations, runMigrations } = await import('../../src/db/migrations.ts');
        const db = new PostgresDatabase(url(name));
        try {
          runMigrations(db, loadMigrations());
        } finally {
          db.close();
        }
        return name;
      })();
      const from = await template;
      const made = copying.then(() => create(from));
      copying = made.catch(() => {});
      return url(await made);
    },
    stop() {
      stop();
      running = false;
    },
    start() {
      start();
      running = true;
    },
  };
}
