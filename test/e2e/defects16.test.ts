// Issue 16's defects, each at the width where it was seen: favourites follow a renamed folder,
// search names stay whole around <mark>, an empty token password is said before sending,
// Escape clears the selection and the details panel takes the focus, Home shows no usage bar
// while SHOW_VOLUME_USAGE is off, a tap on a folder opens it at phone width, the setup form
// states the password rule, sign-out leaves no toast on the sign-in card; a photo folder opens
// as a grid with small thumbnails in the list view.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { png } from '../support/media.ts';
import { removeDirs, type TestServer } from '../support/server.ts';
import { DESKTOP, PHONE, launch, newPage, searchFinds, setupAdmin, shot, startWithUi } from './browser.ts';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const files = (...p: string[]) => path.join(server.dirs.volumes, 'Files', ...p);

test.before(async () => {
  server = await startWithUi({}, ['Files']);
  fs.mkdirSync(files('Documents', 'Recipes'), { recursive: true });
  fs.writeFileSync(files('Documents', 'Recipes', 'pancakes.md'), '# Pancakes\n');
  fs.writeFileSync(files('forest.jpg'), await png(40, 30));
  fs.mkdirSync(files('Photos'));
  for (let i = 0; i < 5; i++) fs.writeFileSync(files('Photos', `p${i}.png`), await png(40 + i, 30));
  ({ browser } = await launch());
  ({ context, page } = await newPage(browser, DESKTOP));
  await setupAdmin(context, server.url);
});
test.after(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  if (server) removeDirs(server.dirs);
});

test('favourite follows its folder renamed (1366 px)', async () => {
  await page.setViewportSize({ width: 1366, height: 800 });
  await page.goto(`${server.url}/files/Files/Documents/Recipes`);
  await page.getByRole('button', { name: 'Add folder to favourites' }).click();
  const fav = page.getByRole('list', { name: 'Favourites' }).getByRole('link');
  await fav.getByText('Recipes').waitFor();
  await page.goto(`${server.url}/files/Files/Documents`);
  await page.locator('.entry[data-name="Recipes"]').click();
  await page.keyboard.press('F2');
  const box = page.getByRole('textbox', { name: 'New name' });
  await box.fill('Cooking');
  await page.getByRole('dialog', { name: 'Rename “Recipes”' }).getByRole('button', { name: 'Rename' }).click();
  await fav.getByText('Cooking').waitFor();
  await fav.click();
  await page.locator('.entry[data-name="pancakes.md"]').waitFor();
});

test('search names are not split by their highlights', async () => {
  await searchFinds(page, server.url, 'pancake', 'pancakes.md');
  await page.goto(`${server.url}/search?q=pancake`);
  const name = page.getByRole('list', { name: 'Name matches' }).locator('button.link').first();
  await name.waitFor();
  assert.is(await name.innerText(), 'pancakes.md');
  await shot(page, 'search-marks-desktop');
});

test('Escape clears the selection; the details panel takes the focus', async () => {
  await page.goto(`${server.url}/files/Files`);
  await page.locator('.entry[data-name="forest.jpg"]').click();
  await page.getByText('1 selected').waitFor();
  await page.keyboard.press('Escape');
  await page.getByText('1 selected').waitFor({ state: 'detached' });
  await page.locator('.entry[data-name="forest.jpg"]').click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Details and versions' }).click();
  const panel = page.getByRole('complementary', { name: 'Details of forest.jpg' });
  await panel.waitFor();
  assert.ok(await panel.evaluate((el) => el.contains(document.activeElement)), 'focus in the panel');
  const toolbar = (await page.getByRole('toolbar', { name: 'Folder actions' }).boundingBox())!;
  const side = (await panel.boundingBox())!;
  assert.ok(toolbar.x + toolbar.width <= side.x + 1, 'the panel does not cover the toolbar');
});

test('Home shows no usage bar while SHOW_VOLUME_USAGE is off', async () => {
  await page.goto(`${server.url}/`);
  await page.locator('.volume-card', { hasText: 'Files' }).waitFor();
  await page.waitForLoadState('networkidle');
  assert.is(await page.locator('.volume-card [role="meter"]').count(), 0);
});

test('a photo folder opens as a grid; the list view shows small thumbnails', async () => {
  await page.goto(`${server.url}/files/Files/Photos`);
  await page.locator('.tile[data-name="p0.png"] img.thumb').waitFor();
  await page.getByRole('button', { name: 'Show as list' }).click();
  await page.locator('.row[data-name="p0.png"] img.thumb-small').waitFor();
  await page.goto(`${server.url}/files/Files/Photos`);
  await page.locator('.row[data-name="p0.png"]').waitFor();
  assert.is(await page.locator('.tile').count(), 0, 'the choice is remembered');
});

test('an empty token password is said before sending', async () => {
  await page.goto(`${server.url}/settings/tokens`);
  const form = page.getByRole('form', { name: 'Issue a token' });
  await form.getByLabel('Name').fill('backup');
  await form.getByRole('button', { name: 'Issue token' }).click();
  await form.getByText('Your password is required to issue a token.').waitFor();
  assert.is(await form.getByText('wrong', { exact: false }).count(), 0);
});

test('phone: one tap on a folder opens it', async () => {
  const phone = await browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true, deviceScaleFactor: 1 });
  try {
    await phone.addCookies(await context.cookies());
    const ph = await phone.newPage();
    await ph.goto(`${server.url}/files/Files`);
    await ph.locator('.entry[data-name="Documents"]').tap();
    await ph.locator('.entry[data-name="Cooking"]').waitFor();
    await shot(ph, 'tap-opens-folder-phone');
  } finally {
    await phone.close();
  }
});

test('sign-out leaves no toast; setup states the password rule', async () => {
  await page.goto(`${server.url}/files/Files`);
  await page.locator('.entry[data-name="forest.jpg"]').click();
  await page.keyboard.press('Control+c');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  assert.is(await page.locator('.toast').count(), 0);
  const fresh = await startWithUi({}, ['Files']);
  const p = await newPage(browser, PHONE);
  try {
    await p.page.goto(fresh.url);
    await p.page.getByText('At least 8 characters').waitFor();
    await p.page.getByLabel('Password').fill('short');
    await p.page.getByText('3 more').waitFor();
    await shot(p.page, 'setup-rule-phone');
  } finally {
    await p.context.close();
    await fresh.close();
    removeDirs(fresh.dirs);
  }
});

test.run();
