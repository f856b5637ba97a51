// A folder-size record says whether it is final (`complete`): false while the index's first walk
// of the folder is due or under way (no figure yet), and false when a part of the folder could
// not be read (the figure is then a lower bound, counted again by the paced sweep) — before, a
// partial figure read as the folder's size. Here the part that cannot be read is a real one: an
// old backup whose folders nest deeper than the system's path limit (4096 bytes), which no
// walker can open by its path.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { nestPastPathMax, pastPathMax, removeDeep } from '../support/world.ts';

let s: TestServer;
let c: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Home', ...p);
const OLD = 'Old drive – Backup 2009';
/** 20 folders of ~250 bytes each: the diary at the bottom lies past PATH_MAX. */
const LONG = pastPathMax(20);
const url = (p: string) => `/api/folder-size/${p.split('/').map(encodeURIComponent).join('/')}`;

/** Runs Python on the tree (it opens each folder relative to the last: no path is too long for it). */
const python = (code: string, ...args: string[]) => execFileSync('python3', ['-c', code, ...args]);

async function record(p: string) {
  const a = await c.get(url(p));
  assert.is(a.status, 200, a.text);
  return a.json;
}

test.before(async () => {
  s = await startServer({
    env: {
      AUTH_MODE: 'disabled',
      FOLDER_SIZE_MODE: 'full',
      FOLDER_SIZE_FLUSH_MS: '20',
      FOLDER_SIZE_RECONCILE_MS: '100',
      FOLDER_SIZE_RECONCILE_PAUSE_MS: '0',
      // Every subtree the index reads again is logged: which folders the sweep counted again.
      FOLDER_SIZE_SUBTREE_SLOW_LOG_MS: '0',
    },
    volumes: ['Home'],
  });
  fs.mkdirSync(vol('Photos & Music', 'Holiday 2025'), { recursive: true });
  fs.writeFileSync(vol('Photos & Music', 'Holiday 2025', 'Strand 🌊.jpg'), Buffer.alloc(300_000, 1));
  fs.mkdirSync(vol(OLD, 'Briefe'), { recursive: true });
  fs.writeFileSync(vol(OLD, 'Briefe', 'Brief an Zoé #2.txt'), Buffer.alloc(1000, 2));
  nestPastPathMax(vol(OLD), LONG, 'Tagebuch 2009.txt', 'd'.repeat(5000));
  assert.ok(Buffer.byteLength(vol(OLD, ...LONG)) > 4096, 'the diary lies past PATH_MAX');
  // The volume existed before its files: walk the tree as it is now.
  await s.restart({ FOLDER_SIZE_REBUILD: 'true' });
  c = new Client(s.url);
});
test.after(async () => {
  await s.close();
  removeDeep(s.dirs.root);
});

test('counting, then a lower bound marked incomplete, then final once the whole folder can be read', async () => {
  // While the first walk is due or under way, a record has no figure and says it is not final.
  const photos = await waitFor(
    async () => {
      const r = await record('Home/Photos & Music');
      if (!r.indexed) assert.is(r.complete, false, `not final while the first walk counts: ${JSON.stringify(r)}`);
      return r;
    },
    { what: 'the first walk', until: (r) => r.indexed, timeoutMs: 30_000 },
  );
  assert.is(photos.sizeBytes, 300_000);
  assert.is(photos.complete, true, 'a folder read whole is final');

  // The backup: the walk could not open the deepest folders, so 1000 is a lower bound.
  const old = await record(`Home/${OLD}`);
  assert.equal(
    { indexed: old.indexed, sizeBytes: old.sizeBytes, complete: old.complete },
    { indexed: true, sizeBytes: 1000, complete: false },
  );
  const home = await record('Home');
  assert.equal({ sizeBytes: home.sizeBytes, complete: home.complete }, { sizeBytes: 301_000, complete: false });
  assert.equal((await record(`Home/${OLD}/Briefe`)).complete, true, 'a sibling read whole is final');
  const batch = await c.post('/api/folder-size/batch', { paths: ['Home/Photos & Music', `Home/${OLD}`, 'Home/none'] });
  assert.is(batch.status, 200, batch.text);
  assert.equal(
    batch.json.items.map((r: any) => [r.indexed, r.sizeBytes, r.complete]),
    [
      [true, 300_000, true],
      [true, 1000, false],
      [false, null, true],
    ],
    'the batch says the same; a missing folder will never have a figure (final)',
  );

  // The diary is moved up out of the deep folders and they are removed: the sweep counts the
  // folder again and its figure is whole.
  const removedAt = s.logs.length;
  python(
    `import os, shutil, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
top = fd
for name in sys.argv[2:]:
    fd = os.open(name, os.O_RDONLY, dir_fd=fd)
os.rename('Tagebuch 2009.txt', 'Tagebuch 2009.txt', src_dir_fd=fd, dst_dir_fd=top)
shutil.rmtree(os.path.join(sys.argv[1], sys.argv[2]))`,
    vol(OLD),
    ...LONG,
  );
  const again = await waitFor(() => record(`Home/${OLD}`), {
    what: 'the backup counted whole',
    // An outside change is learnt by the sweep: the diary moved up is counted when it lists the folder.
    until: (r) => r.complete && r.sizeBytes === 6000,
    timeoutMs: 30_000,
  });
  assert.equal({ sizeBytes: again.sizeBytes, complete: again.complete }, { sizeBytes: 6000, complete: true });
  const whole = await waitFor(() => record('Home'), {
    what: 'the volume final',
    until: (r) => r.complete && r.sizeBytes === 306_000,
  });
  assert.equal({ sizeBytes: whole.sizeBytes, complete: whole.complete }, { sizeBytes: 306_000, complete: true });
  const held = (await c.get('/api/usage/Home')).json.held;
  assert.equal({ bytes: held.bytes, complete: held.complete }, { bytes: 306_000, complete: true });

  // Only what changed was read again: not the backup's folder, which was final once the deep
  // folders were gone, nor the volume above it (the sweep went on reading again the folders its
  // page had read as incomplete: the backup, then the whole volume, each figure 'counting'
  // meanwhile). A photo added from outside afterwards is found by a later sweep, so by then the
  // sweep that saw the removal has ended.
  fs.writeFileSync(vol('Photos & Music', 'Holiday 2025', 'Strand 2 🌊.jpg'), Buffer.alloc(4000, 3));
  await waitFor(() => record('Home'), {
    what: 'the photo added from outside counted',
    until: (r) => r.complete && r.sizeBytes === 310_000,
    timeoutMs: 30_000,
  });
  await s.settleLogs();
  const readAgain = s.logs
    .slice(removedAt)
    .filter((l) => l.msg === 'a folder-size subtree scan was slow')
    .map((l) => l.path as string);
  assert.equal(
    readAgain.filter((p) => !p.startsWith(`${OLD}/${LONG[0]}/`)),
    [],
    'no folder above the removed part is read again',
  );
  fs.rmSync(vol('Photos & Music', 'Holiday 2025', 'Strand 2 🌊.jpg'));
});

