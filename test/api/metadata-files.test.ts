// What files say about themselves, in the metadata answer (GET /api/metadata/*): a photo's camera,
// lens, exposure, date taken and place (a JPEG with EXIF and GPS written here), a song's tags and
// cover (an MP3 with ID3v2 and a front picture, by ffmpeg; the cover is its thumbnail), a video's
// streams (an MP4 by ffmpeg, read by ffprobe; with no ffmpeg, an MP4 and an MKV by their own headers), a PDF's and an office document's title and author.
// The place is for those who may read the file: another account gets nothing, and a link holder's
// bytes (inline, download, a zip of the album, a Range of the head) and renditions carry no GPS — the same length,
// the camera facts kept.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import exifr from 'exifr';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import {
  cameraJpeg,
  cameraPng,
  FUJI_X_T30,
  heicOf,
  clip,
  mp4,
  png,
  taggedMp3,
  webpOf,
  type PhotoFacts,
} from '../support/media.ts';
import { pdfDocument } from '../support/world.ts';
import { yazlZip } from '../support/archives.ts';
import { removeDirs, serverMode, startServer, type TestServer } from '../support/server.ts';
import { createUser, setupAdmin } from '../support/auth.ts';

let s: TestServer;
let alice: Client;
let bob: Client;
const ALBUM = 'Photos/Été 2025 — Paris & #1';
const PHOTO = 'Tour Eiffel + moi 🌅.jpg';
const FACTS = FUJI_X_T30;
const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');
const meta = (c: Client, p: string) => c.get(`/api/metadata/${enc(p)}`);

