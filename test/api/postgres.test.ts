// DATABASE_URL=postgres://…: every store in a real PostgreSQL (started by the test, see
// support/postgres.ts), the index in its own SQLite file; migrations run once under an advisory
// lock when instances start together; PostgreSQL stopped mid-run answers 503
// DATABASE_UNAVAILABLE with Retry-After, /readyz says so, and the instance recovers by itself.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, createUser, issueToken, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { testPostgres, type TestPostgres } from '../support/postgres.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let server: TestPostgres;
const started: TestServer[] = [];

test.before(async () => {
  server = await testPostgres();
});
test.after(async () => {
  for (const s of started) {
    await s.close();
    removeDirs(s.dirs);
  }
});

async function rows<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

function form(fields: [string, string | Blob, string?][]): FormData {
  const f = new FormData();
  for (const [k, v, name] of fields)
    if (typeof v === 'string') f.append(k, v);
    else f.append(k, v, name);
  return f;
}

const NAME = 'Zoë “Ångström” & Co #2 + 50% 🦔.txt';

test('every store is in PostgreSQL: accounts, sessions, tokens, uploads and activity; no burrow.db is written', async () => {
  const url = await server.database();
  const s = await startServer({ env: { DATABASE_URL: url } });
  started.push(s);
  const admin = await setupAdmin(s);
  assert.is((await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 7 } })).status, 200);
  const zoe = await createUser(admin, s, {
    username: 'Zoë.Ångström',
    email: 'zoe.angstrom@example.org',
    password: 'a long passphrase 1',
  });
  const token = await issueToken(zoe, 'read', { name: 'Zoë’s phone', password: 'a long passphrase 1' });
  const up = await admin.post(
    '/api/upload',
    form([
      ['uploadTo', 'Files'],
      ['relativePath', `Käse & Brot/${NAME}`],
      ['filedata', new Blob(['Grüße aus dem Bau\n']), 'x.txt'],
    ]),
  );
  assert.is(up.status, 201, up.text);
  // The account is found whatever the letter case (NOCASE as a PostgreSQL collation).
  const again = new Client(s.url);
  assert.is(
    (await again.post('/api/auth/login', { identifier: 'ZOË.ÅNGSTRÖM', password: 'a long passphrase 1' })).status,
    200,
  );
  assert.is((await new Client(s.url, token).get('/api/auth/me')).json.user.username, 'Zoë.Ångström');
  const listed = await admin.get(`/api/browse/Files/${encodeURIComponent('Käse & Brot')}`);
  assert.is(listed.status, 200, listed.text);
  assert.equal(
    listed.json.items.map((i: { name: string }) => i.name),
    [NAME],
  );

  const users = await rows<{ username: string }>(url, 'SELECT username FROM users ORDER BY username');
  assert.equal(
    users.map((u) => u.username),
    ['admin', 'Zoë.Ångström'],
  );
  const sessions = await rows<{ n: string }>(url, 'SELECT count(*) AS n FROM sessions');
  assert.ok(Number(sessions[0]!.n) >= 2, `${sessions[0]!.n} sessions`);
  assert.equal(await rows(url, 'SELECT name, scope FROM api_tokens'), [{ name: 'Zoë’s phone', scope: 'read' }]);
  const actions = (await rows<{ action: string }>(url, 'SELECT action FROM activity')).map((r) => r.action);
  assert.ok(actions.includes('auth.login'), actions.join(','));
  // The activity page reads back what PostgreSQL numbered (ids from RETURNING).
  const page = await admin.get('/api/activity?action=auth.login');
  assert.is(page.status, 200, page.text);
  assert.ok(page.json.rows.length >= 2);
  const ids = page.json.rows.map((r: { id: string }) => r.id);
  assert.ok(
    ids.every((id: string) => /^\d+$/.test(id)),
    ids.join(','),
  );
  assert.is(new Set(ids).size, ids.length);
  assert.not.ok(fs.existsSync(path.join(s.dirs.config, 'burrow.db')), 'no embedded database beside PostgreSQL');
  assert.ok(fs.existsSync(path.join(s.dirs.cache, 'index.db')), 'the index keeps its own SQLite file');
  assert.equal((await admin.get('/readyz')).json, { status: 'ok' });
});

test('instances starting together on an empty database migrate it once (advisory lock)', async () => {
  const url = await server.database();
  // One cluster key for both: the secrets they share are sealed under it in the database.
  const env = { DATABASE_URL: url, CLUSTER_KEY: 'the cluster key of Zoë’s office & co #1' };
  const [a, b] = await Promise.all([startServer({ env }), startServer({ env })]);
  started.push(a, b);
  const applied = await rows<{ id: string; n: string }>(
    url,
    'SELECT id, count(*) AS n FROM schema_migrations GROUP BY id',
  );
  assert.ok(applied.length > 20);
  assert.ok(applied.every((r) => Number(r.n) === 1));
  // Both serve the same accounts: set up on one, signed in on the other.
  await setupAdmin(a);
  const other = new Client(b.url);
  assert.is(
    (await other.post('/api/auth/login', { identifier: ADMIN.username, password: ADMIN.password })).status,
    200,
  );
  // A session opened on one is good on the other: both sign with the secret kept in the database.
  assert.is((await new Client(a.url, undefined).get('/api/volumes')).status, 401);
  const onA = new Client(a.url);
  onA.cookies = new Map(other.cookies);
  assert.is((await onA.get('/api/volumes')).status, 200);
  // An instance with another cluster key refuses to start, naming the key to give it.
  const refused = await startServer({ env: { DATABASE_URL: url } }).then(
    (s) => (started.push(s), null),
    (err: Error) => err.message,
  );
  assert.match(refused ?? 'it started', /sealed under another cluster key: give every instance the same CLUSTER_KEY/);
});

test('PostgreSQL stopped: 503 DATABASE_UNAVAILABLE with Retry-After, /readyz not ready; started again: recovered by itself', async () => {
  const url = await server.database();
  const s = await startServer({ env: { DATABASE_URL: url } });
  started.push(s);
  const admin = await setupAdmin(s);
  assert.is((await admin.get('/api/auth/me')).json.user.username, ADMIN.username);
  server.stop();
  let stopped = true;
  try {
    const me = await admin.get('/api/auth/me');
    assert.is(me.status, 503, me.text);
    assert.is(envelope(me).code, 'DATABASE_UNAVAILABLE');
    assert.is(me.headers.get('retry-after'), '5');
    const login = await new Client(s.url).post('/api/auth/login', {
      identifier: 'admin',
      password: 'wrong password 1',
    });
    assert.is(login.status, 503, login.text);
    assert.is(envelope(login).code, 'DATABASE_UNAVAILABLE');
    // As a balancer's health check asks: no cookie.
    const ready = await new Client(s.url).get('/readyz');
    assert.is(ready.status, 503);
    assert.equal(ready.json, { status: 'database-unavailable' });
    assert.is((await new Client(s.url).get('/healthz')).status, 200);
    server.start();
    stopped = false;
  } finally {
    if (stopped) server.start();
  }
  await waitFor(async () => (await new Client(s.url).get('/readyz')).status === 200, { what: '/readyz ready again' });
  // The same session, kept in PostgreSQL, works again; nothing was lost.
  assert.is((await admin.get('/api/auth/me')).json.user.username, ADMIN.username);
  const refused = await rows<{ n: string }>(url, 'SELECT count(*) AS n FROM users');
  assert.is(Number(refused[0]!.n), 1);
});

test.run();
