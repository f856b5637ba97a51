// HEIC/HEIF thumbnails and the viewer's renditions: the image add-on has no HEVC decoder, so
// these are decoded by libheif in WebAssembly (in a thread of the picture child), then scaled
// and encoded like any picture. Real files written by libheif's heif-enc from phone photos:
// a portrait photo stored sideways whose EXIF orientation (6) turns it (heif-enc's way), one
// turned by the HEIF rotation property (irot) with the EXIF orientation 6 beside it (an
// iPhone's way: turned once, not twice), a landscape one; each checked by its size and by
// where its red and blue halves come out. A damaged HEIC answers the error envelope and
// leaves nothing in the cache. The attacker rows: another account where a rule hides the
// photo, a link holder inside and outside the shared folder.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, me, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { heicOf, iphoneHeic, splitPhotoJpeg } from '../support/media.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

const image = createRequire(import.meta.url)('@napi-rs/image') as any;

const VOL = 'Familie & Fotos';
const TRIP = 'Provence 2025 — Été #2';
const HIDDEN = 'Privat 🔒';
/** Portrait, turned by its EXIF orientation (no irot): as heif-enc writes a phone's JPEG. */
const PORTRAIT = `${TRIP}/IMG_0412 Café in Arles 🌻.heic`;
/** Portrait as an iPhone writes it: irot, and EXIF orientation 6 beside it; an upper-case extension. */
const IPHONE = `${TRIP}/IMG_0413 Oma + Opa am Pont d’Avignon.HEIC`;
/** Landscape, orientation 1; its name in NFD (as a Mac writes it). */
const LANDSCAPE = `${TRIP}/Pont du Gard (Ke\u0301vin's view).heif`;
const TRUNCATED = `${TRIP}/IMG_0414 – Übertragung abgebrochen.heic`;
const GARBAGE = `${TRIP}/nicht wirklich & HEIC.heic`;
const SECRET = `${HIDDEN}/Röntgenbild Zahnarzt.heic`;

let s: TestServer;
let admin: Client;
let bob: Client;
const enc = (rel: string) => rel.split('/').map(encodeURIComponent).join('/');
const vol = (rel: string) => path.join(s.dirs.volumes, VOL, ...rel.split('/'));
/** Every instance's thumbnail cache (through the cluster each instance has its own CACHE_DIR). */
const cacheDirs = () => {
  const parent = path.dirname(s.dirs.cache);
  const base = path.basename(s.dirs.cache);
  return fs
    .readdirSync(parent)
    .filter((n) => n === base || new RegExp(`^${base}-node\\d+$`).test(n))
    .map((n) => path.join(parent, n, 'thumbnails'))
    .filter((d) => fs.existsSync(d));
};
const cached = () =>
  cacheDirs()
    .flatMap((d) => fs.readdirSync(d).filter((n) => n !== '.key'))
    .sort();
/** As an instance that has not made them yet sees it: no picture in any cache. */
const clearCaches = () => {
  for (const d of cacheDirs()) for (const n of fs.readdirSync(d)) if (n.endsWith('.webp')) fs.rmSync(path.join(d, n));
};

async function bytes(client: Client, url: string): Promise<Buffer> {
  const res = await fetch(client.base + url, { headers: { cookie: client.cookieHeader } });
  assert.is(res.status, 200, url);
  return Buffer.from(await res.arrayBuffer());
}

/** A picture's size and the colour (r, g, b) at fractions of its width and height. */
async function look(webp: Buffer) {
  const meta = await new image.Transformer(webp).metadata();
  const raw: Buffer = await new image.Transformer(webp).rawPixels();
  const channels = raw.length / (meta.width * meta.height);
  const at = (fx: number, fy: number) => {
    const i = (Math.floor(fy * meta.height) * meta.width + Math.floor(fx * meta.width)) * channels;
    return [raw[i]!, raw[i + 1]!, raw[i + 2]!];
  };
  return { size: `${meta.width}×${meta.height}`, at };
}
const red = (c: number[]) => c[0]! > 150 && c[2]! < 90;
const blue = (c: number[]) => c[2]! > 150 && c[0]! < 90;

async function thumbnail(client: Client, rel: string, size?: number) {
  const r = await client.get(`/api/thumbnails/${enc(`${VOL}/${rel}`)}${size ? `?size=${size}` : ''}`);
  assert.is(r.status, 200, `${rel}: ${r.text}`);
  assert.match(r.json.thumbnail, /^\/api\/thumbnails-cache\/[0-9a-f]{64}\.webp\?path=[^&]+(&size=\d+)?$/);
  return look(await bytes(client, r.json.thumbnail));
}

