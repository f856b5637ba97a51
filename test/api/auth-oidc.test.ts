// Sign-in through a real identity provider (oidc-provider on loopback) end to end through the
// real routes: /api/auth/oidc/login → provider → /callback → session (and /login, /logout);
// groups make an administrator; a spoiled state, an unsigned ID token and a slow provider are
// refused with 400, 502 and 503; the native app bridge (mobile/login → provider →
// mobile/complete → exchange) with its single-use code and allow-listed custom-scheme redirect;
// 404 without a provider; AUTH_MODE=oidc offers only the provider; tokens refused.
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, issueToken, me, setupAdmin, signIn } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { startIdp, type TestIdp } from '../support/oidc-idp.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let idp: TestIdp;
let env: Record<string, string>;

test.before(async () => {
  server = await startServer();
  idp = await startIdp([`${server.url}/callback`, `${server.url}/api/auth/oidc/mobile/complete`]);
  idp.accounts.set('alice', {
    email: 'alice@example.org',
    email_verified: true,
    name: 'Alice A',
    preferred_username: 'alice',
    groups: ['Staff'],
  });
  idp.accounts.set('boss', {
    email: 'boss@example.org',
    email_verified: true,
    preferred_username: 'boss',
    groups: ['Burrow-Admins'],
  });
  env = {
    OIDC_ENABLED: 'true',
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: idp.clientId,
    OIDC_CLIENT_SECRET: idp.clientSecret,
    OIDC_SCOPES: 'openid profile email groups',
    OIDC_ADMIN_GROUPS: 'burrow-admins',
    OIDC_TOKEN_URL: idp.tokenProxyUrl,
    OIDC_USERINFO_URL: idp.userinfoProxyUrl,
    OIDC_TIMEOUT_MS: '1500',
    OIDC_MOBILE_REDIRECT_URIS: 'nextexplorer://oidc-callback,myapp://done',
    OIDC_LOGOUT_URL: `${idp.issuer}/session/end`,
  };
});
test.after(async () => {
  await server.close();
  await idp.close();
  removeDirs(server.dirs);
});
test.before.each(() => {
  idp.tokenMode = 'pass';
  idp.userinfoMode = 'pass';
  idp.userinfoTogether = 0;
  idp.nextAccount = 'alice';
});

function refused(
  answer: { status: number; text: string; headers: Headers; json: any },
  status: number,
  code?: string,
): void {
  assert.is(answer.status, status, answer.text.slice(0, 300));
  const e = envelope(answer);
  if (code) assert.is(e.code, code, e.message);
}

/** The browser's trip: our hand-off, the provider's pages, back to our return address (not yet followed). */
async function handoff(client: Client, start: string, account = 'alice'): Promise<string> {
  idp.nextAccount = account;
  const out = await client.get(start);
  assert.is(out.status, 302, out.text);
  const binding = out.headers.getSetCookie().find((c) => c.startsWith('burrow.oidc='));
  assert.ok(binding, 'a browser-binding cookie');
  assert.match(binding!, /HttpOnly/i);
  assert.match(binding!, /SameSite=Lax/i);
  assert.match(binding!, /Max-Age=600/i);
  const back = await idp.browse(out.headers.get('location')!, server.url);
  return back.pathname + back.search;
}

test('without a provider: the provider rows answer 404 and /login goes to the sign-in screen', async () => {
  await setupAdmin(server);
  const anon = new Client(server.url);
  assert.is((await anon.get('/api/auth/status')).json.strategies.oidc, false);
  refused(await anon.get('/api/auth/oidc/login'), 404, 'OIDC_NOT_CONFIGURED');
  refused(
    await anon.get('/api/auth/oidc/mobile/login?code_challenge_method=S256&code_challenge=' + 'a'.repeat(43)),
    404,
    'OIDC_NOT_CONFIGURED',
  );
  refused(await anon.get('/api/auth/oidc/mobile/complete?state=x&code=y'), 404, 'OIDC_NOT_CONFIGURED');
  refused(await anon.post('/api/auth/oidc/exchange', { code: 'x', code_verifier: 'y' }), 404, 'OIDC_NOT_CONFIGURED');
  refused(await anon.get('/callback?state=x&code=y'), 404, 'OIDC_NOT_CONFIGURED');
  const login = await anon.get('/login');
  assert.is(login.status, 302);
  assert.is(login.headers.get('location'), '/');
  await server.restart(env);
});

