// The second factor through HTTP: setup (start → confirm with the first code → ten recovery
// codes once), sign-in held after the password with no session until the code, codes from
// otplib checked against an independent generator (oathtool), one code per time step, a
// recovery code spent once, wrong codes counted against the password's lockout, regenerated
// and removed (by the owner with the password, by an administrator), and API tokens refused.
import { execFileSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateSync } from 'otplib';
import { ADMIN, createUser, issueToken, me, setupAdmin, signIn } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let admin: Client;
let token: string;

test.before(async () => {
  server = await startServer({ env: { AUTH_MAX_FAILED: '4', AUTH_LOCK_MINUTES: '15' } });
  admin = await setupAdmin(server);
  token = await issueToken(admin, 'write');
});
test.after(async () => {
  await server.close();
  removeDirs(server.dirs);
});

/** The code for `epoch` from otplib, which must equal oathtool's (RFC 6238, SHA-1, 30 s, 6 digits). */
function code(secret: string, epoch: number): string {
  const mine = generateSync({ secret, epoch });
  const theirs = execFileSync('oathtool', ['--totp', '-b', '-N', `@${epoch}`, secret], { encoding: 'utf8' }).trim();
  assert.is(mine, theirs, `otplib and oathtool disagree at ${epoch}`);
  return mine;
}

/** Waits, when needed, until at least 15 seconds of the current 30-second step are left, and returns the step's start. */
async function freshStep(): Promise<number> {
  const into = (Date.now() / 1000) % 30;
  // A wait on the clock itself, to the next step's start: the server's codes follow real time.
  if (into > 15) await new Promise((r) => setTimeout(r, (30 - into) * 1000 + 50));
  return Math.floor(Date.now() / 30_000) * 30;
}

function refused(
  answer: { status: number; text: string; headers: Headers; json: any },
  status: number,
  code?: string,
): void {
  assert.is(answer.status, status, answer.text.slice(0, 300));
  const e = envelope(answer);
  if (code) assert.is(e.code, code, e.message);
}

async function turnOn(client: Client, step: number): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await client.post('/api/auth/totp/start');
  assert.is(started.status, 200, started.text);
  const { secret, uri } = started.json;
  assert.match(secret, /^[A-Z2-7]+=*$/);
  const parsed = new URL(uri);
  assert.is(parsed.protocol, 'otpauth:');
  assert.is(parsed.searchParams.get('secret'), secret);
  // Pending: nothing is asked of the account yet.
  assert.equal((await client.get('/api/auth/totp')).json, {
    enabled: false,
    pending: true,
    confirmedAt: null,
    recoveryCodesLeft: 0,
  });
  refused(
    await client.post('/api/auth/totp/confirm', { code: code(secret, step - 60 * 30) }),
    401,
    'AUTH_INVALID_TOTP_CODE',
  );
  const confirmed = await client.post('/api/auth/totp/confirm', { code: code(secret, step - 30) });
  assert.is(confirmed.status, 200, confirmed.text);
  assert.is(confirmed.json.recoveryCodes.length, 10);
  assert.is(new Set(confirmed.json.recoveryCodes).size, 10);
  const status = (await client.get('/api/auth/totp')).json;
  assert.is(status.enabled, true);
  assert.is(status.pending, false);
  assert.is(status.recoveryCodesLeft, 10);
  assert.type(status.confirmedAt, 'string');
  return { secret, recoveryCodes: confirmed.json.recoveryCodes };
}

