// "Sign in again" for an account without a password here (AUTH_CONFIRM_REQUIRED): a directory
// account (a real OpenLDAP, slapd with its own database and test CA, StartTLS) whose sign-in is
// older than AUTH_CONFIRM_MINUTES asks for an API token. The page says why it was refused and
// offers "Sign in again"; the form that opens is the account's own way in (its name filled in,
// the directory's password typed), and after it the same Issue token makes the token. The
// server's side after each step: no token after the refusal, a fresh session after signing in
// again, the token after the retry.
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
  'past the confirmation window the token is refused with “Sign in again”, which leads through the directory and back, and the token is made',
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
    await form.getByLabel('Your password').fill(LENA.password);
    await s.tap(form.getByRole('button', { name: 'Issue token' }));
    const note = form.getByRole('alert');
    await note.getByText(/Confirm it is you/).waitFor();
    assert.equal((await asLena(s, 'GET', '/api/auth/tokens')).tokens, [], 'no token after the refusal');

    await s.tap(note.getByRole('button', { name: 'Sign in again' }));
    const again = page.getByRole('dialog', { name: 'Confirm it is you' });
    await again.waitFor();
    // Her own way in: her name is there, the directory's password is asked.
    assert.is(await again.getByLabel('Email or username').inputValue(), LENA.uid);
    await again.getByLabel('Password').fill(LENA.password);
    await s.tap(again.getByRole('button', { name: 'Sign in', exact: true }));
    await again.waitFor({ state: 'detached' });
    await page.getByText('Signed in again: try it once more now.').first().waitFor();
    assert.is((await asLena(s, 'GET', '/api/auth/me')).user.id, me.id, 'the same account');

    // Back on the same form, what she typed still there: the same button again makes the token
    // (the server takes it only from a sign-in within AUTH_CONFIRM_MINUTES).
    assert.is(await form.getByLabel('Name').inputValue(), 'Backup – Lenas NAS & Co');
    await s.tap(form.getByRole('button', { name: 'Issue token' }));
    await page.getByText(/Copy this token now/).waitFor();
    const tokens = (await asLena(s, 'GET', '/api/auth/tokens')).tokens;
    assert.equal(
      tokens.map((t: { name: string }) => t.name),
      ['Backup – Lenas NAS & Co'],
    );
  },
  { needs: ['a directory account signs in with the directory’s password'] },
);

j.run();
