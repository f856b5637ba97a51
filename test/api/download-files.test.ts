// Downloads: Range / If-Range / ETag / Last-Modified, RFC 5987 names, streaming zips read back
// with yauzl (stored for compressed kinds, UTF-8 names, nothing hidden), and plans.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import yauzl from 'yauzl';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let c: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const body = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));

test.before(async () => {
  s = await startServer({ env: { AUTH_MODE: 'disabled' } });
  c = new Client(s.url);
  fs.writeFileSync(vol('data.bin'), body);
  fs.mkdirSync(vol('Album', 'sub'), { recursive: true });
  fs.writeFileSync(vol('Album', 'photo.jpg'), Buffer.alloc(4000, 1));
  fs.writeFileSync(vol('Album', 'notes.txt'), 'a'.repeat(40_000));
  fs.writeFileSync(vol('Album', 'sub', 'Grüße €.txt'), 'utf8 name');
  fs.writeFileSync(vol('Album', '.hidden'), 'secret');
  fs.symlinkSync('/etc/hostname', vol('Album', 'link-out'));
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

async function raw(url: string, init: RequestInit = {}) {
  const res = await fetch(s.url + url, init);
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

test('one file: whole, ranges, validators', async () => {
  const whole = await raw('/api/download/Files/data.bin');
  assert.is(whole.res.status, 200);
  assert.ok(whole.bytes.equals(body));
  assert.is(whole.res.headers.get('accept-ranges'), 'bytes');
  assert.is(whole.res.headers.get('content-length'), '5000');
  const etag = whole.res.headers.get('etag')!;
  const lastModified = whole.res.headers.get('last-modified')!;
  assert.ok(etag && lastModified);
  const part = await raw('/api/download/Files/data.bin', { headers: { range: 'bytes=100-199' } });
  assert.is(part.res.status, 206);
  assert.is(part.res.headers.get('content-range'), 'bytes 100-199/5000');
  assert.ok(part.bytes.equals(body.subarray(100, 200)));
  const suffix = await raw('/api/download/Files/data.bin', { headers: { range: 'bytes=-10' } });
  assert.ok(suffix.bytes.equals(body.subarray(4990)));
  const open = await raw('/api/download/Files/data.bin', { headers: { range: 'bytes=4990-' } });
  assert.is(open.bytes.length, 10);
  const bad = await raw('/api/download/Files/data.bin', { headers: { range: 'bytes=6000-7000' } });
  assert.is(bad.res.status, 416);
  assert.is(bad.res.headers.get('content-range'), 'bytes */5000');
  assert.is((await raw('/api/download/Files/data.bin', { headers: { 'if-none-match': etag } })).res.status, 304);
  assert.is(
    (await raw('/api/download/Files/data.bin', { headers: { range: 'bytes=0-9', 'if-range': etag } })).res.status,
    206,
  );
  assert.is(
    (await raw('/api/download/Files/data.bin', { headers: { range: 'bytes=0-9', 'if-range': '"stale"' } })).res.status,
    200,
  );
  assert.is(
    (await raw('/api/download/Files/data.bin', { headers: { range: 'bytes=0-9', 'if-range': lastModified } })).res
      .status,
    206,
  );
  const head = await raw('/api/download/Files/data.bin', { method: 'HEAD' });
  assert.is(head.res.status, 200);
  assert.is(head.bytes.length, 0);
  // Changing the file changes the validators.
  fs.writeFileSync(vol('data.bin'), Buffer.concat([body, Buffer.from('x')]));
  assert.is((await raw('/api/download/Files/data.bin', { headers: { 'if-none-match': etag } })).res.status, 200);
  fs.writeFileSync(vol('data.bin'), body);
});

test('POST /api/download of one file: bytes with an RFC 5987 name', async () => {
  const r = await raw('/api/download', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path: 'Files/Album/sub/Grüße €.txt' }),
  });
  assert.is(r.res.status, 200);
  assert.is(r.bytes.toString(), 'utf8 name');
  const cd = r.res.headers.get('content-disposition')!;
  assert.match(cd, /^attachment; filename="Gr__e _\.txt"; filename\*=UTF-8''Gr%C3%BC%C3%9Fe%20%E2%82%AC\.txt$/);
  assert.is(r.res.headers.get('content-length'), '9');
});

function readZip(buf: Buffer): Promise<Map<string, { data: Buffer; method: number; utf8: boolean }>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buf, { lazyEntries: true, decodeStrings: true }, (err, zip) => {
      if (err) return reject(err);
      const out = new Map<string, { data: Buffer; method: number; utf8: boolean }>();
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) {
          out.set(entry.fileName, {
            data: Buffer.alloc(0),
            method: entry.compressionMethod,
            utf8: (entry.generalPurposeBitFlag & 0x800) !== 0,
          });
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (d: Buffer) => chunks.push(d));
          stream.on('end', () => {
            out.set(entry.fileName, {
              data: Buffer.concat(chunks),
              method: entry.compressionMethod,
              utf8: (entry.generalPurposeBitFlag & 0x800) !== 0,
            });
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

test('a folder downloads as a smaller zip when asked: stored for compressed kinds, UTF-8 names, nothing hidden', async () => {
  const r = await raw('/api/download', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path: 'Files/Album', compress: true }),
  });
  assert.is(r.res.status, 200);
  assert.is(r.res.headers.get('content-type'), 'application/zip');
  assert.match(r.res.headers.get('content-disposition')!, /filename="Album\.zip"/);
  const entries = await readZip(r.bytes);
  assert.equal([...entries.keys()].sort(), [
    'Album/',
    'Album/notes.txt',
    'Album/photo.jpg',
    'Album/sub/',
    'Album/sub/Grüße €.txt',
  ]);
  assert.is(entries.get('Album/photo.jpg')!.method, 0, 'jpg stored');
  assert.is(entries.get('Album/notes.txt')!.method, 8, 'text deflated');
  assert.is(entries.get('Album/sub/Grüße €.txt')!.method, 0, 'small files stored: deflate gains little there');
  assert.ok(entries.get('Album/sub/Grüße €.txt')!.utf8);
  assert.is(entries.get('Album/notes.txt')!.data.toString(), 'a'.repeat(40_000));
  const several = await raw('/api/download', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      items: [
        { path: 'Files', name: 'data.bin' },
        { path: 'Files/Album', name: 'notes.txt' },
      ],
    }),
  });
  assert.equal([...(await readZip(several.bytes)).keys()].sort(), ['data.bin', 'notes.txt']);
});

test('plans say what a download holds', async () => {
  const plan = await c.post('/api/download/plan', { path: 'Files/Album' });
  assert.equal(plan.json, { files: 3, folders: 2, totalBytes: 44009, archiveName: 'Album.zip', isArchive: true });
  const one = await c.post('/api/download/plan', { path: 'Files/data.bin' });
  assert.is(one.json.totalBytes, 5000);
  assert.is(one.json.isArchive, false);
  assert.is(envelope(await c.post('/api/download/plan', {})).statusCode, 400);
  assert.is((await c.post('/api/download', { path: '' })).status, 400);
  assert.is((await c.post('/api/download', { path: 'Files/nope' })).status, 404);
});

test.run();
