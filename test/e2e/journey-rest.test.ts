// The rest of issue 26 as a first-time user meets it, at 1366×768 with a mouse and at 390×844
// with touch, on the world's data through the executable: emoji in names drawn as a person sees
// them; a search result opens the file itself at its address; "Shared by me" gives links at this
// computer's network address when the page is at localhost; an office document opened from its
// address opens in its editor; folder sizes still being counted read as such ("at least …"), and
// a Home card changes when the count ends. Each step checks what the server did.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import * as assert from 'uvu/assert';
import { HOME, W, cssString, filesAddress, journey, type Step } from './journey/harness.ts';
import { setupAdmin, startWithUi } from './browser.ts';
import { removeDirs } from '../support/server.ts';
import { nestPastPathMax, pastPathMax, removeDeep } from '../support/world.ts';
import { formatBytes } from '../../ui/src/util.ts';

// Folder sizes on, the sweep quick (a part found unreadable is retried at once); listening on the
// network, so links made at localhost have a network address to be given at.
const j = journey(import.meta.url, {
  env: {
    FOLDER_SIZE_MODE: 'full',
    FOLDER_SIZE_FLUSH_MS: '50',
    FOLDER_SIZE_RECONCILE_MS: '300',
    FOLDER_SIZE_RECONCILE_PAUSE_MS: '0',
    HOST: '0.0.0.0',
  },
});

const image = createRequire(import.meta.url)('@napi-rs/image') as {
  Transformer: new (input: Buffer) => { rawPixels(): Promise<Buffer> };
};
const enc = (virtual: string) => virtual.split('/').map(encodeURIComponent).join('/');

async function searchFor(s: Step, term: string): Promise<void> {
  await s.goto('/');
  const box = s.page.getByRole('searchbox', { name: 'Search files' });
  await box.fill(term);
  await box.press('Enter');
}

j.step('emoji in names are drawn in colour, as a person sees them, not as boxes', async (s) => {
  const name = W.oddNames.find((n) => n.startsWith('🎉'))!;
  await s.goto(filesAddress(HOME, W.odd));
  const entry = await s.entry(name);
  const label = entry.locator('.name');
  await label.scrollIntoViewIfNeeded();
  // The emoji's own box: the first two UTF-16 units of the name's text.
  const box = await label.evaluate((el) => {
    const text = [...el.childNodes].find((n) => n.nodeType === Node.TEXT_NODE)!;
    const r = document.createRange();
    r.setStart(text, 0);
    r.setEnd(text, 2);
    const b = r.getBoundingClientRect();
    return { x: b.x, y: b.y, width: b.width, height: b.height };
  });
  // A colour emoji is about as wide as the text is high; a missing glyph's box is narrow.
  assert.ok(box.width >= box.height * 0.8, `the emoji's box: ${JSON.stringify(box)}`);
  const png = await s.page.screenshot({ clip: box });
  const px = await new image.Transformer(png).rawPixels();
  let coloured = 0;
  for (let i = 0; i < px.length; i += 4) {
    const [r, g, b] = [px[i]!, px[i + 1]!, px[i + 2]!];
    if (Math.max(r, g, b) - Math.min(r, g, b) > 80) coloured++;
  }
  const share = coloured / (px.length / 4);
  // A party popper is yellow, red and blue; a missing glyph is a grey box or outline.
  // Measured: 39 % with Noto Color Emoji; 13 % (antialiasing) of the 5 px box drawn without it.
  assert.ok(share > 0.25, `${Math.round(share * 100)} % of the emoji's box is in colour (a box drawn instead?)`);
  const listed = await s.api('GET', `/api/browse/${enc(`${HOME}/${W.odd}`)}`);
  assert.ok(
    listed.json.items.some((i: any) => i.name === name),
    'the server lists the name as written',
  );
});

