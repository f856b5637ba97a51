// The viewers as a person meets them, on the world's data, through the executable at 1366×768
// (mouse) and 390×844 (touch): photos shown whole (landscape, portrait, turned by the camera) with
// zoom and Fit; the text viewer after an edit; every file's address (reload, a bookmark, Back, a
// housemate, Markdown links and pictures); Markdown task lists and quotes; code and the editor in
// the dark theme; PDF pages through pdf.js where the browser has no viewer that works in a page; a
// link holder's photo folder as a grid of thumbnails with a lightbox. Each step checks the
// server's side too: the picture's stored size, the file on disk, the addresses the server
// answers, the thumbnails the link serves, the link's counters.
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { artifacts } from './browser.ts';
import { HOME, W, filesAddress, journey, type Step } from './journey/harness.ts';

const j = journey(import.meta.url);

const viewer = (p: Page) => p.locator('.viewer');
const viewerTitle = (p: Page) => p.locator('.viewer-title .name');

/** The file's address, opened as a bookmark or a typed address is. */
async function openAddress(s: Step, rel: string, page: Page = s.page): Promise<void> {
  await page.goto(s.url(filesAddress(HOME, rel)));
  await viewer(page).waitFor();
  await s.eventually(`the viewer shows ${rel}`, async () => (await viewerTitle(page).innerText()) === baseName(rel));
}
const baseName = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);

interface Shown {
  natural: { width: number; height: number };
  box: { left: number; top: number; right: number; bottom: number; width: number; height: number };
  stage: { left: number; top: number; right: number; bottom: number; width: number; height: number };
  viewport: { width: number; height: number };
}

/** The picture the viewer shows, once decoded: its own size, its box on screen, the stage's. */
async function shownPicture(s: Step, img: Locator, stage: Locator): Promise<Shown> {
  // A 12 MP photo's first screen-sized rendition is made by the server on demand: slow on a busy machine.
  await img.waitFor({ timeout: 90_000 });
  await s.eventually(
    'the picture to be decoded',
    () => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth > 0),
    90_000,
  );
  const stageBox = await stage.evaluate((e) => e.getBoundingClientRect().toJSON());
  return {
    ...(await img.evaluate((i: HTMLImageElement) => ({
      natural: { width: i.naturalWidth, height: i.naturalHeight },
      box: i.getBoundingClientRect().toJSON(),
      viewport: { width: innerWidth, height: innerHeight },
    }))),
    stage: stageBox,
  };
}

/** The whole picture is on screen, in its own proportions, as large as the stage lets it be. */
function assertWhole(what: string, p: Shown, upright: { width: number; height: number }): void {
  const { box, stage, viewport } = p;
  const detail = `${what}: ${JSON.stringify(p)}`;
  assert.ok(box.left >= stage.left - 0.5 && box.right <= stage.right + 0.5, `whole width on the stage — ${detail}`);
  assert.ok(box.top >= stage.top - 0.5 && box.bottom <= stage.bottom + 0.5, `whole height on the stage — ${detail}`);
  assert.ok(box.right <= viewport.width + 0.5 && box.bottom <= viewport.height + 0.5, `inside the window — ${detail}`);
  // The picture the server sent is the file's, upright (a rendition keeps its proportions).
  const ratio = upright.width / upright.height;
  assert.ok(Math.abs(p.natural.width / p.natural.height - ratio) < 0.01, `the file's proportions — ${detail}`);
  assert.ok(Math.abs(box.width / box.height - ratio) < 0.01, `drawn in its proportions — ${detail}`);
  // Fitted: it meets the stage on one side.
  const fills = Math.abs(box.width - stage.width) < 1.5 || Math.abs(box.height - stage.height) < 1.5;
  assert.ok(fills, `fitted to the stage — ${detail}`);
}

/** The photos as stored (the server's metadata says so), and which one the camera turned (EXIF 6). */
const PHOTOS: Record<string, { stored: [number, number]; turned: boolean }> = {
  [W.landscape]: { stored: [4000, 3000], turned: false },
  [W.portrait]: { stored: [2000, 3000], turned: false },
  [W.rotated]: { stored: [3000, 2000], turned: true },
  [W.cafe]: { stored: [1200, 800], turned: false },
};

