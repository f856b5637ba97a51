// Video that plays, in Chromium against the real server, checked on both sides: what the page
// shows and what the server did (its ffmpeg children and their arguments, from /proc).
// - An MP4 of H.264/AAC plays in the browser's own player: no stream is asked, no ffmpeg runs.
// - An MKV of H.264/AAC is repackaged by the server's ffmpeg and an AVI of MPEG-4 Part 2/MP3
//   converted: the video element's time advances, the seek bar spans ffprobe's whole duration,
//   a seek asks for a stream from there (`start=`; the server's one ffmpeg for this viewer now
//   runs with `-ss`) and plays on; closing the viewer ends the server's ffmpeg.
// - A link's visitor: without the owner's leave to convert, the server's sentence (and the MP4
//   still plays); with it, the MKV plays through the server.
// - Without ffmpeg on the server: the MKV's viewer says what to install; the MP4 still plays.
// Names as people write them: spaces, &, #, accents (NFC and NFD), emoji. Desktop (mouse) and
// phone (touch, dark), screenshots in test/.artifacts/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { clip, mp4 } from '../support/media.ts';
import { removeDirs, serverMode, type TestServer } from '../support/server.ts';
import { DESKTOP, PHONE, launch, newPage, setupAdmin, shot, startWithUi } from './browser.ts';
import { waitFor } from '../support/wait.ts';

let server: TestServer;
let browser: Browser;
let cookies: Awaited<ReturnType<import('playwright-core').BrowserContext['cookies']>>;
const FOLDER = 'Vidéos de famille & #1 🎬';
/** Decomposed accents, as a Mac writes them. */
const MP4 = 'Anniversaire d’Éloïse 🎂 (2024).mp4'.normalize('NFD');
/** A minute of noise (45 MB): more than the browser and the sockets hold ahead on a link of 8 Mbit/s, so ffmpeg is still
 * running when the viewer leaves. */
const MKV = 'Mariage de Zoë & Léo 💍 #2.mkv';
const MKV_SECONDS = 60;
const AVI = 'Caméscope 1998 — Noël & #3.avi';
const AVI_SECONDS = 6;
const files = (...p: string[]) => path.join(server.dirs.volumes, 'Files', FOLDER, ...p);
const address = (name: string) => `${server.url}/files/Files/${encodeURIComponent(FOLDER)}/${encodeURIComponent(name)}`;

/** The player's state: the position it shows (its start plus the stream's own time). */
const state = (page: Page) =>
  page.locator('video').evaluate((v: HTMLVideoElement) => ({
    start: Number(v.dataset.start ?? 0),
    time: v.currentTime,
    paused: v.paused,
    error: v.error?.code ?? null,
    mode: v.dataset.mode,
  }));

/** The server's ffmpeg streams running now (a poster's ffmpeg writes a PNG): the time each starts from. */
const streams = () =>
  server
    .children('ffmpeg')
    .filter((c) => c.args.includes('frag_keyframe+empty_moov+default_base_moof'))
    .map((c) => (c.args.includes('-ss') ? Number(c.args[c.args.indexOf('-ss') + 1]) : 0));

/**
 * The page reads at most 1 MB/s (8 Mbit/s), a little faster than the noisy MKV plays: the rest waits in ffmpeg.
 * Its context runs no service worker (NO_WORKER): a page under the worker's control sends its requests
 * past DevTools' throttling and request events.
 */
const NO_WORKER = { serviceWorkers: 'block' } as const;
async function slowLink(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: 1_000_000,
    uploadThroughput: -1,
  });
}

const clock = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;

/** The streams the page asks for: the file and the start of each. */
function streamRequests(page: Page): { path: string; start: number }[] {
  const seen: { path: string; start: number }[] = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.endsWith('/video/stream'))
      seen.push({ path: u.searchParams.get('path') ?? '', start: Number(u.searchParams.get('start') ?? 0) });
  });
  return seen;
}

/** Until the video element's time passes `after` (autoplay may wait for a gesture: the player's own button starts it). */
async function playing(page: Page, what: string, after: number, start = 0) {
  await waitFor(
    async () => {
      const s = await state(page);
      assert.is(s.error, null, `${what}: the video element failed`);
      if (s.paused && s.start === start)
        await (s.mode === 'direct'
          ? page.locator('video').evaluate((v: HTMLVideoElement) => v.play())
          : page.getByRole('button', { name: 'Play' }).click());
      return s.start === start && s.time > after;
    },
    { what, timeoutMs: 60_000 },
  );
}

/** Seeks with the player's bar as a person drags it (input while dragging, change on release). */
async function seek(page: Page, to: number) {
  await page.getByRole('slider', { name: 'Position' }).evaluate((input: HTMLInputElement, to) => {
    input.value = String(to);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    input.dispatchEvent(new Event('change', { bubbles: true }));
  }, to);
}

