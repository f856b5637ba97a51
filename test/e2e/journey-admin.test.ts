// An administrator's journey in Chromium, at 1366×768 and at 390×844 with touch, on a home folder
// with the names people use: folder sizes and the terminal switched on and off in Administration
// → Installation without a restart (what each costs said beside it; a variable that fixes one is
// named), the activity log in words with a link to switch it on, a host folder's path at phone
// width, a link made while browsing from localhost given at this computer's network address, and
// passkeys explained at http://127.0.0.1 with the address where they work. Each step checks what
// the server did, not only the page; a failing step keeps its screenshot in test/.artifacts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { makeDirs, removeDirs, startServer, type TestServer } from '../support/server.ts';
import { png } from '../support/media.ts';
import { formatBytes } from '../../ui/src/util.ts';
import { ensureUiBuilt, launch, shot, uiDir } from './browser.ts';

const DESK = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const PASSWORD = 'correct horse battery staple';

let server: TestServer;
let browser: Browser;
/** The desktop page, opened at http://localhost:<port> (as the executable opens it). */
let desk: { context: BrowserContext; page: Page; problems: string[] };
let base = '';

// A home folder as people have it.
const HOLIDAY = 'Holiday 2025';
const NOTE = 'Tom & Jerry’s #1 + notes ½.txt';
const PHOTO = 'Été à Zürich 🌄.png';
const NESTED = ['Fotos + Vídeos', 'Año Nuevo #3'];
const HOST_FOLDER = 'Família Silva – Fotos e vídeos de 2024 (férias na praia & aniversários)';

