// Taking things away and packing them: two folders of Documents selected (click and Ctrl+click
// at desktop, a long press then a tap at phone) and downloaded as one zip — its entry list read
// by two readers, each file once under its own name (the NFD accent kept); the backup zip with
// spaces in its name opened like a folder, an entry read inside it, then extracted beside it;
// the tar.gz opened; two notes compressed to a zip under a name the user gives. The server's side:
// the zip's exact entries, the extracted files' bytes on disk, the new zip's entries.
import fs from 'node:fs';
import * as assert from 'uvu/assert';
import { HOME, W, filesAddress, journey, listTree } from './harness.ts';

const j = journey(import.meta.url);
const nameOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);
const parentOf = (rel: string) => rel.slice(0, rel.lastIndexOf('/'));

j.step('two folders selected and downloaded as one zip: each file once', async (s) => {
  await s.goto(filesAddress(HOME, 'Documents'));
  await s.folder(`${HOME}/Documents`);
  await s.select(await s.entry('Taxes & Bills'), await s.entry('Letters'));
  const bar = s.page.getByRole('toolbar', { name: 'Selection' });
  await bar.getByText('2 selected').waitFor();
  const zip = await s.download(() => s.tap(bar.getByRole('button', { name: 'Download', exact: true })));
  assert.match(zip.name, /\.zip$/);
  const names = await s.zipNames(zip.bytes);
  const files = names.filter((n) => !n.endsWith('/'));
  const folders = names.filter((n) => n.endsWith('/'));
  const expected = [
    ...listTree(s.disk('Documents/Taxes & Bills')).map((f) => `Taxes & Bills/${f}`),
    ...listTree(s.disk('Documents/Letters')).map((f) => `Letters/${f}`),
  ].sort();
  assert.equal(files.slice().sort(), expected, `each file once, named as on disk: ${JSON.stringify(names)}`);
  assert.equal([...new Set(folders)].length, folders.length, `each folder once: ${JSON.stringify(folders)}`);
  assert.ok(files.includes(`Letters/${nameOf(W.letterNfd)}`), 'the decomposed (NFD) accent kept as written on disk');
});

j.step('the backup zip opens like a folder and an entry is read inside it', async (s) => {
  await s.goto(filesAddress(HOME, parentOf(W.zip)));
  await s.folder(`${HOME}/${parentOf(W.zip)}`);
  await s.open(await s.entry(nameOf(W.zip)));
  const archive = s.page.getByRole('region', { name: `Archive ${HOME}/${W.zip}` });
  await archive.getByRole('button', { name: 'Trip notes', exact: true }).waitFor();
  await archive.getByRole('button', { name: 'photo 01.jpg', exact: true }).waitFor();
  await s.tap(archive.getByRole('button', { name: 'Trip notes', exact: true }));
  await s.page.getByRole('navigation', { name: 'Inside the archive' }).getByText('Trip notes').waitFor();
  const day1 = nameOf(W.zipEntries[0]);
  await s.tap(archive.getByRole('button', { name: day1, exact: true }));
  await s.page
    .getByRole('complementary', { name: `Preview of ${day1}` })
    .getByText('Landed at noon. The sea was warm.')
    .waitFor();
  // The address of the archive is kept across a reload.
  await s.page.reload();
  await s.page.getByRole('region', { name: `Archive ${HOME}/${W.zip}` }).waitFor();
});

j.step('"Extract here" lands every entry beside the zip', async (s) => {
  await s.goto(filesAddress(HOME, parentOf(W.zip)));
  await s.open(await s.entry(nameOf(W.zip)));
  const archive = s.page.getByRole('region', { name: `Archive ${HOME}/${W.zip}` });
  await archive.getByRole('button', { name: 'Trip notes', exact: true }).waitFor();
  await s.tap(s.page.getByRole('toolbar', { name: 'Archive actions' }).getByRole('button', { name: 'Extract here' }));
  await s.eventually('every entry on disk', () => W.zipEntries.every((e) => s.exists(`${parentOf(W.zip)}/${e}`)));
  assert.is(s.read(`${parentOf(W.zip)}/${W.zipEntries[0]}`), 'Landed at noon. The sea was warm.\n');
  assert.is(s.read(`${parentOf(W.zip)}/${W.zipEntries[1]}`), 'item,cost\nferry,42\nhotel & breakfast,310\n');
  assert.equal(
    fs.readFileSync(s.disk(`${parentOf(W.zip)}/${W.zipEntries[3]}`)),
    fs.readFileSync(s.disk(`${W.cameraRoll}/IMG_0001.jpg`)),
    'the picture byte for byte',
  );
});

j.step('the tar.gz opens like a folder too', async (s) => {
  await s.goto(filesAddress(HOME, parentOf(W.tar)));
  await s.open(await s.entry(nameOf(W.tar)));
  const archive = s.page.getByRole('region', { name: `Archive ${HOME}/${W.tar}` });
  await s.tap(archive.getByRole('button', { name: 'Old projects', exact: true }));
  for (const e of W.tarEntries.map((p) => p.split('/')[1]!))
    await archive.getByRole('button', { name: e, exact: true }).waitFor();
  await s.tap(archive.getByRole('button', { name: 'notes #2.md', exact: true }));
  await s.page.getByRole('complementary', { name: 'Preview of notes #2.md' }).getByText('paint the fence').waitFor();
});

j.step('two notes compressed to a zip under the name the user gives', async (s) => {
  const folder = parentOf(W.gardenPlan);
  await s.goto(filesAddress(HOME, folder));
  await s.folder(`${HOME}/${folder}`);
  await s.select(await s.entry(nameOf(W.gardenPlan)), await s.entry(nameOf(W.readingList)));
  await s.tap(s.page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Compress to zip' }));
  const dialog = s.page.getByRole('dialog');
  const name = dialog.getByRole('textbox');
  await name.waitFor({ timeout: 5000 });
  await name.fill('Notes for Zoé');
  await name.press('Enter');
  const made = `${folder}/Notes for Zoé.zip`;
  await s.eventually('the zip on disk', () => s.exists(made));
  await s.entry('Notes for Zoé.zip');
  const names = await s.zipNames(fs.readFileSync(s.disk(made)));
  assert.equal(names.slice().sort(), [nameOf(W.gardenPlan), nameOf(W.readingList)].sort());
});

j.run();