j.step('a search result opens the file itself at its address; a folder result opens the folder', async (s) => {
  const rock = `${W.odd}/Rock + Roll.txt`;
  await searchFor(s, 'Rock');
  const found = await s.api('GET', '/api/search?q=Rock');
  assert.ok(
    found.json.items.some((i: any) => i.name === 'Rock + Roll.txt' && i.path === `${HOME}/${W.odd}`),
    `the server finds it: ${found.text}`,
  );
  const result = s.page.locator(`.results li[data-name=${cssString('Rock + Roll.txt')}]`);
  await s.tap(result.locator('button.link'));
  const viewer = s.page.getByRole('dialog', { name: /Rock \+ Roll\.txt/ });
  await viewer.waitFor();
  await s.eventually('the address to be the file’s', () => s.page.url().endsWith(filesAddress(HOME, rock)));
  // The viewer shows the file's own text, as the server has it.
  const text = s.read(rock).trim().split('\n')[0]!;
  await viewer.getByText(text, { exact: false }).first().waitFor();
  // Close comes back to the results.
  await s.tap(viewer.getByRole('button', { name: 'Close' }));
  await viewer.waitFor({ state: 'detached' });
  await s.eventually('back at the results', () => new URL(s.page.url()).pathname === '/search');
  await result.waitFor();
  // "Open folder" still shows it in its folder, selected.
  await s.tap(result.getByRole('button', { name: 'Open folder' }));
  await s.folder(`${HOME}/${W.odd}`);
  await s.page.locator(`.entry[data-name=${cssString('Rock + Roll.txt')}][aria-selected="true"]`).waitFor();

  // A folder result opens the folder.
  await searchFor(s, 'Holiday');
  const folder = s.page.locator(`.results li[data-name=${cssString('Holiday 2025')}]`);
  await s.tap(folder.locator('button.link'));
  await s.folder(`${HOME}/${W.holiday}`);
  assert.ok(s.page.url().endsWith(filesAddress(HOME, W.holiday)), s.page.url());
  assert.is(await s.page.getByRole('dialog').count(), 0, 'no viewer over a folder');
});

j.step('“Shared by me” gives a link made at localhost at this computer’s network address', async (s) => {
  const created = await s.api('POST', '/api/shares', { sourcePath: `${HOME}/${W.readingList}`, sharingType: 'anyone' });
  assert.is(created.status, 201, created.text);
  const { shareUrl, id } = created.json;
  assert.match(shareUrl, /^http:\/\/localhost:\d+\/s\//, 'made at localhost, the server names localhost');
  const network = (await s.api('GET', '/api/features')).json.network;
  assert.ok(
    network.reachable && network.lanOrigins.length,
    `the server names its network addresses: ${JSON.stringify(network)}`,
  );
  const lan = `${network.lanOrigins[0]}${new URL(shareUrl).pathname}`;

  await s.goto('/shared');
  const row = s.page.locator(`.share-row[data-share=${cssString(id)}]`);
  await row.waitFor();
  const link = row.locator('a.share-url');
  assert.is(await link.innerText(), lan, 'the row shows the network address');
  assert.is(await link.getAttribute('href'), lan);
  assert.is(
    await s.page.getByText('localhost', { exact: false }).locator('visible=true').count(),
    1,
    'localhost is named only where the page says why',
  );
  await s.page.locator('.share-elsewhere-note').getByText(new URL(lan).host).waitFor();
  // Copy link copies the same one.
  await s.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.base });
  await s.tap(row.getByRole('button', { name: 'Copy link' }));
  await s.eventually(
    'the link copied',
    async () => (await s.page.evaluate(() => navigator.clipboard.readText())) === lan,
  );
  // Another device opens it there: the file's page, counted by the server.
  // The page names the file from the link's info and then asks for what it counts: the device
  // stays on the page until the server has counted it (closed at once, the second request could
  // be cut off before it was served).
  const other = await s.anonymous();
  try {
    await other.page.goto(lan);
    await other.page.getByText(path.basename(W.readingList)).first().waitFor();
    await s.eventually('the server counted the visit', async () => {
      const mine = (await s.api('GET', '/api/shares')).json.shares.find((x: any) => x.id === id);
      return mine?.accessCount >= 1;
    });
  } finally {
    await other.context.close();
  }
  await s.api('DELETE', `/api/shares/${id}`);
});

