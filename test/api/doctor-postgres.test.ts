// `burrow doctor` with DATABASE_URL: the connection, the server's version against the oldest
// Burrow runs on, the migrations applied or pending (or a newer Burrow's); PostgreSQL that does
// not answer is a FAIL line that says what to do, with a non-zero exit and no password shown.
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { testPostgres, type TestPostgres } from '../support/postgres.ts';
import { makeDirs, removeDirs, serverCommand, startServer, type TestDirs } from '../support/server.ts';

let server: TestPostgres;
let dirs: TestDirs;

test.before(async () => {
  server = await testPostgres();
  dirs = makeDirs();
});
test.after(() => removeDirs(dirs));

function doctor(env: Record<string, string>): { status: number | null; out: string } {
  const c = serverCommand();
  const r = spawnSync(c.file, [...c.args, 'doctor'], {
    env: {
      ...c.env,
      HOST: '127.0.0.1',
      PORT: '0',
      CONFIG_DIR: dirs.config,
      CACHE_DIR: dirs.cache,
      VOLUME_ROOT: dirs.volumes,
      ...env,
    },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

const line = (out: string, name: string) =>
  out.split('\n').find((l) => new RegExp(`^  (ok  |warn|FAIL)  ${name} `).test(l)) ?? `(no ${name} line in)\n${out}`;

async function query(url: string, sql: string): Promise<void> {
  const c = new pg.Client(url);
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

test('an empty database, then a migrated one, then one a newer Burrow wrote', async () => {
  const url = await server.database();
  const empty = doctor({ DATABASE_URL: url });
  assert.is(empty.status, 0, empty.out);
  assert.match(
    line(empty.out, 'database'),
    /^ {2}ok {4}database +PostgreSQL at postgres:\/\/burrow@127\.0\.0\.1:\d+\/burrow_\w+ answers$/,
  );
  assert.match(line(empty.out, 'PostgreSQL'), /^ {2}ok .*version \d+\.\d+.* \(12 or newer is needed\)$/);
  assert.match(
    line(empty.out, 'migrations'),
    /none applied yet: an empty database, its \d+ migrations run at the first start/,
  );
  // Not the embedded database's line.
  assert.not.match(empty.out, /burrow\.db/);

  const s = await startServer({ dirs, env: { DATABASE_URL: url } });
  await s.close();
  const migrated = doctor({ DATABASE_URL: url });
  assert.is(migrated.status, 0, migrated.out);
  assert.match(line(migrated.out, 'migrations'), /^ {2}ok {4}migrations +all \d+ applied$/);

  await query(url, 'DELETE FROM schema_migrations WHERE id = (SELECT max(id) FROM schema_migrations)');
  assert.match(
    line(doctor({ DATABASE_URL: url }).out, 'migrations'),
    /\d+ applied, 1 pending: they run at the next start, once/,
  );

  await query(url, "INSERT INTO schema_migrations (id, applied_at) VALUES ('zz/999_from_the_future', '2031-01-01')");
  const newer = doctor({ DATABASE_URL: url });
  assert.is(newer.status, 1, newer.out);
  assert.match(
    line(newer.out, 'migrations'),
    /^ {2}FAIL {2}migrations +the database was written by a newer Burrow \(zz\/999_from_the_future\)/,
  );
});

test('PostgreSQL down: a FAIL line saying so and what to do, exit 1, the password hidden', async () => {
  const url = server.url('burrow_gone').replace('burrow@', 'burrow:Pass%20w0rd@');
  server.stop();
  let r;
  try {
    r = doctor({ DATABASE_URL: url });
  } finally {
    server.start();
  }
  assert.is(r.status, 1, r.out);
  assert.match(
    line(r.out, 'database'),
    /^ {2}FAIL {2}database +PostgreSQL at postgres:\/\/burrow:\*\*\*@127\.0\.0\.1:\d+\/burrow_gone cannot be reached \(ECONNREFUSED.*\): start it, or correct DATABASE_URL/,
  );
  assert.not.match(r.out, /Pass/);
  assert.match(r.out, /1 problem\(s\) stop Burrow from working here/);
});

test.run();
