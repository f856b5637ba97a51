// Putting things in order as a first-time user does: a new folder named as people name them
// ("Travels & trips #1 (100%)"), a note renamed to a name with `+` and an accent (F2 at desktop,
// the selection bar's Rename at phone, the stem selected so the extension stays), and the
// holiday photos moved into the new folder with Move to… and its folder picker. The server's
// side: the folders and names on disk as typed, every byte kept, nothing left where things were.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import * as assert from 'uvu/assert';
import { HOME, W, filesAddress, journey, listTree, type Step } from './harness.ts';

const j = journey(import.meta.url);
const nameOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);
const parentOf = (rel: string) => rel.slice(0, rel.lastIndexOf('/'));
const TRAVELS = 'Travels & trips #1 (100%)';
const RENAMED = 'Courses + marché à Zoé.txt';

/** Every file of a folder on disk with a digest of its bytes. */
const digests = (s: Step, rel: string) =>
  Object.fromEntries(
    listTree(s.disk(rel)).map((f) => [
      f,
      createHash('sha256')
        .update(fs.readFileSync(s.disk(`${rel}/${f}`)))
        .digest('hex'),
    ]),
  );

j.step(`a new folder named “${TRAVELS}” is made in Photos`, async (s) => {
  await s.goto(filesAddress(HOME, 'Photos'));
  await s.folder(`${HOME}/Photos`);
  await s.tap(
    s.page.getByRole('toolbar', { name: 'Folder actions' }).getByRole('button', { name: 'Folder', exact: true }),
  );
  const dialog = s.page.getByRole('dialog', { name: 'New folder' });
  const name = dialog.getByLabel('Name');
  await name.waitFor();
  // The proposed name is selected: typing replaces it.
  await s.page.keyboard.type(TRAVELS);
  assert.is(await name.inputValue(), TRAVELS);
  await s.page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'detached' });
  await s.eventually('the folder on disk', () => s.exists(`Photos/${TRAVELS}`));
  assert.ok(fs.statSync(s.disk(`Photos/${TRAVELS}`)).isDirectory());
  assert.equal(fs.readdirSync(s.disk(`Photos/${TRAVELS}`)), [], 'a new folder is empty');
  await s.entry(TRAVELS);
});

j.step('a note renamed to a name with + and accents keeps its bytes and its extension', async (s) => {
  const bytes = fs.readFileSync(s.disk(W.shopping));
  const folder = parentOf(W.shopping);
  await s.goto(filesAddress(HOME, folder));
  await s.folder(`${HOME}/${folder}`);
  await s.select(await s.entry(nameOf(W.shopping)));
  if (s.size.touch)
    await s.tap(s.page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Rename' }));
  else await s.page.keyboard.press('F2');
  const dialog = s.page.getByRole('dialog', { name: `Rename “${nameOf(W.shopping)}”` });
  const name = dialog.getByLabel('New name');
  await name.waitFor();
  // The name without its extension is selected: what is typed replaces it, ".txt" stays.
  await s.page.keyboard.type(RENAMED.replace(/\.txt$/, ''));
  assert.is(await name.inputValue(), RENAMED);
  await s.tap(dialog.getByRole('button', { name: 'Rename', exact: true }));
  await dialog.waitFor({ state: 'detached' });
  await s.eventually('the new name on disk', () => s.exists(`${folder}/${RENAMED}`));
  assert.ok(!s.exists(W.shopping), 'the old name is gone');
  assert.equal(fs.readFileSync(s.disk(`${folder}/${RENAMED}`)), bytes, 'byte for byte');
  assert.ok(fs.readdirSync(s.disk(folder)).includes(RENAMED.normalize('NFC')), 'the name as typed (NFC)');
  await s.entry(RENAMED);
});

j.step(
  'Holiday 2025 moved into the new folder with Move to…, every photo with it',
  async (s) => {
    const before = digests(s, W.holiday);
    await s.goto(filesAddress(HOME, 'Photos'));
    await s.folder(`${HOME}/Photos`);
    await s.select(await s.entry('Holiday 2025'));
    await s.tap(s.page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Move to…' }));
    const picker = s.page.getByRole('dialog', { name: 'Move “Holiday 2025” to…' });
    await s.tap(picker.getByRole('button', { name: 'All volumes' }));
    await s.tap(picker.getByRole('button', { name: HOME, exact: true }));
    // Rows of the picker's folder list: a recent destination of the same name may be offered
    // above it as a chip (once the picker's list of recent ones has arrived).
    const folders = picker.getByRole('listbox', { name: 'Folders' });
    await s.tap(folders.getByRole('button', { name: 'Photos', exact: true }));
    await s.tap(folders.getByRole('button', { name: TRAVELS, exact: true }));
    await picker.getByText(`Into ${HOME}/Photos/${TRAVELS}`).waitFor();
    await s.tap(picker.getByRole('button', { name: 'Move here' }));
    const moved = `Photos/${TRAVELS}/Holiday 2025`;
    await s.eventually('the folder at its new place', () => s.exists(moved) && !s.exists(W.holiday));
    assert.equal(digests(s, moved), before, 'every photo there, byte for byte');
    // The page follows: the folder gone from Photos, there inside the new one.
    await s.eventually(
      'Photos to list it no more',
      async () => (await s.page.locator('.entry[data-name="Holiday 2025"]').count()) === 0,
    );
    await s.goto(filesAddress(HOME, moved));
    await s.folder(`${HOME}/${moved}`);
    await s.entry(nameOf(W.landscape));
  },
  { needs: [`a new folder named “${TRAVELS}” is made in Photos`] },
);

j.run();
