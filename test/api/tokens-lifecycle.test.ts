import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, createUser, issueToken, me, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let admin: Client;
test.before(async () => {
  s = await startServer();
  admin = await setupAdmin(s);
  assert.is((await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 30 } })).status, 200);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

const tokenCount = () => s.withDatabase((db) => db.get<{ n: number }>('SELECT COUNT(*) AS n FROM api_tokens')!.n);

test('issue: secret returned once with the fixed prefix, only its SHA-256 stored, listed without it', async () => {
  const a = await admin.post('/api/auth/tokens', {
    name: 'backup',
    scope: 'write',
    expiresInDays: 30,
    password: ADMIN.password,
  });
  assert.is(a.status, 201);
  assert.match(a.json.secret, /^burrow_[A-Za-z0-9]{16}_[A-Za-z0-9_-]{43}$/);
  assert.is(a.json.token.name, 'backup');
  assert.is(a.json.token.scope, 'write');
  assert.match(a.json.token.expiresAt, /\.\d{3}Z$/);
  const [row, all] = await s.withDatabase(
    (db) =>
      [
        db.get<{ secret_hash: string }>('SELECT secret_hash FROM api_tokens WHERE id = ?', [a.json.token.id])!,
        db.all('SELECT * FROM api_tokens'),
      ] as const,
  );
  assert.is(row.secret_hash.length, 64);
  assert.not.ok(JSON.stringify(all).includes(a.json.secret));
  const list = await admin.get('/api/auth/tokens');
  assert.ok(list.json.tokens.some((t: any) => t.id === a.json.token.id));
  assert.not.ok(list.text.includes(a.json.secret));
  // default scope is read, default expiry none
  const b = await admin.post('/api/auth/tokens', { name: 'reader', password: ADMIN.password });
  assert.is(b.json.token.scope, 'read');
  assert.is(b.json.token.expiresAt, null);
});

test('issue: password required when the account has one; wrong or missing → 401, nothing added', async () => {
  const before = await tokenCount();
  const missing = await admin.post('/api/auth/tokens', { name: 'x', scope: 'read' });
  assert.is(missing.status, 401);
  envelope(missing);
  const wrong = await admin.post('/api/auth/tokens', { name: 'x', scope: 'read', password: 'Not-The-Password' });
  assert.is(wrong.status, 401);
  assert.not.ok(wrong.text.includes('Not-The-Password'));
  assert.is(await tokenCount(), before);
  // The wrong attempts fed the lockout counter; a right sign-in clears it.
  assert.is((await admin.post('/api/auth/login', { identifier: 'admin', password: ADMIN.password })).status, 200);
});

