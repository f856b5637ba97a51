// Passkeys and two-step sign-in through the UI in Chromium: a passkey registered in Settings with
// the browser's virtual authenticator (DevTools protocol WebAuthn.addVirtualAuthenticator) and
// then used on the sign-in card; two-step sign-in set up from its QR screen's key with a code
// from otplib, then a password sign-in that asks for the next code.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateSync } from 'otplib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { removeDirs, type TestServer } from '../support/server.ts';
import { DESKTOP, addVirtualAuthenticator, launch, newPage, setupAdmin, shot, startWithUi } from './browser.ts';

let server: TestServer;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];
const EMAIL = 'admin@example.org';
const PASSWORD = 'correct horse battery';

const me = async () =>
  (await (await context.request.get(`${base}/api/auth/me`)).json()).user as { username: string } | null;
async function signOut(): Promise<void> {
  await context.request.post(`${base}/api/auth/logout`);
  await page.goto(base);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
}

test.before(async () => {
  server = await startWithUi();
  // localhost is a secure context for the browser (a LAN address over http is not).
  base = server.url.replace('127.0.0.1', 'localhost');
  ({ browser } = await launch());
  ({ context, page, problems } = await newPage(browser, DESKTOP));
  await setupAdmin(context, base, EMAIL, PASSWORD);
  await addVirtualAuthenticator(context, page);
});
test.after(async () => {
  await browser?.close();
  await server?.close();
  if (server) removeDirs(server.dirs);
});

test('a passkey registered in Settings signs in from the sign-in card', async () => {
  await page.goto(`${base}/settings/security`);
  await page.getByRole('heading', { name: 'Passkeys' }).waitFor();
  await page.getByText('No passkeys yet.').waitFor();
  await page.getByLabel('Name for the new passkey').fill('Virtual key');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByText('Virtual key', { exact: true }).waitFor();
  await shot(page, 'signin-passkey-settings');

  await signOut();
  assert.is(await me(), null);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' });
  assert.is((await me())?.username, 'admin');
  assert.equal(problems, []);
});

async function passwordSignIn(): Promise<void> {
  await page.getByLabel('Email or username').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

test('two-step sign-in: set up from the QR screen, then the password asks for the code', async () => {
  // A passkey session may not add a second factor: the page says so.
  await page.goto(`${base}/settings/security`);
  await page.getByRole('button', { name: 'Set up two-step sign-in' }).click();
  await page.getByText('Sign in with your password to set up a second factor.').waitFor();
  await signOut();
  await passwordSignIn();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' });
  await page.goto(`${base}/settings/security`);
  await page.getByRole('button', { name: 'Set up two-step sign-in' }).click();
  await page.getByRole('img', { name: /QR code/ }).waitFor();
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  const now = Math.floor(Date.now() / 1000);
  await page.getByLabel('Six-digit code from the app').fill(generateSync({ secret, epoch: now - 30 }));
  await page.getByRole('button', { name: 'Turn on' }).click();
  const codes = page.getByRole('list').filter({ has: page.getByText(/^[0-9a-z]{5}-[0-9a-z]{5}$/).first() });
  await page.getByRole('button', { name: 'Download recovery codes' }).waitFor();
  assert.is(await codes.getByRole('listitem').count(), 10);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download recovery codes' }).click();
  assert.match((await download).suggestedFilename(), /^burrow-recovery-codes-/);
  await shot(page, 'signin-totp-on');

  await signOut();
  await passwordSignIn();
  const code = page.getByLabel(/Code from your authenticator app/);
  await code.waitFor();
  assert.is(await me(), null);
  await code.fill(generateSync({ secret, epoch: now }));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' });
  assert.is((await me())?.username, 'admin');
  assert.equal(problems, []);
});

test.run();
