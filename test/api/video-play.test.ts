// Video that plays (src/video): the viewer asks how to play a video (GET /api/video/plan) and
// streams what the browser cannot play through ffmpeg (GET /api/video/stream) — an MKV of
// H.264/AAC repackaged as fragmented MP4 without re-encoding, an AVI of MPEG-4 Part 2/MP3
// converted to H.264/AAC, from a start time. Both made by ffmpeg here, named as a person names
// them (spaces, accents, &, #, and a name that reads as an ffmpeg option). The attacker table:
// a link holder (refused unless the owner allows), another account, a cross-site request, a
// traversal; the bounds (VIDEO_TRANSCODES) answered with a code; ffmpeg gone once the viewer
// leaves; without ffmpeg, the code that says what to install.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { clip, mp4 } from '../support/media.ts';
import { removeDirs, serverMode, startServer, type TestServer } from '../support/server.ts';
import { createUser, issueToken, me, setupAdmin } from '../support/auth.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
let admin: Client;
let alice: Client;
let bob: Client;
const FOLDER = 'Vidéos/Été 2025 & #1';
const MKV = 'Mariage de Zoë & Léo #2.mkv';
const AVI = 'Caméscope 1998 — Noël & #3.avi';
const OPTION = '-i évil.mkv';
const MP4 = 'Anniversaire de Léa.mp4';
const SECONDS = 4;
const LONG_AVI = 'Fête de l’école (long) & #6.avi';
const LONG_MKV = 'Vacances à Nîmes (long) & #7.mkv';
const q = (p: string) => encodeURIComponent(p);
const plan = (c: Client, p: string) => c.get(`/api/video/plan?path=${q(p)}`);

/** The server's ffmpeg children now. */
const ffmpegChildren = () => s.children('ffmpeg').map((c) => c.pid);

