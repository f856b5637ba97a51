// A volume for one group, in one step: the administrator adds the family's finance folder in
// Administration → Volumes "for the group Parents only" with the level Write — the server writes
// the group's rule and Everyone Hidden at the volume's root with the volume — and gives a second,
// already served volume to the group with "Give to a group…". Then a child signs in, in a browser
// of their own, and finds nothing of it (not in the sidebar, not at its address, 404 from the
// API), while a parent signs in and makes a folder there through the page. Each step checks the
// server's side through the API and the disk.
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import type { BrowserContext, Page } from 'playwright-core';
import { HOME, contextApi, filesAddress, journey, type Step } from './harness.ts';

const j = journey(import.meta.url);

const VOLUME = 'Finances 2025 & Taxes';
const RECEIPTS = 'Quittungen #1 + Belege';
const GROUP = 'Parents';
const CHILD = { username: 'mia', password: 'Mias geheimes Passwort 🦄' };
const PARENT = { username: 'paul', password: 'Pauls Passwort für alles 🔑' };
const NEW_FOLDER = 'Steuer 2025 — Belege & Co';

const enc = (virtualPath: string) => virtualPath.split('/').map(encodeURIComponent).join('/');

async function must(s: Step, method: string, address: string, body?: unknown): Promise<any> {
  const r = await s.api(method, address, body);
  if (r.status >= 300) throw new Error(`${method} ${address} answered ${r.status}: ${r.text.slice(0, 400)}`);
  return r.json;
}

const financesOnHost = (s: Step) => path.join(s.server.dirs.root, 'Finanzen');

/** Someone's own browser, signed in through the sign-in page. */
async function signedIn(s: Step, who: { username: string; password: string }) {
  const visitor = await s.anonymous();
  const page = visitor.page;
  await page.goto(s.url('/'), { waitUntil: 'domcontentloaded' });
  await page.getByLabel('Email or username').fill(who.username);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' });
  const api = contextApi(visitor.context, s.base);
  assert.is((await api('GET', '/api/auth/me')).json.user.username, who.username);
  return { ...visitor, api };
}

let people: { [name: string]: { context: BrowserContext; page: Page; api: ReturnType<typeof contextApi> } } = {};

const GIVEN = 'the administrator adds “Finances 2025 & Taxes” for the group Parents only, and gives Receipts to them';

j.step(GIVEN, async (s) => {
  people = {};
  // The accounts and the group (Administration → Users and Groups have journeys of their own).
  const ids: Record<string, string> = {};
  for (const who of [CHILD, PARENT])
    ids[who.username] = (
      await must(s, 'POST', '/api/users', {
        email: `${who.username}@example.org`,
        username: who.username,
        password: who.password,
        roles: [],
      })
    ).user.id;
  const group = (await must(s, 'POST', '/api/access/groups', { name: GROUP })).group;
  await must(s, 'POST', `/api/access/groups/${group.id}/members`, { userId: ids[PARENT.username] });
  const finances = financesOnHost(s);
  fs.mkdirSync(path.join(finances, 'Steuer 2024'), { recursive: true });
  fs.writeFileSync(path.join(finances, 'Steuer 2024', 'Bescheid #1 + 100%.txt'), 'Einkommensteuer 2024');
  const receipts = path.join(s.server.dirs.root, 'Quittungen');
  fs.mkdirSync(receipts, { recursive: true });
  fs.writeFileSync(path.join(receipts, 'Bäcker.txt'), 'Brötchen');
  await must(s, 'POST', '/api/admin/volumes', { label: RECEIPTS, path: receipts, accessMode: 'readwrite' });

  await s.goto('/admin/volumes');
  const note = s.page.getByRole('note', { name: 'A volume for one group' });
  assert.match(await note.innerText(), 'Hidden for everyone else');
  const form = s.page.getByRole('form', { name: 'Add a folder' });
  await form.getByLabel('Name').fill(VOLUME);
  await form.getByLabel('Folder on this computer').fill(finances);
  await form.getByLabel(/^Access/).selectOption('readwrite');
  await form.getByLabel('For', { exact: true }).selectOption({ label: `The group ${GROUP} only` });
  await form.getByLabel("The group's level").selectOption('write');
  await s.tap(form.getByRole('button', { name: 'Add folder' }));
  const list = s.page.getByRole('list', { name: 'Host folder volumes' });
  await list.getByText(VOLUME, { exact: true }).waitFor();
  // The server made the volume and its two rules.
  const volumes = (await must(s, 'GET', '/api/admin/volumes')).volumes;
  assert.ok(
    volumes.some((v: any) => v.label === VOLUME),
    JSON.stringify(volumes),
  );
  const rulesAt = async (at: string) =>
    (await must(s, 'GET', '/api/access/rules')).rules
      .filter((r: any) => r.path === at)
      .map((r: any) => `${r.subject.kind}:${r.subject.name}:${r.level}`)
      .sort();
  assert.equal(await rulesAt(VOLUME), ['everyone:Everyone:hidden', `group:${GROUP}:write`]);

  // "Give to a group…" on the volume everyone sees so far: Read for Parents.
  const row = list.locator('li').filter({ hasText: RECEIPTS });
  await s.tap(row.getByRole('button', { name: 'Give to a group…' }));
  const give = s.page.getByRole('form', { name: `Give ${RECEIPTS} to a group` });
  await give.getByLabel('Group', { exact: true }).selectOption({ label: GROUP });
  await give.getByLabel("The group's level").selectOption('read');
  await s.tap(give.getByRole('button', { name: 'Give', exact: true }));
  await give.waitFor({ state: 'detached' });
  await s.eventually('the rules at Receipts', async () => (await rulesAt(RECEIPTS)).length === 2);
  assert.equal(await rulesAt(RECEIPTS), ['everyone:Everyone:hidden', `group:${GROUP}:read`]);
});

