// What photos and songs say of themselves, searched through the real server: real JPEGs with a
// camera's EXIF (landscape and portrait, one turned by its orientation tag; dates taken years
// apart from the files' own times) and real MP3s with ID3v2 tags written by ffmpeg, under names
// with spaces, accents (NFC and NFD), `&`, `+`, `#` and emoji. `taken:`, `camera:`, `artist:`,
// `album:` typed in `q` and as the API's parameters with every client's encoding (the native
// app's raw `+`), alone and with other fields and words; a photo replaced is read again;
// `sort=taken` orders photos by what they say; refusals with the envelope; the parameters
// described in /api/openapi.json. The answers come
// from the index once its walk and the reading of the files are done (waited on).
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { createUser, setupAdmin } from '../support/auth.ts';
import { cameraJpeg, taggedMp3, type PhotoFacts } from '../support/media.ts';
import { nfd } from '../support/names.ts';
import { everyClientFinds, type SearchCase } from '../support/search-clients.ts';
import { instancesBehind, removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
let admin: Client;
let bob: Client;
const VOL = 'Zuhause & Familie';
const vol = (...p: string[]) => path.join(s.dirs.volumes, VOL, ...p);

const LENS = { lens: 'Standard lens', exposure: 1 / 250, fNumber: 2.8, iso: 100, focalLength: 35 };
const PHOTOS: { rel: string; width: number; height: number; facts: PhotoFacts }[] = [
  {
    rel: 'Fotos/Sommer 2019/Strand bei Sonnenuntergang 🌅.jpg',
    width: 96,
    height: 64,
    facts: { make: 'Canon', model: 'Canon EOS 5D Mark IV', taken: '2019:07:14 20:31:05', ...LENS },
  },
  {
    rel: nfd('Fotos/Sommer 2019/Zoë am Café-Tisch (hochkant).jpg'),
    width: 64,
    height: 96,
    facts: { make: 'Google', model: 'Pixel 8 Pro', taken: '2019:08:02 09:15:00', ...LENS },
  },
  {
    rel: 'Fotos/Weihnachten & Neujahr #2/Baum + Kerzen.jpg',
    width: 96,
    height: 64,
    // Held upright by the camera: stored landscape, turned by its orientation tag.
    facts: { make: 'Google', model: 'Pixel 8 Pro', taken: '2023:12:24 18:00:00', orientation: 6, ...LENS },
  },
  {
    rel: 'Fotos/Weihnachten & Neujahr #2/Feuerwerk.jpg',
    width: 64,
    height: 96,
    facts: { make: 'FUJIFILM', model: 'X100V', taken: '2024:01:01 00:02:30', ...LENS },
  },
];
const SONGS: { rel: string; tags: Parameters<typeof taggedMp3>[1] }[] = [
  {
    rel: 'Musik/Simon & Garfunkel/Bridge over Troubled Water.mp3',
    tags: {
      title: 'Bridge over Troubled Water',
      artist: 'Simon & Garfunkel',
      album: 'Bridge over Troubled Water',
      track: '1',
      date: '1970',
    },
  },
  {
    rel: nfd('Musik/Zoë Café/Été + Hiver #3.mp3'),
    tags: { title: 'Été + Hiver #3', artist: nfd('Zoë Café'), album: 'Saisons + 1 🎶', track: '3', date: '2021' },
  },
];
/** A file that is neither: its mtime is in 2019 too, and it has no date taken. */
const NOTE = 'Fotos/Sommer 2019/Packliste.txt';

const nameOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1).normalize('NFC');
const [beach, zoe, tree, fireworks] = PHOTOS.map((p) => nameOf(p.rel));
const [bridge, ete] = SONGS.map((p) => nameOf(p.rel));

async function names(c: Client, query: string): Promise<string[]> {
  const a = await c.get(`/api/search?${query}`);
  assert.is(a.status, 200, `${query}: ${a.text}`);
  return a.json.items.map((i: { name: string }) => i.name.normalize('NFC')).sort();
}
const same = (got: string[], want: string[], what?: string) => assert.equal(got, [...want].sort(), what);
const box = (q: string) => new URLSearchParams({ q }).toString();

