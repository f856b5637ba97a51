// Names made on the host that no client would choose (CR/LF inside) stay reachable — listed,
// downloaded with safe headers, renamed, deleted — and /api/usage refuses links out of the
// volume (403) and dangling links (404) instead of answering zeros.
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
  s = await startServer({ env: { AUTH_MODE: 'disabled' } });
  c = new Client(s.url);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('a file whose name holds CR/LF is listed, downloaded with safe headers, renamed and deleted', async () => {
  const odd = 'evil\r\nSet-Cookie: x=1.txt';
  fs.mkdirSync(vol('odd'));
  fs.writeFileSync(vol('odd', odd), 'content');
  const listing = await c.get('/api/browse/Files/odd');
  assert.is(listing.status, 200);
  assert.equal(
    listing.json.items.map((i: any) => i.name),
    [odd],
  );

  const res = await fetch(`${s.url}/api/download/Files/odd/${encodeURIComponent(odd)}`);
  assert.is(res.status, 200);
  assert.is(await res.text(), 'content');
  const disposition = res.headers.get('content-disposition')!;
  assert.not.match(disposition, /[\r\n]/);
  assert.match(disposition, /filename\*=UTF-8''evil%0D%0ASet-Cookie/);
  assert.is(res.headers.get('set-cookie'), null);

  const renamed = await c.post('/api/files/rename', { path: 'Files/odd', name: odd, newName: 'tame.txt' });
  assert.is(renamed.status, 200, renamed.text);
  assert.equal(fs.readdirSync(vol('odd')), ['tame.txt']);

  fs.writeFileSync(vol('odd', 'two\nlines'), 'x');
  const deleted = await c.delete('/api/files', { items: [{ path: 'Files/odd', name: 'two\nlines' }] });
  assert.is(deleted.status, 200, deleted.text);
  assert.is(deleted.json.items[0].status, 'deleted');
  assert.equal(fs.readdirSync(vol('odd')), ['tame.txt']);
});

test('/api/usage: a link out of the volume is 403, a dangling link 404, a real folder answers numbers', async () => {
  const outside = path.join(s.dirs.root, 'elsewhere');
  fs.mkdirSync(outside);
  fs.symlinkSync(outside, vol('out'));
  fs.symlinkSync(vol('nothing-here'), vol('dangling'));
  const out = await c.get('/api/usage/Files/out');
  assert.is(out.status, 403);
  assert.is(envelope(out).code, 'PATH_OUTSIDE');
  assert.is((await c.get('/api/usage/Files/dangling')).status, 404);
  const ok = await c.get('/api/usage/Files');
  assert.is(ok.status, 200);
  assert.ok(ok.json.total > 0);
});

test.run();
