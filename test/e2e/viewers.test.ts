// The viewers and the editor in Chromium against the real server, with real files made by the
// test (test/support/media.ts): a JPEG with EXIF orientation, a large PNG (served as a
// rendition), an animated GIF, an SVG carrying a script that must not run, a PDF, WAVs (a
// playlist), a WebM, Markdown with a script and a remote picture, code, and a kind with no
// preview. Next/previous by keys, buttons and swipe; Escape closes. The editor: encoding and
// line endings shown and kept, Ctrl+S, the unsaved-changes guard, the changed-elsewhere
// question (the server's 412 to If-Match), versions kept. Screenshots at desktop and phone
// width go to test/.artifacts/.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { HOSTILE_SVG, animatedGif, pdf, png, rotatedJpeg, wav, webm } from '../support/media.ts';
import { removeDirs, type TestServer } from '../support/server.ts';
import { DESKTOP, PHONE, launch, newPage, setupAdmin, shot, startWithUi } from './browser.ts';
import { waitFor } from '../support/wait.ts';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];
const files = (...p: string[]) => path.join(server.dirs.volumes, 'Files', ...p);
const viewer = () => page.locator('.viewer');
const title = () => page.locator('.viewer-title .name');

/** Noise compresses badly: a PNG over the size the viewer shows directly. */
async function bigPng(): Promise<Buffer> {
  const { createRequire } = await import('node:module');
  const image = createRequire(import.meta.url)('@napi-rs/image');
  const w = 1400,
    h = 1000;
  const px = new Uint8Array(crypto.randomBytes(w * h * 4));
  for (let i = 3; i < px.length; i += 4) px[i] = 255;
  return image.Transformer.fromRgbaPixels(px, w, h).png();
}

async function openViewerOn(name: string) {
  await page.goto(`${server.url}/files/Files`);
  await page.locator(`.entry[data-name="${name}"]`).dblclick();
  await viewer().waitFor();
  await waitFor(async () => (await title().innerText()) === name, { what: `viewer shows ${name}` });
}

test.before(async () => {
  server = await startWithUi({}, ['Files']);
  fs.writeFileSync(files('photo.jpg'), await rotatedJpeg(400, 200));
  fs.writeFileSync(files('big.png'), await bigPng());
  fs.writeFileSync(files('small.png'), await png(64, 48));
  fs.writeFileSync(files('anim.gif'), animatedGif());
  fs.writeFileSync(files('hostile.svg'), HOSTILE_SVG);
  fs.writeFileSync(files('doc.pdf'), pdf('Hello from Burrow'));
  fs.writeFileSync(files('tone-a.wav'), wav(1));
  fs.writeFileSync(files('tone-b.wav'), wav(1));
  fs.writeFileSync(files('clip.webm'), webm());
  fs.writeFileSync(
    files('readme.md'),
    '# Read me\n\nSome **bold** text.\n\n<script>window.__mdRan = true</script>\n<img src="x" onerror="window.__mdRan = true">\n\n![remote](https://example.invalid/track.png)\n\n![beside](small.png)\n',
  );
  fs.writeFileSync(files('code.ts'), 'export const answer: number = 42;\n// a comment\n');
  // Latin-1 bytes (é = 0xe9) and CRLF line endings, which a save must keep.
  fs.writeFileSync(files('legacy.txt'), Buffer.from('caf\xe9 one\r\nline two\r\n', 'latin1'));
  fs.writeFileSync(files('data.bin'), crypto.randomBytes(64));
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

test('picture: EXIF orientation honoured, zoom, next/previous by keys, Escape closes and gives focus back', async () => {
  await openViewerOn('photo.jpg');
  const img = viewer().locator('.image-stage img');
  await img.waitFor();
  await waitFor(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0), { what: 'decoded' });
  const box = (await img.boundingBox())!;
  assert.ok(box.height > box.width, `shown upright (orientation 6): ${box.width}×${box.height}`);
  await shot(page, 'viewer-image-desktop');
  await page.getByRole('button', { name: 'Zoom in' }).click();
  await viewer().getByText('150 %').waitFor();
  await page.keyboard.press('ArrowRight');
  await waitFor(async () => (await title().innerText()) === 'readme.md', { what: 'next is readme.md' });
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await waitFor(async () => (await title().innerText()) === 'legacy.txt', {
    what: 'previous of photo.jpg is legacy.txt',
  });
  await page.keyboard.press('Escape');
  await viewer().waitFor({ state: 'detached' });
  assert.ok(await page.locator('.scroller').evaluate((el) => el === document.activeElement), 'focus back in the list');
});

test('a large picture comes as a screen-sized rendition; a GIF stays the file (animated)', async () => {
  await openViewerOn('big.png');
  const img = viewer().locator('.image-stage img');
  await waitFor(
    async () =>
      /^\/api\/thumbnails-cache\/[0-9a-f]{64}\.webp\?path=[^&]+(&size=\d+)?$/.test(
        (await img.getAttribute('src')) ?? '',
      ),
    { what: 'rendition' },
  );
  await viewer().getByRole('button', { name: 'Previous file' }).click();
  await waitFor(async () => (await title().innerText()) === 'anim.gif', { what: 'anim.gif' });
  assert.match(
    (await viewer().locator('.image-stage img').getAttribute('src')) ?? '',
    /^\/api\/preview\?path=Files%2Fanim\.gif$/,
  );
});

test('SVG: only a rasterised picture; its script never runs', async () => {
  await openViewerOn('hostile.svg');
  const img = viewer().locator('.image-stage img');
  await waitFor(async () => /^\/api\/thumbnails-cache\//.test((await img.getAttribute('src')) ?? ''), {
    what: 'rasterised',
  });
  await waitFor(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0), { what: 'decoded' });
  assert.is(await page.evaluate(() => (window as any).__svgRan), undefined);
  assert.is.not(await page.title(), 'PWNED');
  assert.is(await page.locator('.viewer iframe, .viewer object, .viewer embed').count(), 0);
  // "Open in a new tab" goes to the preview route, which the server answers with a sandbox CSP.
  const href = await viewer().getByRole('link', { name: 'Open in a new tab' }).getAttribute('href');
  const res = await context.request.get(`${server.url}${href}`);
  assert.is(res.headers()['content-security-policy'], 'sandbox');
  await page.keyboard.press('Escape');
});

