// iPhone photos in Chromium, which cannot draw HEIC itself, at desktop and phone sizes (the
// journey harness): the folder shows each HEIC's thumbnail and the viewer its screen-sized
// rendition, both made by the server (libheif in WebAssembly, then WebP). Real HEIC files by libheif's heif-enc: a portrait photo as an iPhone
// writes it (stored sideways, turned by its irot property, EXIF orientation 6 beside it) and a
// landscape one, under names with spaces, accents, `+`, `’` and emoji. Each picture is read back
// from the page's own <img> (drawn into a canvas): its size and where its red and blue halves are.
import fs from 'node:fs';
import * as assert from 'uvu/assert';
import type { Locator } from 'playwright-core';
import { heicOf, iphoneHeic, splitPhotoJpeg } from '../support/media.ts';
import { HOME, cssString, filesAddress, journey, type Step } from './journey/harness.ts';

const FOLDER = 'iPhone – Été 2025 🌻';
const PORTRAIT = 'IMG_0413 Oma + Opa am Pont d’Avignon.HEIC';
const LANDSCAPE = 'IMG_0414 Pont du Gard (Kévin).heic';

const j = journey(import.meta.url);

/** An <img>'s own picture once decoded: its natural size and the colour at fractions of it. */
async function pictureOf(
  s: Step,
  img: Locator,
): Promise<{
  src: string;
  width: number;
  height: number;
  top: number[];
  bottom: number[];
  left: number[];
  right: number[];
}> {
  await s.decoded(img, 60_000);
  return img.evaluate((el: HTMLImageElement) => {
    const canvas = document.createElement('canvas');
    canvas.width = el.naturalWidth;
    canvas.height = el.naturalHeight;
    const g = canvas.getContext('2d')!;
    g.drawImage(el, 0, 0);
    const at = (fx: number, fy: number) =>
      Array.from(g.getImageData(Math.floor(fx * canvas.width), Math.floor(fy * canvas.height), 1, 1).data.slice(0, 3));
    return {
      src: el.getAttribute('src') ?? '',
      width: el.naturalWidth,
      height: el.naturalHeight,
      top: at(0.5, 0.2),
      bottom: at(0.5, 0.8),
      left: at(0.2, 0.5),
      right: at(0.8, 0.5),
    };
  });
}
const red = (c: number[]) => c[0]! > 150 && c[2]! < 90;
const blue = (c: number[]) => c[2]! > 150 && c[0]! < 90;

const thumbOf = (s: Step, name: string) => s.page.locator(`.entry[data-name=${cssString(name)}] img.thumb`);

j.step("the folder shows each HEIC's thumbnail, upright", async (s) => {
  fs.mkdirSync(s.disk(FOLDER));
  // Stored 1200 × 800: upright, 800 wide and 1200 tall, red above blue.
  fs.writeFileSync(s.disk(`${FOLDER}/${PORTRAIT}`), iphoneHeic(await splitPhotoJpeg(1200, 800, 6), 3));
  fs.writeFileSync(s.disk(`${FOLDER}/${LANDSCAPE}`), heicOf(await splitPhotoJpeg(1200, 800, 1)));
  await s.goto(filesAddress(HOME, FOLDER));
  await s.entry(PORTRAIT);
  const portrait = await pictureOf(s, thumbOf(s, PORTRAIT));
  assert.match(portrait.src, /^\/api\/thumbnails-cache\/[0-9a-f]{64}\.webp\?path=[^&]+(&size=\d+)?$/);
  assert.equal([portrait.width, portrait.height], [171, 256], 'the portrait thumbnail is upright');
  assert.ok(red(portrait.top) && blue(portrait.bottom), `red above blue: ${portrait.top} / ${portrait.bottom}`);
  await s.entry(LANDSCAPE);
  const landscape = await pictureOf(s, thumbOf(s, LANDSCAPE));
  assert.equal([landscape.width, landscape.height], [256, 171]);
  assert.ok(red(landscape.left) && blue(landscape.right), `red left of blue: ${landscape.left} / ${landscape.right}`);
});

j.step(
  'the viewer shows the portrait HEIC as the server rendered it, upright and whole',
  async (s) => {
    await s.open(await s.entry(PORTRAIT));
    const viewer = s.page.getByRole('dialog', { name: `Viewer: ${PORTRAIT}`, exact: true });
    await viewer.waitFor();
    const shown = await pictureOf(s, viewer.locator('.viewer-body img').first());
    // A rendition (WebP from the server), never the HEIC itself, which Chromium cannot draw.
    assert.match(shown.src, /^\/api\/thumbnails-cache\/[0-9a-f]{64}\.webp\?path=[^&]+(&size=\d+)?$/);
    assert.equal([shown.width, shown.height], [800, 1200], 'the whole picture, upright, never enlarged');
    assert.ok(red(shown.top) && blue(shown.bottom), `red above blue: ${shown.top} / ${shown.bottom}`);
    assert.is(await viewer.getByText(/cannot be shown here/).count(), 0);
  },
  { needs: ["the folder shows each HEIC's thumbnail, upright"] },
);

j.run();