j.step('folder sizes still being counted say so, and a Home card changes when the count ends', async (s) => {
  // An old drive's backup nests deeper than the system's path limit: no walker reads its
  // bottom, so the figures above it are lower bounds until it can be read.
  const old = 'Backups/Old drive – 2009';
  const deep = pastPathMax(18);
  fs.mkdirSync(s.disk(old), { recursive: true });
  fs.writeFileSync(s.disk(`${old}/Brief an Zoé.txt`), 'Liebe Zoé,\n'.repeat(100));
  nestPastPathMax(s.disk(old), deep, 'Tagebuch 2009.txt', 'Heute '.repeat(1000));
  const letter = Buffer.byteLength('Liebe Zoé,\n'.repeat(100));
  const usage = async () => (await s.api('GET', `/api/usage/${enc(HOME)}`)).json.held;
  await s.eventually(
    'the index to find the part it cannot read',
    async () => (await usage())?.complete === false,
    30_000,
  );
  const partial = await usage();
  const record = (await s.api('GET', `/api/folder-size/${enc(`${HOME}/${old}`)}`)).json;
  assert.equal([record.sizeBytes, record.complete], [letter, false], 'the server: a lower bound, not final');

  // The selection bar over the backup, and the size column: a lower bound, said so.
  await s.goto(filesAddress(HOME, 'Backups'));
  await s.select(await s.entry(path.basename(old)));
  const bar = s.page.getByRole('toolbar', { name: 'Selection' });
  await bar.getByText(`1 selected · at least ${formatBytes(letter)}`).waitFor();
  assert.is(await (await s.entry(path.basename(old))).locator('.col-size').innerText(), `≥ ${formatBytes(letter)}`);
  // Home, in a second tab of the same person: the card says it is still counting.
  const home = await s.context.newPage();
  try {
    await home.goto(s.url('/'));
    const card = home.locator('.volume-card', { hasText: HOME });
    await card.getByText(`Holds at least ${formatBytes(partial.bytes)} (still counting)`).waitFor();

    // The deep folders are removed (copied off elsewhere): the count completes, and both the
    // bar and the card follow without a reload.
    removeDeep(s.disk(`${old}/${deep[0]}`));
    await s.eventually(
      'the volume counted whole',
      async () => {
        const u = await usage();
        return u?.complete === true && u.bytes === partial.bytes;
      },
      30_000,
    );
    const final = (await s.api('GET', `/api/folder-size/${enc(`${HOME}/${old}`)}`)).json;
    assert.equal([final.sizeBytes, final.complete], [letter, true]);
    await bar.getByText(`1 selected · ${formatBytes(letter)}`, { exact: true }).waitFor({ timeout: 40_000 });
    await card.getByText(`Holds ${formatBytes(partial.bytes)}`, { exact: true }).waitFor({ timeout: 40_000 });
  } finally {
    await home.close();
  }
  fs.rmSync(s.disk(old), { recursive: true });
});