test('setup, then a password sign-in is held until a right code; one code per time step', async () => {
  const step = await freshStep();
  const carol = await createUser(admin, server, { username: 'carol', password: 'carol-password-1' });
  const { secret } = await turnOn(carol, step);
  // A second setup while on is refused.
  refused(await carol.post('/api/auth/totp/start'), 409, 'TOTP_ALREADY_ON');

  const browser = new Client(server.url);
  const held = await browser.post('/api/auth/login', { identifier: 'carol', password: 'carol-password-1' });
  assert.is(held.status, 200, held.text);
  assert.equal(held.json, { totpRequired: true });
  // The device cookie is the second step's: a held sign-in opened no session yet.
  assert.not.ok(browser.cookies.has('burrow_device'), 'no device cookie while held');
  // No session before the second step.
  assert.is((await browser.get('/api/auth/me')).json.user, null);
  assert.is((await browser.get('/api/auth/status')).json.totpPending, true);
  refused(await browser.get('/api/volumes'), 401);
  // The confirm's code (step - 30) is used up; the current step's code signs in.
  refused(await browser.post('/api/auth/login/totp', { code: code(secret, step - 30) }), 401, 'AUTH_INVALID_TOTP_CODE');
  const now = code(secret, step);
  const done = await browser.post('/api/auth/login/totp', { code: now });
  assert.is(done.status, 200, done.text);
  assert.is(done.json.user.username, 'carol');
  assert.is(done.json.usedRecoveryCode, false);
  assert.match(browser.cookies.get('burrow_device') ?? '', /^[A-Za-z0-9_-]{43}$/, 'the second step sets the device');
  assert.is((await me(browser)).username, 'carol');
  assert.is((await browser.get('/api/volumes')).status, 200);

  // The same code again (another sign-in, same time step): refused.
  const again = new Client(server.url);
  assert.equal((await again.post('/api/auth/login', { identifier: 'carol', password: 'carol-password-1' })).json, {
    totpRequired: true,
  });
  refused(await again.post('/api/auth/login/totp', { code: now }), 401, 'AUTH_INVALID_TOTP_CODE');
  assert.is((await again.get('/api/auth/me')).json.user, null);
  // The next step's code (within the clock-drift window) works once.
  const next = await again.post('/api/auth/login/totp', { code: code(secret, step + 30) });
  assert.is(next.status, 200, next.text);

  // A second step without a held sign-in is refused the same way.
  refused(await new Client(server.url).post('/api/auth/login/totp', { code: '123456' }), 401, 'AUTH_INVALID_TOTP_CODE');
});

test('a recovery code signs in once; new codes replace the old; the owner turns it off with the password', async () => {
  const step = await freshStep();
  const dave = await createUser(admin, server, { username: 'dave', password: 'dave-password-1' });
  const { recoveryCodes } = await turnOn(dave, step);
  const browser = new Client(server.url);
  await browser.post('/api/auth/login', { identifier: 'dave', password: 'dave-password-1' });
  const used = await browser.post('/api/auth/login/totp', { code: recoveryCodes[0]!.toUpperCase() });
  assert.is(used.status, 200, used.text);
  assert.is(used.json.usedRecoveryCode, true);
  assert.is(used.json.recoveryCodesLeft, 9);

  const twice = new Client(server.url);
  await twice.post('/api/auth/login', { identifier: 'dave', password: 'dave-password-1' });
  refused(await twice.post('/api/auth/login/totp', { code: recoveryCodes[0]! }), 401, 'AUTH_INVALID_TOTP_CODE');

  refused(await dave.post('/api/auth/totp/recovery-codes', { password: 'not-the-password' }), 401);
  const fresh = await dave.post('/api/auth/totp/recovery-codes', { password: 'dave-password-1' });
  assert.is(fresh.status, 200, fresh.text);
  assert.is(fresh.json.recoveryCodes.length, 10);
  // The old ones stopped working.
  refused(await twice.post('/api/auth/login/totp', { code: recoveryCodes[1]! }), 401, 'AUTH_INVALID_TOTP_CODE');
  assert.is((await twice.post('/api/auth/login/totp', { code: fresh.json.recoveryCodes[0] })).status, 200);

  refused(await dave.delete('/api/auth/totp', { password: 'wrong-password' }), 401);
  assert.is((await dave.delete('/api/auth/totp', { password: 'dave-password-1' })).status, 204);
  assert.equal((await dave.get('/api/auth/totp')).json, {
    enabled: false,
    pending: false,
    confirmedAt: null,
    recoveryCodesLeft: 0,
  });
  const plain = await new Client(server.url).post('/api/auth/login', {
    identifier: 'dave',
    password: 'dave-password-1',
  });
  assert.ok(plain.json.user, plain.text);
});

