// iPhone photos in Chromium, which cannot draw HEIC itself: the folder's grid shows each HEIC's
// thumbnail and the viewer shows its screen-sized rendition, both made by the server (libheif in
// WebAssembly, then WebP). Real HEIC files by libheif's heif-enc: a portrait photo as an iPhone
// writes it (stored sideways, turned by its irot property, EXIF orientation 6 beside it) and a
// landscape one, under names with spaces, accents, `+`, `’` and emoji. Each picture is read back
// from the page's own <img> (drawn into a canvas): its size and where its red and blue halves are.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { heicOf, iphoneHeic, splitPhotoJpeg } from '../support/media.ts';
import { removeDirs, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { DESKTOP, launch, newPage, setupAdmin, shot, startWithUi } from './browser.ts';

const FOLDER = 'iPhone – Été 2025 🌻';
const PORTRAIT = 'IMG_0413 Oma + Opa am Pont d’Avignon.HEIC';
const LANDSCAPE = 'IMG_0414 Pont du Gard (Kévin).heic';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];

/** An <img>'s own picture once decoded: its natural size and the colour at fractions of it. */
async function pictureOf(img: Locator): Promise<{
  src: string;
  width: number;
  height: number;
  top: number[];
  bottom: number[];
  left: number[];
  right: number[];
}> {
  await waitFor(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0), {
    what: 'the picture to arrive and decode',
    timeoutMs: 60_000,
  });
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

test.before(async () => {
  server = await startWithUi({}, ['Files']);
  const dir = path.join(server.dirs.volumes, 'Files', FOLDER);
  fs.mkdirSync(dir);
  // Stored 1200 × 800: upright, 800 wide and 1200 tall, red above blue.
  fs.writeFileSync(path.join(dir, PORTRAIT), iphoneHeic(await splitPhotoJpeg(1200, 800, 6), 3));
  fs.writeFileSync(path.join(dir, LANDSCAPE), heicOf(await splitPhotoJpeg(1200, 800, 1)));
  ({ browser } = await launch());
  const p = await newPage(browser, DESKTOP);
  context = p.context;
  page = p.page;
  problems = p.problems;
  await setupAdmin(context, server.url);
});

test.after(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  if (server) removeDirs(server.dirs);
});

test("the folder shows each HEIC's thumbnail, upright", async () => {
  await page.goto(`${server.url}/files/Files/${encodeURIComponent(FOLDER)}`);
  const portrait = await pictureOf(page.locator(`.entry[data-name="${PORTRAIT}"] img.thumb`));
  assert.match(portrait.src, /^\/api\/thumbnails-cache\/[0-9a-f]{64}\.webp$/);
  assert.equal([portrait.width, portrait.height], [171, 256], 'the portrait thumbnail is upright');
  assert.ok(red(portrait.top) && blue(portrait.bottom), `red above blue: ${portrait.top} / ${portrait.bottom}`);
  const landscape = await pictureOf(page.locator(`.entry[data-name="${LANDSCAPE}"] img.thumb`));
  assert.equal([landscape.width, landscape.height], [256, 171]);
  assert.ok(red(landscape.left) && blue(landscape.right), `red left of blue: ${landscape.left} / ${landscape.right}`);
  await shot(page, 'heic-folder');
});

test('the viewer shows the portrait HEIC as the server rendered it, upright and whole', async () => {
  await page.locator(`.entry[data-name="${PORTRAIT}"]`).dblclick();
  const viewer = page.getByRole('dialog', { name: `Viewer: ${PORTRAIT}`, exact: true });
  await viewer.waitFor();
  const img = viewer.locator('.viewer-body img').first();
  const shown = await pictureOf(img);
  // A rendition (WebP from the server), never the HEIC itself, which Chromium cannot draw.
  assert.match(shown.src, /^\/api\/thumbnails-cache\/[0-9a-f]{64}\.webp$/);
  assert.equal([shown.width, shown.height], [800, 1200], 'the whole picture, upright, never enlarged');
  assert.ok(red(shown.top) && blue(shown.bottom), `red above blue: ${shown.top} / ${shown.bottom}`);
  assert.is(await viewer.getByText(/cannot be shown here/).count(), 0);
  await shot(page, 'heic-viewer');
  assert.equal(problems, []);
});

test.run();
