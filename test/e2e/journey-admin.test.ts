// An administrator's journey on the world's data (test/e2e/journey/harness.ts: the executable in
// Chromium at 1366×768 and at 390×844 with touch): folder sizes and the terminal switched on and
// off in Administration → Installation without a restart (what each costs said beside it), the
// activity log in words with a link to switch it on, a host folder's long path at full width, a
// link made while browsing from localhost given at this computer's network address (and opened
// there by another browser), passkeys explained at http://127.0.0.1 with the address where they
// work, a housemate's WebDAV lock seen with its owner and broken in Administration → Locks, a
// setting fixed by its variable named on the screen, and the search index's documents read
// (Installation). Each step checks the server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { formatBytes } from '../../ui/src/util.ts';
import { ADMIN, HOME, W, filesAddress, journey, type Step } from './journey/harness.ts';

// Every interface, as a home install listens: other devices can open links at the LAN address.
const j = journey(import.meta.url, { env: { HOST: '0.0.0.0', FOLDER_SIZE_FLUSH_MS: '50' } });

const HOST_FOLDER = 'Família Silva – Fotos e vídeos de 2024 (férias na praia & aniversários)';

const lanIPv4 = () =>
  Object.values(os.networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && a.family === 'IPv4')
    .map((a) => a!.address);

/** Bytes of every file below a folder of the world (what a recursive folder size counts). */
function bytesBelow(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? bytesBelow(p) : e.isFile() ? fs.statSync(p).size : 0;
  }
  return total;
}

/** Administration's section tabs. */
const sectionTab = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true });

/** The size the folder list shows for Holiday 2025 (— while unknown), read after the sizes arrive. */
async function listedHolidaySize(s: Step): Promise<string> {
  await s.goto(filesAddress(HOME, 'Photos'));
  await s.folder(`${HOME}/Photos`);
  const entry = await s.entry('Holiday 2025');
  await s.page.waitForLoadState('networkidle');
  const size = entry.locator('.col-size');
  // The grid view (a phone) shows no Size column: the row's own text is read there.
  return (await size.count()) ? (await size.innerText()).trim() : (await entry.innerText()).trim();
}

async function api(s: Step, method: string, address: string, body?: unknown) {
  const r = await s.api(method, address, body);
  if (r.status >= 300) throw new Error(`${method} ${address} answered ${r.status}: ${r.text.slice(0, 300)}`);
  return r.json;
}

j.step('folder sizes: off at first, switched on in Installation they appear without a restart, then off', async (s) => {
  const { page } = s;
  const holiday = `/api/folder-size/${filesAddress(HOME, W.holiday).slice('/files/'.length)}`;
  assert.is((await api(s, 'GET', holiday)).indexed, false);
  await s.goto('/admin/installation');
  const section = page.getByRole('region', { name: 'Folder sizes' });
  assert.ok(await section.getByRole('radio', { name: 'Off' }).isChecked());
  // What it costs, said before it is chosen.
  await section.getByText(/What it costs:/).waitFor();
  await s.tap(section.getByRole('radio', { name: /Total size of each folder/ }));
  await s.tap(section.getByRole('button', { name: 'Save' }));
  await page.getByText('Settings saved').waitFor();
  assert.equal((await api(s, 'GET', '/api/settings')).folderSizes, { mode: 'full', setBy: null });
  assert.equal((await api(s, 'GET', '/api/features')).folderSize, { enabled: true, mode: 'full' });

  const bytes = bytesBelow(s.disk(W.holiday));
  await s.eventually('the size of Holiday 2025 at the server and in the list', async () => {
    const listed = await listedHolidaySize(s);
    return (await api(s, 'GET', holiday)).sizeBytes === bytes && listed.includes(formatBytes(bytes));
  });

  await s.goto('/admin/installation');
  await s.tap(section.getByRole('radio', { name: 'Off' }));
  await s.tap(section.getByRole('button', { name: 'Save' }));
  await page.getByText('Settings saved').waitFor();
  assert.is((await api(s, 'GET', '/api/settings')).folderSizes.mode, 'off');
  assert.is((await api(s, 'GET', holiday)).indexed, false);
  assert.not.ok((await listedHolidaySize(s)).includes(formatBytes(bytes)));
});

