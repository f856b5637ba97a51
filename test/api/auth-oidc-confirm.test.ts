// A single-sign-on account has no password here: making an API token, removing a passkey or (an
// administrator) switching the terminal on is proved by a sign-in with the provider (or a passkey) within AUTH_CONFIRM_MINUTES. Through a real
// provider (oidc-provider on loopback) and the real routes: just signed in, it works; the sign-in
// aged past the window, 403 AUTH_CONFIRM_REQUIRED and nothing is made or removed (whatever
// password the caller sends); signed in with the provider again, it works.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { me, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { startIdp, type TestIdp } from '../support/oidc-idp.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let idp: TestIdp;
/** Passkeys are bound to a host name: the browser's address is localhost, not 127.0.0.1. */
let base: string;
const WHO = 'zoë-müller & co';

test.before(async () => {
  server = await startServer();
  base = server.url.replace('127.0.0.1', 'localhost');
  idp = await startIdp([`${base}/callback`]);
  idp.accounts.set('zoe', {
    email: 'zoe@example.org',
    email_verified: true,
    name: 'Zoë Müller',
    preferred_username: WHO,
  });
  await setupAdmin(server);
  await server.restart({
    OIDC_ENABLED: 'true',
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: idp.clientId,
    OIDC_CLIENT_SECRET: idp.clientSecret,
    OIDC_SCOPES: 'openid profile email',
    OIDC_TOKEN_URL: idp.tokenProxyUrl,
    OIDC_USERINFO_URL: idp.userinfoProxyUrl,
    AUTH_CONFIRM_MINUTES: '10',
  });
});
test.after(async () => {
  await server.close();
  await idp.close();
  removeDirs(server.dirs);
});

/** A browser signed in through the provider: our hand-off, the provider's pages, back to /callback. */
async function signInThroughProvider(): Promise<Client> {
  idp.nextAccount = 'zoe';
  const browser = new Client(base);
  const out = await browser.get('/api/auth/oidc/login');
  assert.is(out.status, 302, out.text);
  const back = await idp.browse(out.headers.get('location')!, base);
  const landed = await browser.get(back.pathname + back.search);
  assert.is(landed.status, 302, landed.text);
  return browser;
}

test('a single-sign-on account makes a token or removes a passkey only within AUTH_CONFIRM_MINUTES of signing in with the provider', async () => {
  const zoe = await signInThroughProvider();
  const account = await me(zoe);
  assert.is(account.username, 'zoë-müller-&-co', 'spaces become dashes in a username');
  // A passkey of hers (a session through the provider cannot add one — PASSWORD_SESSION_REQUIRED —
  // so the row is written as a registration from a password session would have written it).
  const passkeyId = 'pk-zoe-1';
  await server.withDatabase((db) =>
    db.run(
      `INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, transports, device_type, backed_up, name, created_at, rp_id)
       VALUES (?, ?, ?, ?, 0, '[]', 'singleDevice', 0, ?, ?, 'localhost')`,
      [
        passkeyId,
        account.id,
        'Y3JlZGVudGlhbC16b2U',
        new Uint8Array([1, 2, 3]),
        'Zoë’s "Handy" #1 📱',
        new Date().toISOString(),
      ],
    ),
  );
  assert.is((await zoe.get('/api/auth/passkeys')).json.passkeys.length, 1);
  const tokenBody = { name: 'Sync & backup — nightly', scope: 'read', expiresInDays: null };
  // Just signed in with the provider: that sign-in is the proof.
  const first = await zoe.post('/api/auth/tokens', tokenBody);
  assert.is(first.status, 201, first.text);

  // Past the window (the sign-in aged in the database): refused, nothing made or removed, whatever
  // the caller sends as a password — she has none here.
  await server.withDatabase((db) =>
    db.run('UPDATE sessions SET created_at = ? WHERE user_id = ?', [
      new Date(Date.now() - 11 * 60_000).toISOString(),
      account.id,
    ]),
  );
  const tokensBefore = (await zoe.get('/api/auth/tokens')).json;
  assert.is(tokensBefore.tokens.length, 1, JSON.stringify(tokensBefore));
  const late = await zoe.post('/api/auth/tokens', { ...tokenBody, password: 'anything she types' });
  assert.is(late.status, 403, late.text);
  assert.is(envelope(late).code, 'AUTH_CONFIRM_REQUIRED');
  assert.ok(envelope(late).requestId);
  const lateRemove = await zoe.request('DELETE', `/api/auth/passkeys/${passkeyId}`, {});
  assert.is(lateRemove.status, 403, lateRemove.text);
  assert.is(envelope(lateRemove).code, 'AUTH_CONFIRM_REQUIRED');
  assert.equal((await zoe.get('/api/auth/tokens')).json, tokensBefore);
  assert.is((await zoe.get('/api/auth/passkeys')).json.passkeys.length, 1);
  // The session itself still works for everything else: only the confirmation is asked.
  assert.is((await me(zoe)).id, account.id);

  // Signed in with the provider again: within the window, both work.
  const again = await signInThroughProvider();
  assert.is((await me(again)).id, account.id);
  const second = await again.post('/api/auth/tokens', tokenBody);
  assert.is(second.status, 201, second.text);
  assert.is((await again.get('/api/auth/tokens')).json.tokens.length, 2);
  const removed = await again.request('DELETE', `/api/auth/passkeys/${passkeyId}`, {});
  assert.is(removed.status, 204, removed.text);
  assert.is((await again.get('/api/auth/passkeys')).json.passkeys.length, 0);
});

test('a single-sign-on administrator switches the terminal on only within AUTH_CONFIRM_MINUTES of signing in', async () => {
  const zoe = await signInThroughProvider();
  const account = await me(zoe);
  // An administrator (as OIDC_ADMIN_GROUPS would make her), her session kept across the restart.
  await server.withDatabase((db) => db.run(`UPDATE users SET roles = '["user","admin"]' WHERE id = ?`, [account.id]));
  const patch = (c: Client, enabled: boolean) =>
    c.patch('/api/settings', { terminal: { enabled, password: 'anything she types' } }, { origin: base });
  const on = await patch(zoe, true);
  assert.is(on.status, 200, on.text);
  assert.equal(on.json.terminal, { enabled: true, setBy: null });
  assert.is((await patch(zoe, false)).status, 200);

  // Past the window: refused, the terminal stays off — a stolen hours-old session proves nothing.
  await server.withDatabase((db) =>
    db.run('UPDATE sessions SET created_at = ? WHERE user_id = ?', [
      new Date(Date.now() - 11 * 60_000).toISOString(),
      account.id,
    ]),
  );
  const late = await patch(zoe, true);
  assert.is(late.status, 403, late.text);
  assert.is(envelope(late).code, 'AUTH_CONFIRM_REQUIRED');
  assert.ok(envelope(late).requestId);
  assert.equal((await zoe.get('/api/settings')).json.terminal, { enabled: false, setBy: null });
});

test.run();
