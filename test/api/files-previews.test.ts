// Previews, raw text and thumbnails: real types with Range, a sandbox for active kinds, 415
// for what cannot be shown, WebP thumbnails of real PNG/JPEG files made by @napi-rs/image,
// cached by content and settings, switched off by the settings, never public.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

const image = createRequire(import.meta.url)('@napi-rs/image') as any;

let s: TestServer;
let admin: Client;
let bob: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);

async function picture(width: number, height: number, format: 'png' | 'jpeg'): Promise<Buffer> {
  const px = new Uint8Array(width * height * 4);
  for (let i = 0; i < px.length; i += 4) {
    px[i] = (i / 4) % 256;
    px[i + 1] = 80;
    px[i + 2] = 160;
    px[i + 3] = 255;
  }
  return image.Transformer.fromRgbaPixels(px, width, height)[format]();
}

async function fetchBytes(client: Client, url: string, headers: Record<string, string> = {}) {
  const res = await fetch(client.base + url, { headers: { cookie: client.cookieHeader, ...headers } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

test.before(async () => {
  s = await startServer({ env: { USER_DIR_ENABLED: 'true' } });
  admin = await setupAdmin(s);
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('preview streams the real type inline, honours Range, sandboxes active kinds', async () => {
  const png = await picture(40, 30, 'png');
  fs.writeFileSync(vol('a+b pic.png'), png);
  const whole = await fetchBytes(admin, '/api/preview?path=Files/a+b%20pic.png');
  assert.is(whole.status, 200);
  assert.is(whole.headers.get('content-type'), 'image/png');
  assert.ok(whole.bytes.equals(png));
  assert.match(whole.headers.get('content-disposition')!, /^inline;/);
  assert.is(whole.headers.get('content-security-policy'), 'sandbox');
  assert.is(whole.headers.get('x-content-type-options'), 'nosniff');
  const part = await fetchBytes(admin, '/api/preview?path=Files/a+b%20pic.png', { range: 'bytes=4-9' });
  assert.is(part.status, 206);
  assert.is(part.headers.get('content-range'), `bytes 4-9/${png.length}`);
  assert.ok(part.bytes.equals(png.subarray(4, 10)));
  fs.writeFileSync(vol('page.html'), '<script>alert(document.cookie)</script>');
  const html = await fetchBytes(admin, '/api/preview?path=Files/page.html');
  assert.match(html.headers.get('content-type')!, /^text\/html/);
  assert.is(html.headers.get('content-security-policy'), 'sandbox');
  fs.writeFileSync(vol('doc.pdf'), '%PDF-1.4\n%%EOF\n');
  const pdf = await fetchBytes(admin, '/api/preview?path=Files/doc.pdf');
  assert.is(pdf.headers.get('content-type'), 'application/pdf');
  fs.writeFileSync(vol('tool.exe'), 'MZ');
  const refused = await admin.get('/api/preview?path=Files/tool.exe');
  assert.is(refused.status, 415);
  assert.is(envelope(refused).code, 'NOT_PREVIEWABLE');
  assert.is((await admin.get('/api/preview?path=Files')).status, 400);
  assert.is((await admin.get('/api/preview?path=Files/missing.png')).status, 404);
  assert.is((await admin.get('/api/preview?path=Files/../etc/passwd')).status, 400);
  assert.is((await new Client(s.url).get('/api/preview?path=Files/a+b%20pic.png')).status, 401);
});

test('raw answers text as text/plain with nosniff; binary 415; other accounts kept out of personal files', async () => {
  fs.writeFileSync(vol('notes.html'), '<b>hi</b>');
  const raw = await fetchBytes(admin, '/api/raw?path=Files/notes.html');
  assert.is(raw.status, 200);
  assert.is(raw.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.is(raw.headers.get('x-content-type-options'), 'nosniff');
  assert.is(raw.bytes.toString(), '<b>hi</b>');
  fs.writeFileSync(vol('bin.dat'), Buffer.from([1, 2, 0, 3]));
  assert.is(envelope(await admin.get('/api/raw?path=Files/bin.dat')).statusCode, 415);
  assert.is(
    (await admin.post('/api/files/file', { path: 'personal', name: 'secret.txt', content: 'mine' })).status,
    201,
  );
  assert.is((await fetchBytes(admin, '/api/raw?path=personal/secret.txt')).bytes.toString(), 'mine');
  // bob's `personal` is his own: admin's file is not there, by any of these routes.
  assert.is((await bob.get('/api/raw?path=personal/secret.txt')).status, 404);
  assert.is((await bob.get('/api/preview?path=personal/secret.txt')).status, 404);
  assert.is((await bob.get('/api/thumbnails/personal/secret.txt')).status, 404);
});

test('thumbnails: WebP of PNG and JPEG within the size, cached, renewed when the file changes; none for other kinds', async () => {
  fs.writeFileSync(vol('wide.png'), await picture(600, 300, 'png'));
  fs.writeFileSync(vol('small.jpg'), await picture(50, 40, 'jpeg'));
  fs.writeFileSync(vol('broken.png'), 'not a png at all');
  fs.writeFileSync(vol('doc2.pdf'), '%PDF-1.4\n');
  const listing = (await admin.get('/api/browse/Files')).json.items;
  const item = (n: string) => listing.find((i: any) => i.name === n);
  assert.is(item('wide.png').supportsThumbnail, true);
  assert.is(item('small.jpg').supportsThumbnail, true);
  assert.is(item('doc2.pdf').supportsThumbnail, undefined, 'never for pdf');
  assert.is(item('notes.html').supportsThumbnail, undefined);

  const t = await admin.get('/api/thumbnails/Files/wide.png');
  assert.is(t.status, 200);
  assert.match(t.json.thumbnail, /^\/api\/thumbnails-cache\/[0-9a-f]{64}\.webp\?path=Files\/wide\.png$/);
  const pic = await fetchBytes(admin, t.json.thumbnail);
  assert.is(pic.status, 200);
  assert.is(pic.headers.get('content-type'), 'image/webp');
  const meta = await new image.Transformer(pic.bytes).metadata();
  assert.equal([meta.format, meta.width, meta.height], ['webp', 256, 128]);
  assert.is(
    (await admin.get('/api/thumbnails/Files/wide.png')).json.thumbnail,
    t.json.thumbnail,
    'cached under the same name',
  );
  assert.is((await new Client(s.url).get(t.json.thumbnail)).status, 401, 'never public');
  const small = await admin.get('/api/thumbnails/Files/small.jpg');
  const smallMeta = await new image.Transformer((await fetchBytes(admin, small.json.thumbnail)).bytes).metadata();
  assert.equal([smallMeta.width, smallMeta.height], [50, 40], 'small pictures are not enlarged');

  fs.writeFileSync(vol('wide.png'), await picture(300, 600, 'png'));
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(vol('wide.png'), later, later);
  const renewed = await admin.get('/api/thumbnails/Files/wide.png');
  assert.is.not(renewed.json.thumbnail, t.json.thumbnail);
  const renewedMeta = await new image.Transformer((await fetchBytes(admin, renewed.json.thumbnail)).bytes).metadata();
  assert.equal([renewedMeta.width, renewedMeta.height], [128, 256]);

  // A picture that does not decode: the error envelope, not an empty answer (and nothing cached).
  const broken = await admin.get('/api/thumbnails/Files/broken.png');
  assert.is(broken.status, 422, broken.text);
  assert.is(envelope(broken).code, 'PICTURE_UNREADABLE');
  assert.equal((await admin.get('/api/thumbnails/Files/doc2.pdf')).json, { thumbnail: '' });
  assert.equal((await admin.get('/api/thumbnails/Files/notes.html')).json, { thumbnail: '' });
  assert.is(
    (await admin.get('/api/thumbnails-cache/..%2F..%2Fconfig%2Fburrow.db')).status,
    400,
    'encoded slashes refused',
  );
  assert.is((await admin.get('/api/thumbnails-cache/.key?path=Files/wide.png')).status, 404);
  assert.is((await admin.get('/api/thumbnails-cache/' + '0'.repeat(64) + '.webp?path=Files/wide.png')).status, 404);
  // The older version's name: 404 (the file it named is gone).
  assert.is((await admin.get(t.json.thumbnail)).status, 404);
  // Nothing cached for the broken picture, the PDF or the refused names, on any instance (through
  // the cluster each has its own CACHE_DIR, `<cache>-node<i>`).
  const handedOut = [t, small, renewed].map(
    (r) => r.json.thumbnail.slice('/api/thumbnails-cache/'.length).split('?')[0],
  );
  const parent = path.dirname(s.dirs.cache);
  const cached = fs
    .readdirSync(parent)
    .filter((n) => n === path.basename(s.dirs.cache) || n.startsWith(`${path.basename(s.dirs.cache)}-node`))
    .flatMap((n) => {
      const d = path.join(parent, n, 'thumbnails');
      return fs.existsSync(d) ? fs.readdirSync(d).filter((f) => f !== '.key') : [];
    });
  assert.ok(cached.length > 0);
  assert.ok(
    cached.every((n) => handedOut.includes(n)),
    cached.join(' '),
  );
});

test('parallel requests for many pictures all answer; settings change the size; off answers ""', async () => {
  fs.mkdirSync(vol('many'));
  for (let i = 0; i < 12; i++) fs.writeFileSync(vol('many', `p${i}.png`), await picture(300 + i, 200, 'png'));
  const answers = await Promise.all(
    Array.from({ length: 12 }, (_, i) => admin.get(`/api/thumbnails/Files/many/p${i}.png`)),
  );
  assert.ok(answers.every((a) => a.status === 200 && a.json.thumbnail.startsWith('/api/thumbnails-cache/')));
  assert.is(new Set(answers.map((a) => a.json.thumbnail)).size, 12);
  // The same picture asked for at once is made once.
  const same = await Promise.all(Array.from({ length: 5 }, () => admin.get('/api/thumbnails/Files/many/p0.png')));
  assert.is(new Set(same.map((a) => a.json.thumbnail)).size, 1);

  assert.is(
    (await admin.patch('/api/settings', { thumbnails: { enabled: true, size: 64, quality: 50, concurrency: 1 } }))
      .status,
    200,
  );
  const resized = await admin.get('/api/thumbnails/Files/many/p0.png');
  assert.is.not(resized.json.thumbnail, answers[0]!.json.thumbnail);
  const meta = await new image.Transformer((await fetchBytes(admin, resized.json.thumbnail)).bytes).metadata();
  assert.is(meta.width, 64);
  assert.is(
    (await admin.patch('/api/settings', { thumbnails: { enabled: false, size: 64, quality: 50, concurrency: 1 } }))
      .status,
    200,
  );
  assert.equal((await admin.get('/api/thumbnails/Files/many/p1.png')).json, { thumbnail: '' });
});

test.run();
