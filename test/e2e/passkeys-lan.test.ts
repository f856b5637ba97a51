// Passkeys from every device on the LAN: the relying party is the name the page was opened at.
// Chromium reaches https://burrow.local:<HTTPS port> (a host-resolver rule to this machine) and
// http://localhost:<port> with one virtual authenticator (DevTools protocol WebAuthn). Chromium
// trusts HTTPS as a person's device does: Burrow's certificate authority, downloaded from
// /api/tls/ca.crt, added to the browser's own store (NSS, `certutil`) — without it the secure
// address is refused. A passkey made at localhost is not offered at burrow.local; one made there
// signs in there; Settings says at which name each one works, and shows the authority to trust
// with its fingerprint and the steps for each system; the session cookie is Secure over HTTPS
// and not over plain http at localhost.
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { removeDirs, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { DESKTOP, addVirtualAuthenticator, launch, newPage, setupAdmin, shot, startWithUi } from './browser.ts';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let local: string;
let lan: string;
let authority: string;
let home: string | undefined;
let problems: string[] = [];
const EMAIL = 'zoe.mueller@example.org';
const PASSWORD = 'Grüße & “Schlüssel” #1';

/**
 * A HOME whose NSS store (~/.pki/nssdb, where Chromium on Linux keeps the authorities a person
 * added) trusts `ca` for websites, as `certutil` adds it.
 */
function homeTrusting(ca: string): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow chromium home '));
  const db = path.join(home, '.pki', 'nssdb');
  fs.mkdirSync(db, { recursive: true });
  const file = path.join(home, 'Burrow local CA.crt');
  fs.writeFileSync(file, ca);
  for (const args of [
    ['-N', '-d', `sql:${db}`, '--empty-password'],
    ['-A', '-d', `sql:${db}`, '-n', 'Burrow local authority', '-t', 'C,,', '-i', file],
  ]) {
    const r = spawnSync('certutil', args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`certutil ${args[0]}: ${r.stderr || r.error?.message}`);
  }
  return home;
}

type Passkey = { id: string; name: string; rpId: string; lastUsedAt: string | null };
/** A call from the page at `base` (Chromium resolves burrow.local; Playwright's own requests would not). */
async function inPage(base: string, method: string, path: string): Promise<any> {
  if (!page.url().startsWith(base)) await page.goto(base);
  return page.evaluate(
    async ([m, p]) => {
      const res = await fetch(p!, { method: m, credentials: 'same-origin' });
      return res.status === 204 ? null : res.json();
    },
    [method, path],
  );
}
const passkeysAt = async (base: string): Promise<Passkey[]> =>
  (await inPage(base, 'GET', '/api/auth/passkeys')).passkeys;
const meAt = async (base: string) => (await inPage(base, 'GET', '/api/auth/me')).user as { username: string } | null;

