// LDAP sign-in against a real OpenLDAP (slapd, started here with its own database, a test CA,
// people, groups and a nested group), through the real routes: StartTLS and LDAPS with the CA
// given, the service account's password from a file; the account made at the first sign-in
// (with its personal folder), groups from the group search followed through a nested group and
// mapped to Burrow groups, the admin role from a directory group — given and taken away between
// two sign-ins; a wrong password, an unknown name, an empty password and filter injections are
// the same 401; a disabled person is refused at the next sign-in — with a password or a passkey,
// which asks the directory too — their sessions end and their API tokens are revoked; TOTP is
// still asked after the directory's password; the directory stopped answers 503 LDAP_UNAVAILABLE
// while the local administrator still signs in; the password is in neither database nor log;
// `burrow doctor` checks the directory.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { generateSync } from 'otplib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, issueToken, me, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { waitFor } from '../support/wait.ts';
import { SoftAuthenticator } from '../support/soft-authenticator.ts';
import { removeDirs, serverCommand, startServer, type TestServer } from '../support/server.ts';
import {
  GROUPS,
  groupLdif,
  ldifLine,
  PEOPLE,
  personDn,
  personLdif,
  SERVICE_DN,
  SERVICE_PASSWORD,
  startDirectory,
  SUFFIX,
  type TestDirectory,
} from '../support/slapd.ts';

const ANNA = { uid: 'anna.lindqvist', password: 'Sommar & Sol 2024! +#%' };
const JOERG = { uid: 'jörg.müller', password: 'Grüße aus Köln 🐻' };
const KIM = { uid: 'kim', password: 'kim: "quoted" pass' };
const BOB = { uid: 'bob', password: "bob's password" };

const person = (p: { uid: string; password: string }, cn: string, mail: string) => personLdif({ ...p, cn, mail });
const group = groupLdif;
const dnOf = personDn;
const attr = ldifLine;

let directory: TestDirectory;
let server: TestServer;
let admin: Client;
let env: Record<string, string>;
/** Bob's session from before he was disabled. */
let bobFirst: Client;
/** Anna's passkey, and the address passkeys work at (a name, not 127.0.0.1). */
let annaKey: SoftAuthenticator;
let passkeyBase: string;

async function passkeySignIn(): Promise<{ status: number; text: string; client: Client; code?: string }> {
  const browser = new Client(passkeyBase);
  const start = await browser.post('/api/auth/login/passkey/start');
  assert.is(start.status, 200, start.text);
  const done = await browser.post('/api/auth/login/passkey/finish', { response: annaKey.get(start.json.options) });
  return { status: done.status, text: done.text, client: browser, code: done.json?.error?.code };
}

test.before(async () => {
  directory = await startDirectory(
    [
      `dn: ${PEOPLE}\nobjectClass: organizationalUnit\nou: people\n`,
      `dn: ${GROUPS}\nobjectClass: organizationalUnit\nou: groups\n`,
      person(ANNA, 'Anna Lindqvist', 'anna@example.org'),
      person(JOERG, 'Jörg Müller', 'joerg@example.org'),
      person(KIM, 'Kim Nguyễn', 'kim@example.org'),
      person(BOB, 'Bob Dylan', 'bob@example.org'),
      group('Staff', [dnOf(ANNA), dnOf(JOERG)]),
      // Office holds the Staff group: its people are in Office through it.
      group('Office', [`cn=Staff,${GROUPS}`]),
      group('Burrow Admins', [dnOf(KIM)]),
      group('Band', [dnOf(BOB)]),
    ].join('\n'),
  );
  server = await startServer({ volumes: ['Büro & Familie'] });
  admin = await setupAdmin(server);
  const secretFile = path.join(server.dirs.config, 'ldap bind password');
  fs.writeFileSync(secretFile, SERVICE_PASSWORD + '\n', { mode: 0o600 });
  env = {
    USER_DIR_ENABLED: 'true',
    LDAP_URL: directory.url,
    LDAP_STARTTLS: 'true',
    LDAP_CA_FILE: directory.caFile,
    LDAP_BIND_DN: SERVICE_DN,
    LDAP_BIND_PASSWORD_FILE: secretFile,
    LDAP_USER_BASE: PEOPLE,
    LDAP_USER_FILTER: '(&(objectClass=inetOrgPerson)(uid={username})(!(employeeType=disabled)))',
    LDAP_GROUP_BASE: GROUPS,
    LDAP_GROUP_NESTED: 'true',
    LDAP_GROUP_MAP: `Staff=Staff; cn=office,ou=groups,${SUFFIX}=Office & Co; Band=Band 🎸`,
    LDAP_ADMIN_GROUP: 'burrow admins',
    LDAP_TIMEOUT_MS: '2000',
    // Each row signs in from its own address (rowAddress): what it spends of an address's
    // budgets (60 attempts a minute, 30 failures in 15 minutes) is not the next row's.
    TRUST_PROXY: 'loopback',
  };
  await server.restart(env);
  admin = await signedIn(ADMIN.username, ADMIN.password);
  assert.is((await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 7 } })).status, 200);
});
test.after(async () => {
  await server?.close();
  await directory?.close();
  if (server) removeDirs(server.dirs);
});