/** The picture's size as a person sees it: the stored size the server reports, turned where the camera said so. */
async function uprightSize(s: Step, rel: string): Promise<{ width: number; height: number }> {
  const m = await s.api('GET', `/api/metadata/${filesAddress(HOME, rel).slice('/files/'.length)}`);
  assert.is(m.status, 200, m.text);
  const { width, height } = m.json.image;
  const known = PHOTOS[rel]!;
  assert.equal([width, height], known.stored, `${rel} as stored`);
  return known.turned ? { width: height, height: width } : { width, height };
}

/** WCAG contrast of two CSS colours (rgb()/rgba() as getComputedStyle gives them; alpha over `under`). */
function contrast(fg: string, bg: string, under = 'rgb(0, 0, 0)'): number {
  const parse = (c: string) => {
    const n = c.match(/[\d.]+/g)!.map(Number);
    return { r: n[0]!, g: n[1]!, b: n[2]!, a: n[3] ?? 1 };
  };
  const base = parse(under);
  const over = (c: ReturnType<typeof parse>) => ({
    r: c.r * c.a + base.r * (1 - c.a),
    g: c.g * c.a + base.g * (1 - c.a),
    b: c.b * c.a + base.b * (1 - c.a),
  });
  const lum = (c: { r: number; g: number; b: number }) => {
    const ch = (v: number) => {
      const x = v / 255;
      return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * ch(c.r) + 0.7152 * ch(c.g) + 0.0722 * ch(c.b);
  };
  const back = over(parse(bg));
  const front = (() => {
    const f = parse(fg);
    return { r: f.r * f.a + back.r * (1 - f.a), g: f.g * f.a + back.g * (1 - f.a), b: f.b * f.a + back.b * (1 - f.a) };
  })();
  const [a, b] = [lum(front), lum(back)].sort((x, y) => y - x);
  return (a! + 0.05) / (b! + 0.05);
}

j.step('a landscape photo shows whole, zoom enlarges it and Fit brings it back', async (s) => {
  const upright = await uprightSize(s, W.landscape);
  assert.equal(upright, { width: 4000, height: 3000 });
  await openAddress(s, W.landscape);
  const img = s.page.locator('.image-stage img');
  const stage = s.page.locator('.viewer-body');
  const fitted = await shownPicture(s, img, stage);
  assertWhole('landscape', fitted, upright);
  // The magenta band over the bottom 5 % is on screen: the pixel just above the picture's bottom edge.
  await s.tap(s.page.getByRole('button', { name: 'Zoom in' }));
  await s.eventually('the picture to grow past the stage', async () => {
    const b = await img.evaluate((i) => i.getBoundingClientRect().toJSON());
    return b.width > fitted.stage.width + 1 || b.height > fitted.stage.height + 1;
  });
  assert.match(await s.page.locator('.zoom-controls').innerText(), /150 %/);
  await s.tap(s.page.getByRole('button', { name: 'Fit', exact: true }));
  await s.eventually('Fit to bring the picture back whole', async () => {
    const b = await img.evaluate((i) => i.getBoundingClientRect().toJSON());
    return Math.abs(b.width - fitted.box.width) < 1 && Math.abs(b.top - fitted.box.top) < 1;
  });
  assertWhole('landscape after Fit', await shownPicture(s, img, stage), upright);
});

j.step('a portrait photo and one turned by the camera show whole and upright', async (s) => {
  for (const rel of [W.portrait, W.rotated]) {
    const upright = await uprightSize(s, rel);
    assert.ok(upright.height > upright.width, `${rel} is a portrait: ${JSON.stringify(upright)}`);
    await openAddress(s, rel);
    assertWhole(
      rel,
      await shownPicture(s, s.page.locator('.image-stage img'), s.page.locator('.viewer-body')),
      upright,
    );
  }
});

j.step('after an edit the viewer shows the saved text, and every button of its bar can be seen', async (s) => {
  assert.is(s.read(W.shopping), W.shoppingText);
  await openAddress(s, W.shopping);
  const text = s.page.locator('.viewer .cm-content');
  await s.eventually('the text', async () => (await text.innerText()).includes('Eggs'));
  assert.is(await s.page.locator('.viewer .notice').count(), 0, 'no "first 2 MB" note on a small file');
  await s.tap(s.page.getByRole('button', { name: 'Edit', exact: true }));
  const editor = s.page.locator('.editor-window .cm-content');
  await s.eventually('the editor to hold the text', async () => (await editor.innerText()).includes('Eggs'));
  await s.tap(editor);
  await s.page.keyboard.press('Control+End');
  await s.page.keyboard.type('Strawberries & cream\n');
  await s.tap(s.page.getByRole('button', { name: 'Save', exact: true }));
  const saved = `${W.shoppingText}Strawberries & cream\n`;
  await s.eventually('the file on disk to hold the new line', () => s.read(W.shopping) === saved);
  await s.page.locator('.editor-status [role=status]', { hasText: /^Saved$/ }).waitFor();
  await s.tap(s.page.getByRole('button', { name: 'Close editor' }));
  await s.eventually('the viewer to show the saved text', async () =>
    (await s.page.locator('.viewer .cm-content').innerText()).includes('Strawberries & cream'),
  );
  assert.is(await s.page.locator('.viewer .notice').count(), 0, 'no "first 2 MB" note after the save');
  assert.match(
    await s.page.locator('.viewer-title .small').innerText(),
    new RegExp(`${Buffer.byteLength(saved)} B`),
    'the size is the saved file’s',
  );
  // Every button of the bar has a name and shows its icon or label — under the pointer too (the
  // close button the pointer rests on after closing the editor showed as a blank square).
  const buttons = s.page.locator('.viewer-bar button, .viewer-bar a.button');
  const count = await buttons.count();
  assert.ok(count >= 4, `${count} buttons`);
  for (let i = 0; i < count; i++) {
    const b = buttons.nth(i);
    if (!(await b.isVisible())) continue;
    const name = (await b.getAttribute('aria-label')) ?? (await b.innerText()).trim();
    assert.ok(name, `button ${i} has a name`);
    if (!s.size.touch) await b.hover();
    const look = await b.evaluate((el) => {
      const mark = el.querySelector('svg') ?? el;
      const r = mark.getBoundingClientRect();
      const bar = getComputedStyle(el.closest('.viewer-bar')!).backgroundColor;
      return {
        color: getComputedStyle(el).color,
        background: getComputedStyle(el).backgroundColor,
        bar,
        size: [r.width, r.height],
      };
    });
    assert.ok(look.size[0]! > 8 && look.size[1]! > 8, `${name}: its icon or label has a size ${JSON.stringify(look)}`);
    const under = look.background === 'rgba(0, 0, 0, 0)' ? look.bar : look.background;
    const ratio = contrast(look.color, under, 'rgb(17, 17, 17)');
    assert.ok(ratio >= 3, `${name}: contrast ${ratio.toFixed(2)} ${JSON.stringify(look)}`);
  }
});

j.step('every folder and open file has an address: reload, bookmark, Back, a housemate', async (s) => {
  // The server answers the page at any address of the app, names with extensions included.
  for (const rel of [W.readingList, W.pdf, W.landscape, `${W.odd}/${W.oddNames[0]}`, W.hidden]) {
    const r = await s.api('GET', filesAddress(HOME, rel));
    assert.is(r.status, 200, `${rel}: ${r.status}`);
    assert.match(r.headers['content-type'] ?? '', /^text\/html/, rel);
  }
  // Opened from its folder: the address is the file's; Back closes the viewer and stays in the folder.
  await s.goto(filesAddress(HOME, 'Documents/Notes'));
  // (A double tap at phone size: how one tap opens a file is the folder view's journey.)
  const plan = await s.entry(baseName(W.gardenPlan));
  await (s.size.touch ? plan.dblclick() : s.open(plan));
  await viewer(s.page).waitFor();
  assert.is(new URL(s.page.url()).pathname, filesAddress(HOME, W.gardenPlan));
  await s.page.reload();
  await viewer(s.page).waitFor();
  await s.eventually(
    'reload shows the same file',
    async () => (await viewerTitle(s.page).innerText()) === 'Garden plan.md',
  );
  await s.page.locator('.markdown-body h1', { hasText: 'Garden plan & budget' }).waitFor();
  // Next walks the folder, and the address follows.
  await s.tap(s.page.getByRole('button', { name: 'Next file' }));
  await s.eventually('the next file', async () => (await viewerTitle(s.page).innerText()) !== 'Garden plan.md');
  const next = await viewerTitle(s.page).innerText();
  assert.is(new URL(s.page.url()).pathname, filesAddress(HOME, `Documents/Notes/${next}`));
  await s.page.goBack();
  await viewer(s.page).waitFor({ state: 'detached' });
  assert.is(new URL(s.page.url()).pathname, filesAddress(HOME, 'Documents/Notes'));
  await s.folder(`${HOME}/Documents/Notes`);
  // A bookmark in a new tab.
  const tab = await s.context.newPage();
  await openAddress(s, W.letterNfc, tab);
  assert.match(await tab.locator('.viewer .cm-content').innerText(), /\S/);
  await tab.close();
  // A housemate signed in with their own account opens the same address.
  const created = await s.api('POST', '/api/users', {
    email: 'grace@example.org',
    username: 'grace',
    password: 'graces own long password',
    roles: [],
  });
  assert.is(created.status, 201, created.text);
  const mate = await s.anonymous();
  await mate.page.goto(s.url(filesAddress(HOME, W.portrait)));
  await mate.page.getByLabel('Email or username').fill('grace');
  await mate.page.getByLabel('Password').fill('graces own long password');
  await mate.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await viewer(mate.page).waitFor();
  await s.eventually(
    'the housemate sees the photo',
    async () => (await viewerTitle(mate.page).innerText()) === baseName(W.portrait),
  );
  assert.is(new URL(mate.page.url()).pathname, filesAddress(HOME, W.portrait));
  const theirs = await mate.context.request.get(s.url('/api/auth/me'));
  assert.is((await theirs.json()).user.username, 'grace');
  await mate.context.close();
  // Closing a viewer opened at its address goes to its folder.
  await openAddress(s, W.portrait);
  await s.tap(s.page.getByRole('button', { name: 'Close viewer' }));
  await viewer(s.page).waitFor({ state: 'detached' });
  assert.is(new URL(s.page.url()).pathname, filesAddress(HOME, W.holiday));
  await s.folder(`${HOME}/${W.holiday}`);
});

j.step('Markdown: relative links open in Burrow, pictures beside it show, task lists and quotes', async (s) => {
  await openAddress(s, W.readingList);
  const body = s.page.locator('.markdown-body');
  await body.locator('h1', { hasText: 'Reading list' }).waitFor();
  // Task list: four boxes, two ticked, none a control.
  const boxes = body.locator('li input[type=checkbox]');
  assert.is(await boxes.count(), 4);
  assert.equal(
    await boxes.evaluateAll((els) =>
      els.map((e) => [(e as HTMLInputElement).checked, (e as HTMLInputElement).disabled]),
    ),
    [
      [true, true],
      [true, true],
      [false, true],
      [false, true],
    ],
  );
  // The quote is set apart: a rule on its left.
  const quote = await body.locator('blockquote').evaluate((q) => ({
    rule: parseFloat(getComputedStyle(q).borderLeftWidth),
    style: getComputedStyle(q).borderLeftStyle,
  }));
  assert.ok(quote.rule >= 2 && quote.style === 'solid', JSON.stringify(quote));
  // The picture beside the document (../../Photos/Holiday%202025/Beach%20at%20dawn.jpg) is the file's.
  const pic = body.locator('img[alt="Beach at dawn"]');
  await s.eventually('the picture to load', () =>
    pic.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth > 0),
  );
  const src = new URL((await pic.getAttribute('src'))!, s.base);
  assert.is(src.searchParams.get('path'), `${HOME}/${W.landscape}`);
  // A link to another note opens it here, at its address; Back returns to the list.
  await s.tap(body.getByRole('link', { name: 'garden plan' }));
  await s.page.locator('.markdown-body h1', { hasText: 'Garden plan & budget' }).waitFor();
  assert.is(new URL(s.page.url()).pathname, filesAddress(HOME, W.gardenPlan));
  await s.page.goBack();
  await s.page.locator('.markdown-body h1', { hasText: 'Reading list' }).waitFor();
  // A link with spaces, & and brackets (<../Taxes & Bills/Tax return 2024 (final).pdf>) opens the PDF.
  await s.tap(s.page.locator('.markdown-body').getByRole('link', { name: 'tax return' }));
  await s.eventually('the PDF', async () => (await viewerTitle(s.page).innerText()) === baseName(W.pdf));
  assert.is(new URL(s.page.url()).pathname, filesAddress(HOME, W.pdf));
  // A link to the letter (percent-encoded accents) too.
  await s.page.goBack();
  await s.page.locator('.markdown-body h1', { hasText: 'Reading list' }).waitFor();
  await s.tap(s.page.locator('.markdown-body').getByRole('link', { name: 'the letter to Zoé' }));
  await s.eventually('the letter', async () => (await viewerTitle(s.page).innerText()) === baseName(W.letterNfc));
});

