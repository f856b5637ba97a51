// Journey: uploading, copying and extracting onto names that are taken (issue 26). Before, every
// clash was silently renamed; now the page asks once — keep both, skip, replace (the old file
// kept as a version) — with "do this for all", and each step is checked at the server: the bytes
// on disk, the versions kept, what was left alone. Both sizes; at the phone the question fits
// the screen with thumb-sized answers.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import type { Locator } from 'playwright-core';
import { HOME, W, filesAddress, journey, onDisk, type Step } from './journey/harness.ts';

const j = journey(import.meta.url, { env: { UPLOAD_CHUNKED_ENABLED: 'true' } });

const holiday = (name: string) => `${W.holiday}/${name}`;
const beach = path.posix.basename(W.landscape);
const cafe = path.posix.basename(W.cafe);
const shopping = path.posix.basename(W.shopping);
const newBeach = randomBytes(90_000);

const question = (s: Step, name: string) => s.page.getByRole('dialog', { name: `“${name}” already exists` });

/** The three answers are on screen, inside the width, and big enough for a thumb. */
async function fitsThePhone(s: Step, ask: Locator): Promise<void> {
  if (s.size.name !== 'phone') return;
  for (const name of [/^Keep both/, /^Skip/, /^Replace/]) {
    const box = (await ask.getByRole('button', { name }).boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= s.size.viewport.width, `${name} fits the width`);
    assert.ok(box.y >= 0 && box.y + box.height <= s.size.viewport.height, `${name} is on screen`);
    assert.ok(box.height >= 44, `${name} is a thumb-sized target (${box.height} px)`);
  }
}

async function versionsOf(s: Step, rel: string): Promise<{ id: string; size: number }[]> {
  const r = await s.api('GET', `/api/versions?path=${encodeURIComponent(`${HOME}/${rel}`)}`);
  assert.is(r.status, 200, r.text);
  return r.json.items;
}

/** Copy to… / Move to… from an entry's own menu, into `folder` of Home, by the folder picker. */
async function sendTo(s: Step, mode: 'Copy' | 'Move', name: string, folder: string): Promise<void> {
  // The entry's menu: a right click at the desk, its ⋮ button on a phone.
  if (s.size.touch) await s.tap(s.page.getByRole('button', { name: `Actions for ${name}` }));
  else await (await s.entry(name)).click({ button: 'right' });
  await s.tap(s.page.getByRole('menuitem', { name: `${mode} to…` }));
  const picker = s.page.getByRole('dialog', { name: `${mode} “${name}” to…` });
  await s.tap(picker.getByRole('button', { name: 'All volumes' }));
  await s.tap(picker.getByRole('button', { name: HOME, exact: true }));
  // The row of the picker's folder list: a recent destination of the same name may be offered
  // above it as a chip (once the picker's list of recent ones has arrived).
  await s.tap(picker.getByRole('listbox', { name: 'Folders' }).getByRole('button', { name: folder, exact: true }));
  await picker.getByText(`Into ${HOME}/${folder}`).waitFor();
  await s.tap(picker.getByRole('button', { name: `${mode} here` }));
}

j.step('an upload onto taken names asks once per name: replace keeps the old photo as a version', async (s) => {
  const oldBeach = fs.readFileSync(s.disk(W.landscape));
  await s.goto(filesAddress(HOME, W.holiday));
  await s.folder(`${HOME}/${W.holiday}`);
  await s.upload([onDisk(beach, newBeach), onDisk(cafe, 'a new café photo'), onDisk('Sunset 🌅.jpg', 'sunset')]);
  const first = question(s, beach);
  await first.getByText('1 of 2').waitFor();
  await first.getByText('The file there is kept as an earlier version.').waitFor();
  await fitsThePhone(s, first);
  await s.tap(first.getByRole('button', { name: /^Replace/ }));
  const second = question(s, cafe);
  await s.tap(second.getByRole('button', { name: /^Keep both/ }));
  await second.waitFor({ state: 'detached' });

  await s.eventually(
    'the three files placed',
    () => s.exists(holiday('Sunset 🌅.jpg')) && s.exists(holiday('Café & crêpes #2 (1).jpg')),
  );
  await s.eventually('the photo replaced', () => fs.readFileSync(s.disk(W.landscape)).equals(newBeach));
  assert.is(s.read(holiday('Café & crêpes #2 (1).jpg')), 'a new café photo');
  assert.not.equal(s.read(W.cafe), 'a new café photo', 'keep both left the old photo');
  const versions = await versionsOf(s, W.landscape);
  assert.equal(
    versions.map((v) => v.size),
    [oldBeach.length],
    'the replaced photo is a version, whole',
  );
  await s.page.locator('.tray').getByText('replaced (the old one is a version)').waitFor();
});