test("PDF in the browser's viewer; audio with the folder's playlist; video streamed with Range", async () => {
  await openViewerOn('doc.pdf');
  const frame = viewer().locator('iframe.pdf-frame');
  await frame.waitFor();
  assert.is(await frame.getAttribute('src'), '/api/preview?path=Files%2Fdoc.pdf');
  const pdfRes = await context.request.get(`${server.url}/api/preview?path=Files%2Fdoc.pdf`);
  assert.is(pdfRes.headers()['content-type'], 'application/pdf');
  await shot(page, 'viewer-pdf-desktop');
  await page.keyboard.press('Escape');

  await openViewerOn('tone-a.wav');
  const audio = viewer().locator('audio');
  await audio.waitFor();
  await waitFor(() => audio.evaluate((el: HTMLAudioElement) => el.readyState >= 1 && el.duration > 0.9), {
    what: 'audio metadata read',
  });
  const playlist = viewer().getByRole('list', { name: 'Playlist' });
  assert.equal(await playlist.locator('.name').allInnerTexts(), ['tone-a.wav', 'tone-b.wav']);
  await shot(page, 'viewer-audio-desktop');
  await playlist.getByText('tone-b.wav').click();
  await waitFor(async () => (await title().innerText()) === 'tone-b.wav', { what: 'tone-b playing' });
  await page.keyboard.press('Escape');

  await openViewerOn('clip.webm');
  const video = viewer().locator('video');
  await waitFor(() => video.evaluate((el: HTMLVideoElement) => el.readyState >= 1 && el.videoWidth === 160), {
    what: 'video decoded',
  });
  const ranged = await context.request.get(`${server.url}/api/preview?path=Files%2Fclip.webm`, {
    headers: { range: 'bytes=0-99' },
  });
  assert.is(ranged.status(), 206);
  await shot(page, 'viewer-video-desktop');
  await page.keyboard.press('Escape');
});

test('Markdown rendered and sanitised: no script, remote pictures only when asked, pictures beside it shown', async () => {
  await openViewerOn('readme.md');
  const doc = viewer().locator('.markdown-body');
  await doc.locator('h1', { hasText: 'Read me' }).waitFor();
  assert.is(await doc.locator('strong').innerText(), 'bold');
  assert.is(await doc.locator('script').count(), 0);
  assert.is(await page.evaluate(() => (window as any).__mdRan), undefined);
  assert.is(await doc.locator('img[src^="https:"]').count(), 0, 'remote picture blocked');
  assert.is(await doc.locator('img[src="/api/preview?path=Files%2Fsmall.png"]').count(), 1, 'the picture beside it');
  await shot(page, 'viewer-markdown-desktop');
  await viewer().getByRole('button', { name: 'Show remote pictures' }).click();
  await doc.locator('img[src="https://example.invalid/track.png"]').waitFor({ state: 'attached' });
  await page.keyboard.press('Escape');
});

test('code read-only with syntax colours; no preview for other kinds, with download', async () => {
  await openViewerOn('code.ts');
  const content = viewer().locator('.cm-content');
  await content.waitFor();
  assert.is(await content.getAttribute('contenteditable'), 'false');
  await waitFor(async () => (await viewer().locator('.cm-line span[class]').count()) > 0, { what: 'highlighted' });
  await shot(page, 'viewer-code-desktop');
  await page.keyboard.press('Escape');
  await openViewerOn('data.bin');
  await viewer().getByText('No preview for this kind of file.').waitFor();
  const dl = page.waitForEvent('download');
  await viewer().getByRole('button', { name: 'Download' }).last().click();
  assert.is((await dl).suggestedFilename(), 'data.bin');
  await page.keyboard.press('Escape');
});

