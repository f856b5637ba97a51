import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, createUser, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
let admin: Client;
test.before(async () => {
  s = await startServer({ env: { TRUST_PROXY: 'loopback' } });
  admin = await setupAdmin(s);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('off until switched on: no rows are written and the list is empty', async () => {
  await new Client(s.url).post('/api/auth/login', { identifier: 'admin', password: 'wrong-password' });
  const a = await admin.get('/api/activity');
  assert.is(a.status, 200);
  assert.is(a.json.enabled, false);
  assert.equal(a.json.rows, []);
  assert.ok(a.json.actions.includes('admin.activity-clear'));
  assert.is(await s.withDatabase((db) => db.get<{ n: number }>('SELECT COUNT(*) AS n FROM activity')!.n), 0);
});

test('switched on: sign-in success/failure, settings and user administration are recorded with address and detail', async () => {
  const on = await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 7 } });
  assert.equal(on.json.activity, { enabled: true, retentionDays: 7 });
  await new Client(s.url).post(
    '/api/auth/login',
    { identifier: 'admin', password: 'Typed-Secret-42' },
    { 'x-forwarded-for': '192.0.2.44' },
  );
  await new Client(s.url).post('/api/auth/login', { identifier: 'admin', password: ADMIN.password });
  await createUser(admin, s, { username: 'mia', password: 'mia-password' });
  const a = await admin.get('/api/activity');
  assert.is(a.json.enabled, true);
  const actions = a.json.rows.map((r: any) => `${r.action}:${r.outcome}`);
  for (const want of [
    'admin.settings-change:success',
    'auth.login:failure',
    'auth.login:success',
    'admin.user-create:success',
  ])
    assert.ok(actions.includes(want), want);
  const failure = a.json.rows.find((r: any) => r.action === 'auth.login' && r.outcome === 'failure');
  assert.is(failure.address, '192.0.2.44');
  assert.is(failure.username, 'admin');
  assert.is(failure.detail.reason, 'wrong-password');
  assert.match(failure.time, /\.\d{3}Z$/);
  assert.is(typeof failure.id, 'string');
  assert.not.ok(a.text.includes('Typed-Secret-42'), 'the typed password is not recorded');
  // newest first
  const ids = a.json.rows.map((r: any) => Number(r.id));
  assert.equal(
    ids,
    [...ids].sort((x: number, y: number) => y - x),
  );
});

test('filters and keyset paging', async () => {
  const failures = await admin.get('/api/activity?outcome=failure');
  assert.ok(failures.json.rows.length >= 1);
  assert.ok(failures.json.rows.every((r: any) => r.outcome === 'failure'));
  assert.ok(
    (await admin.get('/api/activity?action=admin.user-create')).json.rows.every(
      (r: any) => r.action === 'admin.user-create',
    ),
  );
  assert.ok((await admin.get('/api/activity?user=admin')).json.rows.length >= 2);
  assert.ok((await admin.get('/api/activity?q=192.0.2')).json.rows.length === 1);
  assert.equal((await admin.get('/api/activity?from=2999-01-01T00:00:00Z')).json.rows, []);
  assert.ok((await admin.get('/api/activity?to=2999-01-01T00:00:00Z')).json.rows.length >= 3);
  const all = (await admin.get('/api/activity')).json.rows.map((r: any) => r.id);
  const seen: string[] = [];
  let before: string | null = null;
  do {
    const page: any = await admin.get(`/api/activity?limit=2${before ? `&before=${before}` : ''}`);
    assert.ok(page.json.rows.length <= 2);
    seen.push(...page.json.rows.map((r: any) => r.id));
    before = page.json.nextBefore;
  } while (before);
  assert.equal(seen, all);
  for (const bad of ['limit=0', 'limit=501', 'before=abc', 'from=yesterday', 'outcome=maybe']) {
    const a = await admin.get(`/api/activity?${bad}`);
    assert.is(a.status, 400, bad);
    envelope(a);
  }
});

test('only administrators; clear answers removed then writes admin.activity-clear', async () => {
  const user = await createUser(admin, s, { username: 'ned', password: 'ned-password' });
  assert.is((await user.get('/api/activity')).status, 403);
  assert.is((await user.delete('/api/activity')).status, 403);
  const count = await s.withDatabase((db) => db.get<{ n: number }>('SELECT COUNT(*) AS n FROM activity')!.n);
  const cleared = await admin.delete('/api/activity');
  assert.is(cleared.status, 200);
  assert.is(cleared.json.removed, count);
  const rows = (await admin.get('/api/activity')).json.rows;
  assert.is(rows.length, 1);
  assert.is(rows[0].action, 'admin.activity-clear');
  assert.is(rows[0].username, 'admin');
  assert.is(rows[0].detail.removed, count);
});

test('retention sweep drops rows older than retentionDays', async () => {
  // The sweep runs once right after start (off the request path): the start that follows
  // the insert. Its end is seen through the API before the file is looked at.
  await s.withDatabase((db) =>
    db.run("INSERT INTO activity (at, action, outcome) VALUES ('2001-01-01T00:00:00.000Z', 'auth.login', 'success')"),
  );
  const old = async () =>
    (await admin.get('/api/activity?limit=500')).json.rows.filter((r: any) => r.at < '2002-01-01').length;
  await waitFor(old, { what: 'the sweep to drop the old row', until: (n) => n === 0 });
  assert.is(
    await s.withDatabase(
      (db) => db.get<{ n: number }>("SELECT COUNT(*) AS n FROM activity WHERE at < '2002-01-01'")!.n,
    ),
    0,
  );
});

test('address: recorded, peer, trustsPeer, trustProxy and forwarding headers', async () => {
  const c = new Client(s.url);
  c.cookies = new Map(admin.cookies);
  const a = await c.get('/api/activity/address', {
    'x-forwarded-for': '198.51.100.1, 203.0.113.9',
    'x-forwarded-proto': 'https',
  });
  assert.is(a.status, 200);
  assert.is(a.json.peer, '127.0.0.1');
  assert.is(a.json.trustsPeer, true);
  assert.is(a.json.trustProxy, 'loopback');
  assert.is(a.json.recorded, '203.0.113.9');
  assert.is(a.json.headers['x-forwarded-for'], '198.51.100.1, 203.0.113.9');
  assert.is(a.json.headers['x-forwarded-proto'], 'https');
});

test('writing a row never fails the request it describes', async () => {
  await s.withDatabase((db) =>
    db.exec(
      db.dialect === 'sqlite'
        ? "CREATE TRIGGER activity_broken BEFORE INSERT ON activity BEGIN SELECT RAISE(ABORT, 'disk trouble'); END"
        : `CREATE FUNCTION activity_broken() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk trouble'; END $$;
           CREATE TRIGGER activity_broken BEFORE INSERT ON activity FOR EACH ROW EXECUTE FUNCTION activity_broken()`,
    ),
  );
  try {
    assert.is(
      (await new Client(s.url).post('/api/auth/login', { identifier: 'admin', password: ADMIN.password })).status,
      200,
    );
    assert.is(
      (await new Client(s.url).post('/api/auth/login', { identifier: 'admin', password: 'wrong-password' })).status,
      401,
    );
    await s.settleLogs();
    assert.ok(s.logs.some((l) => l.msg === 'could not write an activity row'));
  } finally {
    await s.withDatabase((db) =>
      db.exec(db.dialect === 'sqlite' ? 'DROP TRIGGER activity_broken' : 'DROP FUNCTION activity_broken CASCADE'),
    );
  }
});

test.run();