j.step('in the dark theme the code viewer and the editor are dark, and follow a change of theme', async (s) => {
  await s.page.emulateMedia({ colorScheme: 'dark' });
  try {
    await openAddress(s, W.codeTs);
    const code = s.page.locator('.viewer .cm-editor');
    await s.eventually('syntax colours', async () => (await code.locator('.cm-line span').count()) > 5);
    const readable = async (where: Locator) =>
      where.evaluate((ed) => {
        const bg = getComputedStyle(ed).backgroundColor;
        const spans = [...ed.querySelectorAll('.cm-line span')].map((sp) => getComputedStyle(sp).color);
        return { bg, colours: [...new Set([getComputedStyle(ed.querySelector('.cm-line')!).color, ...spans])] };
      });
    const dark = await readable(code);
    assert.ok(contrast('rgb(255, 255, 255)', dark.bg) > 10, `a dark background: ${dark.bg}`);
    for (const c of dark.colours) assert.ok(contrast(c, dark.bg) >= 3.5, `${c} on ${dark.bg}: ${contrast(c, dark.bg)}`);
    // The system turns light while the file is open: the colours follow.
    await s.page.emulateMedia({ colorScheme: 'light' });
    // The background (a CSS variable) turns at once, the highlighting a moment later: both awaited.
    await s.eventually('a light background with readable colours', async () => {
      const light = await readable(code);
      return contrast('rgb(0, 0, 0)', light.bg) > 10 && light.colours.every((c) => contrast(c, light.bg) >= 3.5);
    });
    await s.page.emulateMedia({ colorScheme: 'dark' });
    // The editor too.
    await s.tap(s.page.getByRole('button', { name: 'Edit', exact: true }));
    const editor = s.page.locator('.editor-window .cm-editor');
    await s.eventually('the editor', async () => (await editor.locator('.cm-line span').count()) > 5);
    const editing = await readable(editor);
    assert.ok(contrast('rgb(255, 255, 255)', editing.bg) > 10, `a dark editor: ${editing.bg}`);
    for (const c of editing.colours) assert.ok(contrast(c, editing.bg) >= 3.5, `${c} on ${editing.bg}`);
    await s.tap(s.page.getByRole('button', { name: 'Close editor' }));
    await s.page.locator('.editor-window').waitFor({ state: 'detached' });
  } finally {
    await s.page.emulateMedia({ colorScheme: 'light' });
  }
});