/** The address the current row's browsers come from (a documentation range, one per row). */
let row = 0;
test.before.each(() => {
  row += 1;
});
const rowAddress = () => `198.51.100.${row}`;

/** A browser at the current row's address (X-Forwarded-For, through the trusted loopback proxy). */
class AtRowAddress extends Client {
  readonly address = rowAddress();
  override request(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
    return super.request(method, p, body, { 'x-forwarded-for': this.address, ...headers });
  }
}

async function signedIn(identifier: string, password: string): Promise<Client> {
  const c = new AtRowAddress(server.url);
  const answer = await c.post('/api/auth/login', { identifier, password });
  assert.is(answer.status, 200, answer.text);
  return c;
}

/** What the current row's address has spent of a budget: attempts (`login`) or failures (`login-fail`). */
const rowBudget = (kind: 'login' | 'login-fail') =>
  server.withDatabase(
    async (db) =>
      (await db.get<{ count: number }>('SELECT count FROM rate_limits WHERE key = ?', [`${kind}:${rowAddress()}`]))
        ?.count ?? 0,
  );

/**
 * A signed-in account's password confirmations (making a read token named `tokenName`): `confirm`
 * sends one, `wrong(n)` sends n wrong ones (her password and a number), each refused 401.
 */
function confirmations(client: Client, password: string, tokenName: string) {
  const tokenBody = { name: tokenName, scope: 'read', expiresInDays: null };
  const confirm = (given: string) => client.post('/api/auth/tokens', { ...tokenBody, password: given });
  const wrong = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const r = await confirm(`${password} ${i}`);
      assert.is(r.status, 401, r.text);
      assert.is(envelope(r).code, 'AUTH_INVALID_CREDENTIALS');
    }
  };
  return { tokenBody, confirm, wrong };
}

/** The account's lock has passed (its end moved into the past). */
const lockPassed = (id: string) =>
  server.withDatabase(async (db) => {
    await db.run('UPDATE users SET locked_until = ? WHERE id = ?', [new Date(Date.now() - 1000).toISOString(), id]);
  });

async function refusedSignIn(identifier: string, password: string, status = 401, code = 'AUTH_INVALID_CREDENTIALS') {
  const c = new AtRowAddress(server.url);
  const answer = await c.post('/api/auth/login', { identifier, password });
  assert.is(answer.status, status, `${identifier}: ${answer.text}`);
  const e = envelope(answer);
  assert.is(e.code, code);
  assert.ok(e.requestId);
  assert.is((await c.get('/api/auth/me')).json.user, null);
  return e;
}

async function groupsOf(userId: string): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  for (const g of (await admin.get('/api/access/groups')).json.groups)
    for (const m of g.members) if (m.id === userId) out[g.name] = m.source;
  return out;
}

test('first sign-in makes the account with its personal folder; groups through the nested group; the password is kept nowhere', async () => {
  const anna = await signedIn(ANNA.uid, ANNA.password);
  const user = (await anna.get('/api/auth/me')).json.user;
  assert.is(user.username, ANNA.uid);
  assert.is(user.email, 'anna@example.org');
  assert.is(user.displayName, 'Anna Lindqvist');
  assert.equal(user.roles, ['user']);
  assert.equal(await groupsOf(user.id), { Staff: 'ldap', 'Office & Co': 'ldap' });
  // Her personal folder, like any new account's: she writes there.
  const put = await anna.put('/api/editor', { path: 'personal/Notizen – März.md', content: '# Einkauf\n' });
  assert.ok([200, 201].includes(put.status), put.text);
  const listing = await anna.get('/api/browse/personal');
  assert.is(listing.status, 200, listing.text);
  assert.ok(listing.json.items.some((i: { name: string }) => i.name === 'Notizen – März.md'));

  // A name with accents and an emoji password, as typed.
  const joerg = await signedIn(JOERG.uid, JOERG.password);
  assert.is((await me(joerg)).username, JOERG.uid);

  // Neither password is in the database file or in the log.
  await server.restart(env);
  // The file and its WAL: the committed state is both (src/db/database.ts).
  const file = path.join(server.dirs.config, 'burrow.db');
  const db = Buffer.concat([file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)));
  const logs = JSON.stringify(server.logs);
  for (const secret of [ANNA.password, JOERG.password, SERVICE_PASSWORD]) {
    assert.is(db.indexOf(Buffer.from(secret, 'utf8')), -1, 'a password in the database');
    assert.not.ok(logs.includes(secret), 'a password in the log');
  }
  admin = await signedIn(ADMIN.username, ADMIN.password);
  // A directory account adds no local password: the directory's is its password.
  const anna2 = await signedIn(ANNA.uid, ANNA.password);
  assert.is(
    envelope(await anna2.post('/api/auth/password/add', { password: 'a local one 12345' })).code,
    'AUTH_METHOD_DISABLED',
  );
});

