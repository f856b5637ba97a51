// A new installation in Chromium: the setup page creates the administrator and leads to
// Administration → Volumes, where a folder of this computer is picked with the server-files
// browser, named, made read-only and added; it shows beside VOLUME_ROOT's folders with its files,
// and the files at the top of VOLUME_ROOT are said not to be shown.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { removeDirs, type TestServer } from '../support/server.ts';
import { DESKTOP, launch, newPage, shot, startWithUi } from './browser.ts';

let server: TestServer;
let browser: Browser;

test.before(async () => {
  server = await startWithUi({}, ['Files']);
  fs.writeFileSync(path.join(server.dirs.volumes, 'forgotten.pdf'), 'x');
  fs.mkdirSync(path.join(server.dirs.root, 'host-docs', 'letters'), { recursive: true });
  fs.writeFileSync(path.join(server.dirs.root, 'host-docs', 'letters', 'to-ana.txt'), 'hello');
  ({ browser } = await launch());
});

test.after(async () => {
  await browser?.close();
  await server?.close();
  if (server) removeDirs(server.dirs);
});

test('setup, then add a host folder as a read-only volume with the picker, and find its files', async () => {
  const { page, problems, context } = await newPage(browser, DESKTOP);
  try {
    await page.goto(server.url);
    await page.getByRole('heading', { name: 'Welcome to Burrow' }).waitFor();
    await page.getByLabel('Email').fill('admin@example.org');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();

    await page.getByText('Your account is ready.').waitFor();
    assert.match(new URL(page.url()).pathname, /^\/admin\/volumes$/);
    const loose = page.getByRole('note').filter({ hasText: 'forgotten.pdf' });
    await loose.waitFor();
    assert.match(await loose.innerText(), /1 file at the top of .* is not shown/);

    await page.getByRole('button', { name: 'Browse this computer…' }).click();
    const picker = page.getByRole('list', { name: 'Server folders' });
    await picker.getByRole('button', { name: '↰ Up' }).click();
    await picker.getByRole('button', { name: 'host-docs', exact: true }).click();
    await page.getByText(`Server folder: ${path.join(server.dirs.root, 'host-docs')}`).waitFor();
    await page.getByRole('button', { name: 'Use this folder' }).click();
    assert.is(await page.getByLabel('Name').inputValue(), 'host-docs', 'the name is suggested from the folder');
    await page.getByLabel('Name').fill('Documents');
    await page.getByRole('form', { name: 'Add a folder' }).getByLabel('Access').selectOption('readonly');
    await shot(page, 'volumes-add-desktop');
    await page.getByRole('button', { name: 'Add folder' }).click();
    const row = page
      .getByRole('list', { name: 'Host folder volumes' })
      .getByRole('listitem')
      .filter({ hasText: 'Documents' });
    await row.waitFor();
    assert.ok((await row.innerText()).includes(path.join(server.dirs.root, 'host-docs')));
    assert.is(await row.getByRole('combobox').inputValue(), 'readonly');

    // The new volume beside VOLUME_ROOT's folder, with its files.
    await page.goto(`${server.url}/`);
    await page.getByRole('link', { name: 'Documents' }).first().click();
    await page.getByText('letters', { exact: true }).first().dblclick();
    await page.getByText('to-ana.txt', { exact: true }).first().waitFor();
    const vols = await (await context.request.get(`${server.url}/api/volumes`)).text();
    assert.ok(vols.includes('"Files"') && vols.includes('"Documents"'), vols);
    assert.equal(problems, []);
  } catch (err) {
    await shot(page, 'volumes-failure');
    console.error('page problems:', problems);
    throw err;
  } finally {
    await context.close();
  }
});

test.run();