j.step(
  'search index: Installation says which documents were read for search (the tax return PDF among them)',
  async (s) => {
    const { page } = s;
    const pdfs = (r: any) => r?.documents?.find((d: any) => d.kind === 'pdf' && d.status === 'indexed')?.count ?? 0;
    await s.eventually(
      'the index to have read the PDFs of the home folder',
      async () => pdfs(await api(s, 'GET', '/api/admin/index')) > 0,
      30_000,
    );
    const count = pdfs(await api(s, 'GET', '/api/admin/index'));
    await s.goto('/admin/installation');
    const section = page.getByRole('region', { name: 'Search index' });
    const row = section.getByRole('row', { name: /^PDF/ });
    await row.waitFor();
    assert.match(await row.innerText(), new RegExp(`${count} words searchable`));
  },
);

j.step(
  'terminal: switched on with the password (a wrong one refused), a shell runs, switched off it is gone',
  async (s) => {
    const { page } = s;
    await s.goto('/admin/installation');
    const section = page.getByRole('region', { name: 'Terminal' });
    await section.getByText(/The risk:.*a shell on this computer/).waitFor();
    assert.is(await sectionTab(page, 'Terminal').count(), 0);
    const password = section.getByLabel('Your password, to switch it on');
    await password.fill('not my password');
    await s.tap(section.getByRole('button', { name: 'Switch the terminal on' }));
    await page.locator('.error-note', { hasText: 'password is wrong' }).waitFor();
    assert.is((await api(s, 'GET', '/api/features')).terminal.enabled, false);
    await password.fill(ADMIN.password);
    await s.tap(section.getByRole('button', { name: 'Switch the terminal on' }));
    await section.getByText(/The terminal is on/).waitFor();
    assert.equal((await api(s, 'GET', '/api/features')).terminal, { enabled: true, available: true });

    await s.tap(section.getByRole('link', { name: 'Open the terminal' }));
    await page.waitForURL(/\/admin\/terminal$/);
    await page.getByText(/Shell on the server/).waitFor();
    await s.tap(page.locator('[data-testid="terminal"]'));
    await page.keyboard.type('echo "Olá $((6*7)) 🌄"\n');
    await page.locator('.xterm-rows', { hasText: 'Olá 42' }).waitFor();

    await s.tap(sectionTab(page, 'Installation'));
    await s.tap(section.getByRole('button', { name: 'Switch the terminal off' }));
    await section.getByText(/The terminal is off/).waitFor();
    assert.is((await api(s, 'GET', '/api/features')).terminal.enabled, false);
    assert.is(await sectionTab(page, 'Terminal').count(), 0);
    assert.is((await s.api('POST', '/api/terminal/session', {})).status, 404);
  },
);

j.step('activity log: off, it links to Installation; on, its rows and the accounts read as words', async (s) => {
  const { page } = s;
  await s.goto('/admin/activity');
  await s.tap(page.getByRole('link', { name: 'Switch it on under Installation' }));
  await page.waitForURL(/\/admin\/installation$/);
  const section = page.getByRole('region', { name: 'Activity log' });
  await s.tap(section.getByRole('checkbox', { name: /Record sign-ins/ }));
  await s.tap(section.getByRole('button', { name: 'Save' }));
  await page.getByText('Settings saved').waitFor();
  assert.is((await api(s, 'GET', '/api/settings')).activity.enabled, true);

  const [name, renamed] = ['Tom & Jerry.txt', 'Tom & Jerry (old).txt'];
  await api(s, 'POST', '/api/files/rename', { path: `${HOME}/${W.odd}`, name, newName: renamed });
  const wrong = await fetch(`${s.server.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identifier: ADMIN.email, password: 'a guess' }),
  });
  assert.is(wrong.status, 401);
  const rows = (await api(s, 'GET', '/api/activity?limit=10')).rows as { action: string }[];
  assert.ok(
    rows.some((r) => r.action === 'files.rename'),
    'the server recorded the rename',
  );

  await s.tap(sectionTab(page, 'Activity log'));
  const table = page.getByRole('table', { name: 'Activity' });
  const rename = table.getByRole('row').filter({ hasText: `Renamed ${HOME}/${W.odd}/${name} to` });
  await rename.waitFor();
  assert.ok((await rename.innerText()).includes('Rename'), await rename.innerText());
  await table.getByRole('row').filter({ hasText: 'Sign-in refused: wrong password' }).waitFor();
  const text = await table.innerText();
  for (const code of ['files.rename', 'admin.settings-change', 'auth.login', 'local_password', 'wrong-password'])
    assert.not.ok(text.includes(code), `"${code}" shown raw`);
  const options = await page.getByRole('combobox', { name: 'Action' }).locator('option').allInnerTexts();
  assert.ok(options.includes('Rename') && !options.includes('files.rename'), options.join(', '));

  await s.tap(sectionTab(page, 'Users'));
  const me = page.getByRole('table', { name: 'Accounts' }).getByRole('row').filter({ hasText: ADMIN.email });
  await s.eventually('the sign-in method in words', async () => (await me.innerText()).includes('password'));
  assert.not.ok((await me.innerText()).includes('local_password'));
});

j.step('Volumes: a host folder’s long path takes the row’s width, never one letter a line', async (s) => {
  const folder = path.join(s.server.dirs.root, HOST_FOLDER);
  fs.mkdirSync(folder, { recursive: true });
  await api(s, 'POST', '/api/admin/volumes', { label: 'Família', path: folder, accessMode: 'readonly' });
  await s.goto('/admin/volumes');
  const row = s.page
    .getByRole('list', { name: 'Host folder volumes' })
    .getByRole('listitem')
    .filter({ hasText: 'Família' });
  const where = row.locator('.where');
  await where.waitFor();
  const box = (await where.boundingBox())!;
  // A column one letter wide was ~10 px; the path takes the row's width and a few lines.
  assert.ok(box.width > 250, `the path is ${box.width}px wide`);
  const lineHeight = await where.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 18);
  assert.ok(box.height / lineHeight <= 5, `${Math.round(box.height / lineHeight)} lines`);
  const overflow = await s.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no sideways scrolling (${overflow}px)`);
  const kept = (await api(s, 'GET', '/api/admin/volumes')).volumes as { label: string; path: string }[];
  assert.ok(kept.some((v) => v.label === 'Família' && v.path === folder));
});