test('a wrong password, an unknown name, an empty password: the same 401, nobody signed in, nothing made', async () => {
  const before = (await admin.get('/api/users')).json;
  await refusedSignIn(ANNA.uid, 'Sommar & Sol 2024!');
  await refusedSignIn(ANNA.uid, ANNA.password.toUpperCase());
  await refusedSignIn('nobody.here', ANNA.password);
  const empty = await new Client(server.url).post('/api/auth/login', { identifier: ANNA.uid, password: '' });
  assert.ok([400, 401].includes(empty.status), empty.text);
  assert.is((await new Client(server.url).get('/api/auth/me')).json.user, null);
  assert.equal((await admin.get('/api/users')).json, before);
});

test('filter injection: what a person types is one escaped value — no wildcard, no way around the disabled clause', async () => {
  // Bob is disabled in the directory first (the filter leaves him out).
  bobFirst = await signedIn(BOB.uid, BOB.password);
  directory.modify(`dn: ${dnOf(BOB)}\nchangetype: modify\nadd: employeeType\nemployeeType: disabled\n`);
  // Unescaped, this would read (&…(uid=bob)(|(uid=bob)(!(employeeType=disabled)))) and find him.
  await refusedSignIn('bob)(|(uid=bob', BOB.password);
  await refusedSignIn('bob)(uid=*', BOB.password);
  // Wildcards find nobody: `anna*` is the name "anna*".
  await refusedSignIn('anna*', ANNA.password);
  await refusedSignIn('*)(uid=*', ANNA.password);
  await refusedSignIn('*', ANNA.password);
  await refusedSignIn('anna.lindqvist)(objectClass=*', ANNA.password);
  await refusedSignIn('anna.lindqvist\\00', ANNA.password);
  // The injections did not end Bob's session; his own next sign-in does (below).
  assert.is((await me(bobFirst)).username, 'bob');
});

test('a disabled person is refused at the next sign-in and signed out everywhere; enabled again, they are back', async () => {
  // The earlier test left Bob disabled in the directory, with a live session here.
  const bobRow = (await admin.get('/api/users')).json.users.find((u: { username: string }) => u.username === 'bob');
  assert.ok(bobRow);
  await refusedSignIn(BOB.uid, BOB.password);
  assert.is((await bobFirst.get('/api/auth/me')).json.user, null, 'his earlier session ended');
  const log = (await admin.get('/api/activity?action=auth.ldap-disabled')).json.rows;
  assert.is(log[0].username, 'bob');
  assert.ok(log[0].detail.sessionsEnded >= 1, JSON.stringify(log[0]));
  directory.modify(`dn: ${dnOf(BOB)}\nchangetype: modify\ndelete: employeeType\n`);
  const back = await signedIn(BOB.uid, BOB.password);
  assert.is((await me(back)).id, bobRow.id);
  assert.equal(await groupsOf(bobRow.id), { 'Band 🎸': 'ldap' });
});

