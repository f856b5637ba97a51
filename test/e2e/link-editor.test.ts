// The editor through a writable link, in a browser with no session: a save carries the link's
// ETag as If-Match; when the owner changed the file meanwhile the server refuses it (412) and the
// visitor is asked; Cancel writes nothing, "Replace with mine" saves without the condition and
// the owner keeps the replaced text as a version.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext } from 'playwright-core';
import { removeDirs, type TestServer } from '../support/server.ts';
import { DESKTOP, launch, newPage, setupAdmin, shot, startWithUi } from './browser.ts';

let server: TestServer;
let browser: Browser;
let owner: BrowserContext;
const notes = () => path.join(server.dirs.volumes, 'Files', 'Team', 'notes.txt');

test.before(async () => {
  server = await startWithUi({}, ['Files']);
  fs.mkdirSync(path.join(server.dirs.volumes, 'Files', 'Team'));
  fs.writeFileSync(notes(), 'agenda\n');
  ({ browser } = await launch());
  owner = (await newPage(browser, DESKTOP)).context;
  await setupAdmin(owner, server.url);
});
test.after(async () => {
  await owner?.close();
  await browser?.close();
  await server?.close();
  if (server) removeDirs(server.dirs);
});

test('a save through a link over a file changed meanwhile asks first; the replaced text stays a version', async () => {
  const created = await owner.request.post(`${server.url}/api/shares`, {
    data: { sourcePath: 'Files/Team', sharingType: 'anyone', accessMode: 'readwrite' },
    headers: { origin: server.url },
  });
  assert.is(created.status(), 201, await created.text());
  const { shareUrl } = (await created.json()) as { shareUrl: string };

  const { context, page, problems } = await newPage(browser, DESKTOP);
  try {
    const saves: [boolean, number][] = [];
    page.on('response', (r) => {
      const q = r.request();
      if (q.method() === 'PUT' && /^\/api\/share\/[^/]+\/editor$/.test(new URL(r.url()).pathname))
        saves.push([q.headers()['if-match'] !== undefined, r.status()]);
    });
    await page.goto(shareUrl);
    await page.locator('.link-entry[data-name="notes.txt"] .link-open').click();
    await page.getByRole('button', { name: 'Edit' }).click();
    const ed = page.locator('.editor-window');
    await ed.locator('.cm-content').waitFor();
    await ed.locator('.cm-line').first().click();
    await page.keyboard.press('End');
    await page.keyboard.type(' for Monday');
    await ed.getByText('Unsaved changes').waitFor();

    // The owner changes the file while the visitor edits.
    fs.writeFileSync(notes(), 'agenda, rewritten by the owner\n');
    const later = new Date(Date.now() + 3000);
    fs.utimesSync(notes(), later, later);
    await page.keyboard.press('Control+s');
    const conflict = page.getByRole('dialog', { name: 'The file changed since you opened it' });
    await conflict.waitFor();
    await shot(page, 'link-editor-conflict-desktop');
    await conflict.getByRole('button', { name: 'Cancel' }).click();
    assert.is(fs.readFileSync(notes(), 'utf8'), 'agenda, rewritten by the owner\n', 'nothing written without asking');
    await ed.getByText('Unsaved changes').waitFor();

    await page.keyboard.press('Control+s');
    await conflict.waitFor();
    await conflict.getByRole('button', { name: 'Replace with mine' }).click();
    await ed.getByText('Saved', { exact: true }).waitFor();
    assert.is(fs.readFileSync(notes(), 'utf8'), 'agenda for Monday\n');
    assert.equal(saves, [
      [true, 412],
      [true, 412],
      [false, 200],
    ]);
    const versions = await owner.request.get(`${server.url}/api/versions?path=Files%2FTeam%2Fnotes.txt`);
    const items = ((await versions.json()) as { items: unknown[] }).items;
    assert.is(items.length, 1, "the owner's text is kept as a version");

    // The next save carries the ETag that save answered, and lands.
    await ed.locator('.cm-line').first().click();
    await page.keyboard.press('End');
    await page.keyboard.type('!');
    await ed.getByText('Unsaved changes').waitFor();
    await page.keyboard.press('Control+s');
    await ed.getByText('Saved', { exact: true }).waitFor();
    assert.is(fs.readFileSync(notes(), 'utf8'), 'agenda for Monday!\n');
    assert.equal(saves.at(-1), [true, 200]);
    assert.equal(problems, []);
  } finally {
    await context.close();
  }
});

test.run();
