// Search keeps what it found while the index reads a file or a folder again. The index re-reads
// a file after a save or an upload, and a whole folder when many of its entries changed from
// outside; that walk yields to people's requests, so under load it lasts seconds. Its old rows
// and texts used to be removed before the walk began, so meanwhile the file could not be found
// by its content (a folder: not even by name). Here the walk is held in the middle of re-reading
// the file (test/inprocess/fixtures/gated-fs.ts) while search is asked.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '../support/client.ts';
import { startInProcess, type InProcessApp } from '../support/inprocess.ts';
import { makeDirs, type TestDirs } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const FOLDER = 'Letters & Notes + 2025';
const FILE = 'Tom & Jerry #1.txt';
const letter = (n: number) => `Brief ${String(n).padStart(2, '0')} an Zoé.txt`;
const word = (n: number) => `letterbox${n}`;

let dirs: TestDirs;
let s: InProcessApp;
let c: Client;
let logs: Record<string, any>[];
let gate: { armed: string; reached: string; release: string };
const disk = (...p: string[]) => path.join(dirs.volumes, 'Home', FOLDER, ...p);
const enc = (p: string) => encodeURIComponent(p);

async function found(q: string): Promise<string[]> {
  const r = await c.get(`/api/search?q=${enc(q)}&path=Home`);
  assert.is(r.status, 200, r.text);
  return r.json.items.map((i: { name: string }) => i.name);
}

/** Holds the next walk that looks at the file, and waits until one does. */
async function hold(): Promise<void> {
  fs.rmSync(gate.release, { force: true });
  fs.rmSync(gate.reached, { force: true });
  fs.writeFileSync(gate.armed, '');
}
async function reached(): Promise<void> {
  await waitFor(() => fs.existsSync(gate.reached), { what: 'a walk of the index to be re-reading the file' });
}
function release(): void {
  fs.rmSync(gate.armed);
  fs.writeFileSync(gate.release, '');
}

test.before(async () => {
  dirs = makeDirs();
  fs.mkdirSync(disk(), { recursive: true });
  fs.writeFileSync(disk(FILE), 'Tom chases Jerry.\nA cartoonish chase, again.\n');
  for (let n = 1; n <= 60; n++) fs.writeFileSync(disk(letter(n)), `Liebe Zoé,\n${word(n)}\n`);
  gate = {
    armed: path.join(dirs.root, 'gate-armed'),
    reached: path.join(dirs.root, 'gate-reached'),
    release: path.join(dirs.root, 'gate-release'),
  };
  s = await startInProcess(
    dirs,
    {
      AUTH_MODE: 'disabled',
      FOLDER_SIZE_MODE: 'full',
      FOLDER_SIZE_FLUSH_MS: '20',
      // Every folder read again is logged when its walk has ended.
      FOLDER_SIZE_SUBTREE_SLOW_LOG_MS: '0',
    },
    { fsModule: new URL('./fixtures/gated-fs.ts', import.meta.url).href, fsOptions: { gate: FILE, ...gate } },
  );
  ({ client: c, logs } = s);
  await waitFor(() => logs.some((l) => l.msg === 'index catalogue finished'), { what: 'the catalogue to finish' });
  assert.ok((await found('cartoonish')).includes(FILE), 'found by its content, from the index');
});
test.after(async () => {
  if (gate && !fs.existsSync(gate.release)) fs.writeFileSync(gate.release, '');
  await s.close();
});

test('a file saved is found by its content while the index reads it again', async () => {
  await hold();
  const saved = await c.put('/api/editor', {
    path: `Home/${FOLDER}/${FILE}`,
    content: 'Tom chases Jerry.\nA cartoonish chase, again — and marmalade.\n',
  });
  assert.is(saved.status, 200, saved.text);
  await reached();
  assert.ok((await found('cartoonish')).includes(FILE), 'its text is still found while it is read again');
  assert.ok((await found('Jerry #1')).includes(FILE));
  release();
  await waitFor(() => found('marmalade'), {
    what: 'the saved text found',
    until: (names) => names.includes(FILE),
  });
  assert.ok((await found('cartoonish')).includes(FILE));
});

test('a folder read again whole keeps every name and text found, and drops only what is gone', async () => {
  // More than 50 entries changed from outside: a look at the folder reads it again as a whole.
  const later = new Date(Date.now() + 60_000);
  for (let n = 1; n <= 60; n++) fs.utimesSync(disk(letter(n)), later, later);
  fs.rmSync(disk(letter(60)));
  // A letter written over with what is no text any more (a scan saved under its name).
  fs.writeFileSync(disk(letter(59)), Buffer.alloc(5000, 0));
  fs.utimesSync(disk(letter(59)), later, later);
  await hold();
  const listed = await c.get(`/api/browse/Home/${enc(FOLDER)}`);
  assert.is(listed.status, 200, listed.text);
  await reached();
  assert.ok((await found('cartoonish')).includes(FILE), 'the held file is still found by its text');
  for (const n of [1, 30, 58]) {
    assert.ok((await found(word(n))).includes(letter(n)), `${letter(n)} still found by its text`);
    assert.ok((await found(letter(n).slice(0, 8))).includes(letter(n)), `${letter(n)} still found by its name`);
  }
  const from = logs.length;
  release();
  await waitFor(
    () => logs.slice(from).some((l) => l.msg === 'a folder-size subtree scan was slow' && l.path === FOLDER),
    { what: 'the walk of the folder to end' },
  );
  assert.not.ok((await found(letter(60).slice(0, 8))).includes(letter(60)), 'the letter removed is gone');
  assert.equal(await found(word(59)), [], 'a letter with no text any more is not found by its old text');
  assert.ok((await found('cartoonish')).includes(FILE));
  assert.ok((await found(word(58))).includes(letter(58)));
  const size = (await c.get(`/api/folder-size/Home/${enc(FOLDER)}`)).json;
  const expected = fs.readdirSync(disk()).reduce((sum, n) => sum + fs.statSync(disk(n)).size, 0);
  assert.equal([size.sizeBytes, size.complete], [expected, true], 'the figure is the folder as it is now');
});

test('a folder moved in is said to be counting (not final) while the index reads it, then has its figure', async () => {
  // Made outside, then moved in through the API: the index reads the folder at its new place,
  // where it has no row until that walk writes it.
  const drafts = 'Entwürfe & Ideen #3 ✏️';
  const from = path.join(dirs.volumes, 'Home', drafts);
  fs.mkdirSync(from);
  fs.writeFileSync(path.join(from, FILE), 'Jerry hides in the drafts.\n');
  const record = async () => (await c.get(`/api/folder-size/Home/${enc(FOLDER)}/${enc(drafts)}`)).json;
  await hold();
  const moved = await c.post('/api/files/move', {
    items: [{ path: 'Home', name: drafts }],
    destination: `Home/${FOLDER}`,
    operation: 'move',
  });
  assert.is(moved.status, 200, moved.text);
  await reached();
  const during = await record();
  assert.equal(
    [during.indexed, during.sizeBytes, during.complete],
    [false, null, false],
    'no figure yet, and not final',
  );
  release();
  const after = await waitFor(record, { what: 'the moved folder counted', until: (r) => r.indexed });
  assert.equal([after.sizeBytes, after.complete], [fs.statSync(disk(drafts, FILE)).size, true]);
});

test.run();