test('sign in through the provider: login → provider → callback → session in the workspace; /logout signs out there too', async () => {
  const status = (await new Client(server.url).get('/api/auth/status')).json;
  assert.equal(status.strategies, { local: true, passkey: true, oidc: true });
  assert.is(status.oidc.issuer, idp.issuer);
  const browser = new Client(server.url);
  const back = await handoff(browser, '/api/auth/oidc/login?redirect=%2FFiles%2Fdocs');
  assert.ok(back.startsWith('/callback?'), back);
  const landed = await browser.get(back);
  assert.is(landed.status, 302, landed.text);
  assert.is(landed.headers.get('location'), '/Files/docs');
  const user = await me(browser);
  assert.is(user.username, 'alice');
  assert.equal(user.roles, ['user']);
  assert.is((await browser.get('/api/volumes')).status, 200);
  // The return address is single use.
  refused(await browser.get(back), 400, 'OIDC_STATE_INVALID');

  // A landing place outside the application is not honoured.
  const elsewhere = new Client(server.url);
  const trip = await handoff(elsewhere, '/api/auth/oidc/login?redirect=https%3A%2F%2Fevil.example%2F');
  assert.is((await elsewhere.get(trip)).headers.get('location'), '/');

  const out = await browser.get('/logout');
  assert.is(out.status, 302);
  const to = new URL(out.headers.get('location')!);
  assert.is(to.origin + to.pathname, `${idp.issuer}/session/end`);
  assert.is(to.searchParams.get('post_logout_redirect_uri'), `${server.url}/`);
  assert.is((await browser.get('/api/auth/me')).json.user, null);

  // /login is the browser's way in, too.
  const viaLogin = new Client(server.url);
  const again = await handoff(viaLogin, '/login');
  assert.is((await viaLogin.get(again)).status, 302);
  assert.is((await me(viaLogin)).username, 'alice');
});

test('groups decide the administrator role', async () => {
  const browser = new Client(server.url);
  await browser.get(await handoff(browser, '/api/auth/oidc/login', 'boss'));
  const boss = await me(browser);
  assert.ok(boss.roles.includes('admin'), JSON.stringify(boss));
  assert.is((await browser.get('/api/users')).status, 200);
});

test('one person signing in for the first time from several browsers at once (through a cluster, on every instance): one account, every sign-in lands in it', async () => {
  idp.accounts.set('zoë', {
    email: 'zoë+first@example.org',
    email_verified: true,
    name: 'Zoë Ünïcode',
    preferred_username: 'zoë & co',
  });
  // Each browser's trip to the provider first, one after another; the returns all at once, so
  // each instance behind the balancer makes the account (or finds it) at the same moment.
  const browsers = Array.from({ length: 6 }, () => new Client(server.url));
  const backs: string[] = [];
  for (const b of browsers) backs.push(await handoff(b, '/api/auth/oidc/login', 'zoë'));
  idp.userinfoTogether = browsers.length;
  const landed = await Promise.all(browsers.map((b, i) => b.get(backs[i]!)));
  idp.userinfoTogether = 0;
  for (const l of landed) {
    assert.is(l.status, 302, l.text.slice(0, 300));
    assert.is(l.headers.get('location'), '/');
  }
  const who = await Promise.all(browsers.map((b) => me(b)));
  assert.equal(new Set(who.map((u) => u.id)).size, 1, JSON.stringify(who));
  assert.is(who[0]!.username, 'zoë-&-co');
  const admin = await signIn(server, ADMIN.username, ADMIN.password);
  const users = (await admin.get('/api/users')).json.users as { username: string; email: string | null }[];
  assert.equal(
    users.filter((u) => u.username.startsWith('zoë') || u.email === 'zoë+first@example.org').map((u) => u.username),
    ['zoë-&-co'],
  );
});