/** A converted video plays with the whole duration on its bar, and a seek plays from there. */
async function convertedPlays(page: Page, name: string, mode: string, seconds: number, to: number, size: string) {
  const asked = streamRequests(page);
  await page.goto(address(name));
  await page.locator('.viewer video').waitFor({ timeout: 30_000 });
  assert.is((await state(page)).mode, mode);
  await playing(page, `${name} playing (${size})`, 0.5);
  assert.equal(asked, [{ path: `Files/${FOLDER}/${name}`, start: 0 }]);
  // The whole duration from ffprobe, not the stream's own (which has none).
  assert.match(await page.locator('.video-time').innerText(), new RegExp(`/ ${clock(seconds)}$`));
  const max = Number(await page.getByRole('slider', { name: 'Position' }).getAttribute('max'));
  assert.ok(Math.abs(max - seconds) < 0.1, String(max));
  await shot(page, `video-${mode}-${size}`);
  await seek(page, to);
  await playing(page, `${name} playing from ${to} s (${size})`, 0.3, to);
  assert.equal(asked.at(-1), { path: `Files/${FOLDER}/${name}`, start: to });
  const shown = await page.locator('.video-time').innerText();
  const m = /^(\d+):(\d\d) \//.exec(shown);
  const at = Number(m?.[1]) * 60 + Number(m?.[2]);
  assert.ok(at >= to && at <= seconds, shown);
}

/** Closes the viewer with its button and waits until the server ran no stream. */
async function closeAndStreamsEnd(page: Page, touch = false) {
  const close = page.getByRole('button', { name: 'Close viewer' });
  await (touch ? close.tap() : close.click());
  await page.locator('.viewer').waitFor({ state: 'detached' });
  await waitFor(() => streams().length === 0, { what: "the server's ffmpeg ended once the viewer closed" });
}

test.before(async () => {
  server = await startWithUi({}, ['Files']);
  fs.mkdirSync(files(), { recursive: true });
  fs.writeFileSync(files(MP4), mp4(3));
  fs.writeFileSync(files(MKV), clip('mkv', MKV_SECONDS, { noisy: true }));
  fs.writeFileSync(files(AVI), clip('avi', AVI_SECONDS));
  ({ browser } = await launch());
  const p = await newPage(browser, DESKTOP);
  await setupAdmin(p.context, server.url);
  cookies = await p.context.cookies();
  await p.context.close();
});

test.after(async () => {
  await browser?.close();
  await server?.close();
  if (server) removeDirs(server.dirs);
});

test('desktop: the MP4 plays as it is; the MKV repackaged and the AVI converted play and seek; closing ends ffmpeg', async () => {
  const p = await newPage(browser, DESKTOP, NO_WORKER);
  await p.context.addCookies(cookies);
  try {
    const asked = streamRequests(p.page);
    await slowLink(p.page);
    await p.page.goto(address(MP4));
    await p.page.locator('.viewer video').waitFor({ timeout: 30_000 });
    assert.is((await state(p.page)).mode, 'direct');
    await playing(p.page, 'the MP4 in the browser’s player', 0.5);
    assert.equal(asked, []);
    assert.equal(streams(), []);
    await shot(p.page, 'video-direct-desktop');

    await convertedPlays(p.page, MKV, 'remux', MKV_SECONDS, 30, 'desktop');
    // The seek replaced the stream: one ffmpeg, from 30 s, still running (the rest of the video waits in it).
    await waitFor(() => JSON.stringify(streams()) === '[30]', { what: 'one ffmpeg, from 30 s' });
    await closeAndStreamsEnd(p.page);

    await convertedPlays(p.page, AVI, 'transcode', AVI_SECONDS, 3, 'desktop');
    await closeAndStreamsEnd(p.page);
    assert.equal(p.problems, []);
  } finally {
    await p.context.close();
  }
});

test('phone, dark, touch: the MKV plays and seeks, the controls fit the screen, closing ends ffmpeg', async () => {
  const { context, page, problems } = await newPage(browser, PHONE, { hasTouch: true, isMobile: true, ...NO_WORKER });
  await context.addCookies(cookies);
  try {
    await page.emulateMedia({ colorScheme: 'dark' });
    await slowLink(page);
    await convertedPlays(page, MKV, 'remux', MKV_SECONDS, 30, 'phone');
    const bar = (await page.locator('.video-controls').boundingBox())!;
    assert.ok(bar.x >= 0 && bar.x + bar.width <= PHONE.width + 0.5, `${bar.x}+${bar.width}`);
    await waitFor(() => JSON.stringify(streams()) === '[30]', { what: 'one ffmpeg, from 30 s' });
    await closeAndStreamsEnd(page, true);
    assert.equal(problems, []);
  } finally {
    await context.close();
  }
});