j.step('an office document opened from its address opens in the office editor, as from the list', async (s) => {
  // Office editing needs PUBLIC_URL and an editing server: a server of its own for this step,
  // beside a stub WOPI editor that edits through the WOPI routes like a real one.
  const PUBLIC = 'http://files.burrow.test';
  const name = 'Quarterly report – Q3 & Q4 #2.docx';
  let editorBase = '';
  let server: Awaited<ReturnType<typeof startWithUi>> | undefined;
  const edits: string[] = [];
  const editor = http.createServer(async (req, res) => {
    const url = new URL(req.url!, editorBase);
    if (url.pathname === '/hosting/discovery') {
      res.setHeader('Content-Type', 'text/xml');
      return res.end(`<?xml version="1.0" encoding="utf-8"?>
<wopi-discovery><net-zone name="external-http">
  <app name="writer"><action default="true" ext="docx" name="edit" urlsrc="${editorBase}/browser/cool.html?"/>
  <action ext="docx" name="view" urlsrc="${editorBase}/browser/cool.html?"/></app>
</net-zone></wopi-discovery>`);
    }
    if (url.pathname === '/browser/cool.html' && req.method === 'POST') {
      let form = '';
      for await (const c of req) form += c;
      const token = new URLSearchParams(form).get('access_token') ?? '';
      const src = url.searchParams.get('WOPISrc')!.replace(PUBLIC, server!.url);
      const q = `?access_token=${encodeURIComponent(token)}`;
      const headers = { origin: editorBase, authorization: `Bearer ${token}` };
      const info = (await (await fetch(src + q, { headers })).json()) as { BaseFileName: string };
      const before = await (await fetch(`${src}/contents${q}`, { headers })).text();
      const put = await fetch(`${src}/contents${q}`, {
        method: 'POST',
        headers: { ...headers, 'X-WOPI-Override': 'PUT' },
        body: `${before} + edit ${edits.length + 1}`,
      });
      edits.push(`${info.BaseFileName} ${put.status}`);
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      const safe = info.BaseFileName.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
      return res.end(`<!doctype html><title>stub editor</title><h1>Editing ${safe}</h1>`);
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((r) => editor.listen(0, '127.0.0.1', r));
  editorBase = `http://127.0.0.1:${(editor.address() as AddressInfo).port}`;
  const context = await s.browser.newContext({
    viewport: s.size.viewport,
    hasTouch: s.size.touch,
    isMobile: s.size.touch,
    deviceScaleFactor: 1,
  });
  try {
    server = await startWithUi({
      PUBLIC_URL: PUBLIC,
      OFFICEEDITOR_URL: editorBase,
      OFFICEEDITOR_SECRET: 'wopi-secret-for-the-journey-0123456789',
    });
    await setupAdmin(context, server.url);
    const disk = path.join(server.dirs.volumes, 'Files', name);
    fs.writeFileSync(disk, 'Umsatz Q3');
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    const win = page.getByRole('dialog', { name: `${name} in the office editor` });
    const frame = page.frameLocator('iframe[name="office-frame"]');

    // Its address, as a bookmark or a link from a housemate: the editor, not the facts card.
    await page.goto(server.url + filesAddress('Files', name));
    await win.waitFor();
    await frame.getByRole('heading', { name: `Editing ${name}` }).waitFor();
    assert.is(await page.locator('.viewer').count(), 0, 'no viewer under the editor');
    assert.equal(edits, [`${name} 200`]);
    assert.is(fs.readFileSync(disk, 'utf8'), 'Umsatz Q3 + edit 1', 'the edit is on disk');
    // A reload stays in the editor.
    await page.reload();
    await frame.getByRole('heading', { name: `Editing ${name}` }).waitFor();
    assert.is(edits.length, 2);
    // Close: the folder, at its address.
    await (s.size.touch
      ? win.getByRole('button', { name: 'Close' }).tap()
      : win.getByRole('button', { name: 'Close' }).click());
    await win.waitFor({ state: 'detached' });
    await page.waitForURL(server.url + filesAddress('Files'));
    // From the list, the same editor, at the document's address; Back closes it.
    const entry = page.locator(`.entry[data-name=${cssString(name)}]`);
    await (s.size.touch ? entry.tap() : entry.dblclick());
    await frame.getByRole('heading', { name: `Editing ${name}` }).waitFor();
    assert.ok(page.url().endsWith(filesAddress('Files', name)), page.url());
    await page.goBack();
    await win.waitFor({ state: 'detached' });
    assert.ok(page.url().endsWith(filesAddress('Files')), page.url());
    const versions = await (
      await context.request.get(`${server.url}/api/versions?path=${encodeURIComponent(`Files/${name}`)}`)
    ).json();
    assert.is(versions.items.length, 3, 'each replaced content is kept');
    assert.equal(problems, []);
  } finally {
    await context.close();
    await server?.close();
    if (server) removeDirs(server.dirs);
    editor.close();
  }
});

j.run();