j.step('"do this for all" skips every taken name and uploads nothing', async (s) => {
  const before = fs.readdirSync(s.disk(W.holiday)).sort();
  await s.upload([onDisk(beach, 'x'), onDisk(cafe, 'y'), onDisk('Sunset 🌅.jpg', 'z')]);
  const ask = question(s, beach);
  await ask.getByText('1 of 3').waitFor();
  await s.tap(ask.getByLabel('Do this for all 3 conflicts'));
  await s.tap(ask.getByRole('button', { name: /^Skip/ }));
  await ask.waitFor({ state: 'detached' });
  await s.page.getByText('Skipped 3 files: the name is taken').waitFor();
  assert.equal(fs.readdirSync(s.disk(W.holiday)).sort(), before);
  assert.ok(fs.readFileSync(s.disk(W.landscape)).equals(newBeach), 'nothing was sent over the photo');
});

j.step('Copy to… onto a taken name: replace, and the old file is a version', async (s) => {
  fs.writeFileSync(s.disk(`${W.inbox}/${shopping}`), 'an older list\n');
  await s.goto(filesAddress(HOME, path.posix.dirname(W.shopping)));
  await s.entry(shopping);
  await sendTo(s, 'Copy', shopping, W.inbox);
  const ask = question(s, shopping);
  await fitsThePhone(s, ask);
  await s.tap(ask.getByRole('button', { name: /^Replace/ }));
  await s.eventually('the list replaced', () => s.read(`${W.inbox}/${shopping}`) === W.shoppingText);
  const versions = await versionsOf(s, `${W.inbox}/${shopping}`);
  const kept = await s.api('GET', `/api/versions/${versions[0]!.id}/text`);
  assert.is(kept.json.content, 'an older list\n');
  assert.is(s.read(W.shopping), W.shoppingText, 'a copy leaves its source');
});

j.step('a move whose question is cancelled moves nothing', async (s) => {
  await s.entry(shopping);
  await sendTo(s, 'Move', shopping, W.inbox);
  const ask = question(s, shopping);
  await s.tap(ask.getByRole('button', { name: 'Cancel move' }));
  await ask.waitFor({ state: 'detached' });
  assert.ok(s.exists(W.shopping), 'the source stays');
  assert.is(s.read(`${W.inbox}/${shopping}`), W.shoppingText);
  assert.is((await versionsOf(s, `${W.inbox}/${shopping}`)).length, 1, 'no new version');
});

j.step('"Extract here" onto taken names: the folder skipped, the photo replaced and kept as a version', async (s) => {
  const backups = path.posix.dirname(W.zip);
  const zipName = path.posix.basename(W.zip);
  const photo = W.zipEntries[3];
  // What is already there: an older photo under the entry's name, and a folder of the same name.
  fs.writeFileSync(s.disk(`${backups}/${photo}`), 'the photo as it was');
  fs.mkdirSync(s.disk(`${backups}/Trip notes`));
  fs.writeFileSync(s.disk(`${backups}/Trip notes/packing list.txt`), 'towel, sun cream\n');
  await s.goto(filesAddress(HOME, backups));
  await s.folder(`${HOME}/${backups}`);
  await s.open(await s.entry(zipName));
  const archive = s.page.getByRole('region', { name: `Archive ${HOME}/${W.zip}` });
  await archive.getByRole('button', { name: 'Trip notes', exact: true }).waitFor();
  await s.tap(s.page.getByRole('toolbar', { name: 'Archive actions' }).getByRole('button', { name: 'Extract here' }));

  const folder = question(s, 'Trip notes');
  await folder.getByText('1 of 2').waitFor();
  await folder.getByText('Extracting').waitFor();
  await folder.getByText('The folder there goes to the trash (folders are not merged).').waitFor();
  await fitsThePhone(s, folder);
  await s.tap(folder.getByRole('button', { name: /^Skip/ }));
  const picture = question(s, photo);
  await picture.getByText('The file there is kept as an earlier version.').waitFor();
  await s.tap(picture.getByRole('button', { name: /^Replace/ }));
  await picture.waitFor({ state: 'detached' });

  await s.page.locator('.tray').getByText('1 replaced, the old kept · 1 skipped').waitFor();
  assert.ok(
    fs.readFileSync(s.disk(`${backups}/${photo}`)).equals(fs.readFileSync(s.disk(`${W.cameraRoll}/IMG_0001.jpg`))),
    'the photo from the zip, byte for byte',
  );
  const versions = await versionsOf(s, `${backups}/${photo}`);
  assert.equal(
    versions.map((v) => v.size),
    ['the photo as it was'.length],
    'the replaced photo is a version, whole',
  );
  assert.equal(fs.readdirSync(s.disk(`${backups}/Trip notes`)), ['packing list.txt'], 'the folder left alone');
  assert.is(s.read(`${backups}/${W.zipEntries[2]}`), '# Apple pie\n\n6 apples, a pinch of cinnamon.\n');
  assert.equal(
    fs.readdirSync(s.disk(backups)).filter((n) => n.startsWith('.') || / \(1\)/.test(n)),
    [],
    'nothing kept beside, no temporary left',
  );
});

j.run();