j.step('a PDF shows its pages through pdf.js where the browser has no viewer in a page', async (s) => {
  const meta = await s.api('GET', `/api/metadata/${filesAddress(HOME, W.pdf).slice('/files/'.length)}`);
  assert.is(meta.json.pages, 2, meta.text);
  const workerRequests: string[] = [];
  s.page.on('request', (r) => {
    if (/pdf\.worker/.test(r.url())) workerRequests.push(r.url());
  });
  // A phone (coarse pointer) uses pdf.js by itself; the desktop's own viewer is set aside for the test.
  if (!s.size.touch) await s.page.evaluate(() => localStorage.setItem('burrow.pdfViewer', 'pdfjs'));
  try {
    await openAddress(s, W.pdf);
    const pages = s.page.locator('.pdf-page');
    await s.eventually('both pages laid out', async () => (await pages.count()) === meta.json.pages);
    const first = pages.first();
    await s.eventually('page 1 drawn', async () => (await first.getAttribute('data-rendered')) === 'true');
    await s.eventually('page 1 text', async () =>
      ((await first.locator('.textLayer').textContent()) ?? '').includes('Tax return 2024'),
    );
    // Drawn, not blank: the canvas holds dark text pixels.
    const inked = await first.locator('canvas').evaluate((c: HTMLCanvasElement) => {
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let dark = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i]! < 100 && d[i + 1]! < 100 && d[i + 2]! < 100) dark++;
      return dark;
    });
    assert.ok(inked > 50, `${inked} dark pixels on page 1`);
    const box = await first.evaluate((p) => p.getBoundingClientRect().toJSON());
    const stage = await s.page.locator('.pdf-stage').evaluate((p) => p.clientWidth);
    if (s.size.touch) assert.ok(Math.abs(box.width - (stage - 24)) < 2, `fits the width: ${box.width} of ${stage}`);
    else assert.ok(box.width <= stage, `within the stage: ${box.width} of ${stage}`);
    // Scrolling reaches page 2, drawn with its text.
    await pages.nth(1).evaluate((p) => p.scrollIntoView({ block: 'start' }));
    await s.eventually('page 2 drawn', async () =>
      ((await pages.nth(1).locator('.textLayer').textContent()) ?? '').includes('Deductions'),
    );
    await s.page.locator('.pdf-controls', { hasText: 'Page 2 of 2' }).waitFor();
    // Zoom from the fitted width, and back.
    await s.tap(s.page.getByRole('button', { name: 'Zoom in' }));
    await s.eventually(
      'a larger page',
      async () => (await first.evaluate((p) => p.getBoundingClientRect().width)) > box.width + 10,
    );
    await s.tap(s.page.getByRole('button', { name: 'Fit width' }));
    await s.eventually(
      'the fitted width again',
      async () => Math.abs((await first.evaluate((p) => p.getBoundingClientRect().width)) - box.width) < 1,
    );
    // pdf.js's worker came from this server, bundled with the UI.
    assert.ok(workerRequests.length >= 1, 'the worker was loaded');
    for (const u of workerRequests) assert.ok(u.startsWith(`${s.base}/assets/`), u);
  } finally {
    if (!s.size.touch) await s.page.evaluate(() => localStorage.removeItem('burrow.pdfViewer'));
  }
});