j.step('a link made at localhost is given at this computer’s network address, says why, and opens there', async (s) => {
  const { page } = s;
  await s.goto(filesAddress(HOME, W.holiday));
  await s.folder(`${HOME}/${W.holiday}`);
  await s.tap(page.getByRole('button', { name: 'Share', exact: true }));
  const dialog = page.getByRole('dialog', { name: 'Share “Holiday 2025”' });
  await s.tap(dialog.getByRole('button', { name: 'Create link' }));
  await dialog.getByText('Anyone who has this link can open it.').waitFor();
  assert.is(await dialog.getByText('Anyone this link is for can open it').count(), 0);
  const shares = (await api(s, 'GET', '/api/shares')).shares as { shareUrl: string; shareToken: string }[];
  const port = new URL(s.server.url).port;
  assert.is(shares.length, 1);
  assert.ok(shares[0]!.shareUrl.startsWith(`http://localhost:${port}/s/`), shares[0]!.shareUrl);
  const lan = lanIPv4();
  if (!lan.length) {
    await dialog.getByText(/this computer has no network address right now/).waitFor();
    return;
  }
  await dialog.getByText(/You opened Burrow at localhost, a name only this computer understands/).waitFor();
  const offered = await dialog.getByLabel('Link for other devices').inputValue();
  assert.is(offered, `http://${lan[0]}:${port}/s/${shares[0]!.shareToken}`);
  await s.tap(dialog.getByRole('button', { name: 'Done' }));
  // Another device opens it at that address: a fresh browser with no session.
  const other = await s.anonymous();
  await other.page.goto(offered);
  await other.page.getByText(path.basename(W.landscape)).first().waitFor();
});

j.step('passkeys at http://127.0.0.1 are explained in words, with the localhost address where they work', async (s) => {
  const at127 = await s.anonymous();
  const { page } = at127;
  const port = new URL(s.server.url).port;
  await page.goto(`${s.server.url}/`);
  await s.tap(page.getByRole('button', { name: 'Sign in with a passkey' }));
  const note = page.getByRole('note').filter({ hasText: 'never to a numeric address like 127.0.0.1' });
  await note.waitFor();
  // The same page at localhost.
  assert.is(
    await note.getByRole('link').getAttribute('href'),
    `http://localhost:${port}${new URL(page.url()).pathname}`,
  );
  assert.is(await page.getByText(/invalid domain/).count(), 0);

  // Signed in at 127.0.0.1, Settings → Security offers no ceremony that cannot run, and says where.
  const signed = await at127.context.request.post(`${s.server.url}/api/auth/login`, {
    data: { identifier: ADMIN.email, password: ADMIN.password },
  });
  assert.is(signed.status(), 200);
  await page.goto(`${s.server.url}/settings/security`);
  await page.getByRole('heading', { name: 'Passkeys' }).waitFor();
  const where = page.getByRole('note').filter({ hasText: 'numeric address like 127.0.0.1' });
  await where.getByRole('link', { name: `http://localhost:${port}/settings/security` }).waitFor();
  assert.is(await page.getByRole('button', { name: 'Add a passkey' }).count(), 0);
  // At localhost (the journey's own page) the ceremony is offered.
  await s.goto('/settings/security');
  await s.page.getByRole('button', { name: 'Add a passkey' }).waitFor();
});

