// Three Burrow processes started on one empty PostgreSQL database migrate it once: whichever
// takes the migration lock (pg_advisory_lock) runs the migrations, the others wait for it and
// find nothing pending. The test holds the three at the same point — each is stopped reading
// schema_migrations, which the test keeps locked, until all three are waiting — then lets them
// go: without the advisory lock all three read "nothing applied" and run every migration, and
// two of them fail to start (a table that already exists, a duplicate migration id).
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN } from '../support/auth.ts';
import { Client } from '../support/client.ts';
import { testPostgres, type TestPostgres } from '../support/postgres.ts';
import { makeDirs, removeDirs, serverCommand, serverEnv, type TestDirs } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let server: TestPostgres;
const dirs: TestDirs[] = [];
const children: ChildProcess[] = [];

test.before(async () => {
  server = await testPostgres();
});
test.after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs) removeDirs(d);
});

interface Started {
  /** The address, or the process's output when it exited instead. */
  readonly result: Promise<{ url: string } | { exited: number | null; out: string }>;
}

function startInstance(url: string): Started {
  const d = makeDirs();
  dirs.push(d);
  const command = serverCommand();
  const child = spawn(command.file, command.args, {
    env: {
      ...command.env,
      ...serverEnv(d),
      DATABASE_URL: url,
      CLUSTER_KEY: 'the cluster key of Zoë’s office & co #1',
      HTTPS_PORT: 'off',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  const result = new Promise<{ url: string } | { exited: number | null; out: string }>((resolve) => {
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const m = /"msg":"Burrow is listening"[^\n]*?"port":(\d+)/.exec(out);
      if (m) resolve({ url: `http://127.0.0.1:${m[1]}` });
    });
    child.stderr!.on('data', (chunk) => {
      out += chunk;
    });
    child.on('exit', (code) => resolve({ exited: code, out }));
  });
  return { result };
}

test('three instances started together on an empty database: one migrates, all three start', async () => {
  const url = await server.database();
  const gate = new pg.Client(url);
  await gate.connect();
  try {
    // The table the migrations begin by making (the same definition), locked by the test.
    await gate.query('CREATE TABLE schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
    await gate.query('BEGIN');
    await gate.query('LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE');
    const instances = [startInstance(url), startInstance(url), startInstance(url)];
    // All three wait on a lock: the table (one holding the advisory lock, or all three without it)
    // or the advisory lock (the two others).
    const watcher = new pg.Client(url);
    await watcher.connect();
    try {
      await waitFor(
        async () =>
          Number(
            (
              await watcher.query(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'burrow' AND wait_event_type = 'Lock'",
              )
            ).rows[0].n,
          ) === 3,
        { what: 'three instances waiting to migrate', timeoutMs: 120_000 },
      );
    } finally {
      await watcher.end();
    }
    await gate.query('COMMIT');
    const results = await Promise.all(instances.map((i) => i.result));
    for (const r of results) assert.ok('url' in r, `an instance did not start:\n${'out' in r ? r.out : ''}`);
    const urls = results.map((r) => (r as { url: string }).url);
    const applied = (await gate.query<{ id: string }>('SELECT id FROM schema_migrations')).rows;
    assert.ok(applied.length > 20, `${applied.length} migrations`);
    // The instances serve one database: set up on one, signed in on the others.
    const setup = await new Client(urls[0]!).post('/api/auth/setup', { ...ADMIN });
    assert.is(setup.status, 201, setup.text);
    for (const u of urls.slice(1)) {
      const other = new Client(u);
      const r = await other.post('/api/auth/login', { identifier: ADMIN.username, password: ADMIN.password });
      assert.is(r.status, 200, r.text);
    }
  } finally {
    await gate.end().catch(() => undefined);
  }
});

test.run();
