// A thumbnail is drawn from the descriptor that was checked (confined.ts opened it), never from
// its name again: here the name given beside the descriptor is another picture's — the state
// right after a swap of the name — and the thumbnail is still the checked file's, as it is once
// the name is gone. The bytes go to the picture child down its pipe in frames: pictures of
// several MiB (several frames) drawn at the same time (their frames alternate) each come back as
// their own.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../src/core/log.ts';
import { createThumbnails } from '../../src/previews/thumbnails.ts';
import { png } from '../support/media.ts';

const image = createRequire(import.meta.url)('@napi-rs/image') as any;
const quiet = createLogger('error', {}, () => {});

/** A picture of noise (it does not compress: a PNG of several MiB). */
function noise(width: number, height: number): Promise<Buffer> {
  const px = randomBytes(width * height * 4);
  for (let i = 3; i < px.length; i += 4) px[i] = 255;
  return image.Transformer.fromRgbaPixels(px, width, height).png();
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow thumbs — été & 100% #1 '));
const photos = path.join(dir, 'Photos', 'Été 2024 — Ñandú 🦤');
const thumbs = createThumbnails({
  cacheDir: path.join(dir, 'cache'),
  settings: () => ({ enabled: true, size: 128, quality: 80, concurrency: 3 }),
  log: quiet,
});
// The picture child and its pipes never keep a process alive (a server's listener does): this
// test's process is kept alive while it waits for them.
const alive = setInterval(() => {}, 60_000);
test.after(() => {
  clearInterval(alive);
  thumbs.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The checked descriptor of `file`, as confined.ts hands it over, named `as`. */
function opened(file: string, as = file) {
  const fd = fs.openSync(file, 'r');
  return { fd, stat: fs.fstatSync(fd), path: as };
}

async function drawn(made: { name: string } | null): Promise<[number, number]> {
  assert.ok(made, 'a thumbnail was made');
  const meta = await new image.Transformer(fs.readFileSync(thumbs.cachedFile(made.name)!)).metadata();
  return [meta.width, meta.height];
}

test('the checked descriptor is drawn, not what its name is now', async () => {
  fs.mkdirSync(photos, { recursive: true });
  const checked = path.join(photos, 'Ma photo #1 (paysage).png');
  const other = path.join(photos, "L'autre 😀 (portrait).png");
  fs.writeFileSync(checked, await png(400, 200));
  fs.writeFileSync(other, await png(200, 400));
  const o = opened(checked, other);
  try {
    assert.equal(await drawn(await thumbs.thumbnailFor(other, o, { kind: 'png' })), [128, 64]);
  } finally {
    fs.closeSync(o.fd);
  }
  // The name gone after the check: the descriptor still reads the picture.
  const gone = path.join(photos, 'Parti — 100%.png');
  fs.writeFileSync(gone, await png(300, 100));
  const g = opened(gone);
  fs.rmSync(gone);
  try {
    assert.equal(await drawn(await thumbs.thumbnailFor(gone, g, { kind: 'png' })), [128, 43]);
  } finally {
    fs.closeSync(g.fd);
  }
});

test('pictures of several MiB drawn at the same time each come back as their own', async () => {
  const sizes: [number, number][] = [
    [1200, 600],
    [600, 1200],
    [900, 900],
  ];
  const files = await Promise.all(
    sizes.map(async ([w, h], i) => {
      const file = path.join(photos, `Bruit ${i + 1} — ${w}×${h}.png`);
      fs.writeFileSync(file, await noise(w, h));
      return file;
    }),
  );
  for (const f of files) assert.ok(fs.statSync(f).size > 2 * 1024 * 1024, 'more than two frames each');
  const all = files.map((f) => opened(f));
  try {
    const names = await Promise.all(all.map((o) => thumbs.thumbnailFor(o.path, o, { kind: 'png' })));
    assert.equal(await Promise.all(names.map(drawn)), [
      [128, 64],
      [64, 128],
      [128, 128],
    ]);
  } finally {
    for (const o of all) fs.closeSync(o.fd);
  }
});

test.run();