j.step(
  'Locks: a housemate’s WebDAV client holds the electricity bill; the administrator sees whose, breaks it, and the bill is edited',
  async (s) => {
    const { page } = s;
    const created = await s.api('POST', '/api/users', {
      email: 'lena@example.org',
      username: 'lena',
      password: 'lenas own long password',
      roles: [],
    });
    assert.is(created.status, 201, created.text);
    // Lena's drive mapping locks the bill, as Windows Explorer or Finder would, naming her device.
    const address = s.url('/dav/' + [HOME, ...W.bill.split('/')].map(encodeURIComponent).join('/'));
    const lena = 'Basic ' + Buffer.from('lena:lenas own long password').toString('base64');
    const held = await fetch(address, {
      method: 'LOCK',
      headers: { authorization: lena, 'content-type': 'application/xml', timeout: 'Second-600' },
      body:
        '<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope>' +
        '<D:locktype><D:write/></D:locktype><D:owner><D:href>Lena&apos;s laptop &amp; phone #2</D:href></D:owner></D:lockinfo>',
    });
    assert.is(held.status, 200, await held.text());
    const token = /<([^>]+)>/.exec(held.headers.get('lock-token') ?? '')?.[1];
    assert.ok(token);
    const bill = `${HOME}/${W.bill}`;
    const before = s.read(W.bill);
    const refused = await s.api('PUT', '/api/editor', { path: bill, content: 'paid' });
    assert.is(refused.status, 423, refused.text);
    assert.is(refused.json.error.code, 'LOCKED');

    await s.goto('/admin/locks');
    const list = page.getByRole('list', { name: 'WebDAV locks' });
    const row = list.getByRole('listitem').filter({ hasText: 'Electricity bill – March.txt' });
    await row.getByText("lena · Lena's laptop & phone #2 · exclusive").waitFor();
    const where = (await row.locator('.where').innerText()).trim();
    assert.ok(path.isAbsolute(where) && where.endsWith(path.join(...W.bill.split('/'))), where);
    await s.tap(row.getByRole('button', { name: 'Break lock' }));
    const ask = page.getByRole('dialog', { name: 'Break the lock on “Electricity bill – March.txt”?' });
    await ask.getByText("lena’s WebDAV client (Lena's laptop & phone #2) loses it").waitFor();
    await s.tap(ask.getByRole('button', { name: 'Break lock' }));
    await list.getByText('No file is locked.').waitFor();

    // At the server: no lock in force, the bill takes the administrator's edit, and Lena's client,
    // still sending its token, is told the lock is gone (412) and changes nothing.
    assert.equal((await api(s, 'GET', '/api/admin/locks')).locks, []);
    const text = `${before}Paid on 3 April ✓\n`;
    const saved = await s.api('PUT', '/api/editor', { path: bill, content: text });
    assert.is(saved.status, 200, saved.text);
    assert.is(s.read(W.bill), text);
    const stale = await fetch(address, {
      method: 'PUT',
      headers: { authorization: lena, If: `(<${token}>)` },
      body: 'x',
    });
    assert.is(stale.status, 412);
    assert.is(s.read(W.bill), text);
  },
);

j.step('a variable that fixes a setting is named on the screen, and no control is offered for it', async (s) => {
  await s.server.restart({ FOLDER_SIZE_MODE: 'shallow', TERMINAL_ENABLED: 'false' });
  await s.goto('/admin/installation');
  const sizes = s.page.getByRole('region', { name: 'Folder sizes' });
  await sizes.getByText('Set by FOLDER_SIZE_MODE').waitFor();
  assert.ok(await sizes.getByRole('radio', { name: /Size of the files directly/ }).isChecked());
  assert.ok(await sizes.getByRole('radio', { name: 'Off' }).isDisabled());
  const terminal = s.page.getByRole('region', { name: 'Terminal' });
  await terminal.getByText('Set by TERMINAL_ENABLED').waitFor();
  assert.is(await terminal.getByRole('button', { name: /Switch the terminal/ }).count(), 0);
  const refused = await s.api('PATCH', '/api/settings', { folderSizes: { mode: 'full' } });
  assert.is(refused.status, 409);
  assert.is(refused.json.error.code, 'SET_BY_ENVIRONMENT');
  const overflow = await s.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `Installation fits (${overflow}px)`);
});

j.run();
