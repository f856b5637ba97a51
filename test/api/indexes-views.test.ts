// The index and what the browse route sees: listing a folder re-checks it in the background
// (an outside change reaches the index without anyone asking for a size), and dot-files appear
// in search results only for an account whose showHiddenFiles preference is on.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '../support/client.ts';
import { setupAdmin } from '../support/auth.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
let admin: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const names = async (query: string) => {
  const a = await admin.get(`/api/search?${query}`);
  assert.is(a.status, 200, a.text);
  return (a.json.items as { name: string; path: string }[]).map((i) => `${i.path}/${i.name}`);
};

test.before(async () => {
  s = await startServer({ env: { FOLDER_SIZE_MODE: 'full', FOLDER_SIZE_FLUSH_MS: '20' }, volumes: ['Files'] });
  fs.mkdirSync(vol('A'), { recursive: true });
  fs.mkdirSync(vol('.stash'), { recursive: true });
  fs.writeFileSync(vol('A', 'zebra-visible.txt'), 'v');
  fs.writeFileSync(vol('A', '.zebra-dotfile.txt'), 'd');
  fs.writeFileSync(vol('.stash', 'zebra-inside.txt'), 'i');
  await s.restart({ FOLDER_SIZE_REBUILD: 'true' });
  admin = await setupAdmin(s);
  await waitFor(() => s.logs.some((l) => l.msg === 'index catalogue finished'), {
    what: 'the index catalogue to finish',
    seen: () => s.logs.map((l) => l.msg).slice(-20),
  });
  assert.ok(
    s.logs.some((l) => l.msg === 'index catalogue finished'),
    'the catalogue was built',
  );
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('dot-files and dot-folders stay out of search results unless the account shows hidden files', async () => {
  assert.equal(await names('q=zebra'), ['Files/A/zebra-visible.txt']);
  assert.is((await admin.patch('/api/settings', { user: { showHiddenFiles: true } })).status, 200);
  assert.equal((await names('q=zebra')).sort(), [
    'Files/.stash/zebra-inside.txt',
    'Files/A/.zebra-dotfile.txt',
    'Files/A/zebra-visible.txt',
  ]);
  assert.is((await admin.patch('/api/settings', { user: { showHiddenFiles: false } })).status, 200);
  assert.equal(await names('q=zebra'), ['Files/A/zebra-visible.txt']);
});

test('listing a folder re-checks it: a file made outside Burrow reaches the index', async () => {
  // The index answers for the volume (a root not yet ready is searched by a live walk of the
  // disk, which would find the file before any re-check).
  await waitFor(() => admin.get('/api/admin/index'), {
    what: 'every indexed root ready',
    until: (a) => a.status === 200 && a.json.roots.length > 0 && a.json.roots.every((r: any) => r.state === 'ready'),
    seen: (a) => a.json?.roots ?? a.text,
  });
  fs.writeFileSync(vol('A', 'okapi-outside.txt'), 'o'.repeat(10));
  // The index answers for this folder and does not know the file yet.
  assert.equal(await names('q=okapi&path=Files/A'), []);
  assert.is((await admin.get('/api/browse/Files/A')).status, 200);
  const found = await waitFor(() => names('q=okapi&path=Files/A'), {
    what: 'the re-check to bring okapi-outside.txt into the index',
    until: (f) => f.length > 0,
  });
  assert.equal(found, ['Files/A/okapi-outside.txt']);
});

test.run();