test('the periodic directory check: a person disabled or removed in the directory loses their tokens and sessions without signing in; the others keep theirs', async () => {
  // Looked up again every 300 ms here (LDAP_CHECK_INTERVAL_MS; every 15 minutes by default).
  await server.restart({ ...env, LDAP_CHECK_INTERVAL_MS: '300' });
  admin = await signedIn(ADMIN.username, ADMIN.password);
  const ZOE = { uid: "zoë.o'brien-núñez", password: 'Zoë & "Ñ" #1 +🌻' };
  const [dnLine, ...rest] = person(ZOE, "Zoë O'Brien-Núñez", 'zoe@example.org').split('\n');
  directory.modify([dnLine, 'changetype: add', ...rest].join('\n'));
  const withToken = async (p: { uid: string; password: string }) => {
    const session = await signedIn(p.uid, p.password);
    const secret = await issueToken(session, 'write', { password: p.password, name: `Sync – ${p.uid} & #1` });
    const token = new Client(server.url, secret);
    assert.is((await me(token)).username, p.uid);
    return { session, token };
  };
  const joerg = await withToken(JOERG);
  const zoe = await withToken(ZOE);
  const joergDn = attr('dn', dnOf(JOERG));
  directory.modify(`${joergDn}\nchangetype: modify\nadd: employeeType\nemployeeType: disabled\n`);
  // Nobody signs in: the check alone revokes his token and ends his session.
  await waitFor(async () => (await joerg.token.get('/api/auth/me')).status === 401, {
    what: "Jörg's token revoked by the directory check",
  });
  assert.is((await joerg.session.get('/api/auth/me')).json.user, null, 'his session ended');
  const log = (await admin.get('/api/activity?action=auth.ldap-disabled')).json.rows;
  assert.is(log[0].username, JOERG.uid);
  assert.ok(log[0].detail.tokensRevoked >= 1 && log[0].detail.sessionsEnded >= 1, JSON.stringify(log[0]));
  // Zoë, still in the directory, keeps hers.
  assert.is((await me(zoe.token)).username, ZOE.uid);
  assert.is((await me(zoe.session)).username, ZOE.uid);
  // Removed from the directory altogether: the same, at the next check.
  directory.modify(`${attr('dn', dnOf(ZOE))}\nchangetype: delete\n`);
  await waitFor(async () => (await zoe.token.get('/api/auth/me')).status === 401, {
    what: "Zoë's token revoked once she is removed",
  });
  assert.is((await zoe.session.get('/api/auth/me')).json.user, null);
  // Checked again and again, a person already cut off is logged once.
  await waitFor(
    async () => (await admin.get('/api/activity?action=auth.ldap-disabled')).json.rows[0].username === ZOE.uid,
    {
      what: "Zoë's row",
    },
  );
  const rows = (await admin.get('/api/activity?action=auth.ldap-disabled')).json.rows;
  assert.is(rows.filter((r: { username: string }) => r.username === JOERG.uid).length, 1, JSON.stringify(rows));
  // Enabled again, Jörg signs in; the revoked token stays revoked.
  directory.modify(`${joergDn}\nchangetype: modify\ndelete: employeeType\n`);
  const back = await signedIn(JOERG.uid, JOERG.password);
  assert.is((await me(back)).username, JOERG.uid);
  assert.is((await joerg.token.get('/api/auth/me')).status, 401);
  // Back to the default for the tests after this one (a restart keeps the variables it was given).
  await server.restart({ ...env, LDAP_CHECK_INTERVAL_MS: '900000' });
  admin = await signedIn(ADMIN.username, ADMIN.password);
});

