// A link holder's thumbnails (GET /api/share/{token}/thumbnail): the grid of a shared photo
// folder and its preview's screen-sized rendition, made and cached like an account's. Real
// pictures (a landscape PNG, a portrait JPEG stored sideways with EXIF orientation 6) in a folder
// named as people name them. The attacker table: traversal (plain and encoded), a symlink out of
// the shared folder, a folder, a kind without thumbnails, a password link before its password,
// a `users` link for an account it does not name and for nobody, a file request, a deleted link.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { png, rotatedJpeg } from '../support/media.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { createUser, me, setupAdmin } from '../support/auth.ts';

const image = createRequire(import.meta.url)('@napi-rs/image');
let s: TestServer;
let alice: Client;
let bob: Client;
let carol: Client;
const anon = () => new Client(s.url);
const HOLIDAY = 'Holiday 2025 — Côte d’Azur & #1';

async function bytes(client: Client, url: string, headers: Record<string, string> = {}) {
  const res = await fetch(client.base + url, { headers: { cookie: client.cookieHeader, ...headers } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}
/** As the UI asks (a space as %20; how other clients' `+` is read is the query decoder's, tested with it). */
const thumb = (token: string, rel: string, size?: number) =>
  `/api/share/${token}/thumbnail?path=${encodeURIComponent(rel)}${size ? `&size=${size}` : ''}`;

async function share(client: Client, body: Record<string, unknown>): Promise<{ id: string; shareToken: string }> {
  const r = await client.post('/api/shares', body);
  assert.is(r.status, 201, r.text);
  return r.json;
}

test.before(async () => {
  s = await startServer({ volumes: ['Files'] });
  const admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  carol = await createUser(admin, s, { username: 'carol', password: 'carol-password-1' });
  const files = path.join(s.dirs.volumes, 'Files');
  const album = path.join(files, 'Photos', HOLIDAY);
  fs.mkdirSync(path.join(album, 'Day 2'), { recursive: true });
  fs.mkdirSync(path.join(files, 'Private'), { recursive: true });
  fs.writeFileSync(path.join(album, 'Beach at dusk.png'), await png(1600, 900));
  // Stored 1200 × 800 with orientation 6: shown upright it is 800 wide and 1200 tall.
  fs.writeFileSync(path.join(album, 'Grand-mère + me.jpg'), await rotatedJpeg(1200, 800));
  fs.writeFileSync(path.join(album, 'packing list.txt'), 'towels\n');
  fs.writeFileSync(path.join(files, 'Private', 'passport.png'), await png(300, 200));
  fs.symlinkSync(path.join(files, 'Private', 'passport.png'), path.join(album, 'passport.png'));
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test("a link holder gets a picture's thumbnail and rendition, EXIF turned, revalidated by its ETag", async () => {
  const { shareToken: t } = await share(alice, { sourcePath: `Files/Photos/${HOLIDAY}`, sharingType: 'anyone' });
  const v = anon();
  const small = await bytes(v, thumb(t, 'Beach at dusk.png'));
  assert.is(small.status, 200, small.body.toString());
  assert.is(small.headers.get('content-type'), 'image/webp');
  assert.is(small.headers.get('x-content-type-options'), 'nosniff');
  assert.is(small.headers.get('content-security-policy'), 'sandbox');
  assert.is(small.headers.get('cache-control'), 'private, no-cache');
  const meta = await new image.Transformer(small.body).metadata();
  assert.ok(meta.width > meta.height && meta.width <= 512, `${meta.width}×${meta.height}`);
  // The preview's rendition: screen-sized, never enlarged past the picture.
  const big = await bytes(v, thumb(t, 'Beach at dusk.png', 1280));
  const bigMeta = await new image.Transformer(big.body).metadata();
  assert.is(big.status, 200);
  assert.ok(bigMeta.width > meta.width && bigMeta.width <= 1600, `${bigMeta.width}`);
  // Upright as a person sees it (orientation applied): taller than wide.
  const turned = await new image.Transformer((await bytes(v, thumb(t, 'Grand-mère + me.jpg', 1280))).body).metadata();
  assert.ok(turned.height > turned.width, `${turned.width}×${turned.height}`);
  // The ETag names the picture made: unchanged → 304; the file changed → a new picture.
  const etag = small.headers.get('etag')!;
  assert.match(etag, /^"[0-9a-f]{64}\.webp"$/);
  assert.is((await bytes(v, thumb(t, 'Beach at dusk.png'), { 'if-none-match': etag })).status, 304);
  fs.writeFileSync(path.join(s.dirs.volumes, 'Files', 'Photos', HOLIDAY, 'Beach at dusk.png'), await png(900, 1600));
  const renewed = await bytes(v, thumb(t, 'Beach at dusk.png'), { 'if-none-match': etag });
  assert.is(renewed.status, 200);
  const renewedMeta = await new image.Transformer(renewed.body).metadata();
  assert.ok(renewedMeta.height > renewedMeta.width);
  // Seeing pictures small counts as no access on the link.
  const row = (await alice.get('/api/shares')).json.shares.find((x: any) => x.shareToken === t);
  assert.is(row.downloadCount, 0);
  // A link to one picture: its own thumbnail, at the empty path.
  const { shareToken: one } = await share(alice, {
    sourcePath: `Files/Photos/${HOLIDAY}/Grand-mère + me.jpg`,
    sharingType: 'anyone',
  });
  assert.is((await bytes(anon(), thumb(one, ''))).status, 200);
});

test('what has no thumbnail, and what lies outside the link, answers an error and no picture', async () => {
  const { id, shareToken: t } = await share(alice, { sourcePath: `Files/Photos/${HOLIDAY}`, sharingType: 'anyone' });
  const v = anon();
  const none = await v.get(thumb(t, 'packing list.txt'));
  assert.is(none.status, 404);
  assert.is(envelope(none).code, 'NOT_FOUND');
  assert.type(envelope(none).requestId, 'string');
  assert.is((await v.get(thumb(t, 'Day 2'))).status, 400);
  for (const [rel, expected] of [
    ['../../Private/passport.png', 400],
    ['..%2F..%2FPrivate%2Fpassport.png', 400],
    ['/Files/Private/passport.png', 404], // a path from the link's own top: no such file there
    ['passport.png', 403], // a link inside the shared folder to a picture outside it
    ['Day 2/../../../Private/passport.png', 400],
  ] as const) {
    const r = await bytes(v, `/api/share/${t}/thumbnail?path=${rel.includes('%') ? rel : encodeURIComponent(rel)}`);
    assert.is(r.status, expected, `${rel} answered ${r.status}`);
    assert.is.not(r.headers.get('content-type'), 'image/webp', rel);
  }
  assert.is((await v.get(thumb(`${t}x`, 'Beach at dusk.png'))).status, 404);
  await alice.request('DELETE', `/api/shares/${id}`);
  assert.is((await v.get(thumb(t, 'Beach at dusk.png'))).status, 404);
});

test('a password link, a users link and a file request show no thumbnail to whom they do not let in', async () => {
  const locked = (
    await share(alice, { sourcePath: `Files/Photos/${HOLIDAY}`, sharingType: 'anyone', password: 'sea and sun' })
  ).shareToken;
  const v = anon();
  const refused = await v.get(thumb(locked, 'Beach at dusk.png'));
  assert.is(refused.status, 403);
  assert.is(envelope(refused).code, 'LINK_PASSWORD_REQUIRED');
  assert.is((await v.post(`/api/share/${locked}/access`, { password: 'sea and sun' })).status, 204);
  assert.is((await bytes(v, thumb(locked, 'Beach at dusk.png'))).status, 200);

  const bobId = (await me(bob)).id;
  const named = (await share(alice, { sourcePath: `Files/Photos/${HOLIDAY}`, sharingType: 'users', userIds: [bobId] }))
    .shareToken;
  assert.is((await bytes(bob, thumb(named, 'Beach at dusk.png'))).status, 200);
  assert.is((await carol.get(thumb(named, 'Beach at dusk.png'))).status, 404);
  assert.is((await anon().get(thumb(named, 'Beach at dusk.png'))).status, 401);

  const request = (
    await share(alice, {
      sourcePath: `Files/Photos/${HOLIDAY}`,
      sharingType: 'anyone',
      allowUpload: true,
      fileRequest: { maxFiles: 5, maxBytes: null },
    })
  ).shareToken;
  const taken = await anon().get(thumb(request, 'Beach at dusk.png'));
  assert.is(taken.status, 403);
  assert.is(envelope(taken).code, 'LINK_NOT_ALLOWED');
});

test.run();
