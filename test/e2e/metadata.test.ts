// What files say about themselves, in Chromium against the real server: a photo's details panel
// shows when it was taken, the camera, lens, exposure and where (a JPEG with EXIF and GPS made by
// the test); a song's viewer shows its cover, title, artist and album (an MP3 with ID3v2 and a
// front picture, by ffmpeg) and its details the tags; a video's details its length, resolution and
// codecs (an MP4 by ffmpeg); search results sorted by the date the photos say they were taken
// (not the files' own times), each photo's row saying when. Desktop and phone, light and dark; screenshots in test/.artifacts/.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { cameraJpeg, FUJI_X_T30, mp4, png, taggedMp3 } from '../support/media.ts';
import { removeDirs, type TestServer } from '../support/server.ts';
import { DESKTOP, PHONE, launch, newPage, setupAdmin, shot, startWithUi } from './browser.ts';
import { waitFor } from '../support/wait.ts';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];
const FOLDER = 'Été 2025 — Paris & #1';
const PHOTO = 'Tour Eiffel + moi 🌅.jpg';
const SONG = '03 Clair de lune.mp3';
const CLIP = 'Anniversaire de Léa.mp4';
/** Taken in 2019 and 2023, their files' own times the other way round (2024 and 2020). */
const BEACH = 'Plage à Nice — août 2019 & #2.jpg';
const SNOW = 'Neige + luge 2023 ❄️.jpg';
const files = (...p: string[]) => path.join(server.dirs.volumes, 'Files', FOLDER, ...p);

async function details(name: string) {
  await page.goto(`${server.url}/files/Files/${encodeURIComponent(FOLDER)}`);
  const entry = page.locator(`.entry[data-name="${name}"]`);
  await entry.click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Details and versions' }).click();
  const panel = page.getByRole('complementary', { name: `Details of ${name}` });
  await panel.waitFor();
  return panel;
}

/** The panel's facts as label → value. */
async function facts(panel: ReturnType<Page['locator']>, wanted: string): Promise<Record<string, string>> {
  await panel.locator('dt', { hasText: wanted }).waitFor();
  const dts = await panel.locator('dl.facts dt').allInnerTexts();
  const dds = await panel.locator('dl.facts dd').allInnerTexts();
  return Object.fromEntries(dts.map((d, i) => [d, dds[i]!]));
}

