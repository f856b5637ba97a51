// Sharing in the browser: a link made in the share dialog (password, upload allowed, QR code),
// opened in a fresh browser with no session (password prompt, browse, preview, download one
// file and the folder as a zip, upload), a file request's drop page (a taken name is kept and
// the new file lands beside it), "Shared by me" with the received count, an unknown link's
// page; screenshots at desktop and phone width.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { removeDirs, type TestServer } from '../support/server.ts';
import { DESKTOP, PHONE, launch, newPage, setupAdmin, shot, startWithUi } from './browser.ts';

let server: TestServer;
let browser: Browser;
let owner: Page;
let ownerContext: BrowserContext;
let problems: string[];
let files: string;
const extra: BrowserContext[] = [];

test.before(async () => {
  server = await startWithUi({}, ['Files']);
  files = path.join(server.dirs.volumes, 'Files');
  fs.mkdirSync(path.join(files, 'Docs', 'sub'), { recursive: true });
  fs.writeFileSync(path.join(files, 'Docs', 'readme.txt'), 'hello from the shared folder');
  fs.writeFileSync(path.join(files, 'Docs', 'sub', 'deep.txt'), 'deeper');
  fs.mkdirSync(path.join(files, 'Inbox'));
  fs.writeFileSync(path.join(files, 'Inbox', 'report.txt'), 'already here');
  ({ browser } = await launch());
  const p = await newPage(browser, DESKTOP);
  owner = p.page;
  problems = p.problems;
  ownerContext = p.context;
  await setupAdmin(p.context, server.url);
});

test.after(async () => {
  for (const c of extra) await c.close().catch(() => undefined);
  await ownerContext?.close();
  await browser?.close();
  await server?.close();
  if (server) removeDirs(server.dirs);
});

async function visitor(viewport = DESKTOP): Promise<{ page: Page; problems: string[] }> {
  const v = await newPage(browser, viewport);
  extra.push(v.context);
  return { page: v.page, problems: v.problems };
}

async function shareFromMenu(name: string): Promise<void> {
  await owner.goto(`${server.url}/files/Files`);
  await owner.locator(`.entry[data-name="${name}"]`).click({ button: 'right' });
  await owner.getByRole('menuitem', { name: 'Share…' }).click();
  await owner.getByRole('dialog', { name: `Share “${name}”` }).waitFor();
}

let folderLink = '';
let requestLink = '';

test('the share dialog makes a password link to a folder that allows uploads, with a QR code', async () => {
  await shareFromMenu('Docs');
  const dialog = owner.getByRole('dialog', { name: 'Share “Docs”' });
  // Only the flags that mean something for a folder, download on by default.
  assert.ok(await dialog.getByLabel('Download', { exact: true }).isChecked());
  await dialog.getByLabel('Upload', { exact: true }).check();
  await dialog.getByLabel('Ask for a password').check();
  await dialog.getByLabel('Password', { exact: true }).fill('open sesame');
  await dialog.getByLabel('Label').fill('Docs for Carol');
  await dialog.getByRole('button', { name: 'Create link' }).click();
  const link = dialog.getByLabel('Link', { exact: true });
  await link.waitFor();
  folderLink = await link.inputValue();
  assert.match(folderLink, new RegExp(`^${server.url}/s/[A-Za-z0-9_-]{20,}$`));
  await dialog.getByRole('button', { name: 'QR code' }).click();
  await dialog.locator('svg.share-qr').waitFor();
  await shot(owner, 'shares-dialog-desktop');
  await dialog.getByRole('button', { name: 'Done' }).click();
});