test('no password here: a directory account makes a token with its directory password (a bind) or after a fresh sign-in (password or passkey), refused past AUTH_CONFIRM_MINUTES without one', async () => {
  const base = server.url.replace('127.0.0.1', 'localhost');
  const bob = new Client(base);
  assert.is((await bob.post('/api/auth/login', { identifier: BOB.uid, password: BOB.password })).status, 200);
  const bobId = (await me(bob)).id;
  const key = new SoftAuthenticator(base);
  const start = await bob.post('/api/auth/passkeys/register/start');
  assert.is(start.status, 200, start.text);
  const made = await bob.post('/api/auth/passkeys/register/finish', {
    response: key.create(start.json.options),
    name: "Bob's Täschen-Phone 📱 #2",
  });
  assert.is(made.status, 201, made.text);
  const passkeyId = made.json.passkey.id;
  const tokenBody = { name: 'Blowin’ in the wind & sync', scope: 'read', expiresInDays: null };
  // Just signed in: no password of his own to ask, the sign-in is the proof.
  assert.is((await bob.post('/api/auth/tokens', tokenBody)).status, 201);
  // A password he gives is his directory password, checked by a bind: a wrong one is refused
  // even just after signing in, and nothing is made.
  const madeSoFar = (await bob.get('/api/auth/tokens')).json;
  const wrongFresh = await bob.post('/api/auth/tokens', { ...tokenBody, password: 'not his directory password' });
  assert.is(wrongFresh.status, 401, wrongFresh.text);
  assert.is(envelope(wrongFresh).code, 'AUTH_INVALID_CREDENTIALS');
  assert.ok(envelope(wrongFresh).requestId);
  assert.equal((await bob.get('/api/auth/tokens')).json, madeSoFar);
  // An hour later (the sign-in aged in the database): refused, nothing made or removed.
  const aged = () =>
    server.withDatabase((db) =>
      db.run('UPDATE sessions SET created_at = ? WHERE user_id = ?', [
        new Date(Date.now() - 3_600_000).toISOString(),
        bobId,
      ]),
    );
  await aged();
  const tokensBefore = (await bob.get('/api/auth/tokens')).json;
  const late = await bob.post('/api/auth/tokens', tokenBody);
  assert.is(late.status, 403, late.text);
  assert.is(envelope(late).code, 'AUTH_CONFIRM_REQUIRED');
  const lateWrong = await bob.post('/api/auth/tokens', { ...tokenBody, password: 'whatever he types' });
  assert.is(lateWrong.status, 401, lateWrong.text);
  assert.is(envelope(lateWrong).code, 'AUTH_INVALID_CREDENTIALS');
  // Another person's directory password (Anna's, right for her) proves nothing for bob's session.
  const othersPassword = await bob.post('/api/auth/tokens', { ...tokenBody, password: ANNA.password });
  assert.is(othersPassword.status, 401, othersPassword.text);
  assert.is(envelope(othersPassword).code, 'AUTH_INVALID_CREDENTIALS');
  const lateRemove = await bob.request('DELETE', `/api/auth/passkeys/${passkeyId}`, {});
  assert.is(lateRemove.status, 403, lateRemove.text);
  assert.is(envelope(lateRemove).code, 'AUTH_CONFIRM_REQUIRED');
  assert.equal((await bob.get('/api/auth/tokens')).json, tokensBefore);
  assert.is((await bob.get('/api/auth/passkeys')).json.passkeys.length, 1);
  // The second factor's changes ask his directory password too: he turns a real one on (TOTP),
  // and removing it with no password or a wrong one is refused — it stays on, sign-in asks a code.
  const totp = await bob.post('/api/auth/totp/start');
  assert.is(totp.status, 200, totp.text);
  const totpOn = await bob.post('/api/auth/totp/confirm', { code: generateSync({ secret: totp.json.secret }) });
  assert.is(totpOn.status, 200, totpOn.text);
  assert.is((await bob.get('/api/auth/totp')).json.enabled, true);
  const asksCode = async () =>
    (await new Client(base).post('/api/auth/login', { identifier: BOB.uid, password: BOB.password })).json
      ?.totpRequired === true;
  assert.ok(await asksCode(), 'sign-in asks his code');
  for (const body of [{}, { password: 'whatever he types' }]) {
    const off = await bob.request('DELETE', '/api/auth/totp', body);
    assert.is(off.status, 401, off.text);
    assert.is(envelope(off).code, 'AUTH_INVALID_CREDENTIALS');
    assert.is((await bob.get('/api/auth/totp')).json.enabled, true, 'the second factor stays on');
  }
  assert.is((await bob.request('DELETE', '/api/auth/totp', { password: BOB.password })).status, 204);
  assert.is((await bob.get('/api/auth/totp')).json.enabled, false);
  assert.not.ok(await asksCode(), 'sign-in no longer asks a code');
  // His directory password confirms it, however long ago he signed in (the form asks for it).
  const confirmed = await bob.post('/api/auth/tokens', { ...tokenBody, password: BOB.password });
  assert.is(confirmed.status, 201, confirmed.text);
  assert.is((await bob.get('/api/auth/tokens')).json.tokens.length, tokensBefore.tokens.length + 1);
  // A passkey sign-in is a fresh sign-in: the token is made.
  const viaKey = new Client(base);
  const ks = await viaKey.post('/api/auth/login/passkey/start');
  assert.is((await viaKey.post('/api/auth/login/passkey/finish', { response: key.get(ks.json.options) })).status, 200);
  assert.is((await viaKey.post('/api/auth/tokens', tokenBody)).status, 201);
  // Signed in again with the directory's password: the passkey is removed (the directory is still his way in).
  const again = new Client(base);
  assert.is((await again.post('/api/auth/login', { identifier: BOB.uid, password: BOB.password })).status, 200);
  const removed = await again.request('DELETE', `/api/auth/passkeys/${passkeyId}`, {});
  assert.is(removed.status, 204, removed.text);
  assert.is((await again.get('/api/auth/passkeys')).json.passkeys.length, 0);
});

test('wrong directory passwords at a confirmation count as at sign-in: for the address and the account, a right one clears the count, the fifth locks the account (429 AUTH_ACCOUNT_LOCKED, the right password refused too, sign-in too) until the lock passes; another account is unaffected', async () => {
  const MAJA = { uid: 'maja.šťastná', password: 'Maja & "Šťastná" #5 +💡' };
  const [dnLine, ...rest] = person(MAJA, 'Maja Šťastná', 'maja@example.org').split('\n');
  directory.modify([dnLine, 'changetype: add', ...rest].join('\n'));
  const maja = await signedIn(MAJA.uid, MAJA.password);
  const majaId = (await me(maja)).id;
  const { tokenBody, confirm, wrong } = confirmations(maja, MAJA.password, 'Kalender & Fotos – #1');
  const before = await rowBudget('login-fail');
  // Four wrong, then hers: the count is cleared as a right password at sign-in clears it.
  await wrong(4);
  assert.is((await confirm(MAJA.password)).status, 201);
  await wrong(1);
  assert.is((await confirm(MAJA.password)).status, 201, 'one wrong after a right one does not lock');
  // Five wrong in a row lock the account, as five wrong sign-ins do.
  await wrong(5);
  assert.is(await rowBudget('login-fail'), before + 10, 'each wrong confirmation counts for the address');
  const tokensBefore = (await maja.get('/api/auth/tokens')).json;
  const locked = await confirm(MAJA.password);
  assert.is(locked.status, 429, locked.text);
  assert.is(envelope(locked).code, 'AUTH_ACCOUNT_LOCKED');
  assert.ok(Number(locked.headers.get('retry-after')) > 0, 'Retry-After');
  assert.equal((await maja.get('/api/auth/tokens')).json, tokensBefore, 'nothing made while locked');
  await refusedSignIn(MAJA.uid, MAJA.password, 429, 'AUTH_ACCOUNT_LOCKED');
  // Another directory account, on the same address, confirms and signs in as before.
  const anna = await signedIn(ANNA.uid, ANNA.password);
  const annas = await anna.post('/api/auth/tokens', { ...tokenBody, password: ANNA.password });
  assert.is(annas.status, 201, annas.text);
  // The lock passed (its end moved into the past): her directory password confirms again.
  await lockPassed(majaId);
  assert.is((await confirm(MAJA.password)).status, 201);
  assert.is((await me(await signedIn(MAJA.uid, MAJA.password))).id, majaId);
});

