// Link limits: a link with a maximum number of downloads (1: a one-time link) counts one on
// every byte path its holder has — a download, a zip (GET and POST), a raw or inline view, a
// screen-sized preview, the editor's read — claimed before the bytes go; past its count it
// answers exactly as an unknown or expired link does, on every door. Listing, the list's small
// thumbnails and a HEAD take no bytes and count nothing; one holder's Range series of one video
// (and the preview of the photo they opened) is one download. Twenty holders racing for a link
// with three left: three get the bytes. A view link's holder looks and never takes away. The
// count cannot be dodged through the API's own routes or WebDAV with a `share/<token>` path,
// only its owner sets it, and "Shared by me" shows it.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { mp4, png } from '../support/media.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

const VOLUME = 'Familie & Fotos';
const FOLDER = 'Urlaub 2025 #1 – Côte d’Azur';
const PHOTO = 'Strand 🌊 bei Nacht.png';
const NOTES = 'Packliste "final" + Pläne.txt';
const VIDEO = 'Möwen am Hafen (Zeitlupe) 100%.mp4';

let s: TestServer;
let owner: Client;
let bob: Client;
let video: Buffer;
const anon = () => new Client(s.url);
const q = encodeURIComponent;
type Answer = { status: number; text: string; headers: Headers; json?: any };

async function link(body: Record<string, unknown> = {}) {
  const a = await owner.post('/api/shares', { sourcePath: `${VOLUME}/${FOLDER}`, sharingType: 'anyone', ...body });
  assert.is(a.status, 201, a.text);
  return a.json as { id: string; shareToken: string; maxDownloads: number | null; downloadCount: number };
}
const shared = async (id: string) =>
  ((await owner.get('/api/shares')).json.shares as any[]).find((x: any) => x.id === id);

/** Every byte path a holder has (each from a fresh browser, so each is a download of its own). */
const BYTE_PATHS: [string, (t: string, c?: Client) => Promise<Answer>][] = [
  ['download', (t, c = anon()) => c.get(`/api/share/${t}/file?path=${q(PHOTO)}&mode=download`)],
  ['inline view', (t, c = anon()) => c.get(`/api/share/${t}/file?path=${q(PHOTO)}&mode=inline`)],
  ['raw', (t, c = anon()) => c.get(`/api/share/${t}/file?path=${q(NOTES)}&mode=raw`)],
  ['zip of the folder', (t, c = anon()) => c.get(`/api/share/${t}/download/`)],
  ['one file by path', (t, c = anon()) => c.get(`/api/share/${t}/download/${q(PHOTO)}`)],
  ['selection (POST)', (t, c = anon()) => c.post(`/api/share/${t}/download`, { paths: [PHOTO, NOTES] })],
  ['screen-sized preview', (t, c = anon()) => c.get(`/api/share/${t}/thumbnail?path=${q(PHOTO)}&size=1200`)],
  ['editor read', (t, c = anon()) => c.get(`/api/share/${t}/editor?path=${q(NOTES)}`)],
];

/** What an unknown (or expired) link answers at the same door: status, code and message, the same. */
let unknownAnswer: { status: number; code: string; message: string };
function gone(a: Answer, what: string) {
  assert.is(a.status, unknownAnswer.status, `${what}: ${a.text.slice(0, 300)}`);
  const e = envelope(a as never);
  assert.is(e.code, unknownAnswer.code, what);
  assert.is(e.message, unknownAnswer.message, what);
}

