// Archives in the browser: an archive opens like a folder (breadcrumbs inside it), one entry
// previews as text (an .html entry shown as text, never run), "Extract here" shows progress in
// the operations tray with the landed names, and "Compress to zip" makes a zip beside a selection
// under the name it proposes.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { removeDirs, type TestServer } from '../support/server.ts';
import { yazlZip } from '../support/archives.ts';
import { DESKTOP, launch, newPage, setupAdmin, shot, startWithUi } from './browser.ts';

let server: TestServer;
let browser: Browser;
let page: Page;
let problems: string[];
let closeContext: () => Promise<void>;
let files: string;

test.before(async () => {
  server = await startWithUi({}, ['Files']);
  files = path.join(server.dirs.volumes, 'Files');
  await yazlZip(path.join(files, 'bundle.zip'), [
    { name: 'readme.txt', data: 'hello from inside' },
    { name: 'docs/guide.txt', data: 'the guide' },
    { name: 'docs/page.html', data: '<script>window.__ran = true</script><b>bold</b>' },
  ]);
  fs.writeFileSync(path.join(files, 'notes.txt'), 'notes');
  ({ browser } = await launch());
  const p = await newPage(browser, DESKTOP);
  page = p.page;
  problems = p.problems;
  closeContext = () => p.context.close();
  await setupAdmin(p.context, server.url);
});

test.after(async () => {
  await closeContext?.();
  await browser?.close();
  await server?.close();
  if (server) removeDirs(server.dirs);
});

test('an archive opens like a folder: entries, breadcrumbs inside it, a text preview that never runs markup', async () => {
  await page.goto(`${server.url}/files/Files`);
  await page.locator('.entry[data-name="bundle.zip"]').dblclick();
  await page.getByRole('button', { name: 'readme.txt' }).waitFor();
  assert.match(page.url(), /\/archive\?path=Files%2Fbundle\.zip$/);
  await page.getByRole('button', { name: 'docs' }).click();
  await page.getByRole('navigation', { name: 'Inside the archive' }).getByText('docs').waitFor();
  await page.getByRole('button', { name: 'page.html' }).click();
  const preview = page.locator('.archive-preview pre');
  await preview.waitFor();
  assert.match((await preview.textContent()) ?? '', /<script>window.__ran = true<\/script>/);
  assert.is(await page.evaluate(() => (window as unknown as { __ran?: boolean }).__ran), undefined);
  await shot(page, 'archive-inside');
  await page.getByRole('navigation', { name: 'Inside the archive' }).getByRole('link', { name: 'bundle.zip' }).click();
  await page.getByRole('button', { name: 'readme.txt' }).waitFor();
});

test('"Extract here" shows progress in the tray and the landed names; a second run asks, and keep both lands under name (1)', async () => {
  await page.goto(`${server.url}/archive?path=Files%2Fbundle.zip`);
  await page.getByRole('button', { name: 'readme.txt' }).waitFor();
  await page.getByRole('button', { name: 'Extract here' }).click();
  await page
    .locator('.tray')
    .getByText(/Landed as .*docs.*readme\.txt|Landed as .*readme\.txt.*docs/)
    .waitFor();
  assert.is(fs.readFileSync(path.join(files, 'docs', 'guide.txt'), 'utf8'), 'the guide');
  await page.getByRole('button', { name: 'Extract here' }).click();
  const ask = page.locator('.conflict-dialog');
  await ask.getByText('1 of 2').waitFor();
  await ask.getByLabel('Do this for all 2 conflicts').check();
  await ask.getByRole('button', { name: /^Keep both/ }).click();
  await page
    .locator('.tray')
    .getByText(/docs \(1\)/)
    .waitFor();
  assert.ok(fs.existsSync(path.join(files, 'readme (1).txt')));
});

test('"Compress to zip" on a selection makes a zip beside it, under the name proposed', async () => {
  await page.goto(`${server.url}/files/Files`);
  await page.locator('.entry[data-name="notes.txt"]').click();
  await page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Compress to zip…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Compress “notes.txt” to zip' });
  assert.is(await dialog.getByLabel('Name of the zip').inputValue(), 'notes.zip');
  await dialog.getByRole('button', { name: 'Compress' }).click();
  await page.locator('.entry[data-name="notes.zip"]').waitFor();
  assert.ok(fs.statSync(path.join(files, 'notes.zip')).size > 0);
  assert.equal(problems, []);
});

test.run();