test('wrong local passwords at a confirmation count as at sign-in too: for the address and the account, a right one clears the count, the fifth locks (429 AUTH_ACCOUNT_LOCKED with Retry-After), the address past its failure budget is refused 429 RATE_LIMITED; another account is unaffected', async () => {
  // A local account beside the directory: its password is Burrow's, checked by sign-in's own check.
  const LEA = { username: 'léa.lokal', password: 'Léa & "Lokal" #7 +🌿' };
  const made = await admin.post('/api/users', {
    email: 'lea@example.org',
    username: LEA.username,
    password: LEA.password,
    roles: [],
  });
  assert.is(made.status, 201, made.text);
  const lea = await signedIn(LEA.username, LEA.password);
  const leaId = (await me(lea)).id;
  const { tokenBody, confirm, wrong } = confirmations(lea, LEA.password, 'Notizen & Fotos – #2');
  const failuresBefore = await rowBudget('login-fail');
  const attemptsBefore = await rowBudget('login');
  // Four wrong, then hers: the count is cleared as a right password at sign-in clears it.
  await wrong(4);
  assert.is((await confirm(LEA.password)).status, 201);
  await wrong(1);
  assert.is((await confirm(LEA.password)).status, 201, 'one wrong after a right one does not lock');
  assert.is(await rowBudget('login-fail'), failuresBefore + 5, 'each wrong confirmation counts for the address');
  assert.is(await rowBudget('login'), attemptsBefore + 7, 'each confirmation spends an attempt of the address');
  // Five wrong in a row lock the account, as five wrong sign-ins do.
  await wrong(5);
  const tokensBefore = (await lea.get('/api/auth/tokens')).json;
  const locked = await confirm(LEA.password);
  assert.is(locked.status, 429, locked.text);
  assert.is(envelope(locked).code, 'AUTH_ACCOUNT_LOCKED');
  assert.ok(Number(locked.headers.get('retry-after')) > 0, 'Retry-After');
  assert.equal((await lea.get('/api/auth/tokens')).json, tokensBefore, 'nothing made while locked');
  await refusedSignIn(LEA.username, LEA.password, 429, 'AUTH_ACCOUNT_LOCKED');
  // Another local account, on the same address, signs in and confirms as before.
  const ada = await signedIn(ADMIN.username, ADMIN.password);
  const adas = await ada.post('/api/auth/tokens', { ...tokenBody, password: ADMIN.password });
  assert.is(adas.status, 201, adas.text);
  // The lock passed (its end moved into the past): her password confirms again.
  await lockPassed(leaId);
  const again = await confirm(LEA.password);
  assert.is(again.status, 201, again.text);
  // The address's failures spent (30 in 15 minutes: ten wrong confirmations above, twenty wrong
  // sign-ins now): her right password is refused at a confirmation as at sign-in, nothing made.
  for (let i = 0; i < 20; i++) await refusedSignIn('nobody here', `guess ${i}`);
  assert.is(await rowBudget('login-fail'), failuresBefore + 30);
  const tokensNow = (await lea.get('/api/auth/tokens')).json;
  const spent = await confirm(LEA.password);
  assert.is(spent.status, 429, spent.text);
  assert.is(envelope(spent).code, 'RATE_LIMITED');
  assert.ok(Number(spent.headers.get('retry-after')) > 0, 'Retry-After');
  assert.equal((await lea.get('/api/auth/tokens')).json, tokensNow, 'nothing made past the budget');
  await refusedSignIn(LEA.username, LEA.password, 429, 'RATE_LIMITED');
});