j.step('a link holder sees a photo folder as a grid of thumbnails and steps through its photos', async (s) => {
  const created = await s.api('POST', '/api/shares', { sourcePath: `${HOME}/${W.holiday}`, sharingType: 'anyone' });
  assert.is(created.status, 201, created.text);
  const { shareUrl, shareToken, id } = created.json;
  const v = await s.anonymous();
  try {
    await linkHolderSteps(s, v, shareUrl, shareToken, id);
  } catch (err) {
    // The harness keeps the owner's page; the link holder's is the one that tells.
    const dir = path.join(artifacts, 'journey', 'journey-viewers', s.size.name);
    fs.mkdirSync(dir, { recursive: true });
    await v.page.screenshot({ path: path.join(dir, 'link-holder-page.png') }).catch(() => undefined);
    throw err;
  } finally {
    await v.context.close();
  }
});

async function linkHolderSteps(
  s: Step,
  v: { page: Page; context: BrowserContext; problems: string[] },
  shareUrl: string,
  shareToken: string,
  id: string,
): Promise<void> {
  await v.page.goto(shareUrl);
  const grid = v.page.getByRole('list', { name: 'Entries' });
  await v.page.locator('.link-grid').waitFor();
  const photos = [W.landscape, W.portrait, W.rotated, W.cafe].map(baseName).sort((a, b) => a.localeCompare(b));
  const thumbs = grid.locator('img.link-thumb');
  await s.eventually('a thumbnail for each photo', async () => (await thumbs.count()) === photos.length);
  await s.eventually('every thumbnail drawn', () =>
    thumbs.evaluateAll((els) =>
      els.every((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0),
    ),
  );
  // What the server gives a link holder: the link's own thumbnail row, a WebP.
  const src = (await thumbs.first().getAttribute('src'))!;
  assert.ok(src.startsWith(`/api/share/${shareToken}/thumbnail?`), src);
  const pic = await v.context.request.get(s.url(src));
  assert.is(pic.status(), 200);
  assert.is(pic.headers()['content-type'], 'image/webp');
  // The turned photo's thumbnail is upright (taller than wide).
  const turned = grid.locator(`li[data-name="${baseName(W.rotated)}"] img.link-thumb`);
  const dims = await turned.evaluate((i: HTMLImageElement) => [i.naturalWidth, i.naturalHeight]);
  assert.ok(dims[1]! > dims[0]!, `upright thumbnail: ${dims}`);

  // The preview: whole, next/previous, Escape.
  const open = grid.locator(`li[data-name="${photos[0]}"] .link-tile-open`);
  if (s.size.touch) await open.tap();
  else await open.click();
  const preview = v.page.getByRole('dialog', { name: photos[0] });
  await preview.waitFor();
  const img = v.page.locator('.link-image');
  const shown = await shownPicture(s, img, v.page.locator('.link-preview-body'));
  const upright = await uprightSize(s, `${W.holiday}/${photos[0]}`);
  assertWhole('the link preview', shown, upright);
  const title = v.page.locator('.link-preview-bar .name');
  assert.match(await title.innerText(), new RegExp(`1 of ${photos.length}`));
  if (s.size.touch) {
    // A swipe to the left: the next photo.
    const b = (await v.page.locator('.link-preview-body').boundingBox())!;
    const cdp = await v.context.newCDPSession(v.page);
    const y = b.y + b.height / 2;
    // A finger's pace, stamped on the events (50 ms apart, resting before it lifts): a slow swipe,
    // not a fling (a tap during a fling only stops it, as on a phone).
    let t = Date.now() / 1000;
    const touch = (type: string, x?: number) =>
      cdp.send('Input.dispatchTouchEvent', {
        type: type as 'touchStart',
        touchPoints: x === undefined ? [] : [{ x, y }],
        timestamp: (t += 0.05),
      });
    let x = b.x + b.width - 40;
    await touch('touchStart', x);
    for (x -= 40; x > b.x + 60; x -= 40) await touch('touchMove', x);
    t += 0.2;
    await touch('touchMove', x + 40);
    await touch('touchEnd');
  } else await v.page.keyboard.press('ArrowRight');
  await s.eventually('the next photo', async () => (await title.innerText()).startsWith(photos[1]!));
  await (s.size.touch
    ? v.page.getByRole('button', { name: 'Previous file' }).tap()
    : v.page.keyboard.press('ArrowLeft'));
  await s.eventually('the first photo again', async () => (await title.innerText()).startsWith(photos[0]!));
  await (s.size.touch
    ? v.page.getByRole('button', { name: 'Next file' }).tap()
    : v.page.getByRole('button', { name: 'Next file' }).click());
  await s.eventually('next by the button', async () => (await title.innerText()).startsWith(photos[1]!));
  if (!s.size.touch) {
    // Two keys in a row, as fast as a person taps them: each steps from where the lightbox is.
    await v.page.keyboard.press('ArrowRight');
    await v.page.keyboard.press('ArrowRight');
    await s.eventually('two photos on', async () => (await title.innerText()).startsWith(photos[3]!));
    await v.page.keyboard.press('ArrowLeft');
    await v.page.keyboard.press('ArrowLeft');
    await s.eventually('two photos back', async () => (await title.innerText()).startsWith(photos[1]!));
  }
  await v.page.keyboard.press('Escape');
  await preview.waitFor({ state: 'detached' });
  // Looking is no download: the link's counter is unchanged.
  const mine = await s.api('GET', '/api/shares');
  const row = mine.json.shares.find((x: any) => x.id === id);
  assert.is(row.downloadCount, 0, JSON.stringify(row));
  assert.equal(
    v.problems.filter((p) => p.startsWith('page error')),
    [],
  );
}

j.run();
