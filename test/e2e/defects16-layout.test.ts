// Issue 16's defects that were mended without a test, each where it was seen: the operations
// tray leaves the selection bar's buttons uncovered and clickable while it shows an upload; the
// activity table at 1366 px breaks no word inside (it used to show "Outcom e", "127.0.0. 1")
// and shows the detail in words, not JSON; the token list's "Last used" follows a use of the
// token while the page stays open.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { removeDirs, type TestServer } from '../support/server.ts';
import { DESKTOP, PHONE, launch, newPage, setupAdmin, shot, startWithUi } from './browser.ts';
import { waitFor } from '../support/wait.ts';

const PASSWORD = 'correct horse battery';
let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];
const files = (...p: string[]) => path.join(server.dirs.volumes, 'Files', ...p);

/** A change through the page's session (cookie and Origin, as the page sends them). */
async function api(method: 'POST' | 'PATCH', url: string, data: unknown): Promise<any> {
  const res = await context.request.fetch(`${server.url}${url}`, { method, data, headers: { origin: server.url } });
  assert.ok(res.ok(), `${method} ${url}: ${res.status()} ${await res.text()}`);
  return res.json();
}

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Every button of the bar is outside the tray and is what a click at its centre reaches. */
async function barUncovered(p: Page, where: string): Promise<void> {
  const tray = (await p.locator('.tray').boundingBox())!;
  const buttons = p.getByRole('toolbar', { name: 'Selection' }).getByRole('button');
  const n = await buttons.count();
  assert.ok(n >= 4, `${where}: the selection bar shows its buttons (${n})`);
  for (let i = 0; i < n; i++) {
    const b: Locator = buttons.nth(i);
    const name = await b.innerText();
    const box = (await b.boundingBox())!;
    assert.ok(box.y + box.height <= p.viewportSize()!.height, `${where}: "${name}" is on the screen`);
    assert.not.ok(overlaps(box, tray), `${where}: the tray covers "${name}" (${JSON.stringify({ box, tray })})`);
    const hit = await b.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      return el.contains(at) ? '' : `${at?.tagName}.${at?.className} ${at?.textContent?.slice(0, 40)}`;
    });
    assert.is(hit, '', `${where}: a click on "${name}" reaches it`);
  }
}

test.before(async () => {
  server = await startWithUi({}, ['Files']);
  for (const n of ['alpha.txt', 'beta.txt', 'gamma.txt']) fs.writeFileSync(files(n), `${n}\n`);
  // Uploaded from outside the volume: a name already in the folder would first ask keep both /
  // skip / replace, and nothing would be in flight.
  fs.writeFileSync(path.join(server.dirs.root, 'large.bin'), Buffer.alloc(4 * 1024 * 1024, 7));
  ({ browser } = await launch());
  // No service worker: the upload held in flight below is slowed by DevTools, which a page under
  // the worker's control would send its requests past.
  ({ context, page, problems } = await newPage(browser, DESKTOP, { serviceWorkers: 'block' }));
  await setupAdmin(context, server.url, undefined, PASSWORD);
});
test.after(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  if (server) removeDirs(server.dirs);
});

test("the tray showing an upload leaves the selection bar's buttons uncovered and clickable", async () => {
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.goto(`${server.url}/files/Files`);
  await page.locator('.entry[data-name="alpha.txt"]').waitFor();
  // An upload held in flight (the upload link throttled), so the tray shows it with its progress
  // and its Pause and Cancel buttons: the tallest an upload row gets.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: 32 * 1024,
  });
  try {
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await (await chooser).setFiles(path.join(server.dirs.root, 'large.bin'));
    const row = page.locator('.tray .upload', { hasText: 'large.bin' });
    await row.getByRole('button', { name: 'Pause' }).waitFor();
    await page.locator('.entry[data-name="alpha.txt"]').click();
    await page.locator('.entry[data-name="gamma.txt"]').click({ modifiers: ['Control'] });
    await page.getByText('2 selected').waitFor();
    await shot(page, 'tray-selection-desktop');
    await barUncovered(page, '1366 × 768');
    // Clickable in fact: the copy picker opens from the bar while the upload runs.
    await page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Copy to…' }).click();
    await page.locator('dialog[open]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('dialog[open]').waitFor({ state: 'detached' });
    assert.ok(await row.getByRole('button', { name: 'Pause' }).isVisible(), 'the upload was still running');

    // Phone width: the tray spans the width of the screen.
    await page.setViewportSize(PHONE);
    await page.getByText('2 selected').waitFor();
    // The sidebar slides away at this width: measured once it has gone.
    await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
    await shot(page, 'tray-selection-phone');
    await barUncovered(page, 'phone');
    await row.getByRole('button', { name: 'Cancel' }).click();
  } finally {
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await cdp.detach();
    await page.setViewportSize(DESKTOP);
  }
});