test('groups and the admin role change between two sign-ins; a membership added by hand stays', async () => {
  const kim = await signedIn(KIM.uid, KIM.password);
  const kimUser = await me(kim);
  assert.equal(kimUser.roles, ['admin']);
  assert.is((await kim.get('/api/users')).status, 200);
  const annaId = (await me(await signedIn(ANNA.uid, ANNA.password))).id;
  // An administrator adds Anna to a group by hand.
  const crew = await admin.post('/api/access/groups', { name: 'Fotogruppe' });
  assert.is(crew.status, 201, crew.text);
  assert.is((await admin.post(`/api/access/groups/${crew.json.group.id}/members`, { userId: annaId })).status, 204);

  // The directory changes: Anna leaves Staff (and so Office), joins Band; Kim leaves Burrow Admins.
  directory.modify(
    [
      `dn: cn=Staff,${GROUPS}\nchangetype: modify\ndelete: member\nmember: ${dnOf(ANNA)}\n`,
      `dn: cn=Band,${GROUPS}\nchangetype: modify\nadd: member\nmember: ${dnOf(ANNA)}\n`,
      `dn: cn=Burrow Admins,${GROUPS}\nchangetype: modify\nadd: member\nmember: ${dnOf(ANNA)}\n-\ndelete: member\nmember: ${dnOf(KIM)}\n`,
    ].join('\n'),
  );
  const anna = await signedIn(ANNA.uid, ANNA.password);
  assert.equal((await me(anna)).roles, ['admin']);
  assert.equal(await groupsOf(annaId), { 'Band 🎸': 'ldap', Fotogruppe: null });
  const kimAgain = await signedIn(KIM.uid, KIM.password);
  assert.equal((await me(kimAgain)).roles, ['user']);
  // Kim's earlier session is an administrator's no more.
  assert.is((await kim.get('/api/users')).status, 403);

  const rows = (await admin.get('/api/activity?limit=500')).json.rows as any[];
  const changes = rows
    .filter((r) => r.action.startsWith('access.member-') && r.detail?.member === annaId && r.detail?.source === 'ldap')
    .map((r) => `${r.action} ${r.detail.group}`)
    .reverse();
  assert.equal(changes, [
    'access.member-add Staff',
    'access.member-add Office & Co',
    'access.member-add Band 🎸',
    'access.member-remove Staff',
    'access.member-remove Office & Co',
  ]);
  const roles = (await admin.get('/api/activity?action=auth.ldap-role-change')).json.rows as any[];
  assert.equal(
    roles.map((r) => [r.username, r.detail.from, r.detail.to]),
    [
      ['kim', 'admin', 'user'],
      ['anna.lindqvist', 'user', 'admin'],
    ],
  );
});

test('a second factor is still asked after the directory password', async () => {
  const joerg = await signedIn(JOERG.uid, JOERG.password);
  const started = await joerg.post('/api/auth/totp/start');
  assert.is(started.status, 200, started.text);
  const secret = started.json.secret as string;
  const confirmed = await joerg.post('/api/auth/totp/confirm', { code: generateSync({ secret }) });
  assert.is(confirmed.status, 200, confirmed.text);
  const browser = new Client(server.url);
  const held = await browser.post('/api/auth/login', { identifier: JOERG.uid, password: JOERG.password });
  assert.is(held.status, 200, held.text);
  assert.equal(held.json, { totpRequired: true });
  assert.is((await browser.get('/api/auth/me')).json.user, null);
  const epoch = Math.floor(Date.now() / 1000) + 30;
  const done = await browser.post('/api/auth/login/totp', { code: generateSync({ secret, epoch }) });
  assert.is(done.status, 200, done.text);
  assert.is((await me(browser)).username, JOERG.uid);
});

test('a disabled person is refused at a passkey sign-in too (the directory is asked), signed out and their tokens revoked; enabled again, the passkey works', async () => {
  passkeyBase = server.url.replace('127.0.0.1', 'localhost');
  const anna = new Client(passkeyBase);
  assert.is((await anna.post('/api/auth/login', { identifier: ANNA.uid, password: ANNA.password })).status, 200);
  annaKey = new SoftAuthenticator(passkeyBase);
  const start = await anna.post('/api/auth/passkeys/register/start');
  assert.is(start.status, 200, start.text);
  const made = await anna.post('/api/auth/passkeys/register/finish', {
    response: annaKey.create(start.json.options),
    name: 'Annas Bärbel-Laptop 💻',
  });
  assert.is(made.status, 201, made.text);
  const issued = await anna.post('/api/auth/tokens', {
    name: 'Backup-Skript & Sync',
    scope: 'read',
    expiresInDays: null,
    password: ANNA.password,
  });
  assert.is(issued.status, 201, issued.text);
  const script = new Client(server.url, issued.json.secret);
  assert.is((await me(script)).username, ANNA.uid);
  const before = await passkeySignIn();
  assert.is(before.status, 200, before.text);

  // Disabled in the directory: the passkey alone would still sign him in without the question.
  const dn = attr('dn', dnOf(ANNA));
  directory.modify(`${dn}\nchangetype: modify\nadd: employeeType\nemployeeType: disabled\n`);
  const refused = await passkeySignIn();
  assert.is(refused.status, 401, refused.text);
  assert.is(refused.code, 'AUTH_PASSKEY_REJECTED');
  assert.is((await refused.client.get('/api/auth/me')).json.user, null);
  assert.is((await before.client.get('/api/auth/me')).json.user, null, 'her passkey session ended');
  assert.is((await anna.get('/api/auth/me')).json.user, null, 'her password session ended');
  assert.is((await script.get('/api/auth/me')).status, 401, 'her token is revoked');
  const log = (await admin.get('/api/activity?action=auth.ldap-disabled')).json.rows;
  assert.is(log[0].username, ANNA.uid);
  assert.ok(log[0].detail.tokensRevoked >= 1 && log[0].detail.sessionsEnded >= 2, JSON.stringify(log[0]));

  directory.modify(`${dn}\nchangetype: modify\ndelete: employeeType\n`);
  const back = await passkeySignIn();
  assert.is(back.status, 200, back.text);
  assert.is((await me(back.client)).username, ANNA.uid);
  // A revoked token stays revoked.
  assert.is((await script.get('/api/auth/me')).status, 401);
});

