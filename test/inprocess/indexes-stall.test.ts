// Stalled I/O: a folder whose reads hang (simulated through the worker's file-system layer).
// Calls past FOLDER_SIZE_IO_TIMEOUT_MS count as stuck; with FOLDER_SIZE_MAX_STALLED_IO of them
// the walk pauses, requests keep being answered at once, and work resumes when the disk does.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '../support/client.ts';
import { startInProcess, type InProcessApp } from '../support/inprocess.ts';
import { makeDirs, type TestDirs } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

/** A folder read as usual, and one on a network share that stops answering. */
const FINE = 'Fotos & Musik 2024';
const STUCK = 'NAS-Backup #2 (100% voll) 🐢';
const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');

let dirs: TestDirs;
let s: InProcessApp;
let c: Client;
let logs: Record<string, any>[];
let release: string;

test.before(async () => {
  dirs = makeDirs();
  const vol = path.join(dirs.volumes, 'Files');
  fs.mkdirSync(path.join(vol, FINE), { recursive: true });
  fs.mkdirSync(path.join(vol, STUCK), { recursive: true });
  fs.writeFileSync(path.join(vol, FINE, 'Strand 🌊.jpg'), Buffer.alloc(10));
  fs.writeFileSync(path.join(vol, STUCK, 'Vertrag – Zoé.pdf'), Buffer.alloc(20));
  release = path.join(dirs.cache, 'release-the-disk');
  s = await startInProcess(
    dirs,
    {
      AUTH_MODE: 'disabled',
      FOLDER_SIZE_MODE: 'full',
      FOLDER_SIZE_IO_TIMEOUT_MS: '1000',
      FOLDER_SIZE_MAX_STALLED_IO: '1',
      FOLDER_SIZE_FLUSH_MS: '20',
    },
    { fsModule: new URL('./fixtures/hanging-fs.ts', import.meta.url).href, fsOptions: { hang: STUCK, release } },
  );
  ({ client: c, logs } = s);
});
test.after(async () => {
  fs.writeFileSync(release, '');
  await s.close();
});

test('a hanging folder pauses indexing; requests are answered meanwhile; work resumes and the folder is marked incomplete', async () => {
  const said = (re: RegExp) => logs.some((l) => re.test(l.msg));
  await waitFor(() => said(/indexing paused/), { what: 'the indexer to pause', seen: () => logs.map((l) => l.msg) });
  assert.ok(said(/indexing paused/), 'the indexer said it paused');
  // The stuck read timed out, so the walk finished without that folder.
  const figures = await waitFor(async () => (await c.get('/api/folder-size/Files')).json, {
    what: 'the sizes of the walk',
    until: (f) => f.indexed,
  });
  assert.is(figures.sizeBytes, 10, 'the timed-out folder is left out of this walk');
  // While paused, an own write waits for the disk; requests are answered. The hung read is held
  // until this test releases it, so an answer that waited for it would never come.
  const made = await c.post('/api/files/file', {
    path: `Files/${FINE}`,
    name: 'Einkauf + Liste.txt',
    content: '12345',
  });
  assert.is(made.status, 201, made.text);
  assert.is((await c.get(`/api/search?q=Einkauf&path=${encodeURIComponent(`Files/${FINE}`)}`)).status, 200);
  // A quiet while on purpose: an own write's size would land within it (FOLDER_SIZE_FLUSH_MS is
  // 20) if work went on while paused; nothing says "not applied".
  await new Promise((r) => setTimeout(r, 300));
  const during = (await c.get('/api/folder-size/Files')).json;
  assert.not.ok(said(/indexing resumed/), 'still paused: the disk has not answered');
  assert.is(during.sizeBytes, 10, 'no new work while paused');
  const stuck = s.app.db.get<{ complete: number }>('SELECT complete FROM idx_entries WHERE name = ?', [STUCK]);
  assert.is(stuck?.complete, 0, 'the folder is due for a targeted rebuild');
  // The disk answers again: the queued work runs, and the folder left out is read at last.
  fs.writeFileSync(release, '');
  const fine = await waitFor(async () => (await c.get(`/api/folder-size/Files/${enc(FINE)}`)).json, {
    what: 'the queued own write to be applied',
    until: (f) => f.sizeBytes === 15,
  });
  assert.is(fine.sizeBytes, 15);
  assert.ok(said(/indexing resumed/));
  const after = await waitFor(async () => (await c.get('/api/folder-size/Files')).json, {
    what: 'the folder left out to be read again',
    until: (f) => f.sizeBytes === 35 && f.complete,
  });
  assert.is(after.sizeBytes, 35, 'the photos (15) + the backup (20)');
});

test.run();
