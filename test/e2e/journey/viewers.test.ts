// Each viewer on the world's files, opened as a user opens them (the folder's address, then a
// double click at desktop, one tap at phone): a 12 MP landscape photo, a portrait one and one the
// camera stored sideways (EXIF orientation 6) — each whole on the screen, upright, its bottom band
// and corner marker where they belong; the song, the video, the two-page PDF, the Markdown reading
// list (its picture, its task boxes, its quote, a relative link to another document), source code,
// and every odd name of `Odd names/` read through the server. The server's side: the metadata it
// reads (dimensions, duration, pages), the bytes it serves.
import * as assert from 'uvu/assert';
import type { Locator } from 'playwright-core';
import { HOME, W, filesAddress, journey, pictureShown, type Step } from './harness.ts';

const j = journey(import.meta.url);

const metadata = async (s: Step, rel: string) => {
  const r = await s.api('GET', `/api/metadata/${`${HOME}/${rel}`.split('/').map(encodeURIComponent).join('/')}`);
  assert.is(r.status, 200, r.text);
  return r.json;
};

/** The viewer's picture once decoded: where it is drawn, and that all of it is visible. */
async function wholePicture(
  s: Step,
  viewer: Locator,
  aspect: number,
): Promise<Awaited<ReturnType<typeof pictureShown>>> {
  const img = viewer.locator('.viewer-body img').first();
  // A 12 MP photo's rendition is made on first sight: on a busy machine it takes a while, and
  // the <img> has no box (is not visible) until its picture arrives.
  await img.waitFor({ timeout: 60_000 });
  await s.decoded(img, 60_000);
  const shown = await pictureShown(img);
  const where = JSON.stringify(shown);
  assert.ok(shown.whole, `the whole picture is visible (object-fit ${shown.fit}): ${where}`);
  const drawnAspect = shown.drawn.width / shown.drawn.height;
  assert.ok(
    Math.abs(drawnAspect / aspect - 1) < 0.02,
    `drawn ${drawnAspect.toFixed(3)} wide per tall, not ${aspect}: ${where}`,
  );
  assert.ok(
    shown.drawn.width >= 0.8 * shown.visible.width || shown.drawn.height >= 0.8 * shown.visible.height,
    `fitted to the space it has, not shown small: ${where}`,
  );
  return shown;
}

const near = (c: number[], want: number[], within = 60) => c.every((v, i) => Math.abs(v - want[i]!) <= within);
const MAGENTA = [230, 0, 200];
const WHITE = [255, 255, 255];

j.step('a 12 MP landscape photo is shown whole, its bottom band included', async (s) => {
  const viewer = await s.openFile(W.landscape);
  const shown = await wholePicture(s, viewer, 4 / 3);
  const { drawn } = shown;
  // Sampled off-centre: the zoom buttons float over the middle of the bottom.
  const bottom = await s.colourAt(drawn.x + drawn.width * 0.1, drawn.y + drawn.height * 0.975);
  assert.ok(near(bottom, MAGENTA), `the magenta band at the bottom is on the screen: ${bottom}`);
  const m = await metadata(s, W.landscape);
  assert.equal([m.image?.width, m.image?.height], [4000, 3000], JSON.stringify(m));
});

j.step('a portrait photo is shown whole', async (s) => {
  const viewer = await s.openFile(W.portrait);
  const { drawn } = await wholePicture(s, viewer, 2 / 3);
  const m = await metadata(s, W.portrait);
  assert.equal([m.image?.width, m.image?.height], [2000, 3000], JSON.stringify(m.image));
  const bottom = await s.colourAt(drawn.x + drawn.width * 0.1, drawn.y + drawn.height * 0.975);
  assert.ok(near(bottom, MAGENTA), `the magenta band at the bottom is on the screen: ${bottom}`);
});

j.step('a photo the camera stored sideways (EXIF orientation 6) is shown upright and whole', async (s) => {
  const viewer = await s.openFile(W.rotated);
  // Stored 3000 × 2000 with its marker top-left and its band at the bottom; turned a quarter
  // clockwise it is 2000 × 3000, the marker top-right and the band down the left side.
  const shown = await wholePicture(s, viewer, 2 / 3);
  const { drawn } = shown;
  const marker = await s.colourAt(drawn.x + drawn.width * 0.94, drawn.y + drawn.height * 0.04);
  assert.ok(near(marker, WHITE), `the white marker is top-right: ${marker}`);
  const band = await s.colourAt(drawn.x + drawn.width * 0.025, drawn.y + drawn.height * 0.3);
  assert.ok(near(band, MAGENTA), `the band runs down the left side: ${band}`);
  // What the page drew is the server's screen-sized rendition, turned upright by the server.
  assert.ok(shown.natural.height > shown.natural.width, `the rendition is upright: ${JSON.stringify(shown.natural)}`);
  const m = await metadata(s, W.rotated);
  assert.equal([m.image?.width, m.image?.height], [3000, 2000], JSON.stringify(m.image));
});

j.step('the song plays, as long as the server says it is', async (s) => {
  const viewer = await s.openFile(W.song);
  const audio = viewer.locator('audio');
  await s.eventually('the song to be read by the player', () =>
    audio.evaluate((el: HTMLAudioElement) => el.readyState >= 1 && el.duration > 0),
  );
  const duration = await audio.evaluate((el: HTMLAudioElement) => el.duration);
  const m = await metadata(s, W.song);
  assert.ok(Math.abs(duration - 3) < 0.3, `the player reads 3 s, not ${duration}`);
  assert.ok(Math.abs(m.audio?.duration - 3) < 0.3, `the server reads 3 s: ${JSON.stringify(m.audio)}`);
});