test('a fresh browser opens the link: password (wrong, then right), browse, preview, download, zip, upload', async () => {
  const { page, problems: vp } = await visitor();
  await page.goto(folderLink);
  await page.getByText('This link is protected by a password.').waitFor();
  await page.getByLabel('Password').fill('wrong one');
  await page.getByRole('button', { name: 'Open' }).click();
  await page.getByRole('alert').filter({ hasText: 'password' }).waitFor();
  await page.getByLabel('Password').fill('open sesame');
  await page.getByRole('button', { name: 'Open' }).click();
  await page.locator('.link-entry[data-name="readme.txt"]').waitFor();
  await shot(page, 'shares-visitor-desktop');

  // Into a subfolder and back by the breadcrumbs.
  await page.locator('.link-entry[data-name="sub"] .link-open').click();
  await page.locator('.link-entry[data-name="deep.txt"]').waitFor();
  await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: 'Docs' }).click();
  await page.locator('.link-entry[data-name="readme.txt"]').waitFor();

  // Preview as text.
  await page.locator('.link-entry[data-name="readme.txt"] .link-open').click();
  await page.locator('.link-text').filter({ hasText: 'hello from the shared folder' }).waitFor();
  await page.getByRole('button', { name: 'Close' }).click();

  // One file downloads as itself.
  await page.getByRole('button', { name: 'Actions for readme.txt' }).click();
  const [one] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('menuitem', { name: 'Download' }).click(),
  ]);
  assert.is(one.suggestedFilename(), 'readme.txt');
  assert.is(fs.readFileSync((await one.path())!, 'utf8'), 'hello from the shared folder');

  // The whole folder as a zip.
  const [zip] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download all' }).click(),
  ]);
  assert.is(zip.suggestedFilename(), 'Docs.zip');
  const bytes = fs.readFileSync((await zip.path())!);
  assert.is(bytes.subarray(0, 2).toString('latin1'), 'PK');

  // Upload through the link; it lands in the owner's folder.
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    page.getByRole('button', { name: 'Upload' }).click(),
  ]);
  await chooser.setFiles({
    name: 'from-visitor.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('sent through the link'),
  });
  await page.locator('.link-entry[data-name="from-visitor.txt"]').waitFor();
  assert.is(fs.readFileSync(path.join(files, 'Docs', 'from-visitor.txt'), 'utf8'), 'sent through the link');
  // The same name again: the holder is asked, as in one's own folders; this link may not replace.
  const [again] = await Promise.all([
    page.waitForEvent('filechooser'),
    page.getByRole('button', { name: 'Upload', exact: true }).click(),
  ]);
  await again.setFiles({ name: 'from-visitor.txt', mimeType: 'text/plain', buffer: Buffer.from('a second thought') });
  const ask = page.getByRole('dialog', { name: '“from-visitor.txt” already exists' });
  await ask.getByText('You may not replace it here.').waitFor();
  assert.ok(await ask.getByRole('button', { name: /^Replace/ }).isDisabled(), 'replace is not offered');
  await ask.getByRole('button', { name: /^Keep both/ }).click();
  await page.locator('.link-entry[data-name="from-visitor (1).txt"]').waitFor();
  assert.is(fs.readFileSync(path.join(files, 'Docs', 'from-visitor.txt'), 'utf8'), 'sent through the link');
  assert.is(fs.readFileSync(path.join(files, 'Docs', 'from-visitor (1).txt'), 'utf8'), 'a second thought');
  // What the link does not allow is not offered.
  assert.is(await page.getByRole('button', { name: 'Folder' }).count(), 0);

  await page.setViewportSize(PHONE);
  await page.locator('.link-entry[data-name="readme.txt"]').waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the page is ${overflow}px wider than a phone`);
  await shot(page, 'shares-visitor-phone');
  assert.equal(vp, []);
});

test('a file request: the drop page takes a file and never overwrites a name', async () => {
  await shareFromMenu('Inbox');
  const dialog = owner.getByRole('dialog', { name: 'Share “Inbox”' });
  await dialog.getByLabel(/File request/).check();
  await dialog.getByLabel('At most this many files').fill('5');
  await dialog.getByLabel('Label').fill('Send me your report');
  await dialog.getByRole('button', { name: 'Create link' }).click();
  requestLink = await dialog.getByLabel('Link', { exact: true }).inputValue();
  await dialog.getByRole('button', { name: 'Done' }).click();

  const { page, problems: vp } = await visitor(PHONE);
  await page.goto(requestLink);
  await page.getByRole('heading', { name: 'Send me your report' }).waitFor();
  assert.is(await page.locator('.link-entry').count(), 0);
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    page.getByRole('button', { name: 'Drop files here or choose files' }).click(),
  ]);
  await chooser.setFiles({ name: 'report.txt', mimeType: 'text/plain', buffer: Buffer.from('my report') });
  await page.locator('.drop-item.done').filter({ hasText: 'sent as report (1).txt' }).waitFor();
  assert.is(fs.readFileSync(path.join(files, 'Inbox', 'report.txt'), 'utf8'), 'already here');
  assert.is(fs.readFileSync(path.join(files, 'Inbox', 'report (1).txt'), 'utf8'), 'my report');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the drop page is ${overflow}px wider than a phone`);
  await shot(page, 'shares-drop-phone');
  assert.equal(vp, []);
});

test('Shared by me lists both links with what they allow and what the file request received', async () => {
  await owner.goto(`${server.url}/files/Files`);
  await owner.getByRole('link', { name: 'Shared by me' }).click();
  const docs = owner.locator('.share-row').filter({ hasText: 'Docs for Carol' });
  await docs.waitFor();
  assert.match(await docs.innerText(), /password/);
  assert.match(await docs.innerText(), /upload/);
  const inbox = owner.locator('.share-row').filter({ hasText: 'Send me your report' });
  assert.match(await inbox.locator('.received').innerText(), /^1 file/);
  await shot(owner, 'shares-by-me-desktop');
  await owner.setViewportSize(PHONE);
  await owner.reload(); // the shell's sidebar slides away at phone width; a fresh load starts with it closed
  await owner.locator('.share-row').filter({ hasText: 'Docs for Carol' }).waitFor();
  await shot(owner, 'shares-by-me-phone');
  await owner.setViewportSize(DESKTOP);

  // Edit: the label changes in place.
  await inbox.getByRole('button', { name: 'Edit' }).click();
  const dialog = owner.getByRole('dialog', { name: 'Share “Inbox”' });
  await dialog.getByLabel('Label').fill('Reports, please');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await owner.locator('.share-row').filter({ hasText: 'Reports, please' }).waitFor();

  // Delete: the link is gone for its holders.
  await owner
    .locator('.share-row')
    .filter({ hasText: 'Reports, please' })
    .getByRole('button', { name: 'Delete' })
    .click();
  await owner.getByRole('dialog').getByRole('button', { name: 'Delete link' }).click();
  await owner.locator('.share-row').filter({ hasText: 'Reports, please' }).waitFor({ state: 'detached' });
  const { page } = await visitor();
  await page.goto(requestLink);
  await page.getByRole('heading', { name: 'This link does not exist or has expired' }).waitFor();
  await page.goto(`${server.url}/s/not-a-real-token`);
  await page.getByRole('heading', { name: 'This link does not exist or has expired' }).waitFor();
  assert.equal(problems, []);
});

test.run();