j.step(
  'the child signs in and finds nothing of it: not in the sidebar, not at its address, not from the API',
  async (s) => {
    const child = await signedIn(s, CHILD);
    people.child = child;
    const page = child.page;
    await page.goto(s.url('/'), { waitUntil: 'domcontentloaded' });
    // The sidebar's volumes (in the phone's drawer too) name Home, never the group's two.
    const places = page.locator('nav[aria-label="Places"]');
    await places.locator(`a[href="${filesAddress(HOME)}"]`).waitFor({ state: 'attached' });
    const html = await page.content();
    for (const hidden of ['Finances 2025', 'Quittungen'])
      assert.not.ok(html.includes(hidden), `the page names ${hidden}`);
    const theirs = await child.api('GET', '/api/volumes');
    assert.is(theirs.status, 200, theirs.text);
    assert.not.match(theirs.text, 'Finances');
    assert.not.match(theirs.text, 'Quittungen');
    for (const p of [VOLUME, `${VOLUME}/Steuer 2024`, RECEIPTS]) {
      const r = await child.api('GET', `/api/browse/${enc(p)}`);
      assert.is(r.status, 404, `${p}: ${r.text}`);
      assert.is(r.json.error.code, 'NOT_FOUND');
      assert.not.match(r.text, 'Steuer');
    }
    const write = await child.api('POST', '/api/files/folder', { path: VOLUME, name: 'Mias Ordner' });
    assert.is(write.status, 404, write.text);
    assert.not.ok(fs.existsSync(path.join(financesOnHost(s), 'Mias Ordner')));
    // At its address the page says it is not there, and lists nothing of it.
    await page.goto(s.url(filesAddress(VOLUME)), { waitUntil: 'domcontentloaded' });
    await page
      .getByText(/not found|does not exist|no such/i)
      .first()
      .waitFor();
    assert.is(await page.locator('.entry[data-name="Steuer 2024"]').count(), 0);
  },
  { needs: [GIVEN] },
);

j.step(
  'a parent signs in and makes a folder in the volume through the page; the child still sees nothing',
  async (s) => {
    const parent = await signedIn(s, PARENT);
    const page = parent.page;
    await page.goto(s.url(filesAddress(VOLUME)), { waitUntil: 'domcontentloaded' });
    await page.getByRole('region', { name: `Folder ${VOLUME}`, exact: true }).waitFor();
    await page.locator('.entry[data-name="Steuer 2024"]').waitFor();
    const toolbar = page.getByRole('toolbar', { name: 'Folder actions' });
    const button = toolbar.getByRole('button', { name: 'Folder', exact: true });
    if (s.size.touch) await button.tap();
    else await button.click();
    const dialog = page.getByRole('dialog', { name: 'New folder' });
    const name = dialog.getByLabel('Name');
    await name.waitFor();
    await name.fill(NEW_FOLDER);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    const made = path.join(financesOnHost(s), NEW_FOLDER);
    await s.eventually('the folder on disk', () => fs.existsSync(made));
    assert.ok(fs.statSync(made).isDirectory());
    await page.locator(`.entry[data-name="${NEW_FOLDER}"]`).waitFor();
    // The explainer, as the parent: the group's rule decides.
    const why = await parent.api('GET', `/api/access/explain?path=${encodeURIComponent(VOLUME)}`);
    assert.equal([why.json.level, why.json.decidedBy, why.json.rule?.subject?.name], ['write', 'rule', GROUP]);
    // The child: still nothing, the new folder included.
    const child = people.child!;
    const r = await child.api('GET', `/api/browse/${enc(`${VOLUME}/${NEW_FOLDER}`)}`);
    assert.is(r.status, 404, r.text);
    assert.not.match(r.text, 'Belege');
  },
  { needs: ['the child signs in and finds nothing of it: not in the sidebar, not at its address, not from the API'] },
);

j.run();
