// Passkeys through HTTP with a software authenticator: register (session opened with the
// password), list, rename, sign in without a name; each refusal at sign-in is the same 401
// AUTH_PASSKEY_REJECTED (other origin, other RP id, bad signature, unknown credential, another
// account's user handle, a reused challenge, a registration challenge); a passkey that did not
// verify its user on an account with a second factor holds the sign-in for the code; removal
// (password, never the last way in), administrator removal; API tokens refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, issueToken, me, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { SoftAuthenticator } from '../support/soft-authenticator.ts';

let server: TestServer;
let base: string;
let admin: Client;

test.before(async () => {
  server = await startServer();
  // A browser allows passkeys on localhost (a secure context) and never on a bare IP address.
  base = server.url.replace('127.0.0.1', 'localhost');
  admin = await setupAdmin(server);
  admin = new Client(base);
  await admin.post('/api/auth/login', { identifier: 'admin', password: 'admin-password-1' });
});
test.after(async () => {
  await server.close();
  removeDirs(server.dirs);
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

async function register(client: Client, auth: SoftAuthenticator, name?: string, lies = {}) {
  const start = await client.post('/api/auth/passkeys/register/start');
  assert.is(start.status, 200, start.text);
  assert.equal(start.json.origins, [base]);
  assert.is(start.json.options.rp.id, 'localhost');
  return client.post('/api/auth/passkeys/register/finish', {
    response: auth.create(start.json.options, lies),
    ...(name ? { name } : {}),
  });
}

async function signInWith(auth: SoftAuthenticator, lies = {}, credential = auth.credentials.at(-1)!) {
  const browser = new Client(base);
  const start = await browser.post('/api/auth/login/passkey/start');
  assert.is(start.status, 200, start.text);
  assert.match(start.json.options.challenge, /^[A-Za-z0-9_-]+$/);
  const finish = await browser.post('/api/auth/login/passkey/finish', {
    response: auth.get(start.json.options, credential, lies),
  });
  return { browser, finish, options: start.json.options };
}

test('register, list, rename, and sign in with a passkey', async () => {
  const gina = await createUser(admin, server, { username: 'gina', password: 'gina-password-1' });
  const client = new Client(base);
  client.cookies = gina.cookies;
  const auth = new SoftAuthenticator(base);
  const made = await register(client, auth, 'Laptop');
  assert.is(made.status, 201, made.text);
  assert.is(made.json.passkey.name, 'Laptop');
  const listed = (await client.get('/api/auth/passkeys')).json.passkeys;
  assert.is(listed.length, 1);
  assert.is(listed[0].id, made.json.passkey.id);
  const renamed = await client.patch(`/api/auth/passkeys/${made.json.passkey.id}`, { name: 'Work laptop' });
  assert.is(renamed.json.passkey.name, 'Work laptop');
  refused(await client.patch('/api/auth/passkeys/nope', { name: 'x' }), 404);

  const { browser, finish } = await signInWith(auth);
  assert.is(finish.status, 200, finish.text);
  assert.is(finish.json.user.username, 'gina');
  assert.is((await me(browser)).username, 'gina');
  assert.type((await client.get('/api/auth/passkeys')).json.passkeys[0].lastUsedAt, 'string');
  // A passkey session is not a password session: it may not add a second factor or another passkey.
  refused(await browser.post('/api/auth/totp/start'), 403, 'PASSWORD_SESSION_REQUIRED');
  refused(await browser.post('/api/auth/passkeys/register/start'), 403, 'PASSWORD_SESSION_REQUIRED');
});

test('every refusal at sign-in is 401 AUTH_PASSKEY_REJECTED and opens no session', async () => {
  const hank = await createUser(admin, server, { username: 'hank', password: 'hank-password-1' });
  const client = new Client(base);
  client.cookies = hank.cookies;
  const auth = new SoftAuthenticator(base);
  assert.is((await register(client, auth)).status, 201);
  const ivy = await createUser(admin, server, { username: 'ivy', password: 'ivy-password-1' });
  const ivyClient = new Client(base);
  ivyClient.cookies = ivy.cookies;
  const ivyAuth = new SoftAuthenticator(base);
  assert.is((await register(ivyClient, ivyAuth)).status, 201);

  const cases: [string, () => Promise<{ finish: any; browser: Client }>][] = [
    ['another origin', () => signInWith(auth, { origin: 'https://evil.example' })],
    ['another RP id', () => signInWith(auth, { rpId: 'evil.example' })],
    ['a create answer in a get ceremony', () => signInWith(auth, { type: 'webauthn.create' })],
    ["another account's user handle", () => signInWith(auth, { userHandle: ivyAuth.credentials[0]!.userHandle })],
    [
      'an unknown credential',
      () =>
        signInWith(
          new SoftAuthenticator(base),
          {},
          (() => {
            const a = new SoftAuthenticator(base);
            a.create({ challenge: 'x', user: { id: 'eA' } });
            return a.credentials[0]!;
          })(),
        ),
    ],
    [
      'a bad signature',
      async () => {
        const browser = new Client(base);
        const start = (await browser.post('/api/auth/login/passkey/start')).json;
        const response = auth.get(start.options);
        const sig = Buffer.from(response.response.signature, 'base64url');
        sig[sig.length - 1]! ^= 0xff;
        response.response.signature = sig.toString('base64url');
        return { browser, finish: await browser.post('/api/auth/login/passkey/finish', { response }) };
      },
    ],
    [
      'a challenge nobody drew',
      async () => {
        const browser = new Client(base);
        return {
          browser,
          finish: await browser.post('/api/auth/login/passkey/finish', {
            response: auth.get({ challenge: 'bm90LWEtY2hhbGxlbmdl' }),
          }),
        };
      },
    ],
    [
      'a registration challenge',
      async () => {
        const start = (await client.post('/api/auth/passkeys/register/start')).json;
        const browser = new Client(base);
        return {
          browser,
          finish: await browser.post('/api/auth/login/passkey/finish', {
            response: auth.get({ challenge: start.options.challenge }),
          }),
        };
      },
    ],
  ];
  for (const [what, attempt] of cases) {
    const { finish, browser } = await attempt();
    assert.is(finish.status, 401, `${what}: ${finish.text}`);
    assert.is(envelope(finish).code, 'AUTH_PASSKEY_REJECTED', what);
    assert.is((await browser.get('/api/auth/me')).json.user, null, what);
  }

  // A challenge is good for one ceremony: the second finish with it is refused, even with a right answer.
  const browser = new Client(base);
  const start = (await browser.post('/api/auth/login/passkey/start')).json;
  assert.is((await browser.post('/api/auth/login/passkey/finish', { response: auth.get(start.options) })).status, 200);
  const reused = await new Client(base).post('/api/auth/login/passkey/finish', { response: auth.get(start.options) });
  refused(reused, 401, 'AUTH_PASSKEY_REJECTED');
});

test('registration refusals leave nothing behind', async () => {
  const jo = await createUser(admin, server, { username: 'jo', password: 'jo-password-1' });
  const client = new Client(base);
  client.cookies = jo.cookies;
  const auth = new SoftAuthenticator(base);
  refused(await register(client, auth, undefined, { origin: 'https://evil.example' }), 400, 'PASSKEY_INVALID');
  refused(await register(client, auth, undefined, { rpId: 'evil.example' }), 400, 'PASSKEY_INVALID');
  // Another account's registration challenge.
  const other = (await admin.post('/api/auth/passkeys/register/start')).json;
  refused(
    await client.post('/api/auth/passkeys/register/finish', { response: auth.create(other.options) }),
    400,
    'PASSKEY_CHALLENGE_INVALID',
  );
  assert.equal((await client.get('/api/auth/passkeys')).json.passkeys, []);
});

test('a passkey without user verification on an account with a second factor asks for the code', async () => {
  const kim = await createUser(admin, server, { username: 'kim', password: 'kim-password-1' });
  const client = new Client(base);
  client.cookies = kim.cookies;
  const auth = new SoftAuthenticator(base);
  assert.is((await register(client, auth)).status, 201);
  const started = (await client.post('/api/auth/totp/start')).json;
  const { generateSync } = await import('otplib');
  const confirmed = await client.post('/api/auth/totp/confirm', {
    code: generateSync({ secret: started.secret, epoch: Math.floor(Date.now() / 1000) }),
  });
  assert.is(confirmed.status, 200, confirmed.text);
  const held = await signInWith(auth, { userVerified: false });
  assert.equal(held.finish.json, { totpRequired: true });
  assert.is((await held.browser.get('/api/auth/me')).json.user, null);
  const done = await held.browser.post('/api/auth/login/totp', { code: confirmed.json.recoveryCodes[0] });
  assert.is(done.status, 200, done.text);
  // A verified passkey proves two factors.
  const verified = await signInWith(auth);
  assert.is(verified.finish.json.user.username, 'kim');
});

test('removal: password first, never the last way in; administrator removes all', async () => {
  const lee = await createUser(admin, server, { username: 'lee', password: 'lee-password-1' });
  const client = new Client(base);
  client.cookies = lee.cookies;
  const auth = new SoftAuthenticator(base);
  const one = (await register(client, auth, 'One')).json.passkey;
  const two = (await register(client, auth, 'Two')).json.passkey;
  refused(await client.delete(`/api/auth/passkeys/${one.id}`, { password: 'wrong-password' }), 401);
  refused(await client.delete(`/api/auth/passkeys/${one.id}`, {}), 401);
  assert.is((await client.delete(`/api/auth/passkeys/${one.id}`, { password: 'lee-password-1' })).status, 204);
  refused(await client.delete(`/api/auth/passkeys/${one.id}`, { password: 'lee-password-1' }), 404);
  // Another account's passkey is not found.
  const { id: leeId } = await me(client);
  refused(await admin.delete(`/api/auth/passkeys/${two.id}`, { password: 'admin-password-1' }), 404);
  refused(await client.delete(`/api/users/${leeId}/passkeys`), 403);
  const removed = await admin.delete(`/api/users/${leeId}/passkeys`);
  assert.equal(removed.json, { removed: 1 });
  assert.equal((await client.get('/api/auth/passkeys')).json.passkeys, []);
  refused(await admin.delete('/api/users/no-such-account/passkeys'), 404);
});

test('API tokens are refused on every passkey row', async () => {
  const token = await issueToken(admin, 'write');
  const bearer = new Client(base, token);
  const { id } = await me(admin);
  for (const [method, path] of [
    ['GET', '/api/auth/passkeys'],
    ['POST', '/api/auth/passkeys/register/start'],
    ['POST', '/api/auth/passkeys/register/finish'],
    ['PATCH', '/api/auth/passkeys/x'],
    ['DELETE', '/api/auth/passkeys/x'],
    ['POST', '/api/auth/login/passkey/start'],
    ['POST', '/api/auth/login/passkey/finish'],
    ['DELETE', `/api/users/${id}/passkeys`],
    ['GET', '/api/Auth/PASSKEYS/'],
  ] as const) {
    refused(
      await bearer.request(method, path, method === 'GET' ? undefined : { name: 'x', response: {} }),
      403,
      'AUTH_TOKEN_NOT_ALLOWED',
    );
  }
});

test.run();