test('the activity table at 1366 px breaks no word inside and gives the detail in words', async () => {
  await api('PATCH', '/api/settings', { activity: { enabled: true, retentionDays: 7 } });
  // Rows with long details (a long token name, renamed) beside short cells, and a failure.
  const { token } = await api('POST', '/api/auth/tokens', {
    name: 'nightly backup of the family photo library to the attic storage box',
    scope: 'read',
    expiresInDays: 30,
    password: PASSWORD,
  });
  await api('PATCH', `/api/auth/tokens/${token.id}`, {
    name: 'weekly backup of the family photo library and the scanned letters to the attic storage box',
  });
  const wrong = await fetch(`${server.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ identifier: 'admin@example.org', password: 'not the password' }),
  });
  assert.is(wrong.status, 401);

  await page.setViewportSize({ width: 1366, height: 800 });
  await page.goto(`${server.url}/admin/activity`);
  const table = page.getByRole('table', { name: 'Activity' });
  await waitFor(async () => (await table.locator('tbody tr').count()) >= 4, { what: 'the rows are listed' });
  await shot(page, 'activity-1366');

  // A word broken inside runs over two lines: its text gives two boxes. Every word of every
  // header and cell is checked (the detail's long words, such as ids, may wrap; its short ones not).
  const broken = await table.evaluate((t) => {
    const out: string[] = [];
    for (const cell of t.querySelectorAll('th, td')) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (const m of text.matchAll(/\S+/g)) {
          if (cell.classList.contains('detail') && m[0].length > 24) continue;
          const r = document.createRange();
          r.setStart(node, m.index);
          r.setEnd(node, m.index + m[0].length);
          const lines = new Set([...r.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top)));
          if (lines.size > 1) out.push(`${cell.tagName.toLowerCase()} "${m[0]}" on ${lines.size} lines`);
        }
      }
    }
    return out;
  });
  assert.equal(broken, [], 'no word broken inside');
  const headers = await table.locator('thead th').allInnerTexts();
  assert.ok(headers.includes('Outcome'), `headers: ${headers.join(', ')}`);
  const cells = await table
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
  assert.ok(
    cells.some((c) => c[4] === '127.0.0.1'),
    'the address is listed',
  );
  const details = cells.map((c) => c[5] ?? '');
  assert.ok(
    details.every((d) => !/[{}"]/.test(d)),
    `details in words, not JSON:\n${details.join('\n')}`,
  );
  assert.ok(
    details.some((d) => d.includes('nightly backup of the family photo library')),
    `the token's name in words:\n${details.join('\n')}`,
  );
  assert.ok(
    details.some((d) => /wrong.password/i.test(d)),
    `the failure's reason in words:\n${details.join('\n')}`,
  );
  await page.setViewportSize(DESKTOP);
});

test("the token list's “Last used” follows a use of the token without a reload", async () => {
  const issued = await api('POST', '/api/auth/tokens', {
    name: 'photo sync',
    scope: 'read',
    expiresInDays: 30,
    password: PASSWORD,
  });
  await page.goto(`${server.url}/settings/tokens`);
  const row = page.getByRole('table', { name: 'API tokens' }).locator('tr', { hasText: 'photo sync' });
  await row.waitFor();
  assert.match(await row.innerText(), /never/);
  const marker = await page.evaluate(() => ((window as any).__sameDocument = true));
  // A script uses the token while the page stays open.
  const used = await fetch(`${server.url}/api/browse/Files`, {
    headers: { authorization: `Bearer ${issued.secret}`, accept: 'application/json' },
  });
  assert.is(used.status, 200);
  await waitFor(async () => /from 127\.0\.0\.1/.test(await row.innerText()), {
    what: '“Last used” shows the use',
    timeoutMs: 25_000,
  });
  assert.not.match(await row.innerText(), /never/);
  assert.is(await page.evaluate(() => (window as any).__sameDocument), marker, 'the page was not reloaded');
  assert.equal(problems, []);
});

test.run();
