import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, createUser, setupAdmin, signIn } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
test.before(async () => {
  s = await startServer();
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('before setup: status asks for setup, me is null, protected routes answer 401', async () => {
  const c = new Client(s.url);
  const status = await c.get('/api/auth/status');
  assert.is(status.status, 200);
  assert.is(status.json.requiresSetup, true);
  assert.equal(status.json.strategies, { local: true, passkey: true, oidc: false });
  assert.is(status.json.authEnabled, true);
  assert.is(status.json.authMode, 'both');
  assert.is(status.json.authenticated, false);
  assert.is(status.json.user, null);
  assert.equal(Object.keys(status.json.oidc).sort(), ['enabled', 'issuer', 'scopes', 'status']);
  assert.equal((await c.get('/api/auth/me')).json, { user: null });
  const login = await c.post('/api/auth/login', { identifier: 'nobody', password: 'whatever-1' });
  assert.is(login.status, 401);
  envelope(login);
});

test('setup race: parallel requests make exactly one administrator', async () => {
  const answers = await Promise.all(Array.from({ length: 6 }, () => new Client(s.url).post('/api/auth/setup', ADMIN)));
  const created = answers.filter((a) => a.status === 201);
  assert.is(created.length, 1, answers.map((a) => a.status).join(','));
  for (const a of answers.filter((x) => x.status !== 201)) {
    assert.is(a.status, 403);
    envelope(a);
  }
  assert.equal(created[0]!.json.user.roles, ['admin']);
  const count = await s.withDatabase((db) => db.get<{ n: number }>('SELECT COUNT(*) AS n FROM users')!.n);
  assert.is(count, 1);
  // The winner is signed in.
  const cookie = created[0]!.headers.getSetCookie().find((c) => c.startsWith('connect.sid='))!;
  assert.ok(cookie, 'session cookie set');
  assert.match(cookie, /HttpOnly/i);
  assert.match(cookie, /SameSite=Lax/i);
  assert.not.match(cookie, /Secure/i);
  assert.match(cookie, /Max-Age=2592000/);
});

test('setup: username defaults to what is before the @; refused once done', async () => {
  const other = await startServer();
  try {
    const c = new Client(other.url);
    const a = await c.post('/api/auth/setup', { email: 'Carol.Smith@example.org', password: 'long-enough-1' });
    assert.is(a.status, 201);
    assert.is(a.json.user.username, 'Carol.Smith');
    assert.is((await c.get('/api/auth/me')).json.user.id, a.json.user.id);
    const again = await new Client(other.url).post('/api/auth/setup', {
      email: 'x@example.org',
      password: 'long-enough-1',
    });
    assert.is(again.status, 403);
    const bad = await new Client(other.url).post('/api/auth/setup', {
      email: 'not-an-email',
      password: 'long-enough-1',
    });
    assert.is(bad.status, 400);
    assert.match(envelope(bad).message, /email/);
  } finally {
    await other.close();
    removeDirs(other.dirs);
  }
});

test('sign-in by email or username in any letter case, deprecated synonyms, new session id each time', async () => {
  const a = new Client(s.url);
  assert.is(
    (await a.post('/api/auth/login', { identifier: 'ADMIN@Example.org', password: ADMIN.password })).status,
    200,
  );
  const b = new Client(s.url);
  const byName = await b.post('/api/auth/login', { email: 'Admin', password: ADMIN.password });
  assert.is(byName.status, 200);
  assert.is(byName.json.user.username, 'admin');
  assert.is(byName.json.user.email, ADMIN.email);
  assert.is(typeof byName.json.user.createdAt, 'string');
  assert.match(byName.json.user.createdAt, /\.\d{3}Z$/);
  const c = new Client(s.url);
  assert.is((await c.post('/api/auth/login', { username: 'admin', password: ADMIN.password })).status, 200);
  assert.is.not(a.cookies.get('connect.sid'), b.cookies.get('connect.sid'));
  // Only a keyed hash of the session id is stored.
  const stored = await s.withDatabase((db) =>
    db.all<{ id_hash: string }>('SELECT id_hash FROM sessions').map((r) => r.id_hash),
  );
  assert.not.ok(stored.includes(a.cookies.get('connect.sid')!));
  const missing = await new Client(s.url).post('/api/auth/login', { password: ADMIN.password });
  assert.is(missing.status, 400);
  assert.match(envelope(missing).message, /identifier/);
  const noPassword = await new Client(s.url).post('/api/auth/login', { identifier: 'admin' });
  assert.is(noPassword.status, 400);
  assert.match(envelope(noPassword).message, /password/);
});

test('wrong password: 401 in the envelope, password never echoed in the answer or the log', async () => {
  const secret = 'Wr0ng-Secret-Value-XYZ';
  const c = new Client(s.url);
  const a = await c.post('/api/auth/login', { identifier: 'admin', password: secret });
  assert.is(a.status, 401);
  assert.is(envelope(a).code, 'AUTH_INVALID_CREDENTIALS');
  assert.not.ok(a.text.includes(secret));
  await s.settleLogs();
  assert.not.ok(JSON.stringify(s.logs).includes(secret));
  const bad = await c.post('/api/auth/login', { identifier: 'admin', password: 12345 });
  assert.is(bad.status, 400);
  assert.not.ok(bad.text.includes('12345'));
  // A correct sign-in resets the failure count.
  assert.is((await c.post('/api/auth/login', { identifier: 'admin', password: ADMIN.password })).status, 200);
});

test('an identifier naming two accounts signs nobody in', async () => {
  const admin = await signIn(s, 'admin', ADMIN.password);
  await createUser(admin, s, { username: 'dave', email: 'dave@example.org', password: 'dave-password-1' });
  // eve's username is dave's email.
  const created = await admin.post('/api/users', {
    username: 'dave@example.org',
    email: 'eve@example.org',
    password: 'eve-password-1',
    roles: [],
  });
  assert.is(created.status, 201);
  const a = await new Client(s.url).post('/api/auth/login', {
    identifier: 'dave@example.org',
    password: 'dave-password-1',
  });
  assert.is(a.status, 401);
  assert.is(
    (await new Client(s.url).post('/api/auth/login', { identifier: 'dave', password: 'dave-password-1' })).status,
    200,
  );
});

test('logout ends the session; me answers null after', async () => {
  const c = await signIn(s, 'admin', ADMIN.password);
  const cookie = c.cookies.get('connect.sid')!;
  assert.is((await c.get('/api/auth/me')).json.user.username, 'admin');
  const out = await c.post('/api/auth/logout');
  assert.is(out.status, 204);
  assert.equal((await c.get('/api/auth/me')).json, { user: null });
  const replay = new Client(s.url);
  replay.cookies.set('connect.sid', cookie);
  assert.equal((await replay.get('/api/auth/me')).json, { user: null });
  assert.is((await replay.get('/api/auth/methods')).status, 401);
});

test('methods lists the password method with its last use', async () => {
  const c = await signIn(s, 'admin', ADMIN.password);
  const m = await c.get('/api/auth/methods');
  assert.is(m.status, 200);
  assert.is(m.json.methods.length, 1);
  const [method] = m.json.methods;
  assert.is(method.type, 'local_password');
  assert.is(typeof method.id, 'string');
  assert.match(method.createdAt, /\.\d{3}Z$/);
  assert.match(method.lastUsedAt, /\.\d{3}Z$/);
});

test.run();