test('a spoiled state, another browser, an unsigned ID token and a slow provider are refused; no session', async () => {
  const a = new Client(server.url);
  const back = await handoff(a, '/api/auth/oidc/login');
  const spoiled = back.replace(/state=[^&]+/, 'state=not-the-state');
  refused(await a.get(spoiled), 400, 'OIDC_STATE_INVALID');
  // A browser coming back from the provider gets a page (same status, message, request id), not JSON.
  const page = await a.get(spoiled, { accept: 'text/html,application/xhtml+xml', 'sec-fetch-mode': 'navigate' });
  assert.is(page.status, 400);
  assert.match(page.headers.get('content-type')!, /^text\/html/);
  assert.match(page.headers.get('content-security-policy')!, /default-src 'none'/);
  const requestId = page.headers.get('x-request-id')!;
  assert.ok(requestId && page.text.includes(requestId), page.text);
  assert.match(page.text, /<a href="\/">Back to the sign-in screen<\/a>/);
  assert.not.match(page.text, /<script/i);
  // The right state carried to another browser (no binding cookie) signs nobody in.
  const thief = new Client(server.url);
  const b = new Client(server.url);
  const backB = await handoff(b, '/api/auth/oidc/login');
  refused(await thief.get(backB), 400, 'OIDC_STATE_INVALID');
  assert.is((await thief.get('/api/auth/me')).json.user, null);

  idp.tokenMode = 'unsigned';
  const c = new Client(server.url);
  refused(await c.get(await handoff(c, '/api/auth/oidc/login')), 502, 'OIDC_PROVIDER_ERROR');
  assert.is((await c.get('/api/auth/me')).json.user, null);

  idp.tokenMode = 'wrong-key';
  const d = new Client(server.url);
  refused(await d.get(await handoff(d, '/api/auth/oidc/login')), 502, 'OIDC_PROVIDER_ERROR');

  idp.tokenMode = 'slow';
  const e = new Client(server.url);
  refused(await e.get(await handoff(e, '/api/auth/oidc/login')), 503, 'OIDC_PROVIDER_UNAVAILABLE');
  assert.is((await e.get('/api/auth/me')).json.user, null);
  refused(await new Client(server.url).get('/api/auth/oidc/login?prompt=never'), 400);
});