function put(rel: string, bytes: Buffer, modified: string): void {
  const file = vol(...rel.split('/'));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
  fs.utimesSync(file, new Date(modified), new Date(modified));
}

test.before(async () => {
  s = await startServer({ env: { FOLDER_SIZE_FLUSH_MS: '20' }, volumes: [VOL] });
  // The files' own times say 2025: only what the photos say puts them in 2019, 2023 or 2024.
  for (const p of PHOTOS) put(p.rel, await cameraJpeg(p.width, p.height, p.facts), '2025-03-01T12:00:00Z');
  for (const song of SONGS) put(song.rel, taggedMp3(1, song.tags), '2025-03-01T12:00:00Z');
  put(NOTE, Buffer.from('Sonnencreme, Handtuch, Kamera'), '2019-07-10T12:00:00Z');
  await s.restart({ FOLDER_SIZE_REBUILD: 'true' });
  admin = await setupAdmin(s);
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  await waitFor(() => admin.get('/api/admin/index'), {
    what: 'the volume indexed',
    inARow: instancesBehind(s),
    until: (a) => a.json?.roots?.length > 0 && a.json.roots.every((r: { state: string }) => r.state === 'ready'),
    seen: (a) => a.text,
  });
  // The files' facts are read after the walk, beside the documents' text — by each instance of a
  // cluster for its own index (CACHE_DIR), so every one is asked.
  await waitFor(() => admin.get(`/api/search?${box('kind:photo taken:<2030')}`), {
    what: 'every photo read',
    inARow: instancesBehind(s),
    until: (a) => a.json?.items?.length === PHOTOS.length,
    seen: (a) => a.text,
  });
  await waitFor(() => admin.get(`/api/search?${box('kind:audio artist:a')}`), {
    what: 'every song read',
    inARow: instancesBehind(s),
    until: (a) => a.json?.items?.length === SONGS.length,
    seen: (a) => a.text,
  });
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('taken: by the date in the photo, not the file', async () => {
  same(await names(admin, box('taken:2019')), [beach, zoe]);
  same(await names(admin, box('taken:2019-08')), [zoe]);
  same(await names(admin, box('taken:2019-07-14')), [beach]);
  same(await names(admin, box('taken:>=2023-12')), [tree, fireworks]);
  same(await names(admin, box('taken:<2024')), [beach, zoe, tree]);
  same(await names(admin, box('taken:2023-12-24..2024-01-01')), [tree, fireworks]);
  same(await names(admin, box('taken:2025')), []);
  // modified: is the file's own time: the note of 2019, the photos of 2025.
  same(await names(admin, box('modified:2019')), [nameOf(NOTE)]);
  same(await names(admin, box('modified:2025 kind:photo')), [beach, zoe, tree, fireworks]);
});

test('camera:, artist:, album: by words of what the file says', async () => {
  same(await names(admin, box('camera:pixel')), [zoe, tree]);
  same(await names(admin, box('camera:"Canon EOS"')), [beach]);
  same(await names(admin, box('camera:fujifilm')), [fireworks]);
  same(await names(admin, box('camera:x100v')), [fireworks]);
  same(await names(admin, box('camera:nikon')), []);
  same(await names(admin, box('artist:garfunkel')), [bridge]);
  same(await names(admin, box('artist:"Simon & Garfunkel"')), [bridge]);
  same(await names(admin, box('artist:"Zoë Café"')), [ete]); // NFC typed, NFD in the tag
  same(await names(admin, box(`artist:"${nfd('zoë')}"`)), [ete]);
  same(await names(admin, box('album:"Saisons + 1"')), [ete]);
  same(await names(admin, box('album:troubled')), [bridge]);
  // Together, and with words and other fields.
  same(await names(admin, box('camera:pixel taken:2023')), [tree]);
  same(await names(admin, box('Baum camera:pixel')), [tree]);
  same(await names(admin, box('camera:pixel in:"Sommer 2019"')), [zoe]);
  same(await names(admin, box('artist:zoë kind:audio size:<1MB')), [ete]);
  same(await names(admin, box('artist:zoë kind:photo')), []);
  // Another account searching the same volume finds the same.
  same(await names(bob, box('camera:pixel')), [zoe, tree]);
});

test('tag: with camera:, taken:, artist:, album: narrows the tagged items by what they say', async () => {
  const TAG = 'Album für Oma & Opa 👵';
  const paths = [PHOTOS[0]!.rel, PHOTOS[1]!.rel, PHOTOS[2]!.rel, SONGS[1]!.rel].map((r) => `${VOL}/${r}`);
  const applied = await admin.post('/api/tags/apply', { paths, add: [TAG] });
  assert.is(applied.status, 200, applied.text);
  same(await names(admin, box(`tag:"${TAG}"`)), [beach, zoe, tree, ete]);
  same(await names(admin, box(`tag:"${TAG}" camera:pixel`)), [zoe, tree]);
  same(await names(admin, box(`tag:"${TAG}" camera:pixel taken:2019`)), [zoe]);
  same(await names(admin, box(`tag:"${TAG}" taken:<2020`)), [beach, zoe]);
  same(await names(admin, box(`tag:"${TAG}" artist:zoë album:saisons`)), [ete]);
  same(await names(admin, box(`tag:"${TAG}" artist:garfunkel`)), []);
  same(await names(admin, `tag=${encodeURIComponent(TAG)}&camera=${encodeURIComponent('Canon EOS')}`), [beach]);
  // Another account's tags are theirs: Bob has none of that name.
  same(await names(bob, box(`tag:"${TAG}" camera:pixel`)), []);
  const removed = await admin.post('/api/tags/apply', { paths, remove: [TAG] });
  assert.is(removed.status, 200, removed.text);
});

test('sort=taken: the photos newest taken first, the rest after them; a bad sort is refused', async () => {
  /** The names in the order of the answer. */
  const inOrder = async (c: Client, query: string) => {
    const a = await c.get(`/api/search?${query}`);
    assert.is(a.status, 200, `${query}: ${a.text}`);
    return a.json.items.map((i: { name: string }) => i.name.normalize('NFC')) as string[];
  };
  const taken = (q: string) => `${box(q)}&sort=taken`;
  // Fields alone: every photo's file says 2025-03-01; only what the photos say orders them.
  assert.equal(await inOrder(admin, taken('kind:photo')), [fireworks, tree, zoe, beach]);
  assert.equal(await inOrder(bob, taken('kind:photo')), [fireworks, tree, zoe, beach]);
  // The note says nothing of when it was taken: after the photos, though it is a name match too.
  assert.equal(await inOrder(admin, taken('in:"Sommer 2019"')), [zoe, beach, nameOf(NOTE)]);
  // Words (a pattern), and the field as the API's parameter with the sort.
  assert.equal(await inOrder(admin, taken('*.jpg')), [fireworks, tree, zoe, beach]);
  assert.equal(await inOrder(admin, `in=${encodeURIComponent('Weihnachten & Neujahr #2')}&q=jpg&sort=taken`), [
    fireworks,
    tree,
  ]);
  // Tagged items (tag: alone is answered from the tags, not the index walk).
  const TAG = 'Fotoalbum 2019 + 2023 📷';
  const paths = [PHOTOS[0]!.rel, PHOTOS[2]!.rel, NOTE].map((r) => `${VOL}/${r}`);
  const applied = await admin.post('/api/tags/apply', { paths, add: [TAG] });
  assert.is(applied.status, 200, applied.text);
  assert.equal(await inOrder(admin, taken(`tag:"${TAG}"`)), [tree, beach, nameOf(NOTE)]);
  const removed = await admin.post('/api/tags/apply', { paths, remove: [TAG] });
  assert.is(removed.status, 200, removed.text);
  // An order it does not know is refused with the envelope; the parameter is described.
  const bad = await admin.get(`/api/search?${box('kind:photo')}&sort=shot`);
  assert.is(bad.status, 400, bad.text);
  assert.ok(envelope(bad).requestId);
  const spec = await admin.get('/api/openapi.json');
  const sort = (spec.json.paths['/api/search'].get.parameters as { name: string; schema: { enum?: string[] } }[]).find(
    (p) => p.name === 'sort',
  );
  assert.equal(sort?.schema.enum, ['relevance', 'taken']);
});

test('the API parameters, with every client encoding (the native app sends + raw)', async () => {
  const cases: SearchCase[] = [
    { fields: [['taken', '2023-12-24..2024-01-01']], want: [tree, fireworks] },
    { fields: [['taken', '>=2019-08']], want: [zoe, tree, fireworks] },
    {
      fields: [
        ['camera', 'Pixel 8'],
        ['in', 'Weihnachten & Neujahr #2'],
      ],
      want: [tree],
    },
    { fields: [['album', 'Saisons + 1 🎶']], want: [ete] },
    { fields: [['artist', 'Simon & Garfunkel']], want: [bridge] },
    {
      fields: [
        ['q', 'Strand'],
        ['camera', 'canon'],
        ['taken', '2019'],
      ],
      want: [beach],
    },
  ];
  await everyClientFinds(s.url, admin.cookieHeader, cases);
});

test('a photo replaced is read again; what it said before is forgotten', async () => {
  const p = PHOTOS[3]!;
  const again = await cameraJpeg(p.width, p.height, {
    ...p.facts,
    make: 'OLYMPUS IMAGING CORP.',
    model: 'E-M10',
    taken: '2016:05:01 10:00:00',
  });
  // Replaced through Burrow as a person does (the old photo kept as a version).
  const f = new FormData();
  f.append('uploadTo', `${VOL}/${p.rel.slice(0, p.rel.lastIndexOf('/'))}`);
  f.append('conflict', 'replace');
  f.append('filedata', new Blob([new Uint8Array(again)]), fireworks);
  const up = await admin.request('POST', '/api/upload', f);
  assert.is(up.status, 201, up.text);
  await waitFor(() => admin.get(`/api/search?${box('taken:2016')}`), {
    what: 'the photo read again after it changed (by every instance, each its own index)',
    inARow: instancesBehind(s),
    until: (a) => a.json?.items?.length === 1,
    seen: (a) => a.text,
  });
  same(await names(admin, box('taken:2016 camera:olympus')), [fireworks]);
  same(await names(admin, box('camera:fujifilm')), []);
  same(await names(admin, box('taken:2024')), []);
});

test('fields that cannot be read are refused with the envelope; the parameters are described', async () => {
  for (const bad of [
    'taken:2024-13',
    'taken:yesterday',
    'taken:',
    'camera:',
    'artist:""',
    `album:${'x'.repeat(201)}`,
  ]) {
    const r = await admin.get(`/api/search?${box(bad)}`);
    assert.is(r.status, 400, `${bad}: ${r.text}`);
    assert.is(envelope(r).code, 'SEARCH_FIELD_INVALID', bad);
    assert.ok(envelope(r).requestId, bad);
  }
  for (const bad of ['taken=June', 'taken=2024-02-30', 'camera=', 'artist=%20']) {
    const r = await admin.get(`/api/search?${bad}`);
    assert.is(r.status, 400, `${bad}: ${r.text}`);
    assert.is(envelope(r).code, 'SEARCH_FIELD_INVALID', bad);
  }
  const spec = await admin.get('/api/openapi.json');
  const params = (spec.json.paths['/api/search'].get.parameters as { name: string; in: string }[])
    .filter((p) => p.in === 'query')
    .map((p) => p.name);
  for (const name of ['taken', 'camera', 'artist', 'album']) assert.ok(params.includes(name), `${name} in ${params}`);
});

test.run();
