// A local disk that hangs: the synchronous walk's read of one folder blocks the worker's thread
// (simulated through the worker's file-system layer). The main thread's watchdog notices the
// call outliving FOLDER_SIZE_IO_TIMEOUT_MS, replaces the worker, and the walk of that volume
// starts again with the guarded walk, the hung folder left unread and marked incomplete.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '../support/client.ts';
import { startInProcess, type InProcessApp } from '../support/inprocess.ts';
import { makeDirs, type TestDirs } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const TIMEOUT_MS = 1000;
/** Folders read as usual, and one on a dying local disk. */
const FINE = 'Fotos & Musik 2024';
const STUCK = 'Alte Platte #2 (100% voll) 🐢';
const OTHER = 'Rechnungen + Belege';
const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');

let dirs: TestDirs;
let s: InProcessApp;
let c: Client;
let logs: Record<string, any>[];
let hangLog: string;
let release: string;

test.before(async () => {
  dirs = makeDirs();
  const vol = path.join(dirs.volumes, 'Files');
  const w = (rel: string, bytes: number) => {
    fs.mkdirSync(path.dirname(path.join(vol, rel)), { recursive: true });
    fs.writeFileSync(path.join(vol, rel), Buffer.alloc(bytes));
  };
  w(`${FINE}/Strand 🌊.jpg`, 10);
  w(`${STUCK}/Vertrag – Zoé.pdf`, 20);
  w(`${STUCK}/Scans 2009/Seite 1.tif`, 40);
  w(`${OTHER}/2025/Rechnung Nr. 0815.pdf`, 30);
  hangLog = path.join(dirs.cache, 'hangs.log');
  release = path.join(dirs.cache, 'release-the-disk');
  s = await startInProcess(
    dirs,
    {
      AUTH_MODE: 'disabled',
      FOLDER_SIZE_MODE: 'full',
      FOLDER_SIZE_IO_TIMEOUT_MS: String(TIMEOUT_MS),
      FOLDER_SIZE_FLUSH_MS: '20',
    },
    {
      fsModule: new URL('./fixtures/hanging-fs.ts', import.meta.url).href,
      fsOptions: { hang: STUCK, release, sync: true, hangLog },
    },
  );
  ({ client: c, logs } = s);
});
test.after(async () => {
  fs.writeFileSync(release, '');
  await s.close();
});

test('a hung synchronous read: requests keep answering, the rest of the sizes arrive within the timeout, the folder is marked incomplete', async () => {
  // The worker's thread is now inside the hung read.
  await waitFor(() => fs.existsSync(hangLog), { what: 'the synchronous walk to reach the hanging folder' });
  assert.ok(fs.existsSync(hangLog), 'the synchronous walk reached the hanging folder');
  // The hung read is held until this test releases it (after the last check): every answer below
  // that came at all did not wait for it.
  const during = await c.get('/api/folder-size/Files');
  assert.is(during.status, 200);
  assert.is((await c.get('/api/search?q=Rechnung&path=Files')).status, 200);

  const figures = await waitFor(async () => (await c.get('/api/folder-size/Files')).json, {
    what: 'the sizes',
    until: (f) => f.indexed,
  });
  assert.ok(figures.indexed, 'the sizes arrived');
  assert.is(figures.sizeBytes, 40, 'everything but the hung folder: the photos (10) + the invoices (30)');
  assert.not.ok(
    fs.existsSync(release),
    'the sizes arrived while the read was still hung: the I/O timeout was honoured',
  );
  assert.is((await c.get(`/api/folder-size/Files/${enc(OTHER)}`)).json.sizeBytes, 30);

  const stalls = logs.filter((l) => /disk stopped answering the indexer/.test(l.msg));
  assert.is(stalls.length, 1, 'one log line for the stall');
  assert.is(stalls[0].folder, STUCK);
  assert.ok(stalls[0].stuckMs >= TIMEOUT_MS);

  const row = (name: string) =>
    s.app.db.get<{ complete: number }>('SELECT complete FROM idx_entries WHERE name = ? AND is_dir = 1', [name]);
  assert.is(row(STUCK)?.complete, 0, 'the hung folder is due for a targeted rebuild');
  assert.is(row('')?.complete, 0, 'the volume knows it is incomplete');
  assert.is(row(FINE)?.complete, 1);
  // The retry and every later walk of this volume use the guarded walk: one synchronous hang only.
  assert.is(fs.readFileSync(hangLog, 'utf8').trim().split('\n').length, 1);

  // The catalogue still completes (guarded: its read of the hung folder times out on its own).
  await waitFor(() => logs.some((l) => l.msg === 'index catalogue finished'), {
    what: 'the catalogue to finish',
    seen: () => logs.map((l) => l.msg).slice(-10),
  });
  assert.ok(
    logs.some((l) => l.msg === 'index catalogue finished'),
    'the catalogue finished',
  );
  const found = (await c.get('/api/search?q=Rechnung%20Nr&path=Files')).json;
  assert.ok(JSON.stringify(found).includes('Rechnung Nr. 0815.pdf'), 'names of the rest of the tree are searchable');
});

test.run();
