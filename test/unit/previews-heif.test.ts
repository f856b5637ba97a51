// The HEIF decoder's thread (src/previews/heif.ts): real HEIC files by libheif's heif-enc,
// decoded off the calling thread; the thread reused for pictures that follow each other, ended
// when idle (its WebAssembly memory with it) and after a picture that left that memory above
// its bound; a damaged file fails its picture, not the next one. Orientation: the decoder turns
// by the file's irot, and the EXIF orientation is left to apply only when there is none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HeifDecoder, MAX_HEAP_BYTES } from '../../src/previews/heif.ts';
import { heicOf, iphoneHeic, splitPhotoJpeg } from '../support/media.ts';
import { waitFor } from '../support/wait.ts';

const MAX_PIXELS = 80_000_000;
let sideways: Buffer;
let iphone: Buffer;
let landscape: Buffer;

test.before(async () => {
  sideways = heicOf(await splitPhotoJpeg(600, 400, 6));
  iphone = iphoneHeic(await splitPhotoJpeg(600, 400, 6), 3);
  landscape = heicOf(await splitPhotoJpeg(600, 400, 1));
});

/** The colour (r, g, b) at fractions of a decoded picture. */
const at = (d: { width: number; height: number; pixels: Uint8ClampedArray }, fx: number, fy: number) => {
  const i = (Math.floor(fy * d.height) * d.width + Math.floor(fx * d.width)) * 4;
  return [d.pixels[i]!, d.pixels[i + 1]!, d.pixels[i + 2]!];
};
const red = (c: number[]) => c[0]! > 150 && c[2]! < 90;

test('decodes to RGBA; turned by irot in the decoder, by EXIF orientation after it only without irot', async () => {
  const d = new HeifDecoder();
  try {
    const a = await d.decode(sideways, MAX_PIXELS);
    assert.equal([a.width, a.height, a.orientation], [600, 400, 6], 'no irot: the EXIF orientation is left to apply');
    assert.ok(red(at(a, 0.2, 0.5)), 'stored as it is: red on the left');
    const b = await d.decode(iphone, MAX_PIXELS);
    assert.equal([b.width, b.height, b.orientation], [400, 600, 1], 'irot applied; EXIF 6 not applied again');
    assert.ok(red(at(b, 0.5, 0.2)), 'upright: red on top');
    assert.is(b.pixels.length, 400 * 600 * 4);
    const c = await d.decode(landscape, MAX_PIXELS);
    assert.equal([c.width, c.height, c.orientation], [600, 400, 1]);
    assert.is(d.started, 1, 'one thread for pictures that follow each other');
  } finally {
    d.close();
  }
});

test('the thread ends when idle and the next picture starts another', async () => {
  const d = new HeifDecoder({ idleMs: 50 });
  try {
    await d.decode(landscape, MAX_PIXELS);
    assert.ok(d.running);
    await waitFor(() => !d.running, { what: 'the idle thread to end', timeoutMs: 10_000 });
    await d.decode(landscape, MAX_PIXELS);
    assert.is(d.started, 2);
  } finally {
    d.close();
  }
});

test("a picture that leaves the thread's memory above the bound ends the thread", async () => {
  assert.ok(MAX_HEAP_BYTES >= 128 * 1024 * 1024, 'a 12 MP picture fits under the bound');
  const d = new HeifDecoder({ maxHeapBytes: 1024, idleMs: 600_000 });
  try {
    await d.decode(landscape, MAX_PIXELS);
    await waitFor(() => !d.running, { what: 'the thread to end after its picture', timeoutMs: 10_000 });
    await d.decode(landscape, MAX_PIXELS);
    assert.is(d.started, 2);
  } finally {
    d.close();
  }
});

test('a damaged or oversized HEIC fails its own picture only', async () => {
  const d = new HeifDecoder();
  try {
    const cut = landscape.subarray(0, Math.floor(landscape.length * 0.6));
    await d.decode(cut, MAX_PIXELS).then(
      () => assert.unreachable('a truncated HEIC decoded'),
      (err: Error) => assert.ok(err instanceof Error),
    );
    await d.decode(Buffer.from('not a picture at all'), MAX_PIXELS).then(
      () => assert.unreachable('text decoded'),
      (err: Error) => assert.match(err.message, /not a HEIF/),
    );
    await d.decode(landscape, 600 * 400 - 1).then(
      () => assert.unreachable('a picture over the pixel bound decoded'),
      (err: Error) => assert.match(err.message, /too large/),
    );
    const ok = await d.decode(landscape, MAX_PIXELS);
    assert.equal([ok.width, ok.height], [600, 400]);
  } finally {
    d.close();
  }
});

test.run();
