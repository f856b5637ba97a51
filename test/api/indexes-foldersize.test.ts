// The folder-size index through the real server: baseline walk, sizes right after every kind
// of own write (through the real routes, which announce through the changes sink), an outside
// change picked up by the re-check of a folder on screen, exclusions, restart, format bump.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
let c: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);

async function size(p: string) {
  const a = await c.get(`/api/folder-size/${p.split('/').map(encodeURIComponent).join('/')}`);
  assert.is(a.status, 200, a.text);
  return a.json;
}

/** Polls until the folder reports `bytes` (deltas land within FOLDER_SIZE_FLUSH_MS). */
function expectSize(p: string, bytes: number, entries?: number) {
  return waitFor(() => size(p), {
    what: `${p} to be ${bytes} bytes${entries === undefined ? '' : ` / ${entries} entries`}`,
    until: (r) => r.indexed && r.sizeBytes === bytes && (entries === undefined || r.entryCount === entries),
  });
}

test.before(async () => {
  s = await startServer({
    env: {
      AUTH_MODE: 'disabled',
      FOLDER_SIZE_MODE: 'full',
      FOLDER_SIZE_FLUSH_MS: '20',
      FOLDER_SIZE_EXCLUDE_PATHS: 'Skip,deep/er',
    },
    volumes: ['Files', 'Other'],
  });
  c = new Client(s.url);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('un-indexed folders answer indexed:false, never an error; unknown volumes 404', async () => {
  // Before the tree exists the baseline has nothing to say about this folder.
  const missing = await size('Files/not-yet');
  assert.equal(missing, {
    path: 'Files/not-yet',
    canEnter: false,
    sizeBytes: null,
    entryCount: 0,
    lastUpdated: null,
    indexed: false,
    complete: true,
  });
  const unknown = await c.get('/api/folder-size/Nope/x');
  assert.is(unknown.status, 404);
  envelope(unknown);
  const escape = await c.get('/api/folder-size/Files/..%2F..%2Fetc');
  assert.is(escape.status, 400, escape.text);
});

test('baseline walk: recursive sizes and counts, exclusions left out', async () => {
  fs.mkdirSync(vol('A', 'B'), { recursive: true });
  fs.writeFileSync(vol('A', 'one.txt'), 'x'.repeat(100));
  fs.writeFileSync(vol('A', 'B', 'two.bin'), Buffer.alloc(1000));
  fs.mkdirSync(vol('Skip'));
  fs.writeFileSync(vol('Skip', 'big.bin'), Buffer.alloc(5000));
  fs.mkdirSync(vol('deep', 'er'), { recursive: true });
  fs.writeFileSync(vol('deep', 'er', 'x.bin'), Buffer.alloc(700));
  fs.writeFileSync(vol('deep', 'kept.bin'), Buffer.alloc(7));
  // The volume appeared before the walk: force a fresh baseline over the new tree.
  await s.restart({ FOLDER_SIZE_REBUILD: 'true' });
  c = new Client(s.url);
  const a = await expectSize('Files/A', 1100, 3);
  assert.is(a.canEnter, true);
  assert.match(a.lastUpdated, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  await expectSize('Files/A/B', 1000, 1);
  await expectSize('Files/deep', 7, 1);
  // Files: A, A/one.txt, A/B, A/B/two.bin, deep, deep/kept.bin (Skip and deep/er are excluded).
  await expectSize('Files', 1107, 6);
  const skipped = await size('Files/Skip');
  assert.is(skipped.indexed, false);
  assert.is(skipped.sizeBytes, null);
  const batch = await c.post('/api/folder-size/batch', { paths: ['Files/A', 'Files/A/B', 'Nope', 'Files/A/one.txt'] });
  assert.is(batch.status, 200);
  assert.equal(
    batch.json.items.map((r: any) => [r.path, r.sizeBytes, r.indexed]),
    [
      ['Files/A', 1100, true],
      ['Files/A/B', 1000, true],
      ['Nope', null, false],
      ['Files/A/one.txt', null, false],
    ],
  );
});

test('own writes: create file and folder, rename, copy, move, delete, upload — sizes follow at once', async () => {
  assert.is(
    (await c.post('/api/files/file', { path: 'Files/A', name: 'new.txt', content: 'y'.repeat(50) })).status,
    201,
  );
  await expectSize('Files/A', 1150, 4);
  await expectSize('Files', 1157, 7);

  assert.is((await c.post('/api/files/folder', { path: 'Files/A', name: 'C' })).status, 201);
  await expectSize('Files/A', 1150, 5);
  await expectSize('Files/A/C', 0, 0);

  assert.is(
    (await c.post('/api/files/rename', { path: 'Files/A', name: 'new.txt', newName: 'renamed.txt' })).status,
    200,
  );
  await expectSize('Files/A', 1150, 5);

  const copy = await c.post('/api/files/copy', { items: [{ path: 'Files/A', name: 'B' }], destination: 'Files/A/C' });
  assert.is(copy.status, 200, copy.text);
  await expectSize('Files/A/C', 1000, 2);
  await expectSize('Files/A', 2150, 7);

  const move = await c.post('/api/files/move', { items: [{ path: 'Files/A/C', name: 'B' }], destination: 'Other' });
  assert.is(move.status, 200, move.text);
  await expectSize('Files/A', 1150, 5);
  await expectSize('Files/A/C', 0, 0);
  await expectSize('Other', 1000, 2);

  const del = await c.delete('/api/files', { items: [{ path: 'Files/A', name: 'renamed.txt' }] });
  assert.is(del.status, 200, del.text);
  await expectSize('Files/A', 1100, 4);
  await expectSize('Files', 1107, 7);

  const fd = new FormData();
  fd.append('uploadTo', 'Files/A');
  fd.append('relativePath', 'Up/Deeper/u.bin');
  fd.append('filedata', new Blob([new Uint8Array(321)]), 'u.bin');
  const up = await c.post('/api/upload', fd);
  assert.is(up.status, 201, up.text);
  await expectSize('Files/A/Up', 321, 2);
  await expectSize('Files/A', 1421, 7);
});

test('an outside change is picked up by the re-check of a folder on screen', async () => {
  fs.writeFileSync(vol('A', 'B', 'outside.bin'), Buffer.alloc(4000));
  fs.rmSync(vol('A', 'one.txt'));
  // Asking for the size marks the folder as on screen; the answer after the re-check is new.
  await size('Files/A/B');
  await size('Files/A');
  await expectSize('Files/A/B', 5000, 2);
  await expectSize('Files/A', 5321, 7);
});

test('a restart keeps the index (no new baseline walk); a format bump rebuilds exactly once', async () => {
  const walks = () => s.logs.filter((l) => l.msg === 'index baseline walk finished').length;
  const rebuilds = () => s.logs.filter((l) => l.msg === 'rebuilding the folder-size and search indexes').length;
  await s.restart({ FOLDER_SIZE_REBUILD: 'false' });
  c = new Client(s.url);
  const before = walks();
  const r = await size('Files/A');
  assert.is(r.indexed, true);
  assert.is(r.sizeBytes, 5321);
  // A quiet while on purpose: a walk of this small tree begun by the start would have logged its
  // end within it (no line says that no walk began).
  await new Promise((res) => setTimeout(res, 200));
  await s.settleLogs();
  assert.is(walks(), before, 'no baseline walk after an ordinary restart');

  const rebuildsBefore = rebuilds();
  // The start that follows the edit is the one that rebuilds.
  await s.withDatabase((db) => db.run("UPDATE idx_meta SET value = '0' WHERE key = 'format'"));
  c = new Client(s.url);
  await s.settleLogs();
  assert.is(rebuilds(), rebuildsBefore + 1);
  await expectSize('Files/A', 5321, 7);
  await s.restart();
  c = new Client(s.url);
  await s.settleLogs();
  assert.is(rebuilds(), rebuildsBefore + 1, 'the next start does not rebuild again');
  assert.is((await size('Files/A')).sizeBytes, 5321);
});

test('shallow mode reports direct files only; off reports nothing indexed', async () => {
  await s.restart({ FOLDER_SIZE_MODE: 'shallow' });
  c = new Client(s.url);
  await expectSize('Files/A', 0, 3);
  await expectSize('Files/A/B', 5000, 2);
  await s.restart({ FOLDER_SIZE_MODE: 'off' });
  c = new Client(s.url);
  assert.is((await size('Files/A')).indexed, false);
  const features = await c.get('/api/features');
  assert.equal(features.json.folderSize, { enabled: false, mode: 'off' });
});

test.run();
