// Deleting and changing one's mind: a photo deleted from its folder, the toast's Undo (readable)
// brings it back; the whole `Odd names` folder deleted, found in the Trash and restored with every
// odd name as it was. The server's side: the disk without the item, then with it byte for byte,
// and the trash the server lists.
import fs from 'node:fs';
import * as assert from 'uvu/assert';
import { HOME, W, filesAddress, journey, listTree, textContrast, type Step } from './harness.ts';

const j = journey(import.meta.url);
const nameOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);

async function deleteSelected(s: Step): Promise<void> {
  if (s.size.touch)
    await s.tap(s.page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Delete' }));
  else await s.page.keyboard.press('Delete');
  const dialog = s.page.getByRole('dialog');
  await s.tap(dialog.getByRole('button', { name: 'Move to trash' }));
  await dialog.waitFor({ state: 'detached' });
}

j.step('a deleted photo comes back with the toast’s Undo', async (s) => {
  const photo = fs.readFileSync(s.disk(W.cafe));
  await s.goto(filesAddress(HOME, W.holiday));
  await s.folder(`${HOME}/${W.holiday}`);
  await s.select(await s.entry(nameOf(W.cafe)));
  await deleteSelected(s);
  await s.eventually('the photo gone from the disk', () => !s.exists(W.cafe));
  const undo = s.page.getByRole('status').getByRole('button', { name: 'Undo' });
  await undo.waitFor();
  const contrast = await textContrast(undo);
  assert.ok(contrast.ratio >= 4.5, `"Undo" is readable: ${JSON.stringify(contrast)}`);
  await s.tap(undo);
  await s.eventually('the photo back on the disk', () => s.exists(W.cafe));
  assert.equal(fs.readFileSync(s.disk(W.cafe)), photo, 'byte for byte');
  await s.entry(nameOf(W.cafe));
});

j.step('a deleted folder is restored from the Trash with every odd name', async (s) => {
  const before = listTree(s.disk(W.odd));
  await s.goto(filesAddress(HOME));
  await s.folder(HOME);
  await s.select(await s.entry(W.odd));
  await deleteSelected(s);
  await s.eventually('the folder gone from the disk', () => !s.exists(W.odd));
  const trash = await s.api('GET', '/api/trash');
  assert.ok(trash.text.includes(W.odd), `the server lists it in the trash: ${trash.text.slice(0, 400)}`);

  await s.goto('/trash');
  const row = s.page.getByRole('table', { name: 'Trash' }).getByRole('row').filter({ hasText: W.odd });
  await row.waitFor();
  await s.tap(row.getByRole('button', { name: 'Restore' }));
  // The whole tree, not only its folder: the restore may still be writing when the folder appears.
  await s.eventually(
    'every file back under its own name',
    () => s.exists(W.odd) && JSON.stringify(listTree(s.disk(W.odd))) === JSON.stringify(before),
  );
  assert.equal(listTree(s.disk(W.odd)), before, 'every file back under its own name');
  for (const name of W.oddNames) assert.is(s.read(`${W.odd}/${name}`), `This file is called ${name}\n`);
});

j.run();
