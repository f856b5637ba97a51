// File operations through the real server: create, rename, copy/move (parallel copies into one
// folder), delete to trash and restore, bindings carried and forgotten, bad input.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let c: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);

test.before(async () => {
  s = await startServer({ env: { AUTH_MODE: 'disabled' }, volumes: ['Files', 'Other'] });
  c = new Client(s.url);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('volumes and browse answer the wire shapes', async () => {
  fs.mkdirSync(vol('Docs'));
  fs.writeFileSync(vol('Docs', 'a.txt'), 'hello');
  fs.writeFileSync(vol('Docs', '.hidden'), 'x');
  const volumes = await c.get('/api/volumes');
  assert.equal(
    volumes.json.map((v: any) => [v.name, v.path, v.kind, v.readOnly]),
    [
      ['Files', 'Files', 'volume', null],
      ['Other', 'Other', 'volume', null],
    ],
  );
  const top = await c.get('/api/browse/');
  assert.is(top.json.path, '');
  assert.equal(
    top.json.items.map((i: any) => i.name),
    ['Files', 'Other'],
  );
  const docs = await c.get('/api/browse/Files/Docs');
  assert.is(docs.status, 200);
  assert.is(docs.json.path, 'Files/Docs');
  assert.is(docs.json.current.isDirectory, true);
  assert.equal(
    docs.json.items.map((i: any) => i.name),
    ['a.txt'],
    'hidden files are not listed by default',
  );
  const item = docs.json.items[0];
  assert.is(item.path, 'Files/Docs');
  assert.is(item.kind, 'txt');
  assert.is(item.size, 5);
  assert.match(item.dateModified, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  for (const k of ['canRead', 'canWrite', 'canUpload', 'canDelete', 'canShare', 'canDownload'])
    assert.type(docs.json.access[k], 'boolean');
  const etag = docs.headers.get('etag')!;
  const again = await c.get('/api/browse/Files/Docs', { 'if-none-match': etag });
  assert.is(again.status, 304);
  assert.is(again.text, '');
  fs.writeFileSync(vol('Docs', 'a.txt'), 'changed!');
  assert.is(
    (await c.get('/api/browse/Files/Docs', { 'if-none-match': etag })).status,
    200,
    'a changed file changes the ETag',
  );
  assert.is(envelope(await c.get('/api/browse/Files/Nope')).statusCode, 404);
  assert.is(envelope(await c.get('/api/browse/Files/..%2F..')).statusCode, 400);
});

test('create folder and file never overwrite: name (1)', async () => {
  const a = await c.post('/api/files/folder', { path: 'Files', name: 'New' });
  assert.is(a.status, 201);
  assert.is(a.json.item.name, 'New');
  assert.is(a.json.item.kind, 'directory');
  const b = await c.post('/api/files/folder', { path: 'Files', name: 'New' });
  assert.is(b.json.item.name, 'New (1)');
  const f1 = await c.post('/api/files/file', { path: 'Files/New', name: 'n.txt', content: 'one' });
  const f2 = await c.post('/api/files/file', { path: 'Files/New', name: 'n.txt', content: 'two' });
  assert.is(f1.json.item.name, 'n.txt');
  assert.is(f2.json.item.name, 'n (1).txt');
  assert.is(fs.readFileSync(vol('New', 'n.txt'), 'utf8'), 'one');
  for (const bad of ['a/b', '..', 'x\\y', '.burrow', '']) {
    const r = await c.post('/api/files/folder', { path: 'Files', name: bad });
    assert.is(r.status, 400, bad);
    envelope(r);
  }
  assert.is((await c.post('/api/files/folder', { path: '', name: 'TopLevel' })).status, 400);
});

test('rename: plain names only, 409 on a taken name, case change allowed', async () => {
  fs.writeFileSync(vol('r1.txt'), '1');
  fs.writeFileSync(vol('r2.txt'), '2');
  const taken = await c.post('/api/files/rename', { path: 'Files', name: 'r1.txt', newName: 'r2.txt' });
  assert.is(taken.status, 409);
  envelope(taken);
  assert.is(fs.readFileSync(vol('r2.txt'), 'utf8'), '2');
  const ok = await c.post('/api/files/rename', { path: 'Files', name: 'r1.txt', newName: 'R1.txt' });
  assert.is(ok.status, 200);
  assert.is(ok.json.item.name, 'R1.txt');
  assert.ok(fs.existsSync(vol('R1.txt')));
  assert.is((await c.post('/api/files/rename', { path: 'Files', name: 'R1.txt', newName: '../x' })).status, 400);
  assert.is((await c.post('/api/files/rename', { path: 'Files', name: 'gone.txt', newName: 'y' })).status, 404);
});

test('parallel copies of one item into one folder each land under their own name', async () => {
  fs.mkdirSync(vol('src'));
  fs.writeFileSync(vol('src', 'p.bin'), Buffer.alloc(100_000, 7));
  fs.mkdirSync(vol('dst'));
  const answers = await Promise.all(
    Array.from({ length: 8 }, () =>
      c.post('/api/files/copy', { items: [{ path: 'Files/src', name: 'p.bin' }], destination: 'Files/dst' }),
    ),
  );
  const names = answers.map((a) => {
    assert.is(a.status, 200, a.text);
    return a.json.items[0].to;
  });
  assert.is(new Set(names).size, 8);
  assert.equal(fs.readdirSync(vol('dst')).sort(), [
    'p (1).bin',
    'p (2).bin',
    'p (3).bin',
    'p (4).bin',
    'p (5).bin',
    'p (6).bin',
    'p (7).bin',
    'p.bin',
  ]);
  for (const n of fs.readdirSync(vol('dst'))) assert.is(fs.statSync(vol('dst', n)).size, 100_000);
  // Folders too, via the move route with the discriminator.
  fs.mkdirSync(vol('tree', 'inner'), { recursive: true });
  fs.writeFileSync(vol('tree', 'inner', 'f.txt'), 'f');
  const both = await Promise.all(
    [1, 2, 3].map(() =>
      c.post('/api/files/move', {
        operation: 'copy',
        items: [{ path: 'Files', name: 'tree' }],
        destination: 'Files/dst',
      }),
    ),
  );
  assert.equal(both.map((b) => b.json.items[0].to).sort(), [
    'Files/dst/tree',
    'Files/dst/tree (1)',
    'Files/dst/tree (2)',
  ]);
  assert.is(fs.readFileSync(vol('dst', 'tree (2)', 'inner', 'f.txt'), 'utf8'), 'f');
});

test('move: into a taken name, into itself, no-op, across volumes', async () => {
  fs.mkdirSync(vol('m'));
  fs.writeFileSync(vol('m', 'x.txt'), 'moved');
  fs.writeFileSync(vol('x.txt'), 'stays');
  const r = await c.post('/api/files/move', { items: [{ path: 'Files/m', name: 'x.txt' }], destination: 'Files' });
  assert.is(r.status, 200);
  assert.equal(r.json.items, [{ from: 'Files/m/x.txt', to: 'Files/x (1).txt', outcome: 'renamed' }]);
  assert.is(fs.readFileSync(vol('x.txt'), 'utf8'), 'stays');
  assert.is(fs.readFileSync(vol('x (1).txt'), 'utf8'), 'moved');
  const into = await c.post('/api/files/move', { items: [{ path: 'Files', name: 'm' }], destination: 'Files/m' });
  assert.is(into.status, 400);
  assert.is(envelope(into).code, 'INTO_ITSELF');
  const noop = await c.post('/api/files/move', { items: [{ path: 'Files', name: 'm' }], destination: 'Files' });
  assert.is(noop.json.items[0].skipped, true);
  const across = await c.post('/api/files/move', { items: [{ path: 'Files', name: 'm' }], destination: 'Other' });
  assert.is(across.json.items[0].to, 'Other/m');
  assert.not.ok(fs.existsSync(vol('m')));
  assert.is(
    (await c.post('/api/files/move', { items: [{ path: 'Files', name: 'missing' }], destination: 'Other' })).status,
    404,
  );
  assert.is(
    (await c.post('/api/files/move', { items: [{ path: 'Files', name: 'x.txt' }], destination: '' })).status,
    400,
  );
});

test('a whole volume is not copied or moved into another: a clear refusal, nothing left behind', async () => {
  fs.mkdirSync(path.join(s.dirs.volumes, 'Other', 'Résumé & notes #2'), { recursive: true });
  fs.writeFileSync(path.join(s.dirs.volumes, 'Other', 'Résumé & notes #2', "Mum's 100% plan.txt"), 'kept');
  const before = fs.readdirSync(vol()).sort();
  const copy = await c.post('/api/files/copy', { items: [{ path: '', name: 'Other' }], destination: 'Files' });
  assert.is(copy.status, 400);
  assert.is(envelope(copy).code, 'TOP_LEVEL');
  const move = await c.post('/api/files/move', { items: [{ path: '', name: 'Other' }], destination: 'Files' });
  assert.is(move.status, 403);
  assert.is(envelope(move).code, 'READ_ONLY');
  assert.equal(fs.readdirSync(vol()).sort(), before);
  assert.is(
    fs.readFileSync(path.join(s.dirs.volumes, 'Other', 'Résumé & notes #2', "Mum's 100% plan.txt"), 'utf8'),
    'kept',
  );
});

test('bindings: favourites follow a rename byte-exactly and vanish on delete', async () => {
  fs.mkdirSync(vol('Docs2'));
  fs.mkdirSync(vol('docs2'));
  fs.mkdirSync(vol('Docs2', 'sub'));
  const f1 = await c.post('/api/favorites', { path: 'Files/Docs2/sub' });
  const f2 = await c.post('/api/favorites', { path: 'Files/docs2' });
  assert.is(f1.status, 201);
  assert.is(f1.json.icon, 'outline:StarIcon');
  await c.post('/api/files/rename', { path: 'Files', name: 'Docs2', newName: 'Papers' });
  let favs = (await c.get('/api/favorites')).json;
  assert.equal(
    favs.map((f: any) => f.path),
    ['Files/Papers/sub', 'Files/docs2'],
  );
  const reorder = await c.patch('/api/favorites/reorder', { order: [f2.json.id, f1.json.id] });
  assert.equal(
    reorder.json.map((f: any) => [f.path, f.position]),
    [
      ['Files/docs2', 0],
      ['Files/Papers/sub', 1],
    ],
  );
  assert.is((await c.patch('/api/favorites/reorder', { order: [f2.json.id] })).status, 400);
  const renamed = await c.patch(`/api/favorites/${f2.json.id}`, {
    label: 'Lower',
    icon: 'outline:FolderIcon',
    color: null,
  });
  assert.is(renamed.json.label, 'Lower');
  const impact = await c.post('/api/files/delete-impact', { items: [{ path: 'Files', name: 'Papers' }] });
  assert.is(impact.json.favoriteCount, 1);
  assert.is(impact.json.dirCount, 2);
  assert.is(impact.json.shareCount, 0);
  const del = await c.delete('/api/files', {
    items: [
      { path: 'Files', name: 'Papers' },
      { path: 'Files', name: 'never-was' },
    ],
  });
  assert.is(del.status, 200);
  assert.equal(
    del.json.items.map((i: any) => i.status),
    ['deleted', 'missing'],
  );
  favs = (await c.get('/api/favorites')).json;
  assert.equal(
    favs.map((f: any) => f.path),
    ['Files/docs2'],
  );
  await c.delete('/api/favorites', { path: 'Files/docs2' });
  assert.equal((await c.get('/api/favorites')).json, []);
});

test('trash: delete is a rename, restore never overwrites, purge and empty', async () => {
  fs.writeFileSync(vol('t.txt'), 'first');
  await c.delete('/api/files', { items: [{ path: 'Files', name: 't.txt' }] });
  assert.not.ok(fs.existsSync(vol('t.txt')));
  fs.writeFileSync(vol('t.txt'), 'second');
  const list = (await c.get('/api/trash')).json.items;
  const entry = list.find((i: any) => i.name === 't.txt');
  assert.is(entry.originalPath, 'Files/t.txt');
  assert.is(entry.path, 'Files');
  const text = await c.get(`/api/trash/items/${entry.id}/text`);
  assert.is(text.json.content, 'first');
  const restored = await c.post(`/api/trash/items/${entry.id}/restore`, {});
  assert.is(restored.status, 200, restored.text);
  assert.is(restored.json.item.name, 't (1).txt');
  assert.is(fs.readFileSync(vol('t.txt'), 'utf8'), 'second');
  assert.is(fs.readFileSync(vol('t (1).txt'), 'utf8'), 'first');
  // Restore into a chosen folder.
  await c.delete('/api/files', { items: [{ path: 'Files', name: 't (1).txt' }] });
  const again = (await c.get('/api/trash')).json.items.find((i: any) => i.name === 't (1).txt');
  const chosen = await c.post(`/api/trash/items/${again.id}/restore`, { destination: 'Other' });
  assert.is(chosen.json.path, 'Other/t (1).txt');
  // Purge one, empty the rest; the hidden zone never shows in listings.
  await c.delete('/api/files', { items: [{ path: 'Files', name: 't.txt' }] });
  const id = (await c.get('/api/trash')).json.items.find((i: any) => i.name === 't.txt').id;
  assert.is((await c.delete(`/api/trash/items/${id}`)).status, 204);
  assert.is((await c.get(`/api/trash/items/${id}/text`)).status, 404);
  const emptied = await c.delete('/api/trash');
  assert.type(emptied.json.removed, 'number');
  assert.equal((await c.get('/api/trash')).json.items, []);
  assert.not.ok((await c.get('/api/browse/Files')).json.items.some((i: any) => i.name.startsWith('.burrow')));
  assert.is((await c.get('/api/browse/Files/.burrow')).status, 404);
});

test('delete-stream sends NDJSON events', async () => {
  fs.writeFileSync(vol('s1.txt'), '1');
  const r = await c.post('/api/files/delete-stream', {
    items: [
      { path: 'Files', name: 's1.txt' },
      { path: 'Files', name: 'nope.txt' },
    ],
  });
  assert.is(r.status, 200);
  assert.match(r.headers.get('content-type')!, /application\/x-ndjson/);
  const events = r.text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.is(events[0].type, 'start');
  assert.is(events.at(-1).type, 'done');
  assert.is(events.at(-1).deleted, 1);
  assert.ok(events.some((e) => e.type === 'error' && e.statusCode === 404));
  assert.ok(events.some((e) => e.type === 'progress'));
});

test('usage and metadata', async () => {
  const u = await c.get('/api/usage/Files');
  assert.is(u.json.path, 'Files');
  assert.ok(Number.isInteger(u.json.total) && u.json.total > 0);
  assert.ok(Number.isInteger(u.json.free));
  fs.mkdirSync(vol('meta', 'deep'), { recursive: true });
  fs.writeFileSync(vol('meta', 'a.bin'), Buffer.alloc(10));
  fs.writeFileSync(vol('meta', 'deep', 'b.bin'), Buffer.alloc(20));
  const m = await c.get('/api/metadata/Files/meta');
  assert.equal(m.json.directory, { totalSize: 30, fileCount: 2, dirCount: 1, truncated: false });
  assert.is(m.json.kind, 'directory');
  assert.match(m.json.dateCreated, /Z$/);
  const pdf =
    '%PDF-1.4\n1 0 obj << /Type /Pages /Count 2 >> endobj\n2 0 obj << /Type /Page >> endobj\n3 0 obj << /Type /Page >> endobj\n%%EOF';
  fs.writeFileSync(vol('meta', 'doc.pdf'), pdf);
  assert.is((await c.get('/api/metadata/Files/meta/doc.pdf')).json.pages, 2);
});

test.run();
