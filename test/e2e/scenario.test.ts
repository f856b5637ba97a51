// The scenario end to end in Chromium against the real server: setup → sign in →
// upload a folder via TUS → browse → rename → move by drag-drop → delete → restore from
// trash → search by name and by content → issue a read token and use it → sign out.
// Screenshots of the main screens at desktop and phone width go to test/.artifacts/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { removeDirs, type TestServer } from '../support/server.ts';
import { DESKTOP, PHONE, launch, newPage, searchFinds, shot, startWithUi } from './browser.ts';

let server: TestServer;
let browser: Browser;
let profile: string;
let page: Page;
let problems: string[];
let closeContext: () => Promise<void>;
const email = 'ada@example.org';
const password = 'a long and good password';
const upload = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-e2e-upload-'));
const tusRequests: string[] = [];

test.before(async () => {
  server = await startWithUi({ UPLOAD_CHUNKED_ENABLED: 'true' });
  ({ browser, profile } = await launch());
  const p = await newPage(browser, DESKTOP);
  page = p.page;
  problems = p.problems;
  closeContext = () => p.context.close();
  page.on('request', (r) => {
    if (r.url().includes('/api/upload/tus')) tusRequests.push(r.method());
  });
  const docs = path.join(upload, 'docs');
  fs.mkdirSync(docs);
  fs.writeFileSync(path.join(docs, 'notes.txt'), 'first line\nthe burrowing badgers dig at night\n');
  fs.writeFileSync(path.join(docs, 'a.txt'), 'alpha\n');
  fs.writeFileSync(path.join(docs, 'b.md'), '# bravo\n');
});

test.after(async () => {
  await closeContext?.();
  await browser?.close();
  await server?.close();
  if (server) removeDirs(server.dirs);
  fs.rmSync(upload, { recursive: true, force: true });
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
});

const volume = () => path.join(server.dirs.volumes, 'Files');
const entry = (name: string) => page.locator(`.entry[data-name="${name}"]`);

test('first run: the setup page creates the administrator and opens the workspace', async () => {
  await page.goto(server.url);
  await page.getByRole('heading', { name: 'Welcome to Burrow' }).waitFor();
  await shot(page, 'setup-desktop');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  // A new installation's next step: which folders of this computer to show; Home has the volumes.
  await page.getByText('Your account is ready.').waitFor();
  await page.goto(server.url);
  await page.locator('.volume-card', { hasText: 'Files' }).waitFor();
});

test('sign out, then sign in with identifier and password', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Email or username').fill('ada');
  await page.getByLabel('Password').fill('wrong password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  const err = page.locator('.error-note');
  await err.waitFor();
  assert.match(await err.innerText(), /Request ID/);
  await shot(page, 'signin-error-desktop');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.locator('.volume-card', { hasText: 'Files' }).waitFor();
  await shot(page, 'home-desktop');
});

test('upload a folder through TUS and browse it', async () => {
  await page.locator('.volume-card', { hasText: 'Files' }).click();
  await page.getByRole('region', { name: 'Folder Files' }).waitFor();
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Upload folder' }).click();
  await (await chooser).setFiles(path.join(upload, 'docs'));
  await entry('docs').waitFor();
  await page.locator('.tray').getByText('Uploads').first().waitFor();
  await page.waitForFunction(() => document.querySelectorAll('.tray .upload.done').length === 3);
  assert.ok(tusRequests.includes('POST') && tusRequests.includes('PATCH'), `TUS was used (${tusRequests.join(',')})`);
  assert.equal(
    fs.readFileSync(path.join(volume(), 'docs', 'notes.txt'), 'utf8'),
    'first line\nthe burrowing badgers dig at night\n',
  );
  await entry('docs').dblclick();
  await entry('notes.txt').waitFor();
  for (const n of ['a.txt', 'b.md']) await entry(n).waitFor();
  await shot(page, 'folder-list-desktop');
});

test('rename with F2', async () => {
  await entry('notes.txt').click();
  await page.keyboard.press('F2');
  const input = page.locator('dialog[open] input');
  await input.fill('notes-renamed.txt');
  await input.press('Enter');
  await entry('notes-renamed.txt').waitFor();
  assert.ok(fs.existsSync(path.join(volume(), 'docs', 'notes-renamed.txt')));
  assert.not.ok(fs.existsSync(path.join(volume(), 'docs', 'notes.txt')));
});

test('move by drag and drop onto a folder', async () => {
  await page.getByRole('button', { name: 'Folder', exact: true }).click();
  const input = page.locator('dialog[open] input');
  await input.fill('sub');
  await input.press('Enter');
  await entry('sub').waitFor();
  await entry('a.txt').dragTo(entry('sub'));
  await page.waitForFunction(() => !document.querySelector('.entry[data-name="a.txt"]'));
  assert.ok(fs.existsSync(path.join(volume(), 'docs', 'sub', 'a.txt')), 'a.txt moved into sub');
  assert.not.ok(fs.existsSync(path.join(volume(), 'docs', 'a.txt')));
});

