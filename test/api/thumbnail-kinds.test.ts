// Thumbnails beyond what the image add-on decodes itself, and the viewer's screen-sized
// renditions: EXIF orientation applied, SVG rasterised (its script never runs: the add-on has
// no script engine), GIF's first frame, a video's first frame through ffmpeg; `size` rounded
// up to a bounded set of renditions, never enlarged, each cached under its own name. Pictures
// are drawn in a child process of the server that leaves when idle (its memory goes with it).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setupAdmin } from '../support/auth.ts';
import type { Client } from '../support/client.ts';
import { HOSTILE_SVG, animatedGif, png, rotatedJpeg, webm } from '../support/media.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const image = createRequire(import.meta.url)('@napi-rs/image') as any;

let s: TestServer;
let admin: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);

async function dims(url: string): Promise<[number, number]> {
  const res = await fetch(admin.base + url, { headers: { cookie: admin.cookieHeader } });
  assert.is(res.status, 200, url);
  const meta = await new image.Transformer(Buffer.from(await res.arrayBuffer())).metadata();
  return [meta.width, meta.height];
}

test.before(async () => {
  s = await startServer({});
  admin = await setupAdmin(s);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('GIF, SVG and video kinds are listed with thumbnails and get one', async () => {
  fs.writeFileSync(vol('anim.gif'), animatedGif());
  fs.writeFileSync(vol('hostile.svg'), HOSTILE_SVG);
  fs.writeFileSync(vol('clip.webm'), webm());
  const items = (await admin.get('/api/browse/Files')).json.items as any[];
  for (const n of ['anim.gif', 'hostile.svg', 'clip.webm'])
    assert.is(items.find((i) => i.name === n)?.supportsThumbnail, true, n);
  const gif = (await admin.get('/api/thumbnails/Files/anim.gif')).json.thumbnail;
  assert.match(gif, /^\/api\/thumbnails-cache\/[0-9a-f]{64}\.webp\?path=Files\/anim\.gif$/);
  assert.equal(await dims(gif), [40, 30]);
  const svg = (await admin.get('/api/thumbnails/Files/hostile.svg')).json.thumbnail;
  // The add-on rasterises small SVGs large (a vector is sharp at any size), then it is fitted.
  assert.equal(await dims(svg), [256, 171]);
  const video = (await admin.get('/api/thumbnails/Files/clip.webm')).json.thumbnail;
  assert.equal(await dims(video), [160, 120], 'a poster frame from ffmpeg');
});

test('renditions: EXIF orientation applied, size rounded up to a rendition, never enlarged, cached apart', async () => {
  fs.writeFileSync(vol('photo.jpg'), await rotatedJpeg(3000, 1500));
  fs.writeFileSync(vol('small.png'), await png(300, 200));
  const thumb = (await admin.get('/api/thumbnails/Files/photo.jpg')).json.thumbnail;
  assert.equal(await dims(thumb), [128, 256], 'thumbnail upright (orientation 6)');
  const r = await admin.get('/api/thumbnails/Files/photo.jpg?size=1000');
  assert.is(r.status, 200);
  assert.is.not(r.json.thumbnail, thumb);
  assert.equal(await dims(r.json.thumbnail), [640, 1280], '1000 rounds up to the 1280 rendition, upright');
  assert.is(
    (await admin.get('/api/thumbnails/Files/photo.jpg?size=1280')).json.thumbnail,
    r.json.thumbnail,
    'same rendition, same cached name',
  );
  assert.equal(
    await dims((await admin.get('/api/thumbnails/Files/photo.jpg?size=99999')).json.thumbnail),
    [1280, 2560],
    'bounded by the largest rendition',
  );
  assert.equal(
    await dims((await admin.get('/api/thumbnails/Files/small.png?size=1920')).json.thumbnail),
    [300, 200],
    'never enlarged',
  );
  assert.is((await admin.get('/api/thumbnails/Files/photo.jpg?size=abc')).status, 400);
  assert.is((await admin.get('/api/thumbnails/Files/photo.jpg?size=0')).status, 400);
});

/** The server's children drawing pictures (`--picture-child` on their command line). */
function pictureChildren(): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (ppid === s.pid() && argv.includes('--picture-child')) found.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

test('a picture is drawn in a child process of the server, which leaves when there is nothing to draw', async () => {
  const name = 'Strand & Meer #3 — Ça va 😀.jpg';
  fs.writeFileSync(vol(name), await rotatedJpeg(3000, 2000));
  const thumb = (await admin.get(`/api/thumbnails/Files/${encodeURIComponent(name)}`)).json.thumbnail;
  assert.equal(await dims(thumb), [171, 256], 'drawn, upright');
  const children = pictureChildren();
  assert.is(children.length, 1, 'one child drew it and waits for the next picture');
  // A second picture right after is drawn by the same child.
  const r = await admin.get(`/api/thumbnails/Files/${encodeURIComponent(name)}?size=640`);
  assert.equal(await dims(r.json.thumbnail), [427, 640]);
  assert.equal(pictureChildren(), children);
  // Then it leaves (after 10 s without a picture), and the next picture starts another.
  await waitFor(() => pictureChildren().length === 0, { what: 'the picture child to leave', timeoutMs: 60_000 });
  const again = await admin.get(`/api/thumbnails/Files/${encodeURIComponent(name)}?size=1280`);
  assert.equal(await dims(again.json.thumbnail), [853, 1280]);
  assert.is(pictureChildren().length, 1);
});

test.run();