test('wrong codes count against the same lockout as wrong passwords', async () => {
  const step = await freshStep();
  const erin = await createUser(admin, server, { username: 'erin', password: 'erin-password-1' });
  const { secret } = await turnOn(erin, step);
  const browser = new Client(server.url);
  // One wrong password, then wrong codes: the fourth failure locks the account (AUTH_MAX_FAILED=4).
  refused(await browser.post('/api/auth/login', { identifier: 'erin', password: 'nope-nope-nope' }), 401);
  assert.equal((await browser.post('/api/auth/login', { identifier: 'erin', password: 'erin-password-1' })).json, {
    totpRequired: true,
  });
  for (let i = 0; i < 3; i++)
    refused(
      await browser.post('/api/auth/login/totp', { code: '000000' === code(secret, step) ? '111111' : '000000' }),
      401,
      'AUTH_INVALID_TOTP_CODE',
    );
  // Locked now: even the right code is refused, and so is the right password.
  refused(await browser.post('/api/auth/login/totp', { code: code(secret, step) }), 429, 'AUTH_ACCOUNT_LOCKED');
  refused(
    await new Client(server.url).post('/api/auth/login', { identifier: 'erin', password: 'erin-password-1' }),
    429,
    'AUTH_ACCOUNT_LOCKED',
  );
  assert.is((await browser.get('/api/auth/me')).json.user, null);
});

test('with the second factor on, a right password at a confirmation in a signed-in session clears the count as at sign-in', async () => {
  const step = await freshStep();
  const frank = await createUser(admin, server, {
    username: 'frank.müller',
    email: 'frank@example.org',
    password: 'Frank & "Müller" #1 +🔑',
  });
  await turnOn(frank, step);
  const confirm = (password: string) =>
    frank.post('/api/auth/tokens', { name: 'Kalender & Fotos – #3', scope: 'read', expiresInDays: 7, password });
  const wrong = async (n: number) => {
    for (let i = 0; i < n; i++) refused(await confirm(`not it ${i}`), 401, 'AUTH_INVALID_CREDENTIALS');
  };
  // Three wrong of four (AUTH_MAX_FAILED=4), then his: the session proved the second factor, so
  // his password clears the count here (at sign-in it does not: the code is still to come).
  await wrong(3);
  assert.is((await confirm('Frank & "Müller" #1 +🔑')).status, 201);
  await wrong(3);
  const after = await confirm('Frank & "Müller" #1 +🔑');
  assert.is(after.status, 201, after.text);
  // A fourth wrong in a row still locks, as at sign-in.
  await wrong(4);
  refused(await confirm('Frank & "Müller" #1 +🔑'), 429, 'AUTH_ACCOUNT_LOCKED');
});

test("an administrator removes an account's second factor", async () => {
  const step = await freshStep();
  const fay = await createUser(admin, server, { username: 'fay', password: 'fay-password-1' });
  await turnOn(fay, step);
  const { id } = await me(fay);
  refused(await fay.delete(`/api/users/${id}/two-factor`), 403);
  const removed = await admin.delete(`/api/users/${id}/two-factor`);
  assert.is(removed.status, 200, removed.text);
  assert.equal(removed.json, { removed: true });
  const plain = await new Client(server.url).post('/api/auth/login', { identifier: 'fay', password: 'fay-password-1' });
  assert.is(plain.json.user?.username, 'fay', plain.text);
  refused(await admin.delete('/api/users/no-such-account/two-factor'), 404);
});

test('the status advertises passkeys beside passwords', async () => {
  const status = (await admin.get('/api/auth/status')).json;
  assert.is(status.strategies.passkey, true);
});

test('API tokens are refused on every second-factor row', async () => {
  const bearer = new Client(server.url, token);
  const { id } = await me(admin);
  for (const [method, path] of [
    ['GET', '/api/auth/totp'],
    ['POST', '/api/auth/totp/start'],
    ['POST', '/api/auth/totp/confirm'],
    ['POST', '/api/auth/totp/recovery-codes'],
    ['DELETE', '/api/auth/totp'],
    ['POST', '/api/auth/login/totp'],
    ['DELETE', `/api/users/${id}/two-factor`],
    ['GET', '/api/AUTH/Totp/'],
  ] as const) {
    refused(
      await bearer.request(method, path, method === 'GET' ? undefined : { code: '123456', password: ADMIN.password }),
      403,
      'AUTH_TOKEN_NOT_ALLOWED',
    );
  }
  // Nothing changed.
  assert.is((await admin.get('/api/auth/totp')).json.pending, false);
});

test.run();
