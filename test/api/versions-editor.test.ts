// The editor and versions: ETag/304, limits, encodings, compression, every save keeps the
// replaced text as a version; list, text, restore, restore as a copy, delete.
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
  s = await startServer({ env: { AUTH_MODE: 'disabled', EDITOR_MAX_FILESIZE: '200K' } });
  c = new Client(s.url);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('editor reads with ETag and 304, refuses big and binary files', async () => {
  fs.writeFileSync(vol('a.txt'), 'one');
  const r = await c.get('/api/editor?path=Files/a.txt');
  assert.is(r.json.content, 'one');
  assert.is(r.headers.get('cache-control'), 'private, no-cache');
  const etag = r.headers.get('etag')!;
  assert.is((await c.get('/api/editor?path=Files/a.txt', { 'if-none-match': etag })).status, 304);
  assert.is((await c.post('/api/editor', { path: 'Files/a.txt' })).json.content, 'one');
  const past = new Date(Date.now() - 86_400_000);
  fs.utimesSync(vol('a.txt'), past, past);
  assert.is(
    (await c.get('/api/editor?path=Files/a.txt', { 'if-none-match': etag })).status,
    200,
    'mtime set back changes the ETag',
  );
  fs.writeFileSync(vol('big.txt'), 'x'.repeat(300 * 1024));
  assert.is(envelope(await c.get('/api/editor?path=Files/big.txt')).statusCode, 400);
  fs.writeFileSync(vol('bin.dat'), Buffer.from([1, 0, 2, 3]));
  assert.is(envelope(await c.get('/api/editor?path=Files/bin.dat')).statusCode, 415);
});

test('saves keep the encoding and the replaced text as a version', async () => {
  fs.writeFileSync(vol('latin.txt'), Buffer.from('caf\xe9', 'latin1'));
  assert.is((await c.get('/api/editor?path=Files/latin.txt')).json.content, 'café');
  const save = await c.put('/api/editor', { path: 'Files/latin.txt', content: 'thé' });
  assert.is(save.status, 200);
  assert.ok(fs.readFileSync(vol('latin.txt')).equals(Buffer.from('th\xe9', 'latin1')), 'saved in Latin-1');
  assert.is(save.headers.get('etag'), (await c.get('/api/editor?path=Files/latin.txt')).headers.get('etag'));
  const list = await c.get('/api/versions?path=Files/latin.txt');
  assert.is(list.json.items.length, 1);
  const v = list.json.items[0];
  assert.is(v.path, 'Files/latin.txt');
  assert.is((await c.get(`/api/versions/${v.id}/text`)).json.content, 'café');
  // Restore puts the old text back and keeps the current one as a version.
  assert.is((await c.post(`/api/versions/${v.id}/restore`)).status, 200);
  assert.is(fs.readFileSync(vol('latin.txt'), 'latin1'), 'café');
  assert.is((await c.get('/api/versions?path=Files/latin.txt')).json.items.length, 2);
  const copy = await c.post(`/api/versions/${v.id}/restore-copy`);
  assert.is(copy.json.item.name, 'latin (1).txt');
  assert.is((await c.delete(`/api/versions/${v.id}`)).status, 204);
  assert.is((await c.get(`/api/versions/${v.id}/text`)).status, 404);
  assert.not.ok((await c.get('/api/browse/Files')).json.items.some((i: any) => i.name.startsWith('.burrow')));
});

test('a new file is created by a save; a save over the limit is refused and changes nothing', async () => {
  assert.is((await c.put('/api/editor', { path: 'Files/new.md', content: '# hi' })).status, 200);
  assert.is(fs.readFileSync(vol('new.md'), 'utf8'), '# hi');
  const tooBig = await c.put('/api/editor', { path: 'Files/new.md', content: 'y'.repeat(250 * 1024) });
  assert.is(tooBig.status, 400);
  assert.is(fs.readFileSync(vol('new.md'), 'utf8'), '# hi');
  assert.equal(
    fs.readdirSync(vol()).filter((n) => n.startsWith('.burrow-tmp-')),
    [],
  );
});

test('large text answers are compressed when accepted (editor, versions, trash)', async () => {
  const text = 'line of text\n'.repeat(5000);
  fs.writeFileSync(vol('long.txt'), text);
  const res = await fetch(`${s.url}/api/editor?path=Files/long.txt`, { headers: { 'accept-encoding': 'br' } });
  assert.is(res.headers.get('content-encoding'), 'br');
  assert.is(res.headers.get('vary'), 'Accept-Encoding');
  await c.put('/api/editor', { path: 'Files/long.txt', content: 'short' });
  const id = (await c.get('/api/versions?path=Files/long.txt')).json.items[0].id;
  const vr = await fetch(`${s.url}/api/versions/${id}/text`, { headers: { 'accept-encoding': 'gzip' } });
  assert.is(vr.headers.get('content-encoding'), 'gzip');
  await c.delete('/api/files', { items: [{ path: 'Files', name: 'long.txt' }] });
  await c.put('/api/editor', { path: 'Files/long2.txt', content: text });
  await c.delete('/api/files', { items: [{ path: 'Files', name: 'long2.txt' }] });
  const entry = (await c.get('/api/trash')).json.items.find((i: any) => i.name === 'long2.txt');
  const raw = await fetch(`${s.url}/api/trash/items/${entry.id}/text`, { headers: { 'accept-encoding': 'gzip' } });
  assert.is(raw.headers.get('content-encoding'), 'gzip');
  const small = await fetch(`${s.url}/api/versions/${id}/text`, { headers: { 'accept-encoding': 'identity' } });
  assert.is(small.headers.get('content-encoding'), null);
});

test.run();