j.step('the video plays at its size', async (s) => {
  const viewer = await s.openFile(W.video);
  const video = viewer.locator('video');
  await s.eventually('the video to be decoded', () =>
    video.evaluate((el: HTMLVideoElement) => el.readyState >= 1 && el.videoWidth > 0),
  );
  assert.equal(await video.evaluate((el: HTMLVideoElement) => [el.videoWidth, el.videoHeight]), [640, 360]);
  // The server streams it in ranges (a player seeks) and reads its length.
  const address = (await video.getAttribute('src')) ?? '';
  const ranged = await s.page.request.get(s.url(address), { headers: { range: 'bytes=0-99' } });
  assert.is(ranged.status(), 206);
  assert.is(ranged.headers()['content-type'], 'video/mp4');
  const m = await metadata(s, W.video);
  assert.ok(Math.abs(m.video?.duration - 2) < 0.2, `the server reads 2 s: ${JSON.stringify(m.video)}`);
});

j.step('the PDF shows both its pages', async (s) => {
  const viewer = await s.openFile(W.pdf);
  const m = await metadata(s, W.pdf);
  assert.is(m.document?.pages ?? m.pages, 2, JSON.stringify(m));
  // pdf.js draws each page with its text layer; a desktop browser may show the file in its own
  // viewer instead (a frame holding the served PDF). A phone's browser cannot: pages are drawn.
  const frame = viewer.locator('iframe');
  if (!s.size.touch && (await frame.count())) {
    const src = (await frame.getAttribute('src')) ?? '';
    const res = await s.api('GET', src);
    assert.is(res.status, 200);
    assert.is(res.headers['content-type'], 'application/pdf');
    assert.ok(res.text.includes('/Count 2'), 'the served file is the two-page PDF');
  } else {
    await viewer.getByText('Tax return 2024').first().waitFor();
    await viewer.getByText('Deductions: garden tools').first().waitFor({ state: 'attached' });
  }
});

j.step('Markdown: the reading list with its picture, table and headings', async (s) => {
  const viewer = await s.openFile(W.readingList);
  const doc = viewer.locator('.markdown-body');
  await doc.getByRole('heading', { name: 'Reading list' }).waitFor();
  const picture = doc.getByRole('img', { name: 'Beach at dawn' });
  await s.decoded(picture);
  assert.is(await doc.getByRole('row').count(), 3, 'the table: a header and two rows');
});

j.step('Markdown: task lists keep their boxes, the quote is set apart', async (s) => {
  const viewer = await s.openFile(W.readingList);
  const doc = viewer.locator('.markdown-body');
  await doc.getByRole('heading', { name: 'Reading list' }).waitFor();
  const boxes = doc.getByRole('checkbox');
  assert.is(await boxes.count(), 4, 'four tasks, four boxes');
  const checked = await boxes.evaluateAll((els) => els.map((e) => (e as HTMLInputElement).checked));
  assert.equal(checked, [true, true, false, false]);
  const quote = doc.locator('blockquote');
  const style = await quote.evaluate((el) => {
    const q = getComputedStyle(el);
    const p = getComputedStyle(el.closest('.markdown-body')!.querySelector('p')!);
    return {
      border: parseFloat(q.borderLeftWidth) || 0,
      background: q.backgroundColor,
      colour: q.color,
      paragraphColour: p.color,
      style: q.fontStyle,
    };
  });
  assert.ok(
    style.border > 0 ||
      !/rgba\(0, 0, 0, 0\)|transparent/.test(style.background) ||
      style.colour !== style.paragraphColour ||
      style.style === 'italic',
    `the quote looks like a quote: ${JSON.stringify(style)}`,
  );
});

j.step('Markdown: a relative link opens the other document, which has an address', async (s) => {
  const viewer = await s.openFile(W.readingList);
  await s.tap(viewer.getByRole('link', { name: 'garden plan' }));
  const other = s.page.getByRole('dialog', { name: 'Viewer: Garden plan.md', exact: true });
  await other.getByRole('heading', { name: 'Garden plan & budget' }).waitFor();
  await s.page.reload();
  await s.page
    .getByRole('dialog', { name: 'Viewer: Garden plan.md', exact: true })
    .getByRole('heading', { name: 'Garden plan & budget' })
    .waitFor();
});

j.step('code: the sensor source read-only with syntax colours', async (s) => {
  const viewer = await s.openFile(W.codeTs);
  const content = viewer.locator('.cm-content');
  await content.waitFor();
  assert.is(await content.getAttribute('contenteditable'), 'false');
  await s.eventually('syntax colours', async () => (await viewer.locator('.cm-line span[class]').count()) > 0);
  const text = (await content.innerText()).replace(/\u00a0/g, ' ');
  assert.ok(text.includes('export function average(readings: Reading[]): Reading | null {'), text.slice(0, 300));
});

j.step('every odd name opens and is read through the server, one after the other', async (s) => {
  await s.goto(filesAddress(HOME, W.odd));
  await s.folder(`${HOME}/${W.odd}`);
  await s.open(s.page.locator('#entry-0'));
  const viewer = s.page.getByRole('dialog', { name: /^Viewer: / });
  const title = viewer.locator('.viewer-title .name');
  const seen: string[] = [];
  for (let i = 0; i < W.oddNames.length; i++) {
    if (i) {
      const before = await title.innerText();
      await s.tap(viewer.getByRole('button', { name: 'Next file' }));
      await s.eventually('the next file', async () => (await title.innerText()) !== before);
    }
    const name = await title.innerText();
    seen.push(name);
    await viewer.locator('.cm-content').getByText(`This file is called ${name}`).waitFor();
  }
  assert.equal(seen.slice().sort(), [...W.oddNames].sort(), 'each odd name once, the hidden file not among them');
});

j.run();