test("a link's visitor: without the owner's leave the server's sentence, with it the MKV plays through the server", async () => {
  const p = await newPage(browser, DESKTOP);
  await p.context.addCookies(cookies);
  const link = async (allowTranscode?: boolean) => {
    const made = await p.page.request.post(`${server.url}/api/shares`, {
      data: { sourcePath: `Files/${FOLDER}`, sharingType: 'anyone', ...(allowTranscode ? { allowTranscode } : {}) },
      headers: { origin: server.url },
    });
    assert.is(made.status(), 201, await made.text());
    return (await made.json()).shareToken as string;
  };
  /** Opens a file of the folder's link as a visitor does: from the listing. */
  const open = async (page: Page, name: string) => {
    await page.locator('.link-open').filter({ hasText: name }).click();
    await page.locator('.link-media, [role="alert"]').first().waitFor({ timeout: 30_000 });
  };
  try {
    const without = await link();
    const visitor = await newPage(browser, DESKTOP);
    try {
      const asked = streamRequests(visitor.page);
      await visitor.page.goto(`${server.url}/s/${without}`);
      // What browsers play as they are needs no leave.
      await open(visitor.page, MP4);
      assert.is((await state(visitor.page)).mode, 'direct');
      await playing(visitor.page, 'the MP4 on the link', 0.5);
      await visitor.page.keyboard.press('Escape');
      await visitor.page.locator('video').waitFor({ state: 'detached' });
      await open(visitor.page, MKV);
      const said = await visitor.page.request.get(
        `${server.url}/api/share/${without}/video/plan?path=${encodeURIComponent(MKV)}`,
      );
      assert.is(said.status(), 403);
      const { code, message } = (await said.json()).error;
      assert.is(code, 'VIDEO_LINK_NOT_ALLOWED');
      const alert = visitor.page.getByRole('alert').filter({ hasText: 'This video cannot play here' });
      assert.ok((await alert.innerText()).includes(message), await alert.innerText());
      assert.equal(asked, []);
      assert.equal(streams(), []);
      await shot(visitor.page, 'video-link-refused-desktop');
      assert.equal(visitor.problems, []);
    } finally {
      await visitor.context.close();
    }

    const allowed = await link(true);
    const guest = await newPage(browser, DESKTOP, NO_WORKER);
    try {
      const asked = streamRequests(guest.page);
      await slowLink(guest.page);
      await guest.page.goto(`${server.url}/s/${allowed}`);
      await open(guest.page, MKV);
      assert.is((await state(guest.page)).mode, 'remux');
      await playing(guest.page, 'the MKV on a link that allows conversions', 0.5);
      assert.equal(asked, [{ path: MKV, start: 0 }]);
      assert.equal(streams(), [0]);
      await shot(guest.page, 'video-link-remux-desktop');
      await guest.page.keyboard.press('Escape');
      await guest.page.locator('video').waitFor({ state: 'detached' });
      await waitFor(() => streams().length === 0, {
        what: "the server's ffmpeg ended once the visitor closed the video",
      });
      assert.equal(guest.problems, []);
    } finally {
      await guest.context.close();
    }
  } finally {
    await p.context.close();
  }
});

test('without ffmpeg on the server: the MKV viewer says what to install, the MP4 still plays', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-no-ffmpeg-'));
  // From source the server is this process: its PATH is ours. The executable gets its own.
  const saved = process.env.PATH;
  if (serverMode === 'source') {
    process.env.PATH = empty;
    // The server in this process keeps each file version's probe: the MKV's, made with ffprobe by
    // the tests before, would still answer. A new version of the file is probed again.
    const later = new Date(fs.statSync(files(MKV)).mtimeMs + 60_000);
    fs.utimesSync(files(MKV), later, later);
  } else await server.restart({ PATH: empty });
  const { context, page, problems } = await newPage(browser, DESKTOP, NO_WORKER);
  await context.addCookies(cookies);
  try {
    const asked = streamRequests(page);
    await page.goto(address(MKV));
    const alert = page.locator('.viewer').getByRole('alert').filter({ hasText: 'This video cannot play here' });
    await alert.waitFor({ timeout: 30_000 });
    const said = await page.request.get(
      `${server.url}/api/video/plan?path=${encodeURIComponent(`Files/${FOLDER}/${MKV}`)}`,
    );
    assert.is(said.status(), 501);
    const { code, message } = (await said.json()).error;
    assert.is(code, 'VIDEO_NEEDS_FFMPEG');
    const shown = await alert.innerText();
    assert.ok(shown.includes(message), shown);
    assert.match(shown, /install ffmpeg/);
    await shot(page, 'video-no-ffmpeg-desktop');
    assert.equal(asked, []);
    assert.equal(streams(), []);
    await page.goto(address(MP4));
    await page.locator('.viewer video').waitFor({ timeout: 30_000 });
    assert.is((await state(page)).mode, 'direct');
    await playing(page, 'the MP4 without ffmpeg', 0.5);
    assert.equal(problems, []);
  } finally {
    await context.close();
    if (serverMode === 'source') process.env.PATH = saved;
    else await server.restart({ PATH: '/usr/bin:/bin' });
    fs.rmSync(empty, { recursive: true, force: true });
  }
});

test.run();