test('the directory stopped: directory sign-ins answer 503 LDAP_UNAVAILABLE, the local administrator still signs in; back, it works again', async () => {
  const anna = await signedIn(ANNA.uid, ANNA.password);
  const tokensBefore = (await anna.get('/api/auth/tokens')).json;
  await directory.stop();
  // Her directory password cannot be checked: 503, not a wrong password, and nothing is made.
  const confirm = await anna.post('/api/auth/tokens', {
    name: 'Abends – Sicherung #3',
    scope: 'read',
    expiresInDays: null,
    password: ANNA.password,
  });
  assert.is(confirm.status, 503, confirm.text);
  assert.is(envelope(confirm).code, 'LDAP_UNAVAILABLE');
  assert.equal((await anna.get('/api/auth/tokens')).json, tokensBefore);
  const e = await refusedSignIn(ANNA.uid, ANNA.password, 503, 'LDAP_UNAVAILABLE');
  assert.match(e.message, /Local accounts still can/);
  await refusedSignIn('nobody.here', 'whatever it is', 503, 'LDAP_UNAVAILABLE');
  const local = await signedIn(ADMIN.username, ADMIN.password);
  assert.is((await me(local)).username, ADMIN.username);
  // A local account's wrong password is still the ordinary 401.
  await refusedSignIn(ADMIN.username, 'not the password');
  // A directory account's passkey: the directory cannot say whether it still knows her.
  const viaPasskey = await passkeySignIn();
  assert.is(viaPasskey.status, 503, viaPasskey.text);
  assert.is(viaPasskey.code, 'LDAP_UNAVAILABLE');
  await directory.start();
  assert.is((await me(await signedIn(ANNA.uid, ANNA.password))).username, ANNA.uid);
});

test('LDAPS with the CA given signs in; without it the certificate is not trusted (503); doctor checks the directory', async () => {
  await server.restart({ ...env, LDAP_URL: directory.ldapsUrl, LDAP_STARTTLS: 'false' });
  assert.is((await me(await signedIn(ANNA.uid, ANNA.password))).username, ANNA.uid);
  await server.restart({ ...env, LDAP_CA_FILE: '', LDAP_URL: directory.ldapsUrl, LDAP_STARTTLS: 'false' });
  await refusedSignIn(ANNA.uid, ANNA.password, 503, 'LDAP_UNAVAILABLE');
  assert.is((await me(await signedIn(ADMIN.username, ADMIN.password))).username, ADMIN.username);

  const c = serverCommand();
  const doctor = (extra: Record<string, string>) => {
    const r = spawnSync(c.file, [...c.args, 'doctor'], {
      env: {
        ...c.env,
        ...env,
        HOST: '127.0.0.1',
        PORT: '0',
        CONFIG_DIR: path.join(server.dirs.config, 'doctor'),
        CACHE_DIR: server.dirs.cache,
        VOLUME_ROOT: server.dirs.volumes,
        ...extra,
      },
      encoding: 'utf8',
      timeout: 90_000,
    });
    return r.stdout.split('\n').find((l) => l.includes('directory (LDAP)')) ?? r.stdout + r.stderr;
  };
  const healthy = doctor({});
  assert.match(healthy, /^ {2}ok {4}directory \(LDAP\) +ldap:.*\(StartTLS\): bound as cn=burrow/, healthy);
  assert.match(
    doctor({ LDAP_BIND_PASSWORD_FILE: '', LDAP_BIND_PASSWORD: 'wrong' }),
    /^ {2}warn {2}directory \(LDAP\) +.*cannot be used/,
  );
});

test.run();
