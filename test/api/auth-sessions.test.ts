import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, createUser, me, setupAdmin, signIn } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer } from '../support/server.ts';

test('lockout is counted per account whichever identifier was typed; 429 + Retry-After; admin unlock', async () => {
  // Each attempt from its own forwarded address: the per-address limits stay out of the way.
  const s = await startServer({ env: { TRUST_PROXY: 'loopback' } });
  try {
    const admin = await setupAdmin(s);
    await createUser(admin, s, { username: 'frank', email: 'frank@example.org', password: 'frank-password' });
    const from = (n: number) => ({ 'x-forwarded-for': `203.0.113.${n}` });
    const ids = ['frank', 'FRANK@example.org', 'Frank', 'frank@EXAMPLE.org', 'frank'];
    for (let i = 0; i < 5; i++) {
      const a = await new Client(s.url).post(
        '/api/auth/login',
        { identifier: ids[i], password: 'wrong-password' },
        from(i + 1),
      );
      assert.is(a.status, 401, `attempt ${i + 1}`);
    }
    const locked = await new Client(s.url).post(
      '/api/auth/login',
      { identifier: 'frank', password: 'frank-password' },
      from(10),
    );
    assert.is(locked.status, 429);
    assert.is(envelope(locked).code, 'AUTH_ACCOUNT_LOCKED');
    const retry = Number(locked.headers.get('retry-after'));
    assert.ok(retry > 800 && retry <= 900, String(retry));
    // Another account is not affected.
    assert.is(
      (await new Client(s.url).post('/api/auth/login', { identifier: 'admin', password: ADMIN.password }, from(11)))
        .status,
      200,
    );
    const list = (await admin.get('/api/users')).json.users;
    const frank = list.find((u: any) => u.username === 'frank');
    assert.is(frank.locked, true);
    const unlock = await admin.post(`/api/users/${frank.id}/unlock`);
    assert.is(unlock.status, 200);
    assert.is(
      (await new Client(s.url).post('/api/auth/login', { identifier: 'frank', password: 'frank-password' }, from(12)))
        .status,
      200,
    );
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('a flood of sign-in attempts from one address → 429 with Retry-After, kept across a restart; other addresses unaffected', async () => {
  const s = await startServer({ env: { TRUST_PROXY: 'loopback' } });
  try {
    await setupAdmin(s);
    const flood = { 'x-forwarded-for': '198.51.100.7' };
    let limited: Response | undefined;
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const a = await new Client(s.url).post(
        '/api/auth/login',
        { identifier: `nobody${i}`, password: 'whatever-pw' },
        flood,
      );
      statuses.push(a.status);
      if (a.status === 429) {
        limited = a as unknown as Response;
        envelope(a);
        break;
      }
    }
    assert.ok(limited, `no 429 in ${statuses.join(',')}`);
    assert.ok(Number(limited!.headers.get('retry-after')) > 0);
    await s.restart();
    assert.is(
      (await new Client(s.url).post('/api/auth/login', { identifier: 'admin', password: ADMIN.password }, flood))
        .status,
      429,
    );
    assert.is(
      (
        await new Client(s.url).post(
          '/api/auth/login',
          { identifier: 'admin', password: ADMIN.password },
          { 'x-forwarded-for': '198.51.100.8' },
        )
      ).status,
      200,
    );
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('sessions survive a restart; password change ends the other sessions and moves this one to a new cookie', async () => {
  const s = await startServer();
  try {
    const admin = await setupAdmin(s);
    const other = await signIn(s, 'admin', ADMIN.password);
    await s.restart();
    admin.cookies.size; // same cookie jar, new server process state
    const c1 = new Client(s.url);
    c1.cookies = new Map(admin.cookies);
    const c2 = new Client(s.url);
    c2.cookies = new Map(other.cookies);
    assert.is((await c1.get('/api/auth/me')).json.user.username, 'admin');
    assert.is((await c2.get('/api/auth/me')).json.user.username, 'admin');
    const old = c1.cookies.get('connect.sid');
    const wrong = await c1.post('/api/auth/password', {
      currentPassword: 'nope-nope',
      newPassword: 'brand-new-password',
    });
    assert.is(wrong.status, 401);
    const short = await c1.post('/api/auth/password', { currentPassword: ADMIN.password, newPassword: 'short' });
    assert.is(short.status, 400);
    assert.match(envelope(short).message, /newPassword/);
    const changed = await c1.post('/api/auth/password', {
      currentPassword: ADMIN.password,
      newPassword: 'brand-new-password',
    });
    assert.is(changed.status, 204);
    assert.is.not(c1.cookies.get('connect.sid'), old);
    assert.is((await c1.get('/api/auth/me')).json.user.username, 'admin');
    assert.equal((await c2.get('/api/auth/me')).json, { user: null });
    const stale = new Client(s.url);
    stale.cookies.set('connect.sid', old!);
    assert.equal((await stale.get('/api/auth/me')).json, { user: null });
    assert.is(
      (await new Client(s.url).post('/api/auth/login', { identifier: 'admin', password: ADMIN.password })).status,
      401,
    );
    assert.is(
      (await new Client(s.url).post('/api/auth/login', { identifier: 'admin', password: 'brand-new-password' })).status,
      200,
    );
    // password/add: this account already has one
    const add = await c1.post('/api/auth/password/add', { password: 'another-password' });
    assert.is(add.status, 409);
    envelope(add);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('an expired session row is refused; the session lifetime follows SESSION_MAX_AGE_DAYS', async () => {
  const s = await startServer({ env: { SESSION_MAX_AGE_DAYS: '2' } });
  try {
    const c = new Client(s.url);
    const a = await c.post('/api/auth/setup', { email: ADMIN.email, password: ADMIN.password });
    assert.match(a.headers.getSetCookie().join(';'), /Max-Age=172800/);
    await s.withDatabase((db) => db.run("UPDATE sessions SET expires_at = '2000-01-01T00:00:00.000Z'"));
    assert.equal((await c.get('/api/auth/me')).json, { user: null });
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('sliding renewal sends the same cookie value again with a fresh lifetime', async () => {
  const s = await startServer();
  try {
    const c = await setupAdmin(s);
    const value = c.cookies.get('connect.sid');
    await s.withDatabase((db) => db.run("UPDATE sessions SET renewed_at = '2000-01-01T00:00:00.000Z'"));
    const a = await c.get('/api/auth/me');
    const set = a.headers.getSetCookie().find((x) => x.startsWith('connect.sid='));
    assert.ok(set, 'renewal cookie sent');
    assert.is(set!.split(';')[0], `connect.sid=${value}`);
    assert.match(set!, /Max-Age=2592000/);
    assert.not.ok((await c.get('/api/auth/me')).headers.getSetCookie().length, 'not renewed on every request');
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('Secure cookie only when PUBLIC_URL is https', async () => {
  const s = await startServer({ env: { PUBLIC_URL: 'https://files.example.org' } });
  try {
    const a = await new Client(s.url).post('/api/auth/setup', { email: ADMIN.email, password: ADMIN.password });
    assert.match(a.headers.getSetCookie()[0]!, /;\s*Secure/i);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('AUTH_MODE=oidc refuses setup and password sign-in with 403; disabled makes the local administrator', async () => {
  const s = await startServer({ env: { AUTH_MODE: 'oidc' } });
  try {
    const setup = await new Client(s.url).post('/api/auth/setup', { email: ADMIN.email, password: ADMIN.password });
    assert.is(setup.status, 403);
    assert.is(envelope(setup).code, 'AUTH_METHOD_DISABLED');
    assert.is((await new Client(s.url).post('/api/auth/login', { identifier: 'a', password: 'b' })).status, 403);
    const status = (await new Client(s.url).get('/api/auth/status')).json;
    assert.is(status.authMode, 'oidc');
    assert.is(status.strategies.local, false);
    assert.is(status.requiresSetup, false);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
  const d = await startServer({ env: { AUTH_MODE: 'disabled' } });
  try {
    const c = new Client(d.url);
    assert.is((await c.get('/api/auth/me')).json.user.roles[0], 'admin');
    assert.is((await c.get('/api/settings')).status, 200);
    assert.is((await c.get('/api/users')).status, 200);
    assert.is((await c.get('/api/auth/status')).json.authEnabled, false);
  } finally {
    await d.close();
    removeDirs(d.dirs);
  }
});

test('AUTH_ADMIN_EMAIL gives the admin role back at startup (never touching the password)', async () => {
  const s = await startServer();
  try {
    const admin = await setupAdmin(s);
    const g = await createUser(admin, s, {
      username: 'grace',
      email: 'grace@example.org',
      password: 'grace-password',
      roles: ['admin'],
    });
    const graceId = (await me(g)).id;
    assert.is((await g.patch(`/api/users/${(await me(admin)).id}`, { roles: ['user'] })).status, 200);
    await s.restart({ AUTH_ADMIN_EMAIL: 'ADMIN@example.org' });
    const again = await signIn(s, 'admin', ADMIN.password);
    assert.equal((await me(again)).roles, ['admin']);
    assert.ok(graceId);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test.run();