test('a part found later that cannot be read makes every folder above it a lower bound, until it can', async () => {
  // Copied in from outside after the first walk: the sweep finds it.
  nestPastPathMax(vol('Photos & Music', 'Holiday 2025'), LONG, 'Clip 0001.mov', 'v'.repeat(9000));
  const figures = () =>
    Promise.all(['Home', 'Home/Photos & Music', 'Home/Photos & Music/Holiday 2025'].map(record)).then((rs) =>
      rs.map((r) => [r.sizeBytes, r.complete]),
    );
  await waitFor(figures, {
    what: 'the folders above the unreadable part marked incomplete',
    until: (f) =>
      JSON.stringify(f) ===
      JSON.stringify([
        [306_000, false],
        [300_000, false],
        [300_000, false],
      ]),
    timeoutMs: 30_000,
  });
  removeDeep(vol('Photos & Music', 'Holiday 2025', LONG[0]!));
  await waitFor(figures, {
    what: 'final again once the part is gone',
    until: (f) =>
      JSON.stringify(f) ===
      JSON.stringify([
        [306_000, true],
        [300_000, true],
        [300_000, true],
      ]),
    timeoutMs: 30_000,
  });
});

test('a folder read whole that is given a part past the path limit becomes a lower bound', async () => {
  // The sweep lists a folder it holds as final: a new subfolder it cannot even look at (its
  // path past PATH_MAX) made the listing fail, and the folder was skipped, final for good — the
  // race the test above could meet when a walk caught the backup half-copied.
  const SCANS = 'Scans 2019 – Finanzamt';
  const levels = pastPathMax(20);
  // The deepest folder that can be read, empty; the scan one folder above it.
  const readable: string[] = [];
  while (Buffer.byteLength(vol(SCANS, ...readable, levels[readable.length]!)) < 4096)
    readable.push(levels[readable.length]!);
  const deepest = vol(SCANS, ...readable);
  fs.mkdirSync(deepest, { recursive: true });
  fs.writeFileSync(path.join(path.dirname(deepest), 'Bescheid 2019 (Kopie).pdf'), Buffer.alloc(700, 4));
  const scans = () => record(`Home/${SCANS}`).then((r) => [r.sizeBytes, r.complete]);
  await waitFor(scans, {
    what: 'the scans counted whole (the folder holding the scan listed after the deepest was made)',
    until: (f) => JSON.stringify(f) === JSON.stringify([700, true]),
    timeoutMs: 30_000,
  });
  nestPastPathMax(deepest, levels.slice(readable.length), 'Bescheid 2020.pdf', 'b'.repeat(800));
  assert.ok(Buffer.byteLength(path.join(deepest, levels[readable.length]!)) >= 4096, 'the new part lies past PATH_MAX');
  // Through several instances each answers for itself: the folder and the volume are asked of
  // two different ones (round robin), so the one that swept is not the only one that knows.
  const withVolume = () => Promise.all([scans(), record('Home').then((r) => r.complete)]);
  await waitFor(withVolume, {
    what: 'the scans and the volume above them a lower bound',
    until: (f) => JSON.stringify(f) === JSON.stringify([[700, false], false]),
    timeoutMs: 30_000,
  });
  removeDeep(vol(SCANS));
  await waitFor(() => record('Home'), {
    what: 'the volume final again',
    until: (r) => r.complete && r.sizeBytes === 306_000,
    timeoutMs: 30_000,
  });
});

test('described in the API description', async () => {
  const doc = (await c.get('/api/openapi.json')).json;
  const text = JSON.stringify(doc);
  assert.ok(/"complete":\{"type":"boolean","description":"This answer is final/.test(text), 'complete is described');
});

test.run();