test('delete to the trash with the impact warning, then restore', async () => {
  await entry('b.md').click();
  await page.keyboard.press('Delete');
  const dialog = page.locator('dialog[open]');
  await dialog.getByText('to the trash').waitFor();
  await dialog.getByRole('button', { name: 'Move to trash' }).click();
  await page.waitForFunction(() => !document.querySelector('.entry[data-name="b.md"]'));
  assert.not.ok(fs.existsSync(path.join(volume(), 'docs', 'b.md')));
  await page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name: 'Trash' }).click();
  const row = page.getByRole('row', { name: /b\.md/ });
  await row.waitFor();
  await shot(page, 'trash-desktop');
  await row.getByRole('button', { name: 'Restore' }).click();
  await page.getByText('The trash is empty.').waitFor();
  assert.ok(fs.existsSync(path.join(volume(), 'docs', 'b.md')), 'b.md restored');
});

test('search finds the file by name and by content, and opens its folder', async () => {
  const box = page.getByRole('searchbox', { name: 'Search files' });
  const appears = async (term: string, list: string, file: string, shown: string | RegExp) => {
    await searchFinds(page, server.url, term, file);
    await box.fill(term);
    await box.press('Enter');
    await page.getByRole('list', { name: list }).getByText(shown).first().waitFor();
  };
  await appears('notes-renamed', 'Name matches', 'notes-renamed.txt', 'notes-renamed.txt');
  await appears('badgers', 'Content matches', 'notes-renamed.txt', /burrowing\s*badgers/);
  await shot(page, 'search-desktop');
  await page
    .getByRole('list', { name: 'Content matches' })
    .getByRole('button', { name: 'Open folder' })
    .first()
    .click();
  // The folder opens, then selects the file it was opened for.
  await page.locator('.entry.selected[data-name="notes-renamed.txt"]').waitFor();
});

test('issue a read token, see the secret once, and use it with fetch', async () => {
  await page.goto(`${server.url}/settings/tokens`);
  await page.getByLabel('Name').fill('e2e script');
  await page.getByLabel('Your password').fill(password);
  await page.getByRole('button', { name: 'Issue token' }).click();
  const secret = (await page.locator('#token-secret').innerText()).trim();
  assert.ok(secret.length > 20, 'secret shown');
  await page.getByText('It is shown only once').waitFor();
  await shot(page, 'token-secret-desktop');
  const read = await fetch(`${server.url}/api/volumes`, { headers: { authorization: `Bearer ${secret}` } });
  assert.is(read.status, 200);
  assert.ok((await read.json()).some((v: { name: string }) => v.name === 'Files'));
  const write = await fetch(`${server.url}/api/files/folder`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ path: 'Files', name: 'nope' }),
  });
  assert.is(write.status, 403);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await page.getByRole('table', { name: 'API tokens' }).getByText('e2e script').waitFor();
  assert.not.ok(await page.locator('#token-secret').count(), 'the secret is gone from the page');
});

test('a 401 mid-session asks to sign in again and keeps what was typed', async () => {
  await page.getByLabel('Name').fill('typed before expiry');
  await page.context().clearCookies();
  await page.getByLabel('Your password').fill(password);
  await page.getByRole('button', { name: 'Issue token' }).click();
  const overlay = page.getByRole('dialog', { name: 'Sign in again' });
  await overlay.waitFor();
  await overlay.getByLabel('Email or username').fill(email);
  await overlay.getByLabel('Password').fill(password);
  await overlay.getByRole('button', { name: 'Sign in', exact: true }).click();
  await overlay.waitFor({ state: 'detached' });
  assert.is(await page.getByLabel('Name').inputValue(), 'typed before expiry');
});

test('sign out', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  const me = await page.context().request.get(`${server.url}/api/auth/me`);
  assert.equal((await me.json()).user, null);
  assert.equal(problems, []);
});

test('phone width: the main screens fit 360 px', async () => {
  const p = await newPage(browser, PHONE);
  try {
    await p.page.goto(server.url);
    await p.page.getByLabel('Email or username').fill(email);
    await p.page.getByLabel('Password').fill(password);
    await shot(p.page, 'signin-phone');
    await p.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await p.page.locator('.volume-card').first().waitFor();
    await shot(p.page, 'home-phone');
    await p.page.goto(`${server.url}/files/Files/docs`);
    await p.page.locator('.entry[data-name="b.md"]').waitFor();
    const overflow = await p.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no sideways scrolling (overflow ${overflow}px)`);
    await shot(p.page, 'folder-phone');
    await p.page.getByRole('button', { name: 'Menu' }).click();
    await shot(p.page, 'sidebar-phone');
    await p.page.goto(`${server.url}/settings/tokens`);
    await p.page.getByRole('button', { name: 'Issue token' }).waitFor();
    await shot(p.page, 'tokens-phone');
    assert.equal(p.problems, []);
  } finally {
    await p.context.close();
  }
});

test.run();