test.before(async () => {
  s = await startServer({ volumes: [VOLUME] });
  owner = await setupAdmin(s);
  bob = await createUser(owner, s, { username: 'bob', password: 'bob-password-1' });
  const dir = path.join(s.dirs.volumes, VOLUME, FOLDER);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, PHOTO), await png(1600, 1200));
  fs.writeFileSync(path.join(dir, NOTES), 'Sonnencreme, Hut & Buch\n');
  video = mp4(3);
  fs.writeFileSync(path.join(dir, VIDEO), video);
  const unknown = await anon().get(`/api/share/${'x'.repeat(43)}/file?path=${q(PHOTO)}&mode=inline`);
  unknownAnswer = {
    status: unknown.status,
    code: envelope(unknown as never).code!,
    message: envelope(unknown as never).message,
  };
  assert.is(unknownAnswer.code, 'LINK_NOT_FOUND');
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('every byte path counts one download; past the count the link answers like an unknown or expired one', async () => {
  for (const [name, take] of BYTE_PATHS) {
    const l = await link({ maxDownloads: 1 });
    assert.is(l.maxDownloads, 1);
    // Looking takes no bytes: the listing, the list's small thumbnails and a HEAD count nothing.
    assert.is((await anon().get(`/api/share/${l.shareToken}/browse/`)).status, 200);
    assert.is((await anon().get(`/api/share/${l.shareToken}/thumbnail?path=${q(PHOTO)}`)).status, 200);
    const head = await fetch(`${s.url}/api/share/${l.shareToken}/file?path=${q(PHOTO)}&mode=download`, {
      method: 'HEAD',
    });
    assert.is(head.status, 200);
    assert.is((await shared(l.id)).downloadCount, 0, `${name}: looking counted`);
    const first = await take(l.shareToken);
    assert.is(first.status, 200, `${name}: ${first.text.slice(0, 300)}`);
    assert.is((await shared(l.id)).downloadCount, 1, name);
    // Spent: every door of the link, its info, listing and password door answer as an unknown link.
    for (const [other, again] of BYTE_PATHS) gone(await again(l.shareToken), `${other} after ${name}`);
    gone(await anon().get(`/api/share/${l.shareToken}/info`), `info after ${name}`);
    gone(await anon().get(`/api/share/${l.shareToken}/browse/`), `listing after ${name}`);
    gone(await anon().get(`/api/share/${l.shareToken}/thumbnail?path=${q(PHOTO)}`), `thumbnail after ${name}`);
    gone(await anon().post(`/api/share/${l.shareToken}/access`, { password: 'x' }), `password after ${name}`);
    const spentHead = await fetch(`${s.url}/api/share/${l.shareToken}/file?path=${q(PHOTO)}`, { method: 'HEAD' });
    assert.is(spentHead.status, 404);
    assert.is((await shared(l.id)).downloadCount, 1, `${name}: refusals count nothing`);
  }
});

test('one holder watching a video (a series of Range requests) and opening a photo and its preview: one download each', async () => {
  const l = await link({ maxDownloads: 2 });
  const viewer = anon();
  const v = `/api/share/${l.shareToken}/file?path=${q(VIDEO)}&mode=inline`;
  const starts = [0, 1000, Math.floor(video.length / 2), video.length - 100];
  for (const start of starts) {
    const part = await viewer.get(v, { range: `bytes=${start}-` });
    assert.is(part.status, 206, part.text.slice(0, 200));
    assert.is(part.headers.get('content-range'), `bytes ${start}-${video.length - 1}/${video.length}`);
  }
  assert.is((await shared(l.id)).downloadCount, 1, 'a Range series is one download');
  assert.is((await viewer.get(`/api/share/${l.shareToken}/file?path=${q(PHOTO)}&mode=inline`)).status, 200);
  const preview = await viewer.get(`/api/share/${l.shareToken}/thumbnail?path=${q(PHOTO)}&size=1200`);
  assert.is(preview.status, 200);
  // Revalidating what they already hold (If-None-Match) is the same download.
  const again = await viewer.get(`/api/share/${l.shareToken}/file?path=${q(PHOTO)}&mode=inline`, {
    'if-none-match': preview.headers.get('etag') ?? '',
  });
  assert.ok(again.status === 200 || again.status === 304, again.text.slice(0, 200));
  assert.is((await shared(l.id)).downloadCount, 2, 'the photo and its preview are one download');
  // Spent for everybody else; what the viewer took stays theirs (the rest of the video).
  gone(await anon().get(v, { range: 'bytes=0-' }), 'another holder');
  gone(await viewer.get(`/api/share/${l.shareToken}/file?path=${q(NOTES)}&mode=raw`), 'another file');
  const rest = await viewer.get(v, { range: `bytes=${video.length - 10}-` });
  assert.is(rest.status, 206, 'the viewer goes on watching what they took');
  assert.is(rest.headers.get('content-range'), `bytes ${video.length - 10}-${video.length - 1}/${video.length}`);
  assert.is((await shared(l.id)).downloadCount, 2);
});

