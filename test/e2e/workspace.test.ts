// The folder view's must-haves in Chromium against the real server: favourites (drag to
// reorder, kept on the server), per-folder sort and view through /api/folder-prefs, column
// widths, rubber-band selection, the copy/move dialog with its folder picker, Alt+drag = copy,
// Ctrl+C/X/V, the versions panel, preferences (hidden files, theme), thumbnails in the grid,
// folder sizes from the index, the slow-server bar, and TUS upload pause/resume/cancel.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { removeDirs, type TestServer } from '../support/server.ts';
import { DESKTOP, PHONE, hasRoute, launch, newPage, setupAdmin, shot, startWithUi } from './browser.ts';
import { waitFor } from '../support/wait.ts';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-e2e-ws-'));

/** A small solid-colour PNG (RGB, 48×32), so the thumbnailer has a real picture to decode. */
function png(width = 48, height = 32): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(zlib.crc32(body) >>> 0, 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2; // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0).map((_, i) => [200, 80, 40][i % 3]!)]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const files = () => path.join(server.dirs.volumes, 'Files');
const entry = (name: string) => page.locator(`.entry[data-name="${name}"]`);
const api = async (method: string, url: string, data?: unknown) => {
  const res = await context.request.fetch(`${server.url}${url}`, { method, data });
  if (!res.ok()) throw new Error(`${method} ${url} answered ${res.status()}: ${await res.text()}`);
  return res.status() === 204 ? undefined : res.json();
};
/** The names of the rendered entries, top to bottom (rows are absolutely placed). */
const namesInOrder = () =>
  page.locator('.entry').evaluateAll((els) =>
    els
      .map((el) => ({
        name: el.getAttribute('data-name')!,
        y: el.getBoundingClientRect().top,
        x: el.getBoundingClientRect().left,
      }))
      .sort((a, b) => a.y - b.y || a.x - b.x)
      .map((e) => e.name),
  );
/** In-app navigation through the sidebar (keeps the page's state, unlike goto). */
const openVolume = async (name: string) => {
  await page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('region', { name: `Folder ${name}` }).waitFor();
};

test.before(async () => {
  server = await startWithUi({ UPLOAD_CHUNKED_ENABLED: 'true', FOLDER_SIZE_MODE: 'full' }, ['Files', 'Other']);
  const f = path.join(server.dirs.volumes, 'Files');
  fs.mkdirSync(path.join(f, 'docs', 'sub'), { recursive: true });
  fs.writeFileSync(path.join(f, 'docs', 'a.txt'), 'a');
  fs.writeFileSync(path.join(f, 'docs', 'b.txt'), 'bbbb');
  fs.writeFileSync(path.join(f, 'docs', 'c.txt'), 'cc');
  fs.writeFileSync(path.join(f, 'docs', 'd.txt'), 'ddd');
  fs.mkdirSync(path.join(f, 'dest'));
  fs.mkdirSync(path.join(f, 'pics'));
  fs.writeFileSync(path.join(f, 'pics', 'pic.png'), png());
  fs.mkdirSync(path.join(f, 'sizes', 'inner'), { recursive: true });
  fs.writeFileSync(path.join(f, 'sizes', 'inner', 'blob.bin'), Buffer.alloc(300_000, 7));
  fs.writeFileSync(path.join(f, '.hidden.txt'), 'secret-ish');
  fs.writeFileSync(path.join(f, 'notes.txt'), 'one');
  ({ browser } = await launch());
  // No service worker: the slow server (page.route) and the throttled upload (DevTools) below
  // hold the page's requests, which a page under the worker's control would send past both.
  const p = await newPage(browser, DESKTOP, { serviceWorkers: 'block' });
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
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('favourites: added from the toolbar, dragged to a new order that the server keeps', async () => {
  await page.goto(`${server.url}/files/Files/docs`);
  await entry('a.txt').waitFor();
  await page.getByRole('button', { name: 'Add folder to favourites' }).click();
  await page.getByRole('button', { name: 'Remove folder from favourites' }).waitFor();
  await page.goto(`${server.url}/files/Files/dest`);
  await page.getByRole('button', { name: 'Add folder to favourites' }).click();
  const favs = page.getByRole('list', { name: 'Favourites' }).locator('li');
  await waitFor(async () => (await favs.count()) === 2, { what: 'two favourites in the sidebar' });
  assert.equal(await favs.allInnerTexts(), ['docs', 'dest']);
  await favs.nth(1).dragTo(favs.nth(0));
  await waitFor(
    async () => {
      const list = (await api('GET', '/api/favorites')) as { path: string; position: number }[];
      return list.map((f) => f.path).join() === 'Files/dest,Files/docs';
    },
    { what: 'the server holds the new order' },
  );
  await page.reload();
  await waitFor(async () => (await favs.allInnerTexts()).join() === 'dest,docs', { what: 'sidebar after reload' });
  await shot(page, 'favourites-desktop');
});

test('sort and view are remembered per folder through /api/folder-prefs (not only in this browser)', async () => {
  await page.goto(`${server.url}/files/Files/docs`);
  await entry('a.txt').waitFor();
  const header = page.getByRole('columnheader', { name: /Size/ });
  await header.getByRole('button').click();
  await header.getByRole('button').click();
  assert.is(await header.getAttribute('aria-sort'), 'descending');
  await waitFor(
    async () => {
      const p = (await api('GET', '/api/folder-prefs/Files/docs')) as {
        sortBy: string;
        sortDir: string;
        saved: boolean;
      };
      return p.saved && p.sortBy === 'size' && p.sortDir === 'desc';
    },
    { what: 'prefs on the server' },
  );
  // Folders first, then files by size, largest first.
  assert.equal(await namesInOrder(), ['sub', 'b.txt', 'd.txt', 'c.txt', 'a.txt']);
  await page.goto(`${server.url}/files/Files/dest`);
  await page.getByRole('button', { name: 'Show as grid' }).click();
  await waitFor(async () => ((await api('GET', '/api/folder-prefs/Files/dest')) as { view: string }).view === 'grid', {
    what: 'grid on the server',
  });
  // Forget the browser's own copy: what comes back must come from the server.
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${server.url}/files/Files/docs`);
  await entry('a.txt').waitFor();
  await waitFor(
    async () => (await page.getByRole('columnheader', { name: /Size/ }).getAttribute('aria-sort')) === 'descending',
    { what: 'sort from the server' },
  );
  assert.equal(await namesInOrder(), ['sub', 'b.txt', 'd.txt', 'c.txt', 'a.txt']);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${server.url}/files/Files/dest`);
  await page.getByRole('button', { name: 'Show as list' }).waitFor();
  assert.is(await page.locator('.list-header').count(), 0, 'dest opens as a grid');
  await page.goto(`${server.url}/files/Files/docs`);
  await page.locator('.list-header').waitFor();
});

test('a resized column keeps its width after a reload', async () => {
  await page.goto(`${server.url}/files/Files/docs`);
  const cell = page.getByRole('columnheader', { name: /Kind/ });
  await cell.waitFor();
  const before = (await cell.boundingBox())!.width;
  const handle = (await page.getByRole('separator', { name: 'Resize Kind' }).boundingBox())!;
  await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
  await page.mouse.down();
  await page.mouse.move(handle.x + 60, handle.y + handle.height / 2, { steps: 5 });
  await page.mouse.move(handle.x + 90, handle.y + handle.height / 2, { steps: 5 });
  await page.mouse.up();
  const after = (await cell.boundingBox())!.width;
  assert.ok(after > before + 60, `column widened (${before} → ${after})`);
  await page.reload();
  await cell.waitFor();
  assert.ok(Math.abs((await cell.boundingBox())!.width - after) < 2, 'same width after reload');
  // A row's Kind cell follows the header.
  const row = (await entry('a.txt').locator('.col-kind').boundingBox())!;
  assert.ok(Math.abs(row.width - after) < 2, `rows follow the header (${row.width} vs ${after})`);
});

test('rubber band: dragging on empty space selects the rows the rectangle crosses', async () => {
  await api('PUT', '/api/folder-prefs/Files/docs', { view: 'list', sortBy: 'name', sortDir: 'asc' });
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${server.url}/files/Files/docs`);
  await entry('d.txt').waitFor();
  assert.equal(await namesInOrder(), ['sub', 'a.txt', 'b.txt', 'c.txt', 'd.txt']);
  const last = (await entry('d.txt').boundingBox())!;
  const b = (await entry('b.txt').boundingBox())!;
  await page.mouse.move(last.x + 300, last.y + last.height + 40);
  await page.mouse.down();
  await page.mouse.move(last.x + 250, b.y + b.height / 2, { steps: 8 });
  await page.locator('.rubber-band').waitFor();
  await shot(page, 'rubber-band-desktop');
  await page.mouse.up();
  const selected = await page
    .locator('.entry.selected')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-name')).sort());
  assert.equal(selected, ['b.txt', 'c.txt', 'd.txt']);
  await page.getByText('3 selected').waitFor();
  assert.is(await page.locator('.rubber-band').count(), 0, 'the band goes away');
});

test('copy and move through the dialog and its folder picker', async () => {
  await entry('a.txt').click();
  await page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Copy to…' }).click();
  const dialog = page.locator('dialog[open]');
  await dialog.getByRole('button', { name: '↰ Up' }).click();
  await dialog.getByRole('button', { name: 'dest' }).click();
  await dialog.getByText('Into Files/dest').waitFor();
  await shot(page, 'copy-dialog-desktop');
  await dialog.getByRole('button', { name: 'Copy here' }).click();
  await waitFor(() => fs.existsSync(path.join(files(), 'dest', 'a.txt')), { what: 'a.txt copied into dest' });
  assert.ok(fs.existsSync(path.join(files(), 'docs', 'a.txt')), 'the original stays');

  await entry('b.txt').click();
  await page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Move to…' }).click();
  await dialog.getByRole('button', { name: 'All volumes' }).click();
  const pick = dialog.getByRole('button', { name: 'Move here' });
  assert.ok(await pick.isDisabled(), 'no moving into the list of volumes');
  await dialog.getByRole('button', { name: 'Other' }).click();
  await dialog.getByText('Into Other').waitFor();
  await pick.click();
  await page.waitForFunction(() => !document.querySelector('.entry[data-name="b.txt"]'));
  assert.ok(fs.existsSync(path.join(server.dirs.volumes, 'Other', 'b.txt')), 'moved to the other volume');
  assert.not.ok(fs.existsSync(path.join(files(), 'docs', 'b.txt')));
});

test('Alt+drag onto a folder copies; the original stays', async () => {
  await page.keyboard.down('Alt');
  await entry('c.txt').dragTo(entry('sub'));
  await page.keyboard.up('Alt');
  await waitFor(() => fs.existsSync(path.join(files(), 'docs', 'sub', 'c.txt')), { what: 'c.txt copied into sub' });
  assert.ok(fs.existsSync(path.join(files(), 'docs', 'c.txt')), 'Alt made it a copy');
  await entry('c.txt').waitFor();
});

test('Ctrl+C / Ctrl+V copies into another folder; Ctrl+X / Ctrl+V moves', async () => {
  await entry('d.txt').click();
  await page.keyboard.press('Control+c');
  await entry('sub').dblclick();
  await page.getByRole('region', { name: 'Folder Files/docs/sub' }).waitFor();
  await entry('c.txt').click();
  await page.keyboard.press('Control+v');
  await entry('d.txt').waitFor();
  assert.ok(fs.existsSync(path.join(files(), 'docs', 'd.txt')), 'copy leaves the original');
  assert.ok(fs.existsSync(path.join(files(), 'docs', 'sub', 'd.txt')));
  await page.keyboard.press('Backspace');
  await page.getByRole('region', { name: 'Folder Files/docs' }).waitFor();
  await entry('c.txt').click();
  await page.keyboard.press('Control+x');
  await page.keyboard.press('Backspace');
  await page.getByRole('region', { name: 'Folder Files' }).waitFor();
  await entry('dest').dblclick();
  await entry('a.txt').click();
  await page.keyboard.press('Control+v');
  await entry('c.txt').waitFor();
  assert.ok(fs.existsSync(path.join(files(), 'dest', 'c.txt')));
  assert.not.ok(fs.existsSync(path.join(files(), 'docs', 'c.txt')), 'cut + paste moved it');
});

test('versions panel: two saves through the editor keep versions; restore one; restore one as a copy', async () => {
  await openVolume('Files');
  // Double-click opens the viewer now; details and versions are on the item's menu.
  await entry('notes.txt').click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Details and versions' }).click();
  const panel = page.getByRole('complementary', { name: 'Details of notes.txt' });
  await panel.getByText('No earlier versions').waitFor();
  // Edit text opens the full-window editor; the panel reads the versions again when it closes.
  const editor = page.getByRole('dialog', { name: 'Editing notes.txt' });
  const edit = async (content: string) => {
    await editor.locator('.cm-content').click();
    await page.keyboard.press('Control+a');
    await page.keyboard.type(content);
    await page.keyboard.press('Control+s');
    await waitFor(() => fs.readFileSync(path.join(files(), 'notes.txt'), 'utf8') === content, {
      what: `saved "${content}"`,
    });
  };
  await panel.getByRole('button', { name: 'Edit text' }).click();
  await editor.locator('.cm-content', { hasText: 'one' }).waitFor();
  const versions = panel.getByRole('region', { name: 'Versions' }).locator('li');
  await edit('two');
  await edit('three!');
  await editor.getByRole('button', { name: 'Close editor' }).click();
  await editor.waitFor({ state: 'detached' });
  await waitFor(async () => (await versions.count()) === 2, { what: 'two versions' });
  assert.is(fs.readFileSync(path.join(files(), 'notes.txt'), 'utf8'), 'three!');
  await shot(page, 'versions-desktop');
  // Newest first: [two, one]. Restore "one".
  await versions.nth(1).getByRole('button', { name: 'Restore', exact: true }).click();
  await waitFor(() => fs.readFileSync(path.join(files(), 'notes.txt'), 'utf8') === 'one', {
    what: 'file back to "one"',
  });
  await panel.getByRole('button', { name: 'Edit text' }).click();
  await editor.locator('.cm-content', { hasText: 'one' }).waitFor();
  await editor.getByRole('button', { name: 'Close editor' }).click();
  await editor.waitFor({ state: 'detached' });
  // The replaced content ("three!", 6 B) is now a version too; bring it back beside the file.
  await waitFor(async () => (await versions.count()) === 3, { what: 'three versions' });
  await versions.filter({ hasText: '6 B' }).getByRole('button', { name: 'Restore as copy' }).click();
  await waitFor(() => fs.existsSync(path.join(files(), 'notes (1).txt')), { what: 'notes (1).txt made' });
  assert.is(fs.readFileSync(path.join(files(), 'notes (1).txt'), 'utf8'), 'three!');
  assert.is(fs.readFileSync(path.join(files(), 'notes.txt'), 'utf8'), 'one');
  await entry('notes (1).txt').waitFor();
  await panel.getByRole('button', { name: 'Close details' }).click();
});

test('preferences: "show hidden files" shows a dot-file; the theme is applied and kept on the server', async () => {
  await openVolume('Files');
  await entry('notes.txt').waitFor();
  assert.is(await entry('.hidden.txt').count(), 0, 'hidden by default');
  await page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('checkbox', { name: /Show hidden files/ }).check();
  await page.getByText('Saved').first().waitFor();
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
  assert.is(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  await waitFor(
    async () => ((await api('GET', '/api/settings')) as { user: { theme?: string } }).user.theme === 'dark',
    { what: 'theme on the server' },
  );
  await shot(page, 'preferences-dark-desktop');
  await openVolume('Files');
  await entry('.hidden.txt').waitFor();
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await entry('.hidden.txt').waitFor();
  await waitFor(async () => (await page.evaluate(() => document.documentElement.dataset.theme)) === 'dark', {
    what: 'dark after reload, from the server',
  });
  await shot(page, 'folder-dark-desktop');
  await page.goto(`${server.url}/settings/preferences`);
  // The form shows defaults (unchecked) until the server's values are in; unchecking before that
  // would be a no-op that leaves the server's "true" in place.
  const hidden = page.getByRole('checkbox', { name: /Show hidden files/ });
  await waitFor(() => hidden.isChecked(), { what: 'the server\'s "show hidden files" in the form' });
  await hidden.uncheck();
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('system');
  assert.is(await page.evaluate(() => document.documentElement.dataset.theme), undefined);
  await waitFor(
    async () => {
      const u = ((await api('GET', '/api/settings')) as { user: { theme?: string; showHiddenFiles?: boolean } }).user;
      return u.theme === 'system' && u.showHiddenFiles === false;
    },
    { what: 'both back on the server' },
  );
});

test('grid view shows picture thumbnails from /api/thumbnails', async () => {
  if (
    !(await hasRoute(server.url, 'GET', '/api/thumbnails/{path}')) &&
    !(await hasRoute(server.url, 'GET', '/api/thumbnails/*'))
  ) {
    const doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as { paths: Record<string, unknown> };
    assert.ok(
      Object.keys(doc.paths).some((p) => p.startsWith('/api/thumbnails/')),
      'thumbnail route mounted',
    );
  }
  await page.goto(`${server.url}/files/Files/pics`);
  await page.getByRole('button', { name: 'Show as grid' }).click();
  const img = page.locator('.entry[data-name="pic.png"] img.thumb');
  await img.waitFor();
  assert.match((await img.getAttribute('src')) ?? '', /^\/api\/thumbnails-cache\//);
  await waitFor(
    () => img.evaluate((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0),
    { what: 'the thumbnail decoded' },
  );
  await shot(page, 'thumbnails-grid-desktop');
});

test('folder sizes from the index fill the size column (FOLDER_SIZE_MODE=full)', async () => {
  const cell = page.locator('.entry[data-name="sizes"] .col-size');
  await waitFor(
    async () => {
      const asked = page.waitForResponse((r) => r.url().endsWith('/api/folder-size/batch'));
      await page.goto(`${server.url}/files/Files`);
      await entry('sizes').waitFor();
      // The page's own question to the index: not known yet, the page is loaded again; known,
      // the column shows it.
      const res = await asked;
      const paths = (JSON.parse(res.request().postData() ?? '{}') as { paths: string[] }).paths;
      const items = ((await res.json()) as { items: { indexed: boolean }[] }).items;
      if (!items[paths.indexOf('Files/sizes')]?.indexed) return false;
      await cell.filter({ hasNotText: '—' }).waitFor();
      return (await cell.innerText()).trim() === '293 KB';
    },
    { what: 'the index knows the folder', timeoutMs: 15_000 },
  );
  await shot(page, 'folder-sizes-desktop');
});

test('a slow server shows the "waiting" bar until the answer comes', async () => {
  await page.route('**/api/browse/**', async (r) => {
    // The slow server under test.
    await new Promise((ok) => setTimeout(ok, 2500));
    await r.continue().catch(() => undefined);
  });
  try {
    await entry('docs').dblclick();
    const bar = page.getByRole('status').filter({ hasText: 'Waiting for the server' });
    await bar.waitFor();
    await shot(page, 'slow-server-desktop');
    await entry('a.txt').waitFor();
    await bar.waitFor({ state: 'detached' });
  } finally {
    await page.unroute('**/api/browse/**');
  }
});

test('TUS upload: pause stops at an offset the server keeps, resume goes on from it, cancel terminates', async () => {
  const big = path.join(tmp, 'big.bin');
  const gone = path.join(tmp, 'gone.bin');
  fs.writeFileSync(big, Buffer.alloc(20 * 1024 * 1024, 3));
  fs.writeFileSync(gone, Buffer.alloc(20 * 1024 * 1024, 4));
  const tus: { method: string; url: string }[] = [];
  const locations: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/api/upload/tus')) tus.push({ method: r.method(), url: r.url() });
  });
  page.on('response', (r) => {
    const l = r.headers().location;
    if (r.request().method() === 'POST' && r.url().endsWith('/api/upload/tus') && l)
      locations.push(new URL(l, server.url).href);
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  // About 3 MB/s upwards, so there is time to pause and cancel.
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: 3 * 1024 * 1024,
  });
  const offsetOf = async (url: string) => {
    const res = await context.request.head(url, { headers: { 'Tus-Resumable': '1.0.0' } });
    return { status: res.status(), offset: Number(res.headers()['upload-offset'] ?? NaN) };
  };
  try {
    await page.goto(`${server.url}/files/Files/dest`);
    let chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await (await chooser).setFiles(big);
    const row = page.locator('.tray .upload', { hasText: 'big.bin' });
    await row.getByRole('button', { name: 'Pause' }).waitFor();
    await waitFor(async () => /\b([1-9]\d?) %/.test(await row.innerText()), { what: 'some bytes sent' });
    await row.getByRole('button', { name: 'Pause' }).click();
    await row.getByRole('button', { name: 'Resume' }).waitFor();
    assert.ok(await row.evaluate((el) => el.classList.contains('paused')));
    await shot(page, 'upload-paused-desktop');
    assert.is(locations.length, 1);
    const paused = await offsetOf(locations[0]!);
    assert.is(paused.status, 200);
    assert.ok(paused.offset > 0 && paused.offset < 20 * 1024 * 1024, `server kept ${paused.offset} bytes`);
    // A quiet while on purpose: nothing more arrives within it while paused (at ~3 MB/s a running
    // upload would move the offset by megabytes).
    await page.waitForTimeout(800);
    assert.is((await offsetOf(locations[0]!)).offset, paused.offset, 'nothing more arrives while paused');
    await row.getByRole('button', { name: 'Resume' }).click();
    await row.getByRole('button', { name: 'Pause' }).waitFor();
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await page.waitForFunction(
      () => document.querySelector('.tray .upload.done')?.textContent?.includes('big.bin'),
      undefined,
      { timeout: 30_000 },
    );
    assert.is(fs.statSync(path.join(files(), 'dest', 'big.bin')).size, 20 * 1024 * 1024);
    assert.is(tus.filter((r) => r.method === 'POST').length, 1, 'resumed on the same upload, not started again');
    const patches = tus.filter((r) => r.method === 'PATCH');
    assert.ok(
      patches.every((r) => r.url === locations[0]),
      'every PATCH went to the one upload URL',
    );

    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 3 * 1024 * 1024,
    });
    chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await (await chooser).setFiles(gone);
    const second = page.locator('.tray .upload', { hasText: 'gone.bin' });
    await waitFor(async () => /\b([1-9]\d?) %/.test(await second.innerText()), {
      what: 'some bytes of the second file sent',
    });
    await waitFor(() => locations.length === 2, { what: 'its upload URL known' });
    await second.getByRole('button', { name: 'Cancel' }).click();
    await second.getByText('cancelled').waitFor();
    await waitFor(() => tus.some((r) => r.method === 'DELETE' && r.url === locations[1]), { what: 'termination sent' });
    await waitFor(async () => (await offsetOf(locations[1]!)).status === 404, { what: 'the server forgot it' });
    assert.not.ok(fs.existsSync(path.join(files(), 'dest', 'gone.bin')), 'no file placed');
  } finally {
    await cdp
      .send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      })
      .catch(() => undefined);
    await cdp.detach().catch(() => undefined);
  }
  assert.equal(problems, []);
});

test('phone width: new screens fit 360 px', async () => {
  const p = await newPage(browser, PHONE);
  try {
    await p.context.addCookies(await context.cookies());
    for (const [url, name, ready] of [
      [`/files/Files/docs`, 'folder-docs-phone', '.entry'],
      [`/settings/preferences`, 'preferences-phone', 'select'],
      [`/settings/password`, 'password-phone', 'input[type=password]'],
      [`/files/Files/pics`, 'thumbnails-phone', '.entry'],
    ] as const) {
      await p.page.goto(`${server.url}${url}`);
      await p.page.locator(ready).first().waitFor();
      const overflow = await p.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${url}: no sideways scrolling (${overflow}px)`);
      await shot(p.page, name);
    }
    await p.page.goto(`${server.url}/files/Files`);
    await p.page.locator('.entry[data-name="notes.txt"]').click({ button: 'right' });
    await p.page.getByRole('menuitem', { name: 'Details and versions' }).click();
    const kept = p.page
      .getByRole('complementary', { name: 'Details of notes.txt' })
      .getByRole('region', { name: 'Versions' })
      .locator('li');
    await kept.first().waitFor();
    assert.is(
      await kept.count(),
      ((await api('GET', '/api/versions?path=Files/notes.txt')) as { items: unknown[] }).items.length,
      'every kept version listed',
    );
    await shot(p.page, 'versions-phone');
    assert.equal(p.problems, []);
  } finally {
    await p.context.close();
  }
});

test.run();
