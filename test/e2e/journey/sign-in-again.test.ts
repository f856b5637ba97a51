// A directory account (a real OpenLDAP, slapd with its own database and test CA, StartTLS) asks
// for an API token an hour after signing in. The form asks for what she has — her directory
// password, not a password of Burrow's — and the server checks it with a bind: a wrong one is
// refused and makes nothing, hers makes the token without signing in again. (An account with no
// password at all, single sign-on, confirms by signing in again: auth-oidc-confirm.) The server's
// side after each step: no token after the refusal, the token after hers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BrowserContext, Page } from 'playwright-core';
import { journey, type Step } from './harness.ts';
import { SERVICE_DN, SERVICE_PASSWORD, SUFFIX, startDirectory, type TestDirectory } from '../../support/slapd.ts';

const PEOPLE = `ou=people,${SUFFIX}`;
const LENA = { uid: 'lena.ström', password: 'Lenas Verzeichnis-Passwort #1 & 🌲', name: 'Lena Ström' };

/** The server's environment, filled in once the directory listens (before the first server starts). */
const env: Record<string, string> = { AUTH_CONFIRM_MINUTES: '10' };
let directory: TestDirectory | undefined;
let secrets = '';
test.before(async () => {
  directory = await startDirectory(
    [
      `dn: ${PEOPLE}\nobjectClass: organizationalUnit\nou: people\n`,
      [
        `dn:: ${Buffer.from(`uid=${LENA.uid},${PEOPLE}`).toString('base64')}`,
        'objectClass: inetOrgPerson',
        `uid:: ${Buffer.from(LENA.uid).toString('base64')}`,
        `cn:: ${Buffer.from(LENA.name).toString('base64')}`,
        `sn:: ${Buffer.from('Ström').toString('base64')}`,
        'mail: lena@example.org',
        `userPassword:: ${Buffer.from(LENA.password).toString('base64')}`,
        '',
      ].join('\n'),
    ].join('\n'),
  );
  secrets = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-ldap-secret-'));
  const secretFile = path.join(secrets, 'ldap bind password');
  fs.writeFileSync(secretFile, SERVICE_PASSWORD + '\n', { mode: 0o600 });
  Object.assign(env, {
    USER_DIR_ENABLED: 'true',
    LDAP_URL: directory.url,
    LDAP_STARTTLS: 'true',
    LDAP_CA_FILE: directory.caFile,
    LDAP_BIND_DN: SERVICE_DN,
    LDAP_BIND_PASSWORD_FILE: secretFile,
    LDAP_USER_BASE: PEOPLE,
    LDAP_USER_FILTER: '(&(objectClass=inetOrgPerson)(uid={username}))',
    LDAP_TIMEOUT_MS: '5000',
  });
});
test.after(async () => {
  await directory?.close();
  if (secrets) fs.rmSync(secrets, { recursive: true, force: true });
});

const j = journey(import.meta.url, { setup: 'admin', env });

let lena: { context: BrowserContext; page: Page } | null = null;

/** The API as Lena's browser session. */
async function asLena(s: Step, method: string, address: string): Promise<any> {
  const res = await lena!.context.request.fetch(s.url(address), { method });
  assert.is(res.status(), 200, `${method} ${address}: ${await res.text()}`);
  return res.json();
}

async function signIn(s: Step, page: Page) {
  await page.getByLabel('Email or username').fill(LENA.uid);
  await page.getByLabel('Password').fill(LENA.password);
  await s.tap(page.getByRole('button', { name: 'Sign in', exact: true }));
}

j.step('a directory account signs in with the directory’s password', async (s) => {
  lena = await s.anonymous();
  await lena.page.goto(s.url('/'), { waitUntil: 'domcontentloaded' });
  await signIn(s, lena.page);
  await lena.page.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' });
  const me = (await asLena(s, 'GET', '/api/auth/me')).user;
  assert.is(me.username, LENA.uid);
});

j.step(
  'past the confirmation window her directory password confirms the token: the directory checks it, a wrong one makes nothing',
  async (s) => {
    const page = lena!.page;
    const me = (await asLena(s, 'GET', '/api/auth/me')).user;
    // Her sign-in an hour old (the server stopped while the database is changed; her session stays).
    await s.server.withDatabase((db) =>
      db.run('UPDATE sessions SET created_at = ? WHERE user_id = ?', [
        new Date(Date.now() - 3_600_000).toISOString(),
        me.id,
      ]),
    );
    await page.goto(s.url('/settings/tokens'), { waitUntil: 'domcontentloaded' });
    const form = page.getByRole('form', { name: 'Issue a token' });
    await form.getByLabel('Name').fill('Backup – Lenas NAS & Co');
    // The form asks for what she has: the directory's password, not one of Burrow's.
    const field = form.getByLabel('Your directory password');
    await field.waitFor();
    await field.fill('not Lenas password');
    await s.tap(form.getByRole('button', { name: 'Issue token' }));
    const note = form.getByRole('alert');
    await note.getByText('The directory refused this password.').waitFor();
    assert.equal((await asLena(s, 'GET', '/api/auth/tokens')).tokens, [], 'no token after the refusal');

    // Her own password, an hour after signing in: the directory accepts it, the token is made.
    await field.fill(LENA.password);
    await s.tap(form.getByRole('button', { name: 'Issue token' }));
    await page.getByText(/Copy this token now/).waitFor();
    const tokens = (await asLena(s, 'GET', '/api/auth/tokens')).tokens;
    assert.equal(
      tokens.map((t: { name: string }) => t.name),
      ['Backup – Lenas NAS & Co'],
    );
    assert.is((await asLena(s, 'GET', '/api/auth/me')).user.id, me.id, 'still her first session');
  },
  { needs: ['a directory account signs in with the directory’s password'] },
);

j.run();
