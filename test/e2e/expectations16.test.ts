// Issue 16, what users of other file managers expect: Undo on the delete and move toasts, type-ahead
// find and a filter box in a folder, search scoped to the folder, search results with thumbnail,
// size, date and sort, recent destinations and New folder in the copy/move picker; and the
// details panel's Edit text opening the full-window editor, Back closing the viewer.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { png } from '../support/media.ts';
import { removeDirs, type TestServer } from '../support/server.ts';
import { DESKTOP, launch, newPage, setupAdmin, shot, startWithUi } from './browser.ts';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];
const files = (...p: string[]) => path.join(server.dirs.volumes, 'Files', ...p);
const entry = (name: string) => page.locator(`.entry[data-name="${name}"]`);
const toast = (text: string) => page.locator('.toast', { hasText: text });

test.before(async () => {
  server = await startWithUi({}, ['Files']);
  fs.mkdirSync(files('Work', 'Reports'), { recursive: true });
  fs.mkdirSync(files('Archive'));
  fs.writeFileSync(files('Work', 'notes.txt'), 'first line\n');
  fs.writeFileSync(files('Work', 'budget.txt'), 'numbers\n');
  fs.writeFileSync(files('Work', 'recipe-small.txt'), 'x');
  fs.writeFileSync(files('Work', 'recipe-large.txt'), 'y'.repeat(50_000));
  fs.writeFileSync(files('Work', 'recipe-photo.png'), await png(60, 40));
  fs.writeFileSync(files('Work', 'Reports', 'recipe-report.txt'), 'z'.repeat(2_000));
  fs.writeFileSync(files('recipe-elsewhere.txt'), 'outside the folder');
  fs.writeFileSync(files('Work', 'zebra.txt'), 'stripes');
  ({ browser } = await launch());
  ({ context, page, problems } = await newPage(browser, DESKTOP));
  await setupAdmin(context, server.url);
});
test.after(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  if (server) removeDirs(server.dirs);
});

test('delete, then Undo on the toast restores the file from the trash', async () => {
  await page.goto(`${server.url}/files/Files/Work`);
  await entry('notes.txt').click();
  await page.keyboard.press('Delete');
  await page
    .getByRole('dialog', { name: 'Delete “notes.txt”?' })
    .getByRole('button', { name: 'Move to trash' })
    .click();
  await entry('notes.txt').waitFor({ state: 'detached' });
  assert.not.ok(fs.existsSync(files('Work', 'notes.txt')));
  await shot(page, 'undo-delete-toast');
  await toast('to the trash').getByRole('button', { name: 'Undo' }).click();
  await toast('Restored notes.txt').waitFor();
  await entry('notes.txt').waitFor();
  assert.is(fs.readFileSync(files('Work', 'notes.txt'), 'utf8'), 'first line\n');
  const trash = (await (await context.request.get(`${server.url}/api/trash`)).json()) as { items: unknown[] };
  assert.is(trash.items.length, 0, 'the trash entry was the one restored');
});

test('move, then Undo on the toast moves it back; the picker makes a folder and remembers destinations', async () => {
  await page.goto(`${server.url}/files/Files/Work`);
  await entry('budget.txt').click();
  await page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Move to…' }).click();
  const picker = page.getByRole('dialog', { name: 'Move “budget.txt” to…' });
  await picker.getByRole('button', { name: 'All volumes' }).click();
  await picker.getByRole('button', { name: 'Files' }).click();
  await picker.getByRole('button', { name: 'Archive' }).click();
  await picker.getByText('Into Files/Archive').waitFor();
  await picker.getByRole('button', { name: 'New folder' }).click();
  await picker.getByRole('textbox', { name: 'New folder name' }).fill('2024');
  await picker.getByRole('button', { name: 'Create' }).click();
  await picker.getByText('Into Files/Archive/2024').waitFor();
  assert.ok(fs.statSync(files('Archive', '2024')).isDirectory(), 'the picker made the folder');
  await picker.getByRole('button', { name: 'Move here' }).click();
  await entry('budget.txt').waitFor({ state: 'detached' });
  assert.ok(fs.existsSync(files('Archive', '2024', 'budget.txt')));
  await toast('Moved to Files/Archive/2024').getByRole('button', { name: 'Undo' }).click();
  await toast('Moved back budget.txt').waitFor();
  await entry('budget.txt').waitFor();
  assert.ok(fs.existsSync(files('Work', 'budget.txt')));
  assert.not.ok(fs.existsSync(files('Archive', '2024', 'budget.txt')));

  // The next picker offers that folder among the recent destinations.
  await entry('zebra.txt').click();
  await page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Copy to…' }).click();
  const again = page.getByRole('dialog', { name: 'Copy “zebra.txt” to…' });
  const recent = again.getByRole('group', { name: 'Recent destinations' });
  await recent.getByRole('button', { name: '2024' }).click();
  await again.getByText('Into Files/Archive/2024').waitFor();
  await shot(page, 'picker-recent');
  await again.getByRole('button', { name: 'Copy here' }).click();
  await toast('Copied to Files/Archive/2024').waitFor();
  assert.ok(fs.existsSync(files('Archive', '2024', 'zebra.txt')));
});