test('issue: expiresInDays 1..3650 or null, name required, scope read|write — else 400 naming the field', async () => {
  for (const [body, field] of [
    [{ name: 'x', expiresInDays: 0 }, 'expiresInDays'],
    [{ name: 'x', expiresInDays: 3651 }, 'expiresInDays'],
    [{ name: 'x', expiresInDays: 1.5 }, 'expiresInDays'],
    [{ name: 'x', expiresInDays: '7' }, 'expiresInDays'],
    [{ scope: 'read' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x', scope: 'admin' }, 'scope'],
  ] as const) {
    const a = await admin.post('/api/auth/tokens', { ...body, password: ADMIN.password });
    assert.is(a.status, 400, JSON.stringify(body));
    assert.match(envelope(a).message, field);
  }
  assert.is(
    (await admin.post('/api/auth/tokens', { name: 'long', expiresInDays: 3650, password: ADMIN.password })).status,
    201,
  );
  assert.is(
    (await admin.post('/api/auth/tokens', { name: 'short', expiresInDays: 1, password: ADMIN.password })).status,
    201,
  );
});

test('at most 50 live tokens; the refusal names the cap; revoking frees a place', async () => {
  const user = await createUser(admin, s, { username: 'capper', password: 'capper-password' });
  const id = (await me(user)).id;
  // 49 live tokens (and tombstones that do not count) written directly to save time.
  await s.withDatabase((db) => {
    for (let i = 0; i < 49; i++)
      db.run(
        "INSERT INTO api_tokens (id, user_id, name, scope, secret_hash, created_at) VALUES (?, ?, ?, 'read', ?, ?)",
        [`cap${String(i).padStart(13, '0')}`, id, `t${i}`, 'f'.repeat(64), new Date().toISOString()],
      );
    db.run(
      "INSERT INTO api_tokens (id, user_id, name, scope, secret_hash, created_at, revoked_at) VALUES ('capdead000000000', ?, 'dead', 'read', NULL, ?, ?)",
      [id, new Date().toISOString(), new Date().toISOString()],
    );
  });
  const fiftieth = await user.post('/api/auth/tokens', { name: 'fiftieth', password: 'capper-password' });
  assert.is(fiftieth.status, 201);
  const over = await user.post('/api/auth/tokens', { name: 'one too many', password: 'capper-password' });
  assert.is(over.status, 409);
  assert.match(envelope(over).message, /50/);
  assert.is((await user.delete(`/api/auth/tokens/${fiftieth.json.token.id}`)).status, 204);
  assert.is((await user.post('/api/auth/tokens', { name: 'again', password: 'capper-password' })).status, 201);
});

test('rename and revoke: revoke asks nothing, keeps a tombstone, the token stops on the next request', async () => {
  const secret = await issueToken(admin, 'write', { name: 'temp' });
  const id = secret.split('_')[1]!;
  const bearer = new Client(s.url, secret);
  assert.is((await bearer.get('/api/auth/me')).json.user.username, 'admin');
  const renamed = await admin.patch(`/api/auth/tokens/${id}`, { name: 'renamed' });
  assert.is(renamed.status, 200);
  assert.is(renamed.json.token.name, 'renamed');
  assert.is((await admin.patch(`/api/auth/tokens/${id}`, { name: '' })).status, 400);
  assert.is((await admin.delete(`/api/auth/tokens/${id}`)).status, 204);
  const after = await bearer.get('/api/auth/me');
  assert.is(after.status, 401);
  assert.is(envelope(after).code, 'AUTH_TOKEN_INVALID');
  const tomb = await s.withDatabase((db) =>
    db.get<any>('SELECT name, revoked_at, secret_hash FROM api_tokens WHERE id = ?', [id]),
  );
  assert.is(tomb.name, 'renamed');
  assert.match(tomb.revoked_at, /Z$/);
  assert.is(tomb.secret_hash, null);
  assert.not.ok((await admin.get('/api/auth/tokens')).json.tokens.some((t: any) => t.id === id));
  assert.is((await admin.delete(`/api/auth/tokens/${id}`)).status, 404);
});

test("another account's token id answers 404 and is never listed", async () => {
  const other = await createUser(admin, s, { username: 'other', password: 'other-password' });
  const secret = await issueToken(admin, 'read', { name: 'mine' });
  const id = secret.split('_')[1]!;
  assert.not.ok((await other.get('/api/auth/tokens')).json.tokens.some((t: any) => t.id === id));
  assert.is((await other.patch(`/api/auth/tokens/${id}`, { name: 'stolen' })).status, 404);
  assert.is((await other.delete(`/api/auth/tokens/${id}`)).status, 404);
  assert.is((await new Client(s.url, secret).get('/api/auth/me')).status, 200);
});

test('last use (time, address) recorded, at most once a minute', async () => {
  const secret = await issueToken(admin, 'read', { name: 'used' });
  const id = secret.split('_')[1]!;
  const bearer = new Client(s.url, secret);
  await bearer.get('/api/auth/me');
  const first = await s.withDatabase((db) =>
    db.get<any>('SELECT last_used_at, last_used_ip FROM api_tokens WHERE id = ?', [id]),
  );
  assert.match(first.last_used_at, /Z$/);
  assert.is(first.last_used_ip, '127.0.0.1');
  await bearer.get('/api/auth/me');
  assert.is(
    await s.withDatabase((db) => db.get<any>('SELECT last_used_at FROM api_tokens WHERE id = ?', [id]).last_used_at),
    first.last_used_at,
  );
  const listed = (await admin.get('/api/auth/tokens')).json.tokens.find((t: any) => t.id === id);
  assert.is(listed.lastUsedAt, first.last_used_at);
  assert.is(listed.lastUsedIp, '127.0.0.1');
});

test('refused uses go to the activity log once per hour per token, with the reason', async () => {
  const secret = await issueToken(admin, 'read', { name: 'soon revoked' });
  const id = secret.split('_')[1]!;
  await admin.delete(`/api/auth/tokens/${id}`);
  for (let i = 0; i < 3; i++) assert.is((await new Client(s.url, secret).get('/api/settings')).status, 401);
  const rows = (await admin.get('/api/activity?action=token.refused')).json.rows.filter(
    (r: any) => r.detail?.tokenId === id,
  );
  assert.is(rows.length, 1);
  assert.is(rows[0].detail.reason, 'revoked');
  assert.is(rows[0].outcome, 'failure');
});

test('a token follows its account: role removal applies next request, survives a password change, goes with the account', async () => {
  const second = await createUser(admin, s, { username: 'second', password: 'second-password', roles: ['admin'] });
  const secondId = (await me(second)).id;
  const secret = await issueToken(second, 'write', { password: 'second-password' });
  const bearer = new Client(s.url, secret);
  assert.ok((await bearer.get('/api/settings')).json.access, 'an administrator sees access rules');
  assert.is((await admin.patch(`/api/users/${secondId}`, { roles: ['user'] })).status, 200);
  assert.is((await bearer.get('/api/settings')).json.access, undefined);
  assert.equal((await bearer.get('/api/auth/me')).json.user.roles, ['user']);
  assert.is(
    (await second.post('/api/auth/password', { currentPassword: 'second-password', newPassword: 'second-password-2' }))
      .status,
    204,
  );
  assert.is((await bearer.get('/api/auth/me')).status, 200);
  assert.is((await admin.delete(`/api/users/${secondId}`)).status, 204);
  assert.is((await bearer.get('/api/auth/me')).status, 401);
  assert.is(
    await s.withDatabase(
      (db) => db.get<{ n: number }>('SELECT COUNT(*) AS n FROM api_tokens WHERE user_id = ?', [secondId])!.n,
    ),
    0,
  );
});

test.run();