test.before(async () => {
  s = await startServer({ volumes: [VOL] });
  admin = await setupAdmin(s);
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  fs.mkdirSync(vol(TRIP), { recursive: true });
  fs.mkdirSync(vol(HIDDEN), { recursive: true });
  // Stored 1200 × 800 and turned: shown upright, 800 wide and 1200 tall, red above blue.
  fs.writeFileSync(vol(PORTRAIT), heicOf(await splitPhotoJpeg(1200, 800, 6)));
  fs.writeFileSync(vol(IPHONE), iphoneHeic(await splitPhotoJpeg(1200, 800, 6), 3));
  fs.writeFileSync(vol(LANDSCAPE), heicOf(await splitPhotoJpeg(1200, 800, 1)));
  const whole = heicOf(await splitPhotoJpeg(1200, 800, 1));
  fs.writeFileSync(vol(TRUNCATED), whole.subarray(0, Math.floor(whole.length * 0.6)));
  fs.writeFileSync(vol(GARBAGE), Buffer.concat([whole.subarray(0, 64), Buffer.alloc(4096, 0x5a)]));
  fs.writeFileSync(vol(SECRET), heicOf(await splitPhotoJpeg(640, 480, 1)));
  const group = (await admin.post('/api/access/groups', { name: 'Gäste' })).json.group.id;
  assert.is((await admin.post(`/api/access/groups/${group}/members`, { userId: (await me(bob)).id })).status, 204);
  const rule = await admin.put('/api/access/rules', {
    path: `${VOL}/${HIDDEN}`,
    subject: { kind: 'group', id: group },
    level: 'hidden',
  });
  assert.is(rule.status, 200, rule.text);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('HEIC and HEIF are listed with thumbnails', async () => {
  const items = (await admin.get(`/api/browse/${enc(`${VOL}/${TRIP}`)}`)).json.items as any[];
  for (const rel of [PORTRAIT, IPHONE, LANDSCAPE]) {
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    assert.is(items.find((i) => i.name.normalize('NFC') === name.normalize('NFC'))?.supportsThumbnail, true, name);
  }
});

test('a portrait HEIC turned by its EXIF orientation comes out upright, red above blue', async () => {
  const t = await thumbnail(admin, PORTRAIT);
  assert.is(t.size, '171×256');
  assert.ok(red(t.at(0.5, 0.2)), `top ${t.at(0.5, 0.2)}`);
  assert.ok(blue(t.at(0.5, 0.8)), `bottom ${t.at(0.5, 0.8)}`);
  // The viewer's rendition: screen-sized, never enlarged past the picture, upright.
  const r = await thumbnail(admin, PORTRAIT, 1920);
  assert.is(r.size, '800×1200');
  assert.ok(red(r.at(0.5, 0.2)) && blue(r.at(0.5, 0.8)));
});

test("an iPhone's portrait HEIC (irot, with EXIF orientation 6 beside it) is turned once, not twice", async () => {
  const t = await thumbnail(admin, IPHONE);
  assert.is(t.size, '171×256');
  assert.ok(red(t.at(0.5, 0.2)), `top ${t.at(0.5, 0.2)}`);
  assert.ok(blue(t.at(0.5, 0.8)), `bottom ${t.at(0.5, 0.8)}`);
  const r = await thumbnail(admin, IPHONE, 1000);
  assert.is(r.size, '800×1200', '1000 rounds up to the 1280 rendition; never enlarged');
});

test('a landscape HEIF stays as it is: left red, right blue', async () => {
  const t = await thumbnail(admin, LANDSCAPE);
  assert.is(t.size, '256×171');
  assert.ok(red(t.at(0.2, 0.5)), `left ${t.at(0.2, 0.5)}`);
  assert.ok(blue(t.at(0.8, 0.5)), `right ${t.at(0.8, 0.5)}`);
});

test('a damaged HEIC answers the error envelope, again on the next request, and nothing is cached', async () => {
  const before = cached();
  for (const rel of [TRUNCATED, GARBAGE]) {
    for (const size of [undefined, undefined, 1280]) {
      const r = await admin.get(`/api/thumbnails/${enc(`${VOL}/${rel}`)}${size ? `?size=${size}` : ''}`);
      assert.is(r.status, 422, `${rel}: ${r.text}`);
      const e = envelope(r);
      assert.is(e.code, 'PICTURE_UNREADABLE');
      assert.ok(e.requestId);
    }
  }
  assert.equal(cached(), before, 'no picture and no temporary left in the cache');
  // The server and its picture child go on: a good picture after the damaged ones.
  assert.is((await thumbnail(admin, LANDSCAPE, 640)).size, '640×427');
});

test('another account gets a HEIC thumbnail only where it may read the file', async () => {
  assert.is((await thumbnail(bob, PORTRAIT)).size, '171×256', 'the control: a folder bob may read');
  const before = cached();
  const hidden = await bob.get(`/api/thumbnails/${enc(`${VOL}/${SECRET}`)}`);
  // Hidden: as if it did not exist.
  assert.is(hidden.status, 404, hidden.text);
  assert.is(envelope(hidden).code, 'NOT_FOUND');
  assert.ok(envelope(hidden).requestId);
  assert.not.match(hidden.text, /thumbnails-cache/);
  assert.equal(cached(), before, 'nothing made for a refused request');
  assert.is((await thumbnail(admin, SECRET)).size, '256×192', 'the admin, whom no rule hides it from');
});

test('a thumbnail URL is answered by an instance that has not made it, for who may read its path only', async () => {
  const urlOf = async (client: Client, rel: string, size?: number) => {
    const r = await client.get(`/api/thumbnails/${enc(`${VOL}/${rel}`)}${size ? `?size=${size}` : ''}`);
    assert.is(r.status, 200, r.text);
    return r.json.thumbnail as string;
  };
  const secretUrl = await urlOf(admin, SECRET, 1280);
  const portraitUrl = await urlOf(admin, PORTRAIT);
  // The path as wire-shapes rule 4 spells it (only `/` left raw), and the size asked for.
  assert.ok(secretUrl.endsWith(`?path=${encodeURIComponent(`${VOL}/${SECRET}`).replaceAll('%2F', '/')}&size=1280`));
  const nameOf = (url: string) => url.slice(0, url.indexOf('?'));
  const queryOf = (url: string) => url.slice(url.indexOf('?'));
  clearCaches();

  // Another account with a path it may not read (a rule hides it from bob): 404, nothing made.
  const refused = await bob.get(secretUrl);
  assert.is(refused.status, 404, refused.text);
  assert.is(envelope(refused).code, 'NOT_FOUND');
  assert.ok(envelope(refused).requestId);
  assert.equal(cached(), [], 'nothing made for a refused request');
  // A name that is not the one the path has now: another file's, or another size's: 404, nothing made.
  assert.is((await bob.get(nameOf(secretUrl) + queryOf(portraitUrl))).status, 404);
  assert.is((await admin.get(nameOf(secretUrl) + queryOf(portraitUrl))).status, 404);
  assert.is((await admin.get(secretUrl.replace('&size=1280', '&size=640'))).status, 404);
  assert.is((await admin.get(secretUrl.replace('&size=1280', ''))).status, 404);
  assert.equal(cached(), [], 'nothing made for a name that does not match');
  // `../` in the path: the path is refused.
  const dotted = await admin.get(
    `${nameOf(secretUrl)}?path=${encodeURIComponent(`${VOL}/${TRIP}/../${SECRET}`)}&size=1280`,
  );
  assert.is(dotted.status, 400, dotted.text);
  assert.is(envelope(dotted).code, 'BAD_PATH');
  assert.is((await admin.get(nameOf(secretUrl))).status, 400, 'no path: refused');
  assert.equal(cached(), []);

  // The URLs handed out, asked of instances that have none of the pictures: made there and served.
  const secret = await look(await bytes(admin, secretUrl));
  assert.is(secret.size, '640×480');
  assert.is((await look(await bytes(bob, portraitUrl))).size, '171×256', 'bob may read this one');
  // And again, from whichever instance answers now (made there too, or the one made before).
  assert.is((await look(await bytes(admin, secretUrl))).size, '640×480');
});

test('a link holder gets the HEIC thumbnail and rendition inside the shared folder only', async () => {
  const link = await admin.post('/api/shares', { sourcePath: `${VOL}/${TRIP}`, sharingType: 'anyone' });
  assert.is(link.status, 201, link.text);
  const token = link.json.shareToken;
  const holder = new Client(s.url);
  const url = (rel: string, size?: number) =>
    `/api/share/${token}/thumbnail?path=${encodeURIComponent(rel)}${size ? `&size=${size}` : ''}`;
  const inside = IPHONE.slice(TRIP.length + 1);
  const small = await look(await bytes(holder, url(inside)));
  assert.is(small.size, '171×256');
  assert.ok(red(small.at(0.5, 0.2)) && blue(small.at(0.5, 0.8)));
  assert.is((await look(await bytes(holder, url(inside, 1280)))).size, '800×1200');
  const before = cached();
  for (const outside of [`../${SECRET}`, `..%2F${encodeURIComponent(SECRET)}`, `../../${VOL}/${SECRET}`]) {
    const r = await fetch(
      s.url + `/api/share/${token}/thumbnail?path=${outside.includes('%') ? outside : encodeURIComponent(outside)}`,
    );
    const answer = await r.text();
    assert.is(r.status, 400, `${outside}: ${answer}`);
    assert.match(answer, /"code":"BAD_PATH"/, outside);
  }
  assert.equal(cached(), before, 'nothing made outside the shared folder');
});

test.run();