test.before(async () => {
  server = await startWithUi({ ALLOWED_HOSTS: 'burrow.local' });
  const https = await waitFor(() => server.logs.find((l) => l.msg === 'HTTPS is listening'), {
    what: 'HTTPS listening',
    timeoutMs: 60_000,
  });
  const port = new URL(server.url).port;
  local = `http://localhost:${port}`;
  lan = `https://burrow.local:${https.port}`;
  authority = await (await fetch(`${server.url}/api/tls/ca.crt`)).text();
  home = homeTrusting(authority);
  ({ browser } = await launch(['--host-resolver-rules=MAP burrow.local 127.0.0.1'], { ...process.env, HOME: home }));
  ({ context, page, problems } = await newPage(browser, DESKTOP));
  await setupAdmin(context, local, EMAIL, PASSWORD);
  await addVirtualAuthenticator(context, page);
});
test.after(async () => {
  await browser?.close();
  await server?.close();
  if (server) removeDirs(server.dirs);
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

async function addPasskey(base: string, name: string): Promise<void> {
  await page.goto(`${base}/settings/security`);
  await page.getByRole('heading', { name: 'Passkeys' }).waitFor();
  await page.getByLabel('Name for the new passkey').fill(name);
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByText(name, { exact: true }).waitFor();
}

async function signOutAt(base: string): Promise<void> {
  await inPage(base, 'POST', '/api/auth/logout');
  await page.goto(base);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
}

test('a passkey made at localhost is not offered at burrow.local; one made there signs in there', async () => {
  // At localhost over plain http: the cookie is not Secure (plain http sends it back).
  const localCookie = (await context.cookies(local)).find((c) => c.name === 'connect.sid');
  assert.ok(localCookie, 'signed in at localhost');
  assert.is(localCookie!.secure, false);
  await addPasskey(local, 'Laptop at home');
  assert.equal(
    (await passkeysAt(local)).map((p) => [p.name, p.rpId]),
    [['Laptop at home', 'localhost']],
  );

  // burrow.local over HTTPS: the localhost passkey is not offered, the page says so, nobody is signed in.
  await page.goto(lan);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  assert.is(await page.evaluate(() => window.isSecureContext), true);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.getByText(/no passkey made at this address/).waitFor();
  assert.is(await meAt(lan), null);

  // Signed in there with the password, Settings says where each passkey works; one is added here.
  await page.getByLabel('Email or username').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' });
  const lanCookie = (await context.cookies(lan)).find((c) => c.name === 'connect.sid');
  assert.is(lanCookie?.secure, true, 'Secure over HTTPS');
  await addPasskey(lan, 'Phone on the sofa 📱');
  await page.getByText('Works at localhost only, not at this address (burrow.local)').waitFor();
  await page.getByText('Works at burrow.local (this address)').waitFor();
  await shot(page, 'passkeys-lan-settings');
  const made = await passkeysAt(lan);
  assert.equal(
    made.map((p) => [p.name, p.rpId]),
    [
      ['Laptop at home', 'localhost'],
      ['Phone on the sofa 📱', 'burrow.local'],
    ],
  );

  // Signed out, the passkey made at burrow.local signs in there (and the localhost one stays unused).
  await signOutAt(lan);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' });
  assert.ok((await meAt(lan))?.username, 'signed in at burrow.local');
  const used = await passkeysAt(lan);
  assert.ok(used.find((p) => p.rpId === 'burrow.local')!.lastUsedAt, 'the burrow.local passkey signed in');
  assert.is(used.find((p) => p.rpId === 'localhost')!.lastUsedAt, null);

  // And at localhost the localhost one still does.
  await signOutAt(local);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' });
  assert.ok((await passkeysAt(local)).find((p) => p.rpId === 'localhost')!.lastUsedAt);
  assert.equal(problems, []);
});

test('Chromium trusts the secure address only with the authority added; Settings offers it with the steps per system', async () => {
  // A browser whose store lacks the authority refuses burrow.local (the same server, the same rule).
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow chromium untrusting '));
  const { browser: stranger } = await launch(['--host-resolver-rules=MAP burrow.local 127.0.0.1'], {
    ...process.env,
    HOME: empty,
  });
  try {
    const p = await stranger.newPage();
    const refused = await p.goto(lan).then(
      () => 'opened',
      (err: Error) => err.message,
    );
    assert.match(refused, /ERR_CERT_AUTHORITY_INVALID/);
  } finally {
    await stranger.close();
    fs.rmSync(empty, { recursive: true, force: true });
  }

  // The trusting browser, signed in at burrow.local: Settings → Secure connection.
  await page.goto(`${lan}/settings/secure`);
  if (await page.getByRole('heading', { name: 'Sign in' }).isVisible()) {
    await page.getByLabel('Email or username').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' });
    await page.goto(`${lan}/settings/secure`);
  }
  await page.getByText('This page came over HTTPS').waitFor();
  const fingerprint = new X509Certificate(authority).fingerprint256;
  await page.getByText(fingerprint, { exact: true }).waitFor();
  await page.getByText(/Certificate from this server's own authority for .*burrow\.local/).waitFor();
  for (const system of ['Windows', 'macOS', 'iPhone, iPad', 'Android', 'Linux', 'Firefox'])
    await page.locator('dt', { hasText: system }).waitFor();
  await page.getByText('Certificate Trust Settings').waitFor();
  await page.getByText('update-ca-certificates', { exact: false }).waitFor();
  // The download is the authority itself (no key), as the page links it.
  const link = page.getByRole('link', { name: 'Download the certificate authority' });
  assert.is(await link.getAttribute('download'), 'Burrow local CA.crt');
  const downloaded = await page.evaluate(async (href) => (await fetch(href!)).text(), await link.getAttribute('href'));
  assert.is(downloaded, authority);
  assert.not.match(downloaded, /PRIVATE KEY/);
  await shot(page, 'secure-connection-settings');
  assert.equal(problems, []);
});

test.run();
