import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, createUser, me, setupAdmin, signIn } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let admin: Client;
let adminId: string;
test.before(async () => {
  s = await startServer();
  admin = await setupAdmin(s);
  adminId = (await me(admin)).id;
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('list shows roles and authMethods; only administrators may call it', async () => {
  const user = await createUser(admin, s, { username: 'henry', password: 'henry-password', displayName: 'Henry H' });
  const list = await admin.get('/api/users');
  assert.is(list.status, 200);
  const henry = list.json.users.find((u: any) => u.username === 'henry');
  assert.equal(henry.roles, ['user']);
  assert.is(henry.displayName, 'Henry H');
  assert.is(henry.email, 'henry@example.org');
  assert.equal(henry.authMethods, [{ method: 'local_password', provider: null }]);
  assert.is(typeof henry.id, 'string');
  const refused = await user.get('/api/users');
  assert.is(refused.status, 403);
  envelope(refused);
  assert.is((await new Client(s.url).get('/api/users')).status, 401);
  const shareable = await user.get('/api/users/shareable');
  assert.ok(shareable.json.users.some((u: any) => u.username === 'admin'));
  assert.not.ok(shareable.json.users.some((u: any) => u.username === 'henry'));
});

test('create: unique usernames and emails whatever the case; bad bodies 400 naming the field', async () => {
  const dup = await admin.post('/api/users', {
    email: 'HENRY@example.org',
    username: 'henry2',
    password: 'long-enough-1',
    roles: [],
  });
  assert.is(dup.status, 409);
  assert.is(envelope(dup).message, 'Email already in use.');
  const dupName = await admin.post('/api/users', {
    email: 'h3@example.org',
    username: 'HENRY',
    password: 'long-enough-1',
    roles: [],
  });
  assert.is(dupName.status, 409);
  assert.is(envelope(dupName).message, 'Username already in use.');
  const bad = await admin.post('/api/users', { email: 'nope', password: 'long-enough-1' });
  assert.is(bad.status, 400);
  assert.match(envelope(bad).message, /email/);
  const short = await admin.post('/api/users', { email: 'ok@example.org', password: 'short' });
  assert.is(short.status, 400);
  assert.match(envelope(short).message, /password/);
  assert.not.ok(short.text.includes('"short"'));
  const role = await admin.post('/api/users', { email: 'ok@example.org', password: 'long-enough-1', roles: ['root'] });
  assert.is(role.status, 400);
  const def = await admin.post('/api/users', { email: 'ivy@example.org', password: 'long-enough-1' });
  assert.is(def.status, 201);
  assert.is(def.json.user.username, 'ivy');
});

test('a name with accents is one account whatever its letter case or Unicode form: taken at create and rename, signed in to in any of them', async () => {
  const newUser = (username: string, email: string, password = 'long-enough-1') =>
    admin.post('/api/users', { email, username, password, roles: [] });
  const made = await newUser('Jörg.Müller', 'joerg@example.org', 'Grüße aus Köln 🐻 #1');
  assert.is(made.status, 201, made.text);
  // Each refused before anything is made, so one free address serves them all.
  for (const username of ['JÖRG.MÜLLER', 'jörg.müller', 'Jo\u0308rg.Mu\u0308ller']) {
    const dup = await newUser(username, 'joerg.zwilling@example.org');
    assert.is(dup.status, 409, `${username}: ${dup.text}`);
    assert.is(envelope(dup).code, 'USERNAME_TAKEN');
  }
  const other = await newUser('Zoë', 'zoe@example.org');
  assert.is(other.status, 201, other.text);
  const renamed = await admin.patch(`/api/users/${other.json.user.id}`, { username: 'JÖRG.müller' });
  assert.is(renamed.status, 409, renamed.text);
  assert.is(envelope(renamed).code, 'USERNAME_TAKEN');
  // Her own name in another case is hers to take.
  assert.is((await admin.patch(`/api/users/${other.json.user.id}`, { username: 'ZOË' })).status, 200);
  for (const identifier of ['JÖRG.MÜLLER', 'jörg.müller', 'Jo\u0308rg.Mu\u0308ller', 'JOERG@EXAMPLE.ORG']) {
    const signed = await new Client(s.url).post('/api/auth/login', { identifier, password: 'Grüße aus Köln 🐻 #1' });
    assert.is(signed.status, 200, `${identifier}: ${signed.text}`);
    assert.is(signed.json.user.id, made.json.user.id);
  }
  const names = (await admin.get('/api/users')).json.users.map((u: any) => u.username);
  assert.is(names.filter((n: string) => n.normalize('NFKC').toLowerCase() === 'jörg.müller').length, 1);
});

test('update: username, email, display name, roles; the last administrator keeps the role', async () => {
  const ivy = (await admin.get('/api/users')).json.users.find((u: any) => u.username === 'ivy');
  const a = await admin.patch(`/api/users/${ivy.id}`, {
    username: 'ivy2',
    email: 'ivy2@example.org',
    displayName: 'Ivy',
    roles: ['admin'],
  });
  assert.is(a.status, 200);
  assert.is(a.json.user.username, 'ivy2');
  assert.equal(a.json.user.roles, ['admin']);
  assert.is((await admin.patch(`/api/users/${ivy.id}`, { roles: ['user'] })).status, 200);
  const last = await admin.patch(`/api/users/${adminId}`, { roles: ['user'] });
  assert.is(last.status, 409);
  envelope(last);
  assert.is((await admin.patch('/api/users/no-such-id', { displayName: 'x' })).status, 404);
  assert.is((await admin.patch(`/api/users/${ivy.id}`, { username: 'henry' })).status, 409);
});

test('password reset signs out every session of that account', async () => {
  const j1 = await createUser(admin, s, { username: 'judy', password: 'judy-password' });
  const j2 = await signIn(s, 'judy', 'judy-password');
  const id = (await me(j1)).id;
  const r = await admin.post(`/api/users/${id}/password`, { newPassword: 'judy-new-password' });
  assert.is(r.status, 204);
  assert.equal((await j1.get('/api/auth/me')).json, { user: null });
  assert.equal((await j2.get('/api/auth/me')).json, { user: null });
  assert.is(
    (await new Client(s.url).post('/api/auth/login', { identifier: 'judy', password: 'judy-new-password' })).status,
    200,
  );
  assert.is((await admin.post(`/api/users/${id}/password`, {})).status, 400);
});

test('delete: its sessions, tokens and sign-in methods go with it; never yourself or the last administrator', async () => {
  const k = await createUser(admin, s, { username: 'kim', password: 'kim-password' });
  const id = (await me(k)).id;
  await k.post('/api/auth/tokens', { name: 't', password: 'kim-password' });
  assert.is((await admin.delete(`/api/users/${id}`)).status, 204);
  assert.equal((await k.get('/api/auth/me')).json, { user: null });
  for (const table of ['sessions', 'api_tokens', 'auth_methods']) {
    assert.is(
      await s.withDatabase(
        (db) => db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE user_id = ?`, [id])!.n,
      ),
      0,
      table,
    );
  }
  const self = await admin.delete(`/api/users/${adminId}`);
  assert.is(self.status, 409);
  assert.match(envelope(self).message, /own account/);
  // Another administrator may not delete the last administrator either.
  const other = await createUser(admin, s, { username: 'leo', password: 'leo-password', roles: ['admin'] });
  const leoId = (await me(other)).id;
  assert.is((await other.patch(`/api/users/${adminId}`, { roles: ['user'] })).status, 200);
  const lastAdmin = await admin.post('/api/auth/login', { identifier: 'admin', password: ADMIN.password });
  assert.is(lastAdmin.status, 200);
  assert.is((await admin.delete(`/api/users/${leoId}`)).status, 403, 'admin is no longer an administrator');
  const delLast = await other.delete(`/api/users/${leoId}`);
  assert.is(delLast.status, 409);
  assert.is((await admin.delete('/api/users/missing')).status, 403);
  assert.is((await other.delete('/api/users/missing')).status, 404);
});

test.run();
