// Spec §8: a folder's size is reported even when the caller may not enter it. A folder hidden
// by an access rule answers its record with canEnter: false — by path and in the batch — while
// a hidden path that is no folder, or a link out of the volume behind a hidden name, still
// answers 404.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setupAdmin } from '../support/auth.ts';
import { envelope, type Client } from '../support/client.ts';
import { makeDirs, removeDirs, startServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

function indexedSize(c: Client, p: string, bytes: number): Promise<any> {
  return waitFor(
    async () => {
      const a = await c.get(`/api/folder-size/${p}`);
      assert.is(a.status, 200, `${p}: ${a.text}`);
      return a.json;
    },
    { what: `${p} to be ${bytes} bytes`, until: (r) => r.indexed && r.sizeBytes === bytes },
  );
}

test('a folder hidden by an access rule answers its size with canEnter:false; missing, file and link-out paths stay 404', async () => {
  // The tree is there before the server starts: its first walk may begin at once, and a file
  // written by another program after a folder was walked waits for the sweep.
  const dirs = makeDirs();
  const vol = (...p: string[]) => path.join(dirs.volumes, 'Files', ...p);
  const outside = path.join(dirs.root, 'outside');
  fs.mkdirSync(vol('Secret', 'Deeper'), { recursive: true });
  fs.writeFileSync(vol('Secret', 'a.bin'), Buffer.alloc(300));
  fs.writeFileSync(vol('Secret', 'Deeper', 'b.bin'), Buffer.alloc(700));
  fs.writeFileSync(vol('plain.txt'), 'x');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'o.bin'), Buffer.alloc(50));
  fs.symlinkSync(outside, vol('Link'));
  const s = await startServer({
    env: { FOLDER_SIZE_MODE: 'full', FOLDER_SIZE_FLUSH_MS: '20' },
    dirs,
    volumes: ['Files'],
  });
  try {
    const admin = await setupAdmin(s);
    const set = await admin.patch('/api/settings', {
      access: {
        rules: [
          { id: 'h', path: 'Files/Secret', recursive: true, permissions: 'hidden' },
          { id: 'l', path: 'Files/Link', recursive: true, permissions: 'hidden' },
          { id: 'p', path: 'Files/plain.txt', recursive: false, permissions: 'hidden' },
        ],
      },
    });
    assert.is(set.status, 200, set.text);
    // Hidden in listings and for reading…
    assert.is((await admin.get('/api/browse/Files/Secret')).status, 404);
    // …but its size is there, marked not enterable.
    const secret = await indexedSize(admin, 'Files/Secret', 1000);
    assert.equal(
      { ...secret, lastUpdated: null },
      {
        path: 'Files/Secret',
        canEnter: false,
        sizeBytes: 1000,
        entryCount: secret.entryCount,
        lastUpdated: null,
        indexed: true,
        complete: true,
      },
    );
    const deeper = await indexedSize(admin, 'Files/Secret/Deeper', 700);
    assert.is(deeper.canEnter, false);
    const batch = await admin.post('/api/folder-size/batch', { paths: ['Files/Secret', 'Files', 'Files/Secret/none'] });
    assert.is(batch.status, 200, batch.text);
    assert.is(batch.json.items[0].canEnter, false);
    assert.is(batch.json.items[0].sizeBytes, 1000);
    assert.is(batch.json.items[1].canEnter, true);
    assert.is(batch.json.items[2].indexed, false);
    for (const p of ['Files/Secret/none', 'Files/plain.txt', 'Files/Link', 'Files/Secret/a.bin']) {
      const a = await admin.get(`/api/folder-size/${p}`);
      assert.is(a.status, 404, `${p}: ${a.text}`);
      envelope(a);
    }
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test.run();