test('twenty holders racing for a link with three left: exactly three get the bytes', async () => {
  const l = await link({ maxDownloads: 4 });
  assert.is((await BYTE_PATHS[0]![1](l.shareToken)).status, 200);
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => BYTE_PATHS[i % BYTE_PATHS.length]![1](l.shareToken)),
  );
  const won = answers.filter((a) => a.status === 200);
  assert.is(won.length, 3, answers.map((a) => a.status).join(','));
  for (const a of answers.filter((x) => x.status !== 200)) gone(a, 'a loser of the race');
  assert.is((await shared(l.id)).downloadCount, 4);
});

test('a three-download link gives three, whichever paths take them; the owner raises and lifts the limit', async () => {
  const l = await link({ maxDownloads: 3, label: 'Für Oma' });
  assert.is((await BYTE_PATHS[0]![1](l.shareToken)).status, 200);
  assert.is((await BYTE_PATHS[2]![1](l.shareToken)).status, 200);
  let row = await shared(l.id);
  assert.is(row.downloadCount, 2);
  assert.is(row.maxDownloads, 3);
  assert.is((await BYTE_PATHS[3]![1](l.shareToken)).status, 200);
  gone(await BYTE_PATHS[1]![1](l.shareToken), 'a fourth');
  row = await shared(l.id);
  assert.is(row.downloadCount, 3);
  const raised = await owner.patch(`/api/shares/${l.id}`, { maxDownloads: 5 });
  assert.is(raised.status, 200, raised.text);
  assert.is(raised.json.maxDownloads, 5);
  assert.is((await BYTE_PATHS[1]![1](l.shareToken)).status, 200);
  assert.is((await BYTE_PATHS[4]![1](l.shareToken)).status, 200);
  gone(await BYTE_PATHS[0]![1](l.shareToken), 'a sixth');
  assert.is((await owner.patch(`/api/shares/${l.id}`, { maxDownloads: null })).status, 200);
  assert.is((await BYTE_PATHS[0]![1](l.shareToken)).status, 200);
  assert.is((await shared(l.id)).maxDownloads, null);
});

test('a view link looks and never takes away: a limited one counts its views, refuses its downloads', async () => {
  const l = await link({ maxDownloads: 2, allowDownload: false });
  const forbidden = [BYTE_PATHS[0]!, BYTE_PATHS[3]!, BYTE_PATHS[4]!, BYTE_PATHS[5]!];
  for (const [name, take] of forbidden) {
    const a = await take(l.shareToken);
    assert.is(a.status, 403, `${name}: ${a.text.slice(0, 200)}`);
    assert.is(envelope(a as never).code, 'LINK_NOT_ALLOWED', name);
  }
  assert.is((await shared(l.id)).downloadCount, 0, 'refused downloads count nothing');
  const view = await BYTE_PATHS[1]![1](l.shareToken);
  assert.is(view.status, 200);
  assert.match(view.headers.get('content-disposition') ?? '', /^inline/);
  assert.is((await shared(l.id)).downloadCount, 1);
});

test('the count cannot be dodged: the API’s own routes and WebDAV do not reach a limited link; only its owner sets it', async () => {
  const l = await link({ maxDownloads: 2 });
  const t = l.shareToken;
  const inLink = `share/${t}/${FOLDER}/${PHOTO}`;
  const viaApi = [
    () => bob.get(`/api/download/${inLink.split('/').map(q).join('/')}`),
    () => bob.get(`/api/browse/share/${t}`),
    () => bob.get(`/api/thumbnails/${inLink.split('/').map(q).join('/')}?size=1200`),
    () => owner.get(`/api/download/${inLink.split('/').map(q).join('/')}`),
  ];
  for (const call of viaApi) assert.is((await call()).status, 404);
  const dav = await fetch(`${s.url}/dav/share/${t}/${q(PHOTO)}`, {
    headers: { authorization: `Basic ${Buffer.from('bob:bob-password-1').toString('base64')}` },
  });
  assert.is(dav.status, 404);
  assert.is((await shared(l.id)).downloadCount, 0);
  const other = await bob.patch(`/api/shares/${l.id}`, { maxDownloads: 1000 });
  assert.ok(other.status === 403 || other.status === 404, other.text);
  assert.is((await shared(l.id)).maxDownloads, 2);
  const bad = await owner.patch(`/api/shares/${l.id}`, { maxDownloads: 0 });
  assert.is(bad.status, 400);
  assert.is((await shared(l.id)).maxDownloads, 2);
  // An unlimited link still serves through the API's own routes (nothing else changed).
  const open = await link();
  assert.is((await bob.get(`/api/browse/share/${open.shareToken}`)).status, 200);
});

test.run();
