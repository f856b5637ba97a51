// Folders that update by themselves (issue 30): the same folder open in two browsers shows
// the other's upload, rename and delete, and a file a shell wrote on the server, without a
// reload; a browser that lost the network shows, once it is back, exactly what is on the disk.
import fs from 'node:fs';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { HOME, W, cssString, filesAddress, journey, onDisk, type Step } from './harness.ts';

const j = journey(import.meta.url);
const NOTES = W.shopping.slice(0, W.shopping.lastIndexOf('/'));
const UPLOADED = 'Einkauf & Rezepte #2 (50% “Oma”).txt';
const RENAMED = 'Rezepte + Tipps à la Zoé.txt';
const SHELL = 'from the NAS shell 🐚.log';

const entry = (page: Page, name: string) => page.locator(`.file-area .entry[data-name=${cssString(name)}]`);
/** The names the page shows, in any order. */
const shown = (page: Page) =>
  page.locator('.file-area .entry').evaluateAll((els) => els.map((e) => e.getAttribute('data-name') ?? '').sort());
const onServer = (s: Step) =>
  fs
    .readdirSync(s.disk(NOTES))
    .filter((n) => !n.startsWith('.'))
    .map((n) => n.normalize())
    .sort();

async function second(s: Step): Promise<Page> {
  const other = await s.anonymous();
  await other.context.addCookies(await s.context.cookies());
  await other.page.goto(s.url(filesAddress(HOME, NOTES)));
  await other.page.getByRole('region', { name: `Folder ${HOME}/${NOTES}`, exact: true }).waitFor();
  return other.page;
}

j.step('two browsers on one folder see each other’s upload, rename and delete, and a shell’s file', async (s) => {
  await s.goto(filesAddress(HOME, NOTES));
  await s.folder(`${HOME}/${NOTES}`);
  await s.entry(W.shopping.slice(NOTES.length + 1));
  const other = await second(s);

  await s.upload([onDisk(UPLOADED, 'Mehl, Zucker, Eier\n')]);
  await entry(other, UPLOADED).waitFor();

  const renamed = await other.context().request.fetch(s.url('/api/files/rename'), {
    method: 'POST',
    headers: { origin: s.base },
    data: { path: `${HOME}/${NOTES}`, name: UPLOADED, newName: RENAMED },
  });
  assert.is(renamed.status(), 200, await renamed.text());
  await entry(s.page, RENAMED).waitFor();
  await entry(s.page, UPLOADED).waitFor({ state: 'detached' });

  const deleted = await s.api('DELETE', '/api/files', { items: [{ path: `${HOME}/${NOTES}`, name: RENAMED }] });
  assert.is(deleted.status, 200, deleted.text);
  await entry(other, RENAMED).waitFor({ state: 'detached' });

  fs.writeFileSync(s.disk(`${NOTES}/${SHELL}`), 'rsync done\n');
  await entry(s.page, SHELL).waitFor();
  await entry(other, SHELL).waitFor();
  assert.equal(await shown(other), onServer(s));
});

j.step('a browser that lost the network shows what is on the disk once it is back', async (s) => {
  await s.goto(filesAddress(HOME, NOTES));
  await s.folder(`${HOME}/${NOTES}`);
  await s.entry(SHELL);
  await s.context.setOffline(true);
  fs.rmSync(s.disk(`${NOTES}/${SHELL}`));
  fs.writeFileSync(s.disk(`${NOTES}/Written while away – Einkaufszettel.txt`), 'Brot\n');
  fs.writeFileSync(s.disk(`${NOTES}/Noch eine Notiz #3.md`), '# drei\n');
  await s.context.setOffline(false);
  await entry(s.page, 'Written while away – Einkaufszettel.txt').waitFor();
  await entry(s.page, SHELL).waitFor({ state: 'detached' });
  await s.eventually(
    'the page shows the disk',
    async () => JSON.stringify(await shown(s.page)) === JSON.stringify(onServer(s)),
  );
});

j.run();