async function bytes(client: Client, url: string, headers: Record<string, string> = {}) {
  const res = await fetch(client.base + url, { headers: { cookie: client.cookieHeader, ...headers } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

test.before(async () => {
  s = await startServer({ env: { USER_DIR_ENABLED: 'true' }, volumes: ['Files'] });
  const admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  const files = path.join(s.dirs.volumes, 'Files');
  fs.mkdirSync(path.join(files, ALBUM), { recursive: true });
  fs.mkdirSync(path.join(files, 'Music', 'Debussy & Friends'), { recursive: true });
  fs.mkdirSync(path.join(files, 'Documents', 'Taxes'), { recursive: true });
  fs.writeFileSync(path.join(files, ALBUM, PHOTO), await cameraJpeg(640, 480, FACTS));
  const { gps: _, ...noPlace } = FACTS;
  fs.writeFileSync(path.join(files, ALBUM, 'Sans GPS.jpg'), await cameraJpeg(320, 240, noPlace));
  const tags = {
    title: 'Clair de lune',
    artist: 'Debussy & Friends',
    album: 'Suite bergamasque',
    track: '3/4',
    date: '1905',
    genre: 'Classical',
  };
  fs.writeFileSync(
    path.join(files, 'Music', 'Debussy & Friends', '03 Clair de lune.mp3'),
    taggedMp3(2, tags, await png(90, 90)),
  );
  fs.writeFileSync(
    path.join(files, 'Music', 'Debussy & Friends', '04 Passepied (no cover).mp3'),
    taggedMp3(1, { ...tags, title: 'Passepied', track: '4/4' }),
  );
  fs.writeFileSync(path.join(files, 'Photos', 'Anniversaire de Léa.mp4'), mp4(2));
  fs.writeFileSync(
    path.join(files, 'Documents', 'Taxes', 'Déclaration 2024.pdf'),
    pdfDocument([['Revenus'], ['Deductions']], { title: 'Déclaration d’impôts 2024 — 所得', author: 'Léa Müller' }),
  );
  await yazlZip(path.join(files, 'Documents', 'Budget familial.docx'), [
    { name: '[Content_Types].xml', data: '<?xml version="1.0"?><Types/>' },
    {
      name: 'word/document.xml',
      data: '<w:document><w:body><w:p><w:r><w:t>Budget</w:t></w:r></w:p></w:body></w:document>',
    },
    {
      name: 'docProps/core.xml',
      data:
        '<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">' +
        '<dc:title>Budget &amp; dépenses 2025</dc:title><dc:creator>Marc O’Brien</dc:creator></cp:coreProperties>',
    },
  ]);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test("a photo's camera, lens, exposure, date taken, dimensions, orientation and place", async () => {
  const r = await meta(alice, `Files/${ALBUM}/${PHOTO}`);
  assert.is(r.status, 200, r.text);
  const image = r.json.image;
  assert.is(image.width, 640);
  assert.is(image.height, 480);
  assert.is(image.orientation, 1);
  assert.is(image.cameraMake, 'FUJIFILM');
  assert.is(image.cameraModel, 'X-T30');
  assert.is(image.lensModel, 'XF35mmF2 R WR');
  assert.is(image.dateTaken, '2025-07-14T18:03:22');
  assert.is(image.exposureTime, 0.004);
  assert.is(image.fNumber, 5.6);
  assert.is(image.iso, 400);
  assert.is(image.focalLength, 35);
  assert.ok(Math.abs(image.gps.latitude - 48.858194) < 1e-5, String(image.gps.latitude));
  assert.ok(Math.abs(image.gps.longitude - 2.2945) < 1e-5, String(image.gps.longitude));
  assert.is(image.gps.altitude, 35);
  const plain = await meta(alice, `Files/${ALBUM}/Sans GPS.jpg`);
  assert.is(plain.json.image.gps, null);
  assert.is(plain.json.image.cameraModel, 'X-T30');
  // Who may read the photo in a shared volume sees where it was taken; in alice's own folder,
  // bob (another account) reaches nothing of it, by its name or through a link planted in a volume.
  assert.is((await meta(bob, `Files/${ALBUM}/${PHOTO}`)).json.image.gps.altitude, 35);
  const put = await alice.post('/api/files/file', { path: 'personal', name: 'marker.txt', content: 'mine' });
  assert.is(put.status, 201, put.text);
  const own = fs.readdirSync(s.dirs.users).find((d) => fs.existsSync(path.join(s.dirs.users, d, 'marker.txt')))!;
  fs.copyFileSync(path.join(s.dirs.volumes, 'Files', ALBUM, PHOTO), path.join(s.dirs.users, own, PHOTO));
  assert.is((await meta(alice, `personal/${PHOTO}`)).json.image.gps.altitude, 35);
  fs.symlinkSync(path.join(s.dirs.users, own), path.join(s.dirs.volumes, 'Files', 'peek'));
  try {
    for (const p of [`personal/${PHOTO}`, `Files/peek/${PHOTO}`, `Files/${ALBUM}/../../peek/${PHOTO}`]) {
      const other = await bob.get(
        `/api/metadata/${p.split('/').map(encodeURIComponent).join('/').replace(/%2E/g, '.')}`,
      );
      assert.ok([400, 403, 404].includes(other.status), `${p}: ${other.status}`);
      assert.not.match(other.text, /48\.85|latitude|FUJIFILM/);
    }
  } finally {
    fs.unlinkSync(path.join(s.dirs.volumes, 'Files', 'peek'));
  }
});

test("a link holder's photo carries no place: inline, download, in a zip, a Range of its head, its rendition", async () => {
  const original = fs.readFileSync(path.join(s.dirs.volumes, 'Files', ALBUM, PHOTO));
  assert.is((await exifr.gps(original))?.latitude !== undefined, true, 'the test photo has GPS');
  const made = await alice.post('/api/shares', { sourcePath: `Files/${ALBUM}`, sharingType: 'anyone' });
  assert.is(made.status, 201, made.text);
  const t = made.json.shareToken;
  const v = new Client(s.url);
  const file = (mode: string) => `/api/share/${t}/file?path=${encodeURIComponent(PHOTO)}&mode=${mode}`;
  for (const mode of ['inline', 'raw', 'download']) {
    const got = await bytes(v, file(mode));
    assert.is(got.status, 200, `${mode}: ${got.body.toString().slice(0, 200)}`);
    assert.is(got.body.length, original.length, mode);
    assert.is(got.headers.get('content-length'), String(original.length));
    const tags = await exifr.parse(got.body, { gps: true, tiff: true, exif: true });
    assert.is(tags?.latitude, undefined, `${mode}: ${JSON.stringify(tags)}`);
    assert.is(tags?.GPSLatitude, undefined, mode);
    assert.is(tags?.Make, 'FUJIFILM', mode);
    assert.is(tags?.LensModel, 'XF35mmF2 R WR', mode);
    // Only the place changed: the picture after the EXIF segment is byte for byte the file's.
    assert.ok(got.body.subarray(2048).equals(original.subarray(2048)), mode);
  }
  // The link's download of the photo, and of the album as a zip.
  const single = await bytes(v, `/api/share/${t}/download/${encodeURIComponent(PHOTO)}`);
  assert.is(single.status, 200);
  assert.is(single.body.length, original.length);
  assert.is((await exifr.parse(single.body, { gps: true }))?.latitude, undefined);
  const zipped = await fetch(`${s.url}/api/share/${t}/download`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: v.cookieHeader },
    body: JSON.stringify({ paths: [PHOTO, 'Sans GPS.jpg'] }),
  });
  assert.is(zipped.status, 200);
  const dir = fs.mkdtempSync(path.join(s.dirs.volumes, '..', 'unzipped-'));
  try {
    fs.writeFileSync(path.join(dir, 'album.zip'), Buffer.from(await zipped.arrayBuffer()));
    execFileSync('unzip', ['-q', path.join(dir, 'album.zip'), '-d', path.join(dir, 'out')]);
    const inZip = fs.readFileSync(path.join(dir, 'out', PHOTO));
    assert.is(inZip.length, original.length);
    const tags = await exifr.parse(inZip, { gps: true, tiff: true, exif: true });
    assert.is(tags?.latitude, undefined, JSON.stringify(tags));
    assert.is(tags?.Model, 'X-T30');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // A Range that covers the head and one that starts after it both agree with the whole answer.
  const whole = (await bytes(v, file('inline'))).body;
  const head = await bytes(v, file('inline'), { range: 'bytes=0-999' });
  assert.is(head.status, 206);
  assert.ok(head.body.equals(whole.subarray(0, 1000)));
  const across = await bytes(v, file('inline'), { range: `bytes=100-${whole.length - 2}` });
  assert.is(across.status, 206);
  assert.ok(across.body.equals(whole.subarray(100, whole.length - 1)));
  assert.not.ok(whole.includes(Buffer.from([48, 0, 0, 0, 1, 0, 0, 0, 51, 0, 0, 0, 1, 0, 0, 0])), 'no 48°51′ left');
  // The thumbnail and the screen-sized rendition: re-encoded pictures with no EXIF at all.
  for (const size of ['', '&size=1280']) {
    const pic = await bytes(v, `/api/share/${t}/thumbnail?path=${encodeURIComponent(PHOTO)}${size}`);
    assert.is(pic.status, 200);
    assert.is((await exifr.gps(pic.body).catch(() => undefined))?.latitude, undefined);
  }
  // The owner lets this link's holders see where the photos were taken: the bytes as they are.
  assert.is(made.json.allowLocation, false);
  const allowed = await alice.put(`/api/shares/${made.json.id}`, { allowLocation: true });
  assert.is(allowed.status, 200, allowed.text);
  assert.is(allowed.json.allowLocation, true);
  const kept = await bytes(v, file('inline'));
  assert.ok(kept.body.equals(original));
  assert.ok((await bytes(v, `/api/share/${t}/download/${encodeURIComponent(PHOTO)}`)).body.equals(original));
  // Changing the link's access mode leaves the choice as it is; unticked, the place goes again.
  const rw = await alice.put(`/api/shares/${made.json.id}`, { accessMode: 'readwrite' });
  assert.is(rw.json.allowLocation, true);
  assert.is((await alice.put(`/api/shares/${made.json.id}`, { allowLocation: false })).json.allowLocation, false);
  assert.is((await exifr.gps(await bytes(v, file('inline')).then((b) => b.body)))?.latitude, undefined);
  // The owner's own download is the file as it is.
  const own = await bytes(alice, `/api/download/${enc(`Files/${ALBUM}/${PHOTO}`)}`);
  assert.is(own.status, 200);
  assert.ok(own.body.equals(original));
});

test("a PNG's EXIF place (eXIf, before or after the picture): shown to those who may read it, never sent to a link holder; the picture intact", async () => {
  const dir = 'Files/Captures + Écrans';
  const real = path.join(s.dirs.volumes, 'Files', 'Captures + Écrans');
  fs.mkdirSync(real, { recursive: true });
  const facts: PhotoFacts = {
    ...FACTS,
    make: 'Apple',
    model: 'iPhone 15 Pro',
    gps: { lat: [43, 56, 49.7], latRef: 'N', lon: [4, 32, 7.6], lonRef: 'E', altitude: 41 },
  };
  const pictures = {
    'Pont du Gard – Capture d’écran #3 & 🌉.png': await cameraPng(160, 120, facts),
    'Nîmes, les Arènes (eXIf à la fin) 100%.png': await cameraPng(160, 120, facts, { after: 'picture' }),
  };
  const made = await alice.post('/api/shares', { sourcePath: dir, sharingType: 'anyone' });
  assert.is(made.status, 201, made.text);
  const t = made.json.shareToken;
  const v = new Client(s.url);
  for (const [name, original] of Object.entries(pictures)) {
    fs.writeFileSync(path.join(real, name), original);
    assert.is(exiftool(original).GPSLatitude !== undefined, true, `${name}: the test picture has GPS`);
    const own = await meta(alice, `${dir}/${name}`);
    assert.is(own.status, 200, own.text);
    assert.ok(Math.abs(own.json.image.gps?.latitude - 43.947139) < 1e-5, `${name}: ${own.text}`);
    assert.is(own.json.image.gps.altitude, 41);
    assert.is(own.json.image.cameraModel, 'iPhone 15 Pro');
    const exifAt = original.indexOf('eXIf', 0, 'latin1') - 4;
    const exifEnd = exifAt + 12 + original.readUInt32BE(exifAt);
    for (const url of [
      ...['inline', 'raw', 'download'].map((m) => `/api/share/${t}/file?path=${encodeURIComponent(name)}&mode=${m}`),
      `/api/share/${t}/download/${encodeURIComponent(name)}`,
    ]) {
      const got = await bytes(v, url);
      assert.is(got.status, 200, `${url}: ${got.body.toString().slice(0, 200)}`);
      assert.is(got.body.length, original.length, url);
      const tags = exiftool(got.body);
      assert.is(tags.GPSLatitude, undefined, `${url}: ${JSON.stringify(tags)}`);
      assert.is(tags.GPSLongitude, undefined, url);
      assert.is(tags.Model, 'iPhone 15 Pro', url);
      // Every chunk's CRC still holds (a reader keeps the EXIF), and every byte outside the eXIf
      // chunk is the file's: the picture decodes as before.
      for (let at = 8; at < got.body.length;) {
        const length = got.body.readUInt32BE(at);
        const crc = zlib.crc32(got.body.subarray(at + 4, at + 8 + length));
        assert.is(
          got.body.readUInt32BE(at + 8 + length),
          crc,
          `${url}: ${got.body.toString('latin1', at + 4, at + 8)}`,
        );
        at += 12 + length;
      }
      assert.ok(got.body.subarray(0, exifAt).equals(original.subarray(0, exifAt)), url);
      assert.ok(got.body.subarray(exifEnd).equals(original.subarray(exifEnd)), url);
    }
  }
  // The owner lets the link's holders see where: the bytes as they are.
  assert.is((await alice.put(`/api/shares/${made.json.id}`, { allowLocation: true })).status, 200);
  for (const [name, original] of Object.entries(pictures)) {
    const kept = await bytes(v, `/api/share/${t}/file?path=${encodeURIComponent(name)}&mode=inline`);
    assert.ok(kept.body.equals(original), name);
  }
});

/** What exiftool (an independent reader: Debian libimage-exiftool-perl) finds in a picture's bytes. */
function exiftool(bytes: Buffer): Record<string, unknown> {
  const out = execFileSync('exiftool', ['-j', '-n', '-GPSLatitude', '-GPSLongitude', '-Make', '-Model', '-'], {
    input: bytes,
  });
  return JSON.parse(out.toString())[0];
}

test("a phone's HEIC and a WebP, their EXIF after the picture: facts and place for the owner, no place for a link holder", async () => {
  const dir = 'Files/Photos/Étretat + Honfleur & #2';
  const real = path.join(s.dirs.volumes, 'Files', 'Photos', 'Étretat + Honfleur & #2');
  fs.mkdirSync(real, { recursive: true });
  const jpeg = await cameraJpeg(640, 480, FACTS);
  const pictures = {
    'IMG_4127 — la falaise d’Aval 🌊.heic': heicOf(jpeg),
    'Falaise "Manneporte" 100%.webp': webpOf(jpeg),
  };
  for (const [name, body] of Object.entries(pictures)) {
    fs.writeFileSync(path.join(real, name), body);
    assert.is(exiftool(body).GPSLatitude !== undefined, true, `${name}: the test picture has GPS`);
  }
  const made = await alice.post('/api/shares', { sourcePath: dir, sharingType: 'anyone' });
  assert.is(made.status, 201, made.text);
  const t = made.json.shareToken;
  const v = new Client(s.url);
  for (const [name, original] of Object.entries(pictures)) {
    // The owner: camera, date, size and place, read from where the container keeps them.
    const own = await meta(alice, `${dir}/${name}`);
    assert.is(own.status, 200, own.text);
    assert.is(own.json.image.cameraModel, 'X-T30', `${name}: ${own.text}`);
    assert.is(own.json.image.dateTaken, '2025-07-14T18:03:22', name);
    assert.is(own.json.image.width, 640, name);
    assert.is(own.json.image.height, 480, name);
    assert.ok(Math.abs(own.json.image.gps.latitude - 48.858194) < 1e-5, `${name}: ${own.text}`);
    // A link holder: the same length, the camera kept, no place, every way the bytes go out.
    const urls = [
      ...['inline', 'raw', 'download'].map((m) => `/api/share/${t}/file?path=${encodeURIComponent(name)}&mode=${m}`),
      `/api/share/${t}/download/${encodeURIComponent(name)}`,
    ];
    let whole: Buffer | undefined;
    for (const url of urls) {
      const got = await bytes(v, url);
      assert.is(got.status, 200, `${url}: ${got.body.toString().slice(0, 200)}`);
      assert.is(got.body.length, original.length, url);
      const tags = exiftool(got.body);
      assert.is(tags.GPSLatitude, undefined, `${url}: ${JSON.stringify(tags)}`);
      assert.is(tags.GPSLongitude, undefined, url);
      assert.is(tags.Model, 'X-T30', url);
      whole ??= got.body;
      assert.ok(got.body.equals(whole), url);
    }
    // Only the EXIF block changed: the picture before and after it is the file's, byte for byte.
    let first = -1;
    let last = -1;
    for (let i = 0; i < original.length; i++)
      if (original[i] !== whole![i]) {
        if (first < 0) first = i;
        last = i;
      }
    assert.ok(first > 0 && last - first < 400, `${name}: bytes ${first}..${last} changed`);
    // Ranges inside, across and after the changed bytes agree with the whole answer.
    for (const [from, to] of [
      [first, last],
      [0, original.length - 1],
      [Math.max(0, first - 10), first + 3],
      [last + 1, original.length - 1],
    ] as const) {
      const part = await bytes(v, urls[0]!, { range: `bytes=${from}-${to}` });
      assert.ok(part.status === 206 || (from === 0 && to === original.length - 1), `${from}-${to}: ${part.status}`);
      assert.ok(part.body.equals(whole!.subarray(from, to + 1)), `${name} ${from}-${to}`);
    }
  }
  // The folder as a zip: each picture's place gone there too, the zip read by unzip.
  const zipped = await fetch(`${s.url}/api/share/${t}/download`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: v.cookieHeader },
    body: JSON.stringify({ paths: Object.keys(pictures) }),
  });
  assert.is(zipped.status, 200);
  const out = fs.mkdtempSync(path.join(s.dirs.volumes, '..', 'unzipped-'));
  try {
    fs.writeFileSync(path.join(out, 'pictures.zip'), Buffer.from(await zipped.arrayBuffer()));
    execFileSync('unzip', ['-q', path.join(out, 'pictures.zip'), '-d', path.join(out, 'x')]);
    for (const [name, original] of Object.entries(pictures)) {
      const inZip = fs.readFileSync(path.join(out, 'x', name));
      assert.is(inZip.length, original.length, name);
      assert.is(exiftool(inZip).GPSLatitude, undefined, name);
      assert.is(exiftool(inZip).Model, 'X-T30', name);
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
  // The owner lets the link's holders see where: the bytes as they are.
  assert.is((await alice.put(`/api/shares/${made.json.id}`, { allowLocation: true })).status, 200);
  for (const [name, original] of Object.entries(pictures)) {
    const kept = await bytes(v, `/api/share/${t}/file?path=${encodeURIComponent(name)}&mode=inline`);
    assert.ok(kept.body.equals(original), name);
  }
});

test("a song's tags, duration and cover (its thumbnail); a song without a cover has no thumbnail", async () => {
  const song = 'Files/Music/Debussy & Friends/03 Clair de lune.mp3';
  const r = await meta(alice, song);
  assert.is(r.status, 200, r.text);
  const a = r.json.audio;
  assert.is(a.title, 'Clair de lune');
  assert.is(a.artist, 'Debussy & Friends');
  assert.is(a.album, 'Suite bergamasque');
  assert.is(a.track, 3);
  assert.is(a.trackCount, 4);
  assert.is(a.year, 1905);
  assert.is(a.genre, 'Classical');
  assert.is(a.hasCover, true);
  assert.ok(a.duration > 1.9 && a.duration < 2.2, String(a.duration));
  const thumb = await alice.get(`/api/thumbnails/${enc(song)}`);
  assert.is(thumb.status, 200, thumb.text);
  assert.match(thumb.json.thumbnail, /^\/api\/thumbnails-cache\/[0-9a-f]{64}\.webp\?path=[^&]+$/);
  const pic = await bytes(alice, thumb.json.thumbnail);
  assert.is(pic.headers.get('content-type'), 'image/webp');
  const { createRequire } = await import('node:module');
  const image = createRequire(import.meta.url)('@napi-rs/image');
  const size = await new image.Transformer(pic.body).metadata();
  assert.is(`${size.width}×${size.height}`, '90×90');
  const bare = 'Files/Music/Debussy & Friends/04 Passepied (no cover).mp3';
  assert.is((await meta(alice, bare)).json.audio.hasCover, false);
  assert.is((await alice.get(`/api/thumbnails/${enc(bare)}`)).json.thumbnail, '');
  const listed = await alice.get(`/api/browse/${enc('Files/Music/Debussy & Friends')}`);
  assert.ok(listed.json.items.every((i: { supportsThumbnail?: boolean }) => i.supportsThumbnail));
});

test("a video's duration, resolution and codecs (ffprobe)", async () => {
  const r = await meta(alice, 'Files/Photos/Anniversaire de Léa.mp4');
  assert.is(r.status, 200, r.text);
  const v = r.json.video;
  assert.is(v.source, 'ffprobe');
  assert.is(v.width, 320);
  assert.is(v.height, 240);
  assert.is(v.videoCodec, 'h264');
  assert.is(v.audioCodec, 'aac');
  assert.match(v.container, /mp4/);
  assert.ok(v.duration > 1.9 && v.duration < 2.2, String(v.duration));
});

test("without ffmpeg: a video's duration, resolution and codecs from its container's own header (MP4, MKV)", async () => {
  // Copies under names of their own: what was read with ffprobe is not asked again.
  const dir = path.join(s.dirs.volumes, 'Files', 'Photos');
  const MP4 = 'Fête des Lumières + 🎆 #2.mp4';
  const MKV = 'Mariage de Zoë & Léo (Sans ffmpeg).mkv';
  fs.copyFileSync(path.join(dir, 'Anniversaire de Léa.mp4'), path.join(dir, MP4));
  fs.writeFileSync(path.join(dir, MKV), clip('mkv', 2));
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-no-ffprobe-'));
  // From source the server is this process: its PATH is ours. The executable gets its own.
  const saved = process.env.PATH;
  if (serverMode === 'source') process.env.PATH = empty;
  else await s.restart({ PATH: empty });
  try {
    for (const name of [MP4, MKV]) {
      const r = await meta(alice, `Files/Photos/${name}`);
      assert.is(r.status, 200, r.text);
      const v = r.json.video;
      assert.is(v.source, 'header', name);
      assert.is(v.width, 320, name);
      assert.is(v.height, 240, name);
      assert.is(v.videoCodec, 'h264', name);
      assert.is(v.audioCodec, 'aac', name);
      assert.ok(v.duration > 1.9 && v.duration < 2.2, `${name}: ${v.duration}`);
    }
  } finally {
    if (serverMode === 'source') process.env.PATH = saved;
    else await s.restart({ PATH: '/usr/bin:/bin' });
    fs.rmSync(empty, { recursive: true, force: true });
  }
});

test("a PDF's pages, title and author; an office document's title and author", async () => {
  const pdf = await meta(alice, 'Files/Documents/Taxes/Déclaration 2024.pdf');
  assert.is(pdf.status, 200, pdf.text);
  assert.equal(pdf.json.document, { pages: 2, title: 'Déclaration d’impôts 2024 — 所得', author: 'Léa Müller' });
  assert.is(pdf.json.pages, 2);
  const docx = await meta(alice, 'Files/Documents/Budget familial.docx');
  assert.equal(docx.json.document, { title: 'Budget & dépenses 2025', author: 'Marc O’Brien' });
});

test.run();