async function open(viewport: { width: number; height: number }, touch = false) {
  const context = await browser.newContext({
    viewport,
    deviceScaleFactor: 1,
    hasTouch: touch,
    isMobile: touch,
    acceptDownloads: true,
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('dialog', (d) => {
    problems.push(`unexpected browser dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.setDefaultTimeout(15_000);
  return { context, page, problems };
}

/** A step: on failure its screenshot stays under test/.artifacts, named after it. */
function step(name: string, fn: () => Promise<void>) {
  test(name, async () => {
    try {
      await fn();
    } catch (err) {
      await shot(desk.page, `journey-admin-FAILED-${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`).catch(() => {});
      throw err;
    }
  });
}

async function eventually(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) assert.unreachable(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The API as the signed-in desktop page (its cookie, its origin). */
async function api(method: string, url: string, data?: unknown): Promise<any> {
  const res = await desk.context.request.fetch(`${base}${url}`, {
    method,
    ...(data === undefined ? {} : { data }),
    headers: { origin: base },
  });
  if (!res.ok()) throw new Error(`${method} ${url} answered ${res.status()}: ${await res.text()}`);
  return res.status() === 204 ? undefined : res.json();
}

const lanIPv4 = () =>
  Object.values(os.networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && a.family === 'IPv4')
    .map((a) => a!.address);

test.before(async () => {
  ensureUiBuilt();
  // Every interface, as a home install listens: other devices can open links at the LAN address.
  const dirs = makeDirs('burrow-journey-admin-');
  const files = path.join(dirs.volumes, 'Files');
  const holiday = path.join(files, 'Photos', HOLIDAY);
  fs.mkdirSync(path.join(holiday, ...NESTED), { recursive: true });
  fs.writeFileSync(path.join(holiday, NOTE), 'Ferry at 9:40, bring the 🧺.\n'.repeat(40));
  fs.writeFileSync(path.join(holiday, ...NESTED, PHOTO), await png(1200, 800));
  fs.mkdirSync(path.join(files, 'Documents'));
  fs.writeFileSync(path.join(files, 'Documents', 'Rezept für Oma’s Apfelkuchen.md'), '# Apfelkuchen\n\n- [ ] Äpfel\n');
  fs.mkdirSync(path.join(dirs.root, HOST_FOLDER));
  server = await startServer({ dirs, uiDir, env: { HOST: '0.0.0.0', FOLDER_SIZE_FLUSH_MS: '50' } });
  ({ browser } = await launch());
  desk = await open(DESK);
  base = server.url.replace('127.0.0.1', 'localhost');
  const setup = await desk.context.request.post(`${base}/api/auth/setup`, {
    data: { email: 'ana@example.org', username: 'ana', password: PASSWORD },
  });
  assert.is(setup.status(), 201, await setup.text());
});

test.after(async () => {
  await browser?.close();
  await server?.close();
  if (server) removeDirs(server.dirs);
});

/** The size the folder list shows for a sub-folder (— while unknown). */
async function listedSize(page: Page, folder: string, name: string): Promise<string> {
  await page.goto(`${base}/files/${folder.split('/').map(encodeURIComponent).join('/')}`);
  const cell = page.locator(`.entry[data-name="${name}"] .col-size`);
  await cell.waitFor();
  // The sizes arrive after the listing (one batch request).
  await page.waitForLoadState('networkidle');
  return (await cell.innerText()).trim();
}

step('folder sizes: off at first; switched on in Installation, the list shows them without a restart', async () => {
  const { page } = desk;
  assert.is(await listedSize(page, 'Files/Photos', HOLIDAY), '—');
  await page.goto(`${base}/admin/installation`);
  const section = page.getByRole('region', { name: 'Folder sizes' });
  assert.ok(await section.getByRole('radio', { name: 'Off' }).isChecked());
  // What it costs, said before it is chosen.
  await section.getByText(/What it costs:/).waitFor();
  await section.getByRole('radio', { name: /Total size of each folder/ }).check();
  await section.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Settings saved').waitFor();
  assert.equal((await api('GET', '/api/settings')).folderSizes, { mode: 'full', setBy: null });
  assert.equal((await api('GET', '/api/features')).folderSize, { enabled: true, mode: 'full' });
  await shot(page, 'journey-admin-installation-desktop');

  const holiday = path.join(server.dirs.volumes, 'Files', 'Photos', HOLIDAY);
  const bytes = fs.statSync(path.join(holiday, NOTE)).size + fs.statSync(path.join(holiday, ...NESTED, PHOTO)).size;
  await eventually('the folder size in the list', async () => {
    const listed = await listedSize(page, 'Files/Photos', HOLIDAY);
    const served = await api('GET', `/api/folder-size/Files/Photos/${encodeURIComponent(HOLIDAY)}`);
    return served.sizeBytes === bytes && listed === formatBytes(bytes);
  });
  await shot(page, 'journey-admin-folder-sizes-desktop');

  await page.goto(`${base}/admin/installation`);
  await section.getByRole('radio', { name: 'Off' }).check();
  await section.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Settings saved').waitFor();
  assert.is((await api('GET', '/api/settings')).folderSizes.mode, 'off');
  assert.is(await listedSize(page, 'Files/Photos', HOLIDAY), '—');
});

step(
  'terminal: switched on with the password (a wrong one is refused), a shell runs, switched off it is gone',
  async () => {
    const { page } = desk;
    await page.goto(`${base}/admin/installation`);
    const section = page.getByRole('region', { name: 'Terminal' });
    await section.getByText(/The risk:.*a shell on this computer/).waitFor();
    assert.is(
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Terminal' }).count(),
      0,
    );
    await section.getByLabel('Your password, to switch it on').fill('not my password');
    await section.getByRole('button', { name: 'Switch the terminal on' }).click();
    await page.locator('.error-note', { hasText: 'password is wrong' }).waitFor();
    assert.is((await api('GET', '/api/features')).terminal.enabled, false);
    await section.getByLabel('Your password, to switch it on').fill(PASSWORD);
    await section.getByRole('button', { name: 'Switch the terminal on' }).click();
    await section.getByText(/The terminal is on/).waitFor();
    assert.equal((await api('GET', '/api/features')).terminal, { enabled: true, available: true });

    await section.getByRole('link', { name: 'Open the terminal' }).click();
    await page.waitForURL(/\/admin\/terminal$/);
    await page.getByText(/Shell on the server/).waitFor();
    await page.locator('[data-testid="terminal"]').click();
    await page.keyboard.type('echo "Olá $((6*7)) 🌄"\n');
    await page.locator('.xterm-rows', { hasText: 'Olá 42' }).waitFor();
    await shot(page, 'journey-admin-terminal-desktop');

    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Installation' }).click();
    await section.getByRole('button', { name: 'Switch the terminal off' }).click();
    await section.getByText(/The terminal is off/).waitFor();
    assert.is((await api('GET', '/api/features')).terminal.enabled, false);
    assert.is(
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Terminal' }).count(),
      0,
    );
    const refused = await desk.context.request.post(`${base}/api/terminal/session`, {
      data: {},
      headers: { origin: base },
    });
    assert.is(refused.status(), 404);
  },
);

step('activity log: off says so with a link to Installation; on, its rows read as words, never codes', async () => {
  const { page } = desk;
  await page.goto(`${base}/admin/activity`);
  const link = page.getByRole('link', { name: 'Switch it on under Installation' });
  await link.click();
  await page.waitForURL(/\/admin\/installation$/);
  const section = page.getByRole('region', { name: 'Activity log' });
  await section.getByRole('checkbox', { name: /Record sign-ins/ }).check();
  await section.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Settings saved').waitFor();
  assert.is((await api('GET', '/api/settings')).activity.enabled, true);

  const renamed = 'Tom & Jerry’s #2 + notes ½.txt';
  await api('POST', '/api/files/rename', { path: `Files/Photos/${HOLIDAY}`, name: NOTE, newName: renamed });
  const wrong = await fetch(`${server.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identifier: 'ana', password: 'guess' }),
  });
  assert.is(wrong.status, 401);
  const rows = (await api('GET', '/api/activity?limit=10')).rows as { action: string }[];
  assert.ok(
    rows.some((r) => r.action === 'files.rename'),
    'the server recorded the rename',
  );

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Activity log' }).click();
  const table = page.getByRole('table', { name: 'Activity' });
  const rename = table.getByRole('row').filter({ hasText: `Renamed Files/Photos/${HOLIDAY}/${NOTE}` });
  await rename.waitFor();
  assert.is((await rename.locator('td').nth(1).innerText()).trim(), 'Rename');
  await table.getByRole('row').filter({ hasText: 'Sign-in refused: wrong password' }).waitFor();
  const text = await table.innerText();
  for (const code of ['files.rename', 'admin.settings-change', 'auth.login', 'local_password', 'wrong-password'])
    assert.not.ok(text.includes(code), `"${code}" shown raw`);
  const options = await page.getByRole('combobox', { name: 'Action' }).locator('option').allInnerTexts();
  assert.ok(options.includes('Rename') && !options.includes('files.rename'), options.join(', '));
  await shot(page, 'journey-admin-activity-desktop');

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Users' }).click();
  const me = page.getByRole('table', { name: 'Accounts' }).getByRole('row').filter({ hasText: 'ana@example.org' });
  await eventually('the sign-in method in words', async () => (await me.innerText()).includes('password'));
  assert.not.ok((await me.innerText()).includes('local_password'));
});

step('a link made at localhost is given at this computer’s network address, and says why', async () => {
  const { page } = desk;
  await page.goto(`${base}/files/Files/Photos`);
  await page.locator(`.entry[data-name="${HOLIDAY}"]`).click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Share…' }).click();
  const dialog = page.getByRole('dialog', { name: `Share “${HOLIDAY}”` });
  await dialog.getByRole('button', { name: 'Create link' }).click();
  await dialog.getByText('Anyone who has this link can open it.').waitFor();
  assert.not.ok(await dialog.getByText('Anyone this link is for can open it').count());
  const shares = (await api('GET', '/api/shares')).shares as { shareUrl: string; shareToken: string }[];
  const made = shares.find((s) => s.shareUrl.includes('/s/'))!;
  const port = new URL(server.url).port;
  assert.ok(made.shareUrl.startsWith(`http://localhost:${port}/s/`), made.shareUrl);
  const lan = lanIPv4();
  if (lan.length) {
    await dialog.getByText(/You opened Burrow at localhost, a name only this computer understands/).waitFor();
    const offered = await dialog.getByLabel('Link for other devices').inputValue();
    assert.is(offered, `http://${lan[0]}:${port}/s/${made.shareToken}`);
    // Another device opens it at that address (here: a fresh browser at the LAN address).
    const other = await open(PHONE, true);
    try {
      await other.page.goto(offered);
      await other.page.getByText(HOLIDAY).first().waitFor();
    } finally {
      await other.context.close();
    }
  } else {
    await dialog.getByText(/this computer has no network address right now/).waitFor();
  }
  await shot(page, 'journey-admin-share-localhost-desktop');
  await dialog.getByRole('button', { name: 'Done' }).click();
});

step('passkeys at http://127.0.0.1 are explained in words, with the localhost address where they work', async () => {
  const at127 = await open(DESK);
  try {
    const { page, problems } = at127;
    await page.goto(`${server.url}/login`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const note = page.getByRole('note').filter({ hasText: 'never to a numeric address like 127.0.0.1' });
    await note.waitFor();
    const port = new URL(server.url).port;
    // The same page at localhost.
    assert.is(
      await note.getByRole('link').getAttribute('href'),
      `http://localhost:${port}${new URL(page.url()).pathname}`,
    );
    assert.not.ok(await page.getByText(/invalid domain/).count());
    await shot(page, 'journey-admin-passkey-127-desktop');

    // Signed in at 127.0.0.1, Settings → Security offers no ceremony that cannot run, and says where.
    const r = await at127.context.request.post(`${server.url}/api/auth/login`, {
      data: { identifier: 'ana', password: PASSWORD },
    });
    assert.is(r.status(), 200);
    await page.goto(`${server.url}/settings/security`);
    await page.getByRole('heading', { name: 'Passkeys' }).waitFor();
    const where = page.getByRole('note').filter({ hasText: 'numeric address like 127.0.0.1' });
    await where.getByRole('link', { name: `http://localhost:${port}/settings/security` }).waitFor();
    assert.is(await page.getByRole('button', { name: 'Add a passkey' }).count(), 0);
    assert.equal(problems, []);
  } finally {
    await at127.context.close();
  }
  // At the offered address (the desktop page, signed in at localhost) the ceremony is offered.
  await desk.page.goto(`${base}/settings/security`);
  await desk.page.getByRole('button', { name: 'Add a passkey' }).waitFor();
});

step('phone, 390×844 with touch: a host folder’s long path wraps by words, not letter by letter', async () => {
  await api('POST', '/api/admin/volumes', {
    label: 'Família',
    path: path.join(server.dirs.root, HOST_FOLDER),
    accessMode: 'readonly',
  });
  const phone = await open(PHONE, true);
  try {
    await phone.context.addCookies(await desk.context.cookies());
    await phone.page.goto(`${base}/admin/volumes`);
    const where = phone.page.getByRole('list', { name: 'Host folder volumes' }).locator('.where').first();
    await where.waitFor();
    const box = (await where.boundingBox())!;
    // A column one letter wide was ~10 px; the path takes the row's width and a few lines.
    assert.ok(box.width > 250, `the path is ${box.width}px wide`);
    const lineHeight = await where.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 18);
    assert.ok(box.height / lineHeight <= 5, `${Math.round(box.height / lineHeight)} lines`);
    const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no sideways scrolling (${overflow}px)`);
    await shot(phone.page, 'journey-admin-volumes-phone');

    await phone.page.goto(`${base}/admin/installation`);
    await phone.page.getByRole('region', { name: 'Terminal' }).waitFor();
    const wide = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wide <= 0, `installation fits (${wide}px)`);
    await shot(phone.page, 'journey-admin-installation-phone');
    assert.equal(phone.problems, []);
  } finally {
    await phone.context.close();
  }
});

step('a variable that fixes a setting is named on the screen, and its control is not offered', async () => {
  const fixed = await startServer({ uiDir, env: { FOLDER_SIZE_MODE: 'shallow', TERMINAL_ENABLED: 'false' } });
  const p = await open(PHONE, true);
  try {
    const setup = await p.context.request.post(`${fixed.url}/api/auth/setup`, {
      data: { email: 'ana@example.org', username: 'ana', password: PASSWORD },
    });
    assert.is(setup.status(), 201);
    await p.page.goto(`${fixed.url}/admin/installation`);
    const sizes = p.page.getByRole('region', { name: 'Folder sizes' });
    await sizes.getByText('Set by FOLDER_SIZE_MODE').waitFor();
    assert.ok(await sizes.getByRole('radio', { name: /Size of the files directly/ }).isChecked());
    assert.ok(await sizes.getByRole('radio', { name: 'Off' }).isDisabled());
    const terminal = p.page.getByRole('region', { name: 'Terminal' });
    await terminal.getByText('Set by TERMINAL_ENABLED').waitFor();
    assert.is(await terminal.getByRole('button', { name: /Switch the terminal/ }).count(), 0);
    await shot(p.page, 'journey-admin-set-by-phone');
    assert.equal(p.problems, []);
  } finally {
    await p.context.close();
    await fixed.close();
    removeDirs(fixed.dirs);
  }
  assert.equal(desk.problems, []);
});

test.run();