function pkce() {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function mobileCode(query: string): Promise<URL> {
  const sheet = new Client(server.url);
  const back = await handoff(sheet, `/api/auth/oidc/mobile/login?${query}`);
  assert.ok(back.startsWith('/api/auth/oidc/mobile/complete?'), back);
  const done = await sheet.get(back);
  assert.is(done.status, 302, done.text);
  return new URL(done.headers.get('location')!);
}

test('the native app bridge: mobile/login → provider → mobile/complete → exchange; the code is single use', async () => {
  const { verifier, challenge } = pkce();
  // No redirect_uri: the allow-list's first entry.
  const to = await mobileCode(`code_challenge=${challenge}&code_challenge_method=S256`);
  assert.is(`${to.protocol}//${to.host}${to.pathname}`, 'nextexplorer://oidc-callback');
  const code = to.searchParams.get('code');
  assert.ok(code, to.href);
  const app = new Client(server.url);
  const exchanged = await app.post('/api/auth/oidc/exchange', { code, code_verifier: verifier });
  assert.is(exchanged.status, 200, exchanged.text);
  assert.is(exchanged.json.user.username, 'alice');
  assert.ok(app.cookies.get('connect.sid'));
  assert.is((await me(app)).username, 'alice');
  refused(
    await new Client(server.url).post('/api/auth/oidc/exchange', { code, code_verifier: verifier }),
    401,
    'OIDC_EXCHANGE_REJECTED',
  );

  // A wrong verifier spends the code too.
  const second = pkce();
  const to2 = await mobileCode(
    `code_challenge=${second.challenge}&code_challenge_method=S256&redirect_uri=${encodeURIComponent('myapp://done')}`,
  );
  assert.is(`${to2.protocol}//${to2.host}`, 'myapp://done');
  const code2 = to2.searchParams.get('code')!;
  refused(
    await new Client(server.url).post('/api/auth/oidc/exchange', { code: code2, code_verifier: verifier }),
    401,
    'OIDC_EXCHANGE_REJECTED',
  );
  refused(
    await new Client(server.url).post('/api/auth/oidc/exchange', { code: code2, code_verifier: second.verifier }),
    401,
    'OIDC_EXCHANGE_REJECTED',
  );

  // A provider failure comes back to the app as `error`.
  idp.tokenMode = 'unsigned';
  const failed = await mobileCode(`code_challenge=${pkce().challenge}&code_challenge_method=S256`);
  assert.is(failed.searchParams.get('code'), null);
  assert.ok(failed.searchParams.get('error'), failed.href);
});

test('mobile/login refuses http(s) and unlisted redirects, and anything but S256', async () => {
  const { challenge } = pkce();
  const anon = new Client(server.url);
  refused(
    await anon.get(
      `/api/auth/oidc/mobile/login?code_challenge=${challenge}&code_challenge_method=S256&redirect_uri=${encodeURIComponent('https://evil.example/cb')}`,
    ),
    400,
  );
  refused(
    await anon.get(
      `/api/auth/oidc/mobile/login?code_challenge=${challenge}&code_challenge_method=S256&redirect_uri=${encodeURIComponent('http://127.0.0.1/cb')}`,
    ),
    400,
  );
  refused(
    await anon.get(
      `/api/auth/oidc/mobile/login?code_challenge=${challenge}&code_challenge_method=S256&redirect_uri=${encodeURIComponent('otherapp://cb')}`,
    ),
    400,
  );
  refused(await anon.get(`/api/auth/oidc/mobile/login?code_challenge=${challenge}&code_challenge_method=plain`), 400);
  refused(await anon.get('/api/auth/oidc/mobile/login?code_challenge_method=S256'), 400);
  refused(await anon.get('/api/auth/oidc/mobile/complete?state=unknown&code=x'), 400, 'OIDC_STATE_INVALID');
});

test('API tokens are refused on the provider rows under /api/auth', async () => {
  const admin = new Client(server.url);
  await admin.post('/api/auth/login', { identifier: 'admin', password: 'admin-password-1' });
  const bearer = new Client(server.url, await issueToken(admin, 'write'));
  for (const [method, path] of [
    ['GET', '/api/auth/oidc/login'],
    ['GET', '/api/auth/oidc/mobile/login'],
    ['GET', '/api/auth/oidc/mobile/complete'],
    ['POST', '/api/auth/oidc/exchange'],
  ] as const) {
    refused(
      await bearer.request(method, path, method === 'POST' ? { code: 'x', code_verifier: 'y' } : undefined),
      403,
      'AUTH_TOKEN_NOT_ALLOWED',
    );
  }
});

test('AUTH_MODE=oidc offers only the provider', async () => {
  await server.restart({ ...env, AUTH_MODE: 'oidc' });
  const anon = new Client(server.url);
  const status = (await anon.get('/api/auth/status')).json;
  assert.equal(status.strategies, { local: false, passkey: false, oidc: true });
  assert.is(status.authMode, 'oidc');
  refused(
    await anon.post('/api/auth/login', { identifier: 'admin', password: 'admin-password-1' }),
    403,
    'AUTH_METHOD_DISABLED',
  );
  refused(await anon.post('/api/auth/login/passkey/start'), 403, 'AUTH_METHOD_DISABLED');
  const browser = new Client(server.url);
  await browser.get(await handoff(browser, '/login'));
  assert.is((await me(browser)).username, 'alice');
});

test.run();