test('editor: encoding and line endings shown and kept, Ctrl+S, guard on close, changed-elsewhere question, versions kept', async () => {
  // Every save as sent: whether it carried If-Match, and the answer.
  const saves: [boolean, number][] = [];
  page.on('response', (r) => {
    const q = r.request();
    if (q.method() === 'PUT' && new URL(r.url()).pathname === '/api/editor')
      saves.push([q.headers()['if-match'] !== undefined, r.status()]);
  });
  await openViewerOn('legacy.txt');
  await viewer().getByRole('button', { name: 'Edit' }).click();
  const ed = page.locator('.editor-window');
  await ed.getByText('Encoding: Latin-1').waitFor();
  await ed.getByText('Line endings: CRLF').waitFor();
  await ed.locator('.cm-content').waitFor();
  await ed.locator('.cm-line').first().click();
  await page.keyboard.press('End');
  await page.keyboard.type(' two');
  await ed.getByText('Unsaved changes').waitFor();
  await shot(page, 'editor-desktop');
  // Guard: Escape asks; Cancel keeps the editor.
  await page.keyboard.press('Escape');
  const ask = page.getByRole('dialog', { name: 'Discard unsaved changes?' });
  await ask.waitFor();
  await ask.getByRole('button', { name: 'Cancel' }).click();
  await ed.getByText('Unsaved changes').waitFor();
  await page.keyboard.press('Control+s');
  await ed.getByText('Saved', { exact: true }).waitFor();
  assert.equal(
    fs.readFileSync(files('legacy.txt')),
    Buffer.from('caf\xe9 one two\r\nline two\r\n', 'latin1'),
    'Latin-1 and CRLF kept',
  );

  // Someone else changes the file; our save asks first.
  fs.writeFileSync(files('legacy.txt'), Buffer.from('chang\xe9 elsewhere\r\n', 'latin1'));
  const later = new Date(Date.now() + 3000);
  fs.utimesSync(files('legacy.txt'), later, later);
  await ed.locator('.cm-line').first().click();
  await page.keyboard.press('End');
  await page.keyboard.type('!');
  await page.keyboard.press('Control+s');
  const conflict = page.getByRole('dialog', { name: 'The file changed since you opened it' });
  await conflict.waitFor();
  await shot(page, 'editor-conflict-desktop');
  await conflict.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(
    fs.readFileSync(files('legacy.txt'), 'latin1'),
    'chang\xe9 elsewhere\r\n',
    'nothing replaced without asking',
  );
  await page.keyboard.press('Control+s');
  await conflict.waitFor();
  await conflict.getByRole('button', { name: 'Replace with mine' }).click();
  await ed.getByText('Saved', { exact: true }).waitFor();
  assert.equal(fs.readFileSync(files('legacy.txt'), 'latin1'), 'caf\xe9 one two!\r\nline two\r\n');
  // The server decided (If-Match refused twice, then the save without it); one Ctrl+S, one save.
  assert.equal(saves, [
    [true, 200],
    [true, 412],
    [true, 412],
    [false, 200],
  ]);
  const versions = await (await context.request.get(`${server.url}/api/versions?path=Files%2Flegacy.txt`)).json();
  assert.ok(versions.items.length >= 2, `the replaced texts are versions (${versions.items.length})`);
  // Closing with nothing unsaved asks nothing.
  await ed.getByRole('button', { name: 'Close editor' }).click();
  await ed.waitFor({ state: 'detached' });
  await viewer().waitFor();
  await page.keyboard.press('Escape');
  assert.equal(problems, []);
});

test('phone: tap a file opens the viewer, swipe goes to the next, screenshots', async () => {
  const p = await newPage(browser, PHONE);
  try {
    await p.context.addCookies(await context.cookies());
    const ph = p.page;
    await ph.goto(`${server.url}/files/Files`);
    await ph.locator('.entry[data-name="photo.jpg"]').dblclick();
    const v = ph.locator('.viewer');
    await v.waitFor();
    await v.locator('.image-stage img').waitFor();
    await shot(ph, 'viewer-image-phone');
    const stage = (await v.locator('.image-stage').boundingBox())!;
    const y = stage.y + stage.height / 2;
    await ph.mouse.move(stage.x + stage.width - 30, y);
    await ph.mouse.down();
    await ph.mouse.move(stage.x + stage.width / 2, y, { steps: 4 });
    await ph.mouse.move(stage.x + 30, y, { steps: 4 });
    await ph.mouse.up();
    await waitFor(async () => (await v.locator('.viewer-title .name').innerText()) === 'readme.md', {
      what: 'swiped to readme.md',
    });
    await v.locator('.markdown-body h1').waitFor();
    await shot(ph, 'viewer-markdown-phone');
    await ph.keyboard.press('Escape');
    await ph.locator('.entry[data-name="doc.pdf"]').dblclick();
    await v.locator('iframe.pdf-frame').waitFor();
    await shot(ph, 'viewer-pdf-phone');
    assert.equal(p.problems, []);
  } finally {
    await p.context.close();
  }
});

test.run();
