// The attacker rows of what photos and songs say of themselves in search: a household where a
// group rule hides "Privat – Steuer & Ärzte 🔒" from the children. The child's session and the
// child's read token search `camera:`, `taken:`, `artist:` and `album:` (in q and as parameters)
// and never find a photo or song of the hidden folder — nor count it: a page of one whose only
// other match is hidden says it is whole, where the parent (the control) is told there is more.
// A link holder has no search of its own (the route is the account's). Real EXIF JPEGs and real
// MP3s with ID3v2 tags by ffmpeg, under names with accents, `&`, `+`, `#` and emoji.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { createUser, issueToken, me, setupAdmin } from '../support/auth.ts';
import { cameraJpeg, taggedMp3, type PhotoFacts } from '../support/media.ts';
import { instancesBehind, removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const VOL = 'Zuhause & Familie';
const HIDDEN = 'Privat – Steuer & Ärzte 🔒';
const LENS = { lens: 'Standard lens', exposure: 1 / 125, fNumber: 1.8, iso: 200, focalLength: 26 };
const SEEN_PHOTO = 'Fotos/Ostern 2022/Eiersuche im Garten #1.jpg';
const HIDDEN_PHOTO = `${HIDDEN}/Röntgenbild Zahnarzt + Befund.jpg`;
const SEEN_SONG = 'Musik/Édith Piaf/La Vie en rose.mp3';
const HIDDEN_SONG = `${HIDDEN}/Hochzeitstanz (Édith Piaf) 💍.mp3`;
const PIXEL: PhotoFacts = { make: 'Google', model: 'Pixel 7', taken: '2022:04:17 11:20:00', ...LENS };
/** Words only the hidden files carry: no answer to the child may name one. */
const SECRET_WORDS = ['Röntgen', 'Zahnarzt', 'Hochzeit', 'Privat', 'Steuer'];

let s: TestServer;
let admin: Client;
let leo: Client;
let leoRead: Client;
let linkToken: string;
const q = encodeURIComponent;
const vol = (rel: string) => path.join(s.dirs.volumes, VOL, ...rel.split('/'));
const nameOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);

function put(rel: string, bytes: Buffer, modified: string): void {
  fs.mkdirSync(path.dirname(vol(rel)), { recursive: true });
  fs.writeFileSync(vol(rel), bytes);
  fs.utimesSync(vol(rel), new Date(modified), new Date(modified));
}

async function found(c: Client, query: string): Promise<{ names: string[]; complete: boolean; text: string }> {
  const a = await c.get(`/api/search?${query}`);
  assert.is(a.status, 200, `${query}: ${a.text}`);
  return {
    names: a.json.items.map((i: { name: string }) => i.name.normalize('NFC')).sort(),
    complete: a.json.complete,
    text: a.text,
  };
}
const box = (text: string) => `q=${q(text)}`;

