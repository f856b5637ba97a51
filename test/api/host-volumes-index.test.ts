// Host folders served as volumes (Administration → Volumes) are indexed like VOLUME_ROOT's
// folders: a folder added at run time gets its folder sizes and its catalogue of names and
// document text without anyone opening it, a restart keeps indexing it, and removing the volume
// drops its rows from the index. Readiness is the indexer's own log line for that root, polled
// with a bound; the rows are read from the index file while the server is stopped.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '../support/client.ts';
import { setupAdmin } from '../support/auth.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

/** Waits (bounded) for the `count`-th log line `msg` about `root`. */
async function logged(s: TestServer, msg: string, root: string, count = 1): Promise<void> {
  await waitFor(
    async () => {
      await s.settleLogs();
      return s.logs.filter((l) => l.msg === msg && l.root === root).length >= count;
    },
    {
      what: `${count} "${msg}" line(s) for ${root}`,
      timeoutMs: 30_000,
      seen: () => s.logs.map((l) => l.msg).slice(-10),
    },
  );
}

async function search(c: Client, query: string): Promise<{ name: string; path: string; matchLine?: string }[]> {
  const a = await c.get(`/api/search?${query}`);
  assert.is(a.status, 200, a.text);
  return a.json.items;
}

test('a host volume added at run time is indexed for search and folder sizes; removing it drops its rows', async () => {
  const s = await startServer({ volumes: ['Files'], env: { FOLDER_SIZE_MODE: 'full' } });
  const host = path.join(s.dirs.root, 'host-archive');
  fs.mkdirSync(path.join(host, 'letters', '2024'), { recursive: true });
  fs.writeFileSync(path.join(host, 'letters', '2024', 'zebra-quartz-invoice.txt'), 'paid in full\nthe walrus ledger\n');
  fs.writeFileSync(path.join(host, 'letters', 'notes.md'), '# notes\nnothing to see');
  fs.writeFileSync(path.join(host, 'photo.bin'), Buffer.alloc(1000));
  const real = fs.realpathSync(host);
  try {
    const admin = await setupAdmin(s);
    const added = await admin.request('POST', '/api/admin/volumes', {
      label: 'Archive',
      path: host,
      accessMode: 'readonly',
    });
    assert.is(added.status, 201, added.text);
    const id = added.json.volume.id as string;

    // Nobody opened the volume: the indexer walks it because it was added.
    await logged(s, 'index catalogue finished', real);
    const byName = await search(admin, 'q=zebra-quartz');
    assert.equal(
      byName.map((i) => `${i.path}|${i.name}`),
      ['Archive/letters/2024|zebra-quartz-invoice.txt'],
    );
    const byText = await search(admin, 'q=walrus');
    assert.equal(
      byText.map((i) => `${i.path}|${i.name}|${i.matchLine}`),
      ['Archive/letters/2024|zebra-quartz-invoice.txt|the walrus ledger'],
    );
    const size = await admin.get('/api/folder-size/Archive/letters');
    assert.is(size.status, 200, size.text);
    assert.is(size.json.indexed, true, size.text);
    assert.is(size.json.sizeBytes, 'paid in full\nthe walrus ledger\n'.length + '# notes\nnothing to see'.length);

    // From the rows of the index file (the server stopped meanwhile, then started again).
    const rows = await s.withDatabase((db) => {
      const root = db.get<{ id: number; state: string }>('SELECT id, state FROM idx.idx_roots WHERE path = ?', [real]);
      const names = root
        ? db.all<{ name: string }>('SELECT name FROM idx.idx_entries WHERE root_id = ? ORDER BY name', [root.id])
        : [];
      return { state: root?.state, names: names.map((n) => n.name) };
    });
    assert.is(rows.state, 'ready');
    assert.equal(rows.names, ['', '2024', 'letters', 'notes.md', 'photo.bin', 'zebra-quartz-invoice.txt']);

    // Removed: its rows leave the index (the folder itself is untouched).
    assert.is((await admin.request('DELETE', `/api/admin/volumes/${id}`)).status, 204);
    await logged(s, 'index root dropped', real);
    assert.equal(await search(admin, 'q=zebra-quartz'), []);
    const left = await s.withDatabase((db) => ({
      roots: db.all('SELECT id FROM idx.idx_roots WHERE path = ?', [real]).length,
      orphans: db.get<{ n: number }>(
        'SELECT count(*) AS n FROM idx.idx_entries WHERE root_id NOT IN (SELECT id FROM idx.idx_roots)',
      )!.n,
    }));
    assert.equal(left, { roots: 0, orphans: 0 });
    assert.ok(fs.existsSync(path.join(host, 'letters', '2024', 'zebra-quartz-invoice.txt')));
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('host volumes are indexed from the start, like the folders of VOLUME_ROOT', async () => {
  const s = await startServer({ volumes: ['Files'] });
  const host = path.join(s.dirs.root, 'host-music');
  fs.mkdirSync(path.join(host, 'album'), { recursive: true });
  fs.writeFileSync(path.join(host, 'album', 'lyrics-of-the-heron.txt'), 'a heron stands in the reeds');
  const real = fs.realpathSync(host);
  try {
    const admin = await setupAdmin(s);
    const added = await admin.request('POST', '/api/admin/volumes', {
      label: 'Music',
      path: host,
      accessMode: 'readwrite',
    });
    assert.is(added.status, 201, added.text);
    await logged(s, 'index catalogue finished', real);

    // A rebuilt index at the next start walks the host volume again without being asked.
    await s.restart({ FOLDER_SIZE_REBUILD: 'true' });
    await logged(s, 'index catalogue finished', real, 2);
    const found = await search(admin, 'q=heron');
    assert.equal(
      found.map((i) => `${i.path}|${i.name}`),
      ['Music/album|lyrics-of-the-heron.txt'],
    );
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test.run();