/** A whole answer's bytes (the stream ends when ffmpeg has written the video). */
async function whole(c: Client, url: string, headers: Record<string, string> = {}) {
  const res = await fetch(c.base + url, { headers: { cookie: c.cookieHeader, ...headers } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** A stream opened and its first bytes read, left open (ffmpeg waits on the viewer); `close` leaves, `rest` reads it to its end. */
async function opened(c: Client, url: string) {
  const abort = new AbortController();
  const res = await fetch(c.base + url, { headers: { cookie: c.cookieHeader }, signal: abort.signal });
  assert.is(res.status, 200, res.status === 200 ? '' : await res.text());
  const reader = res.body!.getReader();
  const first = await reader.read();
  assert.ok(first.value && first.value.length > 0, 'the stream gives bytes');
  return {
    async rest(): Promise<Buffer> {
      const parts = [Buffer.from(first.value!)];
      for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(Buffer.from(r.value));
      return Buffer.concat(parts);
    },
    close: () => {
      abort.abort();
      reader.releaseLock();
    },
  };
}

/** ffprobe's view of bytes: the container, its streams, its duration. */
function probe(bytes: Buffer) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-video-'));
  try {
    fs.writeFileSync(path.join(dir, 'out.mp4'), bytes);
    const out = execFileSync(
      'ffprobe',
      ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path.join(dir, 'out.mp4')],
      { encoding: 'utf8' },
    );
    return JSON.parse(out) as {
      format: { format_name: string; duration: string };
      streams: { codec_type: string; codec_name: string; height: number }[];
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The top-level boxes of an MP4, in order. */
function boxes(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let at = 0; at + 8 <= bytes.length && out.length < 10_000;) {
    const size = bytes.readUInt32BE(at);
    out.push(bytes.toString('latin1', at + 4, at + 8));
    if (size < 8) break;
    at += size;
  }
  return out;
}

test.before(async () => {
  s = await startServer({ env: { USER_DIR_ENABLED: 'true', VIDEO_TRANSCODES: '1' }, volumes: ['Files'] });
  admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  const dir = path.join(s.dirs.volumes, 'Files', FOLDER);
  fs.mkdirSync(dir, { recursive: true });
  const mkv = clip('mkv', SECONDS);
  fs.writeFileSync(path.join(dir, MKV), mkv);
  fs.writeFileSync(path.join(dir, OPTION), mkv);
  fs.writeFileSync(path.join(dir, AVI), clip('avi', SECONDS));
  fs.writeFileSync(path.join(dir, 'Cassette 2 & #4.avi'), clip('avi', SECONDS));
  // Long enough that a viewer reading slowly keeps ffmpeg running.
  fs.writeFileSync(path.join(dir, LONG_AVI), clip('avi', 12, { noisy: true }));
  fs.writeFileSync(path.join(dir, LONG_MKV), clip('mkv', 12, { noisy: true }));
  fs.writeFileSync(path.join(dir, MP4), mp4(2));
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('the play decision per file: MP4 as it is, MKV repackaged, AVI converted, with the duration', async () => {
  const direct = await plan(alice, `Files/${FOLDER}/${MP4}`);
  assert.is(direct.status, 200, direct.text);
  assert.is(direct.json.mode, 'direct');
  const mkv = await plan(alice, `Files/${FOLDER}/${MKV}`);
  assert.is(mkv.status, 200, mkv.text);
  assert.equal(
    [mkv.json.mode, mkv.json.videoCodec, mkv.json.audioCodec, mkv.json.width, mkv.json.height],
    ['remux', 'h264', 'aac', 320, 240],
  );
  assert.ok(Math.abs(mkv.json.duration - SECONDS) < 0.5, String(mkv.json.duration));
  const avi = await plan(alice, `Files/${FOLDER}/${AVI}`);
  assert.is(avi.status, 200, avi.text);
  assert.equal([avi.json.mode, avi.json.videoCodec, avi.json.audioCodec], ['transcode', 'mpeg4', 'mp3']);
  assert.match(avi.json.reason, /mpeg4/);
  // A name that reads as an option is only ever a name: ffmpeg reads the checked descriptor.
  const option = await plan(alice, `Files/${FOLDER}/${OPTION}`);
  assert.is(option.json.mode, 'remux', option.text);
  const notVideo = await alice.post('/api/files/file', {
    path: `Files/${FOLDER}`,
    name: 'Notes & #5.txt',
    content: 'x',
  });
  assert.is(notVideo.status, 201, notVideo.text);
  assert.is(envelope(await plan(alice, `Files/${FOLDER}/Notes & #5.txt`)).code, 'NOT_PREVIEWABLE');
});

test('the MKV remuxed is fragmented MP4 with its own H.264/AAC; the AVI converted is H.264/AAC', async () => {
  const mkv = await whole(alice, `/api/video/stream?path=${q(`Files/${FOLDER}/${MKV}`)}`);
  assert.is(mkv.status, 200, mkv.body.toString().slice(0, 300));
  assert.is(mkv.headers.get('content-type'), 'video/mp4');
  assert.is(mkv.headers.get('x-video-mode'), 'remux');
  const top = boxes(mkv.body);
  assert.equal(top.slice(0, 2), ['ftyp', 'moov'], top.join(' '));
  assert.ok(top.includes('moof') && top.includes('mdat'), top.join(' '));
  const m = probe(mkv.body);
  assert.match(m.format.format_name, /mp4/);
  assert.equal(m.streams.map((x) => x.codec_name).sort(), ['aac', 'h264']);
  assert.ok(Math.abs(Number(m.format.duration) - SECONDS) < 0.5, m.format.duration);

  const avi = await whole(alice, `/api/video/stream?path=${q(`Files/${FOLDER}/${AVI}`)}`);
  assert.is(avi.status, 200, avi.body.toString().slice(0, 300));
  assert.is(avi.headers.get('x-video-mode'), 'transcode');
  assert.ok(boxes(avi.body).includes('moof'));
  const a = probe(avi.body);
  assert.equal(a.streams.map((x) => x.codec_name).sort(), ['aac', 'h264']);
  assert.ok(Math.abs(Number(a.format.duration) - SECONDS) < 0.5, a.format.duration);

  const option = await whole(alice, `/api/video/stream?path=${q(`Files/${FOLDER}/${OPTION}`)}`);
  assert.is(option.status, 200);
  assert.equal(
    probe(option.body)
      .streams.map((x) => x.codec_name)
      .sort(),
    ['aac', 'h264'],
  );
});

test('a seek is a stream from that time: what is left of the video', async () => {
  // Converted, it starts at the time asked; repackaged, at the keyframe before it (one a second).
  for (const [name, most] of [
    [MKV, 3.1],
    [AVI, 2.6],
  ] as const) {
    const from2 = await whole(alice, `/api/video/stream?path=${q(`Files/${FOLDER}/${name}`)}&start=2`);
    assert.is(from2.status, 200, name);
    const left = Number(probe(from2.body).format.duration);
    assert.ok(left > 1.4 && left < most, `${name}: ${left} s left from 2 s of ${SECONDS}`);
  }
  const past = await alice.get(`/api/video/stream?path=${q(`Files/${FOLDER}/${MKV}`)}&start=60`);
  assert.is(past.status, 400, past.text);
  assert.is(envelope(past).code, 'BAD_REQUEST');
  assert.is((await alice.get(`/api/video/stream?path=${q(`Files/${FOLDER}/${MKV}`)}&start=-1`)).status, 400);
});

test('a link holder: refused by default with a clear code, played once the owner allows', async () => {
  const made = await alice.post('/api/shares', { sourcePath: `Files/${FOLDER}`, sharingType: 'anyone' });
  assert.is(made.status, 201, made.text);
  assert.is(made.json.allowTranscode, false);
  const t = made.json.shareToken;
  const v = new Client(s.url);
  const refused = await v.get(`/api/share/${t}/video/plan?path=${q(MKV)}`);
  assert.is(refused.status, 403, refused.text);
  assert.is(envelope(refused).code, 'VIDEO_LINK_NOT_ALLOWED');
  assert.match(envelope(refused).message, /owner of this link/);
  const stream = await v.get(`/api/share/${t}/video/stream?path=${q(MKV)}`);
  assert.is(envelope(stream).code, 'VIDEO_LINK_NOT_ALLOWED');
  // What plays as it is needs no conversion: the link's inline file.
  assert.is((await v.get(`/api/share/${t}/video/plan?path=${q(MP4)}`)).json.mode, 'direct');
  assert.is(ffmpegChildren().length, 0);

  const allowed = await alice.put(`/api/shares/${made.json.id}`, { allowTranscode: true });
  assert.is(allowed.json.allowTranscode, true, allowed.text);
  assert.is((await v.get(`/api/share/${t}/video/plan?path=${q(MKV)}`)).json.mode, 'remux');
  const got = await whole(v, `/api/share/${t}/video/stream?path=${q(AVI)}&start=1`);
  assert.is(got.status, 200, got.body.toString().slice(0, 300));
  assert.equal(
    probe(got.body)
      .streams.map((x) => x.codec_name)
      .sort(),
    ['aac', 'h264'],
  );
  // The link reaches its folder and nothing beside it.
  const out = await v.get(`/api/share/${t}/video/stream?path=${q(`../${FOLDER.split('/')[1]}/${MKV}`)}`);
  assert.ok([400, 403, 404].includes(out.status), `${out.status}`);
  // Changing the access mode keeps the choice; unticked, refused again.
  assert.is((await alice.put(`/api/shares/${made.json.id}`, { accessMode: 'readwrite' })).json.allowTranscode, true);
  await alice.put(`/api/shares/${made.json.id}`, { allowTranscode: false });
  assert.is(envelope(await v.get(`/api/share/${t}/video/plan?path=${q(MKV)}`)).code, 'VIDEO_LINK_NOT_ALLOWED');
});

test('another account without read, a traversal and a cross-site request are refused; nothing starts', async () => {
  const put = await alice.post('/api/files/file', { path: 'personal', name: 'marker.txt', content: 'mine' });
  assert.is(put.status, 201, put.text);
  const own = fs.readdirSync(s.dirs.users).find((d) => fs.existsSync(path.join(s.dirs.users, d, 'marker.txt')))!;
  fs.copyFileSync(path.join(s.dirs.volumes, 'Files', FOLDER, MKV), path.join(s.dirs.users, own, MKV));
  assert.is((await plan(alice, `personal/${MKV}`)).json.mode, 'remux');
  fs.symlinkSync(path.join(s.dirs.users, own), path.join(s.dirs.volumes, 'Files', 'peek'));
  try {
    for (const p of [`personal/${MKV}`, `Files/peek/${MKV}`, `Files/${FOLDER}/../../../peek/${MKV}`]) {
      for (const url of [`/api/video/plan?path=${q(p)}`, `/api/video/stream?path=${q(p)}`]) {
        const other = await bob.get(url);
        assert.ok([400, 403, 404].includes(other.status), `${url}: ${other.status}`);
        assert.not.match(other.text, /h264|remux/);
      }
    }
  } finally {
    fs.unlinkSync(path.join(s.dirs.volumes, 'Files', 'peek'));
  }
  const foreign = await alice.get(`/api/video/stream?path=${q(`Files/${FOLDER}/${MKV}`)}`, {
    'sec-fetch-site': 'cross-site',
  });
  assert.is(foreign.status, 403, foreign.text);
  assert.is(envelope(foreign).code, 'CROSS_SITE_REFUSED');
  assert.is(ffmpegChildren().length, 0);
});

test('conversions past VIDEO_TRANSCODES are refused with a code; a seek replaces the viewer’s stream; ffmpeg ends with the viewer', async () => {
  const first = await opened(alice, `/api/video/stream?path=${q(`Files/${FOLDER}/${LONG_AVI}`)}`);
  await waitFor(() => ffmpegChildren().length === 1, { what: 'one ffmpeg' });
  const busy = await alice.get(`/api/video/stream?path=${q(`Files/${FOLDER}/Cassette 2 & #4.avi`)}`);
  assert.is(busy.status, 503, busy.text);
  assert.is(envelope(busy).code, 'VIDEO_BUSY');
  assert.match(envelope(busy).message, /try again/);
  // A remux costs no conversion: it still plays beside the conversion.
  const remux = await opened(bob, `/api/video/stream?path=${q(`Files/${FOLDER}/${LONG_MKV}`)}`);
  await waitFor(() => ffmpegChildren().length === 2, { what: 'two ffmpeg' });
  // The same viewer seeking in the same file: its stream is replaced, not added.
  const before = ffmpegChildren();
  const seek = await opened(alice, `/api/video/stream?path=${q(`Files/${FOLDER}/${LONG_AVI}`)}&start=6`);
  await waitFor(
    () => {
      const now = ffmpegChildren();
      return now.length === 2 && now.some((p) => !before.includes(p));
    },
    { what: 'the seek replacing the stream' },
  );
  first.close();
  remux.close();
  seek.close();
  await waitFor(() => ffmpegChildren().length === 0, { what: 'no ffmpeg once the viewers left' });
});

test('viewers of one file from the same time share one ffmpeg, each gets the whole video; a seek leaves the others theirs', async () => {
  // Every ffmpeg the server starts meanwhile (sampled from /proc).
  const started = new Set<number>();
  const sample = setInterval(() => ffmpegChildren().forEach((p) => started.add(p)), 10);
  try {
    const avi = `/api/video/stream?path=${q(`Files/${FOLDER}/${LONG_AVI}`)}`;
    const first = await opened(alice, avi);
    // Past VIDEO_TRANSCODES (1) were it a conversion of its own.
    const second = await opened(bob, avi);
    const [a, b] = await Promise.all([first.rest(), second.rest()]);
    assert.is(started.size, 1, [...started].join(' '));
    assert.ok(a.equals(b), `${a.length} and ${b.length} bytes differ`);
    const seen = probe(a);
    assert.ok(Math.abs(Number(seen.format.duration) - 12) < 0.5, seen.format.duration);
    assert.equal(
      seen.streams.map((x) => x.codec_name),
      ['h264', 'aac'],
    );
  } finally {
    clearInterval(sample);
  }
  await waitFor(() => ffmpegChildren().length === 0, { what: 'no ffmpeg once both had the video' });

  // Alice seeks: a stream of her own from 6 s; Bob's goes on to the end.
  const mkv = `/api/video/stream?path=${q(`Files/${FOLDER}/${LONG_MKV}`)}`;
  const hers = await opened(alice, mkv);
  const his = await opened(bob, mkv);
  const seek = await opened(alice, `${mkv}&start=6`);
  const [, whole, fromSix] = await Promise.all([hers.rest().catch(() => null), his.rest(), seek.rest()]);
  assert.ok(Math.abs(Number(probe(whole).format.duration) - 12) < 0.5, probe(whole).format.duration);
  // What is left from 6 s (copied codecs start at the keyframe before it: at most a second more).
  const left = Number(probe(fromSix).format.duration);
  assert.ok(left > 5.5 && left < 7.5, `${left} s left from 6 s of 12`);
  await waitFor(() => ffmpegChildren().length === 0, { what: 'no ffmpeg once the viewers left' });
});

test('a viewer joining long after a stream began (past the 16 MiB it used to hold) gets the whole video from the same ffmpeg', async () => {
  // Eight seconds of 720p noise, repackaged: about 70 MB of stream — far more than the sockets
  // between Alice and the server hold once she stops reading (megabytes each way), so her
  // stream still runs when Bob asks. (A stream all of whose viewers were sent it whole has
  // ended, ffmpeg with it, and the next viewer starts another: with 25 MB, ffmpeg sometimes
  // finished into those buffers before Bob came.)
  const big = 'Drohnenflug über Nîmes (720p) & #8.mkv';
  fs.writeFileSync(path.join(s.dirs.volumes, 'Files', FOLDER, big), clip('mkv', 8, { noisy: true, size: '1280x720' }));
  const url = `/api/video/stream?path=${q(`Files/${FOLDER}/${big}`)}`;
  // Every ffmpeg the server runs once Bob asks (sampled from /proc).
  const sinceBob = new Set<number>();
  let bobAsked = false;
  const sample = setInterval(() => bobAsked && ffmpegChildren().forEach((p) => sinceBob.add(p)), 10);
  try {
    const res = await fetch(alice.base + url, { headers: { cookie: alice.cookieHeader } });
    assert.is(res.status, 200);
    const reader = res.body!.getReader();
    const hers: Buffer[] = [];
    let read = 0;
    while (read <= 18 * 1024 * 1024) {
      const r = await reader.read();
      if (r.done) assert.unreachable(`the stream ended after ${read} bytes`);
      else {
        hers.push(Buffer.from(r.value));
        read += r.value.length;
      }
    }
    // Bob opens it now: the same ffmpeg, the video from its first byte.
    const running = ffmpegChildren();
    assert.is(running.length, 1, `one ffmpeg streams to Alice: ${running.join(' ')}`);
    bobAsked = true;
    const his = await whole(bob, url);
    assert.is(his.status, 200, his.body.toString().slice(0, 300));
    for (let r = await reader.read(); !r.done; r = await reader.read()) hers.push(Buffer.from(r.value));
    const mine = Buffer.concat(hers);
    const startedForBob = [...sinceBob].filter((p) => !running.includes(p));
    assert.equal(startedForBob, [], `Bob's request started an ffmpeg of its own beside ${running.join(' ')}`);
    assert.ok(his.body.equals(mine), `${his.body.length} and ${mine.length} bytes differ`);
    const seen = probe(his.body);
    assert.ok(Math.abs(Number(seen.format.duration) - 8) < 0.5, seen.format.duration);
    assert.equal(
      seen.streams.map((x) => x.codec_name),
      ['h264', 'aac'],
    );
  } finally {
    clearInterval(sample);
  }
  await waitFor(() => ffmpegChildren().length === 0, { what: 'no ffmpeg once both had the video' });
  // What was held for the late viewer is gone with the stream.
  const held = path.join(s.dirs.cache, 'video');
  assert.equal(fs.existsSync(held) ? fs.readdirSync(held) : [], []);
});

test('a running stream is joined by no one who may not see or convert its file: another account, its read token, links', async () => {
  const avi = `Files/${FOLDER}/${LONG_AVI}`;
  const mkv = `Files/${FOLDER}/${LONG_MKV}`;
  // Alice watches both (she reads slowly: ffmpeg waits on her, its beginning held for joiners).
  const hers = await opened(alice, `/api/video/stream?path=${q(avi)}`);
  const hersToo = await opened(alice, `/api/video/stream?path=${q(mkv)}`);
  await waitFor(() => ffmpegChildren().length === 2, { what: 'her two streams' });
  const running = ffmpegChildren().sort();
  // The folder hidden from a group Bob is in.
  const group = (await admin.post('/api/access/groups', { name: 'Voisins & amis 🏡' })).json.group.id;
  assert.is((await admin.post(`/api/access/groups/${group}/members`, { userId: (await me(bob)).id })).status, 204);
  const rule = await admin.put('/api/access/rules', {
    path: `Files/${FOLDER}`,
    subject: { kind: 'group', id: group },
    level: 'hidden',
  });
  assert.is(rule.status, 200, rule.text);
  const bobRead = new Client(s.url, await issueToken(bob, 'read', { password: 'bob-password-1' }));
  // Bob's own link to the whole volume, conversions allowed: it gives no more than Bob has.
  const bobs = await bob.post('/api/shares', { sourcePath: 'Files', sharingType: 'anyone', allowTranscode: true });
  assert.is(bobs.status, 201, bobs.text);
  // Alice's link to her folder without conversions, and one to the folder beside it with them.
  const plain = await alice.post('/api/shares', { sourcePath: `Files/${FOLDER}`, sharingType: 'anyone' });
  assert.is(plain.status, 201, plain.text);
  fs.mkdirSync(path.join(s.dirs.volumes, 'Files', 'Vidéos', 'Autres & #9'), { recursive: true });
  const beside = await alice.post('/api/shares', {
    sourcePath: 'Files/Vidéos/Autres & #9',
    sharingType: 'anyone',
    allowTranscode: true,
  });
  assert.is(beside.status, 201, beside.text);
  assert.is(beside.json.allowTranscode, true, beside.text);
  const holder = new Client(s.url);
  const leaked = (text: string) => /h264|mpeg4|remux|transcode/.test(text);
  // Every ffmpeg the server runs meanwhile (sampled from /proc): hers alone.
  const started = new Set<number>();
  const sample = setInterval(() => ffmpegChildren().forEach((p) => started.add(p)), 10);
  try {
    for (const p of [avi, mkv]) {
      for (const c of [bob, bobRead]) {
        const joined = await c.get(`/api/video/stream?path=${q(p)}`);
        assert.is(joined.status, 404, `${p}: ${joined.text}`);
        assert.not.ok(leaked(joined.text), joined.text);
      }
      const name = p.slice(p.lastIndexOf('/') + 1);
      const viaBobs = await holder.get(
        `/api/share/${bobs.json.shareToken}/video/stream?path=${q(p.slice('Files/'.length))}`,
      );
      assert.is(viaBobs.status, 404, viaBobs.text);
      const noConversions = await holder.get(`/api/share/${plain.json.shareToken}/video/stream?path=${q(name)}`);
      assert.is(noConversions.status, 403, noConversions.text);
      assert.is(envelope(noConversions).code, 'VIDEO_LINK_NOT_ALLOWED');
      for (const outside of [name, `../${FOLDER.split('/')[1]}/${name}`]) {
        const other = await holder.get(`/api/share/${beside.json.shareToken}/video/stream?path=${q(outside)}`);
        assert.ok([400, 403, 404].includes(other.status), `${outside}: ${other.status} ${other.text}`);
        assert.not.ok(leaked(other.text), other.text);
      }
    }
    // Nobody joined, nothing new started: her two streams alone.
    assert.equal(
      [...started].filter((p) => !running.includes(p)),
      [],
    );
  } finally {
    clearInterval(sample);
    hers.close();
    hersToo.close();
    assert.is((await admin.delete(`/api/access/rules/${rule.json.rule.id}`)).status, 204);
  }
  await waitFor(() => ffmpegChildren().length === 0, { what: 'no ffmpeg once she left' });
});

test('without ffmpeg: MP4 still plays as it is, the others answer what to install', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-no-ffmpeg-'));
  fs.writeFileSync(
    path.join(s.dirs.volumes, 'Files', FOLDER, 'Copie.mkv'),
    fs.readFileSync(path.join(s.dirs.volumes, 'Files', FOLDER, MKV)),
  );
  fs.writeFileSync(
    path.join(s.dirs.volumes, 'Files', FOLDER, 'Copie.mp4'),
    fs.readFileSync(path.join(s.dirs.volumes, 'Files', FOLDER, MP4)),
  );
  // From source the server is this process: its PATH is ours. The executable gets its own.
  const saved = process.env.PATH;
  if (serverMode === 'source') process.env.PATH = empty;
  else await s.restart({ PATH: empty });
  try {
    const mkv = await plan(alice, `Files/${FOLDER}/Copie.mkv`);
    assert.is(mkv.status, 501, mkv.text);
    assert.is(envelope(mkv).code, 'VIDEO_NEEDS_FFMPEG');
    assert.match(envelope(mkv).message, /apt install ffmpeg/);
    assert.is((await plan(alice, `Files/${FOLDER}/Copie.mp4`)).json.mode, 'direct');
  } finally {
    if (serverMode === 'source') process.env.PATH = saved;
    else await s.restart({ PATH: '/usr/bin:/bin' });
    fs.rmSync(empty, { recursive: true, force: true });
  }
});

test.run();