test.before(async () => {
  s = await startServer({ env: { FOLDER_SIZE_FLUSH_MS: '20' }, volumes: [VOL] });
  // The hidden ones are older: they come after the seen ones, newest first, in a list of fields.
  put(SEEN_PHOTO, await cameraJpeg(96, 64, PIXEL), '2025-04-20T12:00:00Z');
  put(HIDDEN_PHOTO, await cameraJpeg(64, 96, { ...PIXEL, taken: '2022:04:18 08:05:00' }), '2024-01-05T12:00:00Z');
  put(
    SEEN_SONG,
    taggedMp3(1, { title: 'La Vie en rose', artist: 'Édith Piaf', album: 'La Vie en rose', track: '1', date: '1947' }),
    '2025-04-20T12:00:00Z',
  );
  put(
    HIDDEN_SONG,
    taggedMp3(1, {
      title: 'Hymne à l’amour',
      artist: 'Édith Piaf',
      album: 'Hochzeit + Feier',
      track: '2',
      date: '1950',
    }),
    '2024-01-05T12:00:00Z',
  );
  await s.restart({ FOLDER_SIZE_REBUILD: 'true' });
  admin = await setupAdmin(s);
  leo = await createUser(admin, s, { username: 'leo', password: 'leo-password-1' });
  leoRead = new Client(s.url, await issueToken(leo, 'read', { password: 'leo-password-1' }));
  const kids = (await admin.post('/api/access/groups', { name: 'Kinder 🧒' })).json.group.id;
  assert.is((await admin.post(`/api/access/groups/${kids}/members`, { userId: (await me(leo)).id })).status, 204);
  const hidden = await admin.put('/api/access/rules', {
    path: `${VOL}/${HIDDEN}`,
    subject: { kind: 'group', id: kids },
    level: 'hidden',
  });
  assert.is(hidden.status, 200, hidden.text);
  const link = await leo.post('/api/shares', { sourcePath: VOL, sharingType: 'anyone' });
  assert.is(link.status, 201, link.text);
  linkToken = link.json.shareToken;
  await waitFor(() => admin.get('/api/admin/index'), {
    what: 'the volume indexed',
    inARow: instancesBehind(s),
    until: (a) => a.json?.roots?.length > 0 && a.json.roots.every((r: { state: string }) => r.state === 'ready'),
    seen: (a) => a.text,
    timeoutMs: 30_000,
  });
  // The control: the parent's answers once the index has read every photo and song (each
  // instance of a cluster its own index, so every one is asked).
  await waitFor(() => admin.get(`/api/search?${box('camera:pixel')}`), {
    what: 'both photos read',
    inARow: instancesBehind(s),
    until: (a) => a.json?.items?.length === 2,
    seen: (a) => a.text,
    timeoutMs: 30_000,
  });
  await waitFor(() => admin.get(`/api/search?${box('artist:piaf')}`), {
    what: 'both songs read',
    inARow: instancesBehind(s),
    until: (a) => a.json?.items?.length === 2,
    seen: (a) => a.text,
    timeoutMs: 30_000,
  });
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('the parent finds both; a page of one of two says there is more', async () => {
  const photos = await found(admin, box('camera:pixel'));
  assert.equal(photos.names, [nameOf(SEEN_PHOTO), nameOf(HIDDEN_PHOTO)].sort());
  assert.is((await found(admin, `${box('camera:pixel')}&limit=1`)).complete, false);
  assert.is((await found(admin, `artist=${q('Édith Piaf')}&limit=1`)).complete, false);
  assert.equal((await found(admin, box('album:hochzeit'))).names, [nameOf(HIDDEN_SONG)]);
  assert.equal((await found(admin, box('taken:2022-04-18'))).names, [nameOf(HIDDEN_PHOTO)]);
});

test('the child, by session and read token: a hidden photo or song is never found nor counted', async () => {
  for (const [who, c] of [
    ['session', leo],
    ['read token', leoRead],
  ] as const) {
    const rows: [string, string[]][] = [
      [box('camera:pixel'), [nameOf(SEEN_PHOTO)]],
      [`camera=${q('Pixel 7')}`, [nameOf(SEEN_PHOTO)]],
      [box('taken:2022-04'), [nameOf(SEEN_PHOTO)]],
      [box('taken:2022-04-18'), []],
      [`taken=${q('2022-04-18')}`, []],
      [box('artist:"Édith Piaf"'), [nameOf(SEEN_SONG)]],
      [`artist=${q('piaf')}&kind=audio`, [nameOf(SEEN_SONG)]],
      [box('album:hochzeit'), []],
      [`album=${q('Hochzeit + Feier')}`, []],
      [box('Röntgenbild camera:pixel'), []],
      [box('Hochzeitstanz artist:piaf'), []],
    ];
    for (const [query, want] of rows) {
      const a = await found(c, query);
      assert.equal(a.names, want, `${who} ${query}`);
      assert.is(a.complete, true, `${who} ${query}: ${a.text}`);
      for (const w of SECRET_WORDS) assert.not.ok(a.text.includes(w), `${who} ${query} names ${w}: ${a.text}`);
    }
    // A page of one: the only other match is hidden, so the page is the whole answer.
    for (const query of [box('camera:pixel'), box('taken:2022'), `artist=${q('Édith Piaf')}`, box('kind:audio')]) {
      const one = await found(c, `${query}&limit=1`);
      assert.is(one.names.length, 1, `${who} ${query}`);
      assert.is(one.complete, true, `${who} ${query}&limit=1 counts a hidden match: ${one.text}`);
    }
    // Searching inside the hidden folder: as if it did not exist.
    const inside = await c.get(`/api/search?${box('camera:pixel')}&path=${q(`${VOL}/${HIDDEN}`)}`);
    assert.is(inside.status, 404, inside.text);
    assert.ok(envelope(inside).requestId);
    for (const w of SECRET_WORDS.slice(0, 3)) assert.not.ok(inside.text.includes(w), inside.text);
  }
});

test("a link holder has no search; the child's link lists no hidden folder", async () => {
  const holder = new Client(s.url);
  const none = await holder.get(`/api/search?${box('camera:pixel')}`);
  assert.is(none.status, 401, none.text);
  const listing = await holder.get(`/api/share/${linkToken}/browse/`);
  assert.is(listing.status, 200, listing.text);
  assert.ok(listing.text.includes('Fotos'), listing.text);
  for (const w of SECRET_WORDS) assert.not.ok(listing.text.includes(w), listing.text);
  const photo = await holder.get(`/api/share/${linkToken}/browse/${q(HIDDEN)}`);
  assert.is(photo.status, 404, photo.text);
});

test.run();
