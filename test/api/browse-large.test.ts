// A large folder's stats come from the stat worker (src/browse/stats.ts), a small one's from
// callbacks: the same entries must be described the same way by both (links followed, a broken
// link by its own lstat, folders as folders with size 0), and a listing during the worker's start
// answers like one after it.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let c: Client;
/** More than the worker's threshold (256). */
const MANY = 400;

function fill(dir: string, files: number): void {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < files; i++) fs.writeFileSync(path.join(dir, `file-${i}.txt`), 'x'.repeat(i % 50));
  fs.mkdirSync(path.join(dir, 'sub'));
  fs.writeFileSync(path.join(dir, 'photo.jpg'), Buffer.alloc(700));
  fs.symlinkSync('file-1.txt', path.join(dir, 'link-to-file'));
  fs.symlinkSync('sub', path.join(dir, 'link-to-folder'));
  fs.symlinkSync('nowhere', path.join(dir, 'broken-link'));
}

test.before(async () => {
  s = await startServer({ env: { AUTH_MODE: 'disabled' } });
  c = new Client(s.url);
  fill(path.join(s.dirs.volumes, 'Files', 'small'), 3);
  fill(path.join(s.dirs.volumes, 'Files', 'large'), MANY);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

const byName = (items: any[]) => new Map(items.map((i) => [i.name, i]));

test('a large listing describes every entry as a small one does, with its own size and time', async () => {
  const large = path.join(s.dirs.volumes, 'Files', 'large');
  for (let round = 0; round < 3; round++) {
    const small = byName((await c.get('/api/browse/Files/small')).json.items);
    const res = await c.get('/api/browse/Files/large');
    assert.is(res.status, 200);
    const items = byName(res.json.items);
    assert.is(items.size, MANY + 5);
    for (const name of ['sub', 'photo.jpg', 'link-to-file', 'link-to-folder', 'broken-link']) {
      const { path: p, ...rest } = items.get(name);
      const { path: q, ...same } = small.get(name);
      assert.is(p, 'Files/large');
      assert.is(q, 'Files/small');
      assert.equal({ ...rest, dateModified: undefined }, { ...same, dateModified: undefined }, name);
    }
    assert.is(items.get('sub').kind, 'directory');
    assert.is(items.get('link-to-folder').kind, 'directory');
    assert.is(items.get('link-to-file').size, 1);
    assert.is(items.get('broken-link').size, fs.lstatSync(path.join(large, 'broken-link')).size);
    assert.ok(items.get('photo.jpg').supportsThumbnail);
    for (let i = 0; i < MANY; i += 37) {
      const st = fs.statSync(path.join(large, `file-${i}.txt`));
      const item = items.get(`file-${i}.txt`);
      assert.is(item.size, i % 50);
      assert.is(item.dateModified, st.mtime.toISOString());
    }
    // Kept on purpose: the first large listing runs while the stat worker boots, and this pause
    // lets the next rounds find it up. Whether it is up cannot be seen from outside the server
    // (its thread is named like the indexer's), and every round's checks hold either way.
    await new Promise((r) => setTimeout(r, 300));
  }
});

test.run();