test.before(async () => {
  server = await startWithUi({}, ['Files']);
  fs.mkdirSync(files(), { recursive: true });
  fs.writeFileSync(files(PHOTO), await cameraJpeg(640, 480, { ...FUJI_X_T30, orientation: undefined }));
  fs.writeFileSync(
    files(SONG),
    taggedMp3(
      2,
      { title: 'Clair de lune', artist: 'Debussy & Friends', album: 'Suite bergamasque', track: '3/4', date: '1905' },
      await png(120, 120),
    ),
  );
  fs.writeFileSync(files(CLIP), mp4(2));
  for (const [name, taken, modified] of [
    [BEACH, '2019:08:02 09:15:00', '2024-01-10T12:00:00Z'],
    [SNOW, '2023:02:11 15:40:00', '2020-01-10T12:00:00Z'],
  ] as const) {
    fs.writeFileSync(files(name), await cameraJpeg(64, 48, { ...FUJI_X_T30, orientation: undefined, taken }));
    fs.utimesSync(files(name), new Date(modified), new Date(modified));
  }
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

test("a photo's details: taken, camera, lens, exposure and where", async () => {
  const panel = await details(PHOTO);
  const f = await facts(panel, 'Location');
  assert.is(f['Taken'], '2025-07-14 18:03');
  assert.is(f['Camera'], 'FUJIFILM · X-T30');
  assert.is(f['Lens'], 'XF35mmF2 R WR');
  assert.is(f['Exposure'], '1/250 s · f/5.6 · ISO 400 · 35 mm');
  assert.is(f['Dimensions'], '640 × 480');
  assert.is(f['Location'], '48.85819, 2.29450 · 35 m');
  const map = panel.getByRole('link', { name: '48.85819, 2.29450' });
  assert.match((await map.getAttribute('href'))!, /^https:\/\/www\.openstreetmap\.org\/\?mlat=48\.858/);
  assert.is(await map.getAttribute('rel'), 'noopener noreferrer');
  await shot(page, 'metadata-photo-desktop');
});

test("a song's viewer shows its cover and tags; its details the album and track; a video's its streams", async () => {
  await page.goto(`${server.url}/files/Files/${encodeURIComponent(FOLDER)}`);
  await page.locator(`.entry[data-name="${SONG}"]`).dblclick();
  const card = page.locator('.viewer .song-card');
  await card.waitFor();
  await card.locator('.song-title', { hasText: 'Clair de lune' }).waitFor();
  assert.is(await card.locator('.song-artist').innerText(), 'Debussy & Friends');
  const cover = card.getByRole('img', { name: 'Cover of Suite bergamasque' });
  await cover.waitFor();
  await waitFor(() => cover.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 120), {
    what: 'the cover drawn at its own size',
  });
  await shot(page, 'metadata-song-desktop');
  await page.keyboard.press('Escape');
  await page.locator('.viewer').waitFor({ state: 'detached' });
  const song = await facts(await details(SONG), 'Artist');
  assert.is(song['Title'], 'Clair de lune');
  assert.is(song['Artist'], 'Debussy & Friends');
  assert.is(song['Album'], 'Suite bergamasque · 1905');
  assert.is(song['Track'], '3 of 4');
  assert.match(song['Duration']!, /^[23] s$/);
  const clip = await facts(await details(CLIP), 'Codecs');
  assert.is(clip['Resolution'], '320 × 240');
  assert.is(clip['Codecs'], 'h264 · aac');
  assert.match(clip['Duration']!, /^[23] s$/);
});

test('search results sorted by the date each photo was taken, each saying when', async () => {
  // The index has read what the three photos say (server state, polled).
  const url = `${server.url}/api/search?q=${encodeURIComponent('kind:photo taken:<2030')}`;
  await waitFor(
    async () => {
      const r = await context.request.get(url);
      return r.ok() ? ((await r.json()) as { items: unknown[] }).items.length : -1;
    },
    { what: 'the three photos read by the index', until: (n) => n === 3, timeoutMs: 120_000 },
  );
  await page.goto(`${server.url}/search?q=${encodeURIComponent('kind:photo')}`);
  const rows = page.getByRole('list', { name: 'Name matches' }).getByRole('listitem');
  const order = () => rows.evaluateAll((li) => li.map((l) => (l as HTMLElement).dataset.name));
  // As asked first: newest file first (the beach's file is newer than the snow's).
  await waitFor(order, {
    what: 'newest file first',
    timeoutMs: 30_000,
    until: (o) => o.join('|') === [PHOTO, BEACH, SNOW].join('|'),
  });
  await page.getByRole('combobox', { name: 'Sort results' }).selectOption('taken');
  await waitFor(order, {
    what: 'newest taken first',
    timeoutMs: 30_000,
    until: (o) => o.join('|') === [PHOTO, SNOW, BEACH].join('|'),
  });
  const beach = page.locator(`.search-results li[data-name="${BEACH}"]`);
  await beach.locator('.taken', { hasText: 'Taken 2019-08-02 09:15' }).waitFor();
  await page.locator(`.search-results li[data-name="${SNOW}"] .taken`, { hasText: 'Taken 2023-02-11 15:40' }).waitFor();
  await shot(page, 'metadata-search-taken-desktop');
});

test('phone, dark: the song card and the photo facts fit the screen', async () => {
  const p = await newPage(browser, PHONE);
  await p.context.addCookies(await context.cookies());
  const phone = p.page;
  await phone.emulateMedia({ colorScheme: 'dark' });
  await phone.goto(`${server.url}/files/Files/${encodeURIComponent(FOLDER)}`);
  await phone.locator(`.entry[data-name="${SONG}"]`).dblclick();
  const card = phone.locator('.viewer .song-card');
  await card.waitFor();
  await card.getByRole('img', { name: 'Cover of Suite bergamasque' }).waitFor();
  const box = (await card.boundingBox())!;
  assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `${box.x}+${box.width}`);
  await shot(phone, 'metadata-song-phone-dark');
  assert.equal(p.problems, []);
  await p.context.close();
  assert.equal(problems, []);
});

test.run();
