// GET /api/usage/{path}: `held`, what a volume (or any folder) stores, from the folder-size
// index — two volumes on one disk no longer both say what the whole disk holds. The disk's
// figures stay what they were (the same for both volumes); `held` is null where the index has
// no recursive figure (FOLDER_SIZE_MODE off or shallow) and a file's own size for a file.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
let c: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, ...p);
const url = (p: string) => `/api/usage/${p.split('/').map(encodeURIComponent).join('/')}`;

async function usage(p: string) {
  const a = await c.get(url(p));
  assert.is(a.status, 200, a.text);
  return a.json;
}

/** Waits until the index's figure for `p` is `bytes` (the first walk and deltas land in the background). */
function heldBecomes(p: string, bytes: number) {
  return waitFor(() => usage(p), {
    what: `${p} to hold ${bytes} bytes, complete`,
    until: (u) => u.held?.bytes === bytes && u.held.complete,
  });
}

test.before(async () => {
  s = await startServer({
    env: { AUTH_MODE: 'disabled', FOLDER_SIZE_MODE: 'full', FOLDER_SIZE_FLUSH_MS: '20' },
    volumes: ['Photos & Music', 'Dokumente'],
  });
  fs.mkdirSync(vol('Photos & Music', 'Holiday 2025', 'Day #1'), { recursive: true });
  fs.writeFileSync(vol('Photos & Music', 'Holiday 2025', 'Day #1', 'Strand 🌊.jpg'), Buffer.alloc(300_000, 1));
  fs.writeFileSync(vol('Photos & Music', 'Morning Tune.mp3'), Buffer.alloc(45_000, 2));
  fs.writeFileSync(vol('Dokumente', 'Steuer 2024 – Entwurf.pdf'), Buffer.alloc(1234, 3));
  // The volumes existed before their files: walk the tree as it is now.
  await s.restart({ FOLDER_SIZE_REBUILD: 'true' });
  c = new Client(s.url);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('each volume says what it holds; the disk figures are the same for both', async () => {
  const photos = await heldBecomes('Photos & Music', 345_000);
  const docs = await heldBecomes('Dokumente', 1234);
  assert.is(photos.total, docs.total, 'one disk under both');
  assert.ok(photos.total > 0 && photos.free > 0);
  assert.ok(photos.used > photos.held.bytes, 'the disk holds more than the volume');
  assert.match(photos.held.lastUpdated, /Z$/);
  // A folder inside a volume, and a file.
  assert.is((await heldBecomes('Photos & Music/Holiday 2025', 300_000)).held.bytes, 300_000);
  const file = await usage('Dokumente/Steuer 2024 – Entwurf.pdf');
  assert.is(file.held.bytes, 1234);
  assert.is(file.held.complete, true);
});

test("a write through the server moves the volume's figure", async () => {
  const fd = new FormData();
  fd.append('uploadTo', 'Dokumente');
  fd.append('filedata', new Blob([Buffer.alloc(766, 4)]), 'Rechnung März.pdf');
  const up = await c.post('/api/upload', fd);
  assert.is(up.status, 201, up.text);
  await heldBecomes('Dokumente', 2000);
});

test('described in the API description', async () => {
  const doc = (await c.get('/api/openapi.json')).json;
  const schema = JSON.stringify(doc.paths['/api/usage/{path}'] ?? doc);
  assert.ok(schema.includes('held'), 'the usage answer names held');
});

test('no recursive figure: held is null in shallow and off modes, the disk figures stay', async () => {
  await s.restart({ FOLDER_SIZE_MODE: 'shallow' });
  c = new Client(s.url);
  const shallow = await usage('Photos & Music');
  assert.is(shallow.held, null);
  assert.ok(shallow.total > 0);
  await s.restart({ FOLDER_SIZE_MODE: 'off' });
  c = new Client(s.url);
  const off = await usage('Photos & Music');
  assert.is(off.held, null);
  assert.ok(off.free > 0);
});

test.run();