test('type-ahead find selects the first name starting with the typed letters', async () => {
  await page.goto(`${server.url}/files/Files/Work`);
  await entry('zebra.txt').waitFor();
  await page.getByRole('listbox', { name: 'Folder contents' }).focus();
  await page.keyboard.type('ze');
  await page.locator('.entry.selected[data-name="zebra.txt"]').waitFor();
  await page.waitForTimeout(1100); // a pause starts a new prefix
  await page.keyboard.type('recipe-l');
  await page.locator('.entry.selected[data-name="recipe-large.txt"]').waitFor();
  assert.is(await page.locator('.entry.selected').count(), 1);
});

test('the filter box filters the loaded listing; Enter searches this folder only', async () => {
  await page.goto(`${server.url}/files/Files/Work`);
  await entry('zebra.txt').waitFor();
  const box = page.getByRole('searchbox', { name: 'Filter this folder' });
  await box.fill('recipe');
  await entry('zebra.txt').waitFor({ state: 'detached' });
  assert.equal(
    (await page.locator('.entry').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))).sort(),
    ['recipe-large.txt', 'recipe-photo.png', 'recipe-small.txt'],
  );
  await page.getByText('3 items matching “recipe”').waitFor();
  await box.press('Enter');
  await page.waitForURL(
    (u) =>
      u.pathname === '/search' && u.searchParams.get('q') === 'recipe' && u.searchParams.get('path') === 'Files/Work',
  );
  const names = page.getByRole('list', { name: 'Name matches' });
  await names.locator('li[data-name="recipe-report.txt"]').waitFor();
  assert.is(await names.locator('li[data-name="recipe-elsewhere.txt"]').count(), 0, 'nothing from outside the folder');
});

test('search results show thumbnail, size and date, and sort by size', async () => {
  await page.goto(`${server.url}/search?${new URLSearchParams({ q: 'recipe', path: 'Files/Work' })}`);
  const names = page.getByRole('list', { name: 'Name matches' });
  await names.locator('li[data-name="recipe-photo.png"] img.thumb-small').waitFor();
  await names.locator('li[data-name="recipe-large.txt"] .size', { hasText: /KB/ }).waitFor();
  assert.ok((await names.locator('li[data-name="recipe-large.txt"] .date').innerText()).trim().length > 0, 'a date');
  await page.getByRole('combobox', { name: 'Sort results' }).selectOption('size');
  // Largest first: 50,000 > 2,000 > 1 bytes (the picture's size is whatever the encoder made).
  await page.waitForFunction(() => {
    const order = [...document.querySelectorAll('[aria-label="Name matches"] li')]
      .map((li) => li.getAttribute('data-name'))
      .filter((n) => n!.endsWith('.txt'));
    return order.join() === 'recipe-large.txt,recipe-report.txt,recipe-small.txt';
  });
  await page.getByRole('combobox', { name: 'Sort results' }).selectOption('name');
  const order = await names.locator('li').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')));
  assert.equal(
    order,
    [...order].sort((a, b) => a!.localeCompare(b!)),
  );
  await shot(page, 'search-sorted');
});

test('Edit text in the details panel opens the full-window editor', async () => {
  await page.goto(`${server.url}/files/Files/Work`);
  await entry('zebra.txt').click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Details and versions' }).click();
  const panel = page.getByRole('complementary', { name: 'Details of zebra.txt' });
  await panel.getByRole('button', { name: 'Edit text' }).click();
  await page.locator('.cm-editor .cm-content', { hasText: 'stripes' }).waitFor();
  assert.is(await panel.locator('textarea').count(), 0, 'no old textarea');
  await page.goBack();
  await page.locator('.cm-editor').waitFor({ state: 'detached' });
  assert.ok(page.url().endsWith('/files/Files/Work'), 'Back left the editor, not the folder');
});

test('Back closes the viewer and stays in the folder', async () => {
  await page.goto(`${server.url}/files/Files/Work`);
  await entry('recipe-photo.png').dblclick();
  const close = page.getByRole('button', { name: 'Close viewer' });
  await close.waitFor();
  await page.goBack();
  await close.waitFor({ state: 'detached' });
  assert.ok(page.url().endsWith('/files/Files/Work'));
  await entry('recipe-photo.png').waitFor();
  // Escape closes too, and steps off the viewer's history entry (Back would otherwise do nothing visible).
  await entry('recipe-photo.png').dblclick();
  await close.waitFor();
  assert.ok(await page.evaluate(() => Boolean(history.state?.burrowViewer)), 'the viewer stands on its own entry');
  await page.keyboard.press('Escape');
  await close.waitFor({ state: 'detached' });
  assert.not.ok(await page.evaluate(() => Boolean(history.state?.burrowViewer)), 'back on the folder entry');
  assert.equal(problems, []);
});

test.run();
