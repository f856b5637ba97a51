// A household: the parent (the administrator) gives the child an account through Administration
// in the browser — Users, Groups, Permissions and its explainer — so that the child sees Photos
// read-only (the group's rule) and the family's bills not at all (the child's own hidden rule on
// Documents/Taxes & Bills). Then the child signs in, in a browser of their own, and finds exactly
// that: Photos says read-only and offers no way to write, while its pictures still download; the
// bills are not in Documents' list, not at their address, not in search results, not counted in
// Documents' size, not in a zip of Documents, and what the parent throws away from them is not in
// the child's trash (what the parent throws away from Notes is). Each step checks the server's
// side through the API as the child (their own session), and the disk where a refusal could
// have written.
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import type { BrowserContext, Page } from 'playwright-core';
import { HOME, W, contextApi, filesAddress, journey, type ApiAnswer, type Step } from './harness.ts';

const j = journey(import.meta.url, { env: { FOLDER_SIZE_MODE: 'full', FOLDER_SIZE_FLUSH_MS: '50' } });

const CHILD = { email: 'mia@example.org', username: 'mia', password: 'Mias geheimes Passwort 🦄' };
const GROUP = 'Kinder & Co 🧸';
const PHOTOS = `${HOME}/Photos`;
const BILLS = `${HOME}/${W.taxes}`;
const BILLS_NAME = W.taxes.slice(W.taxes.lastIndexOf('/') + 1);
const nameOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);

/** Bytes of every file below a folder of the world (what a recursive folder size counts). */
function bytesBelow(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? bytesBelow(p) : e.isFile() ? fs.statSync(p).size : 0;
  }
  return total;
}

/** Every path below a folder on disk, sorted (to see that a refusal wrote nothing). */
const tree = (dir: string) =>
  fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => p.split(path.sep).join('/'))
    .sort();

async function must(s: Step, method: string, address: string, body?: unknown): Promise<any> {
  const r = await s.api(method, address, body);
  if (r.status >= 300) throw new Error(`${method} ${address} answered ${r.status}: ${r.text.slice(0, 400)}`);
  return r.json;
}

/** The child's own browser, signed in through the sign-in page; kept across steps of one size. */
let child: { context: BrowserContext; page: Page } | null = null;
let childId = '';

/** The API as the child's browser session. */
function asChild(s: Step, method: string, address: string, body?: unknown): Promise<ApiAnswer> {
  return contextApi(child!.context, s.base)(method, address, body);
}

const enc = (virtualPath: string) => virtualPath.split('/').map(encodeURIComponent).join('/');

j.step('the parent makes the child’s account and the group in Administration', async (s) => {
  child = null;
  await s.goto('/admin/users');
  const create = s.page.getByRole('form', { name: 'Create an account' });
  await create.getByLabel('Email').fill(CHILD.email);
  await create.getByLabel('Username').fill(CHILD.username);
  await create.getByLabel('Password').fill(CHILD.password);
  await s.tap(create.getByRole('button', { name: 'Create account' }));
  await s.page.getByText('Account created').first().waitFor();
  const made = (await must(s, 'GET', '/api/users')).users.find((u: any) => u.username === CHILD.username);
  assert.ok(made, 'the server has the account');
  assert.equal(made.roles, ['user']);
  childId = made.id;

  await s.goto('/admin/groups');
  const newGroup = s.page.getByRole('form', { name: 'Create a group' });
  await newGroup.getByRole('textbox').fill(GROUP);
  await s.tap(newGroup.getByRole('button', { name: 'Create group' }));
  const add = s.page.getByRole('form', { name: `Add a member to ${GROUP}` });
  await add.waitFor();
  await add.getByLabel(`Account to add to ${GROUP}`).selectOption({ label: CHILD.username });
  await s.tap(add.getByRole('button', { name: 'Add' }));
  await s.page
    .getByRole('list', { name: `Members of ${GROUP}` })
    .getByText(CHILD.username, { exact: true })
    .waitFor();
  const groups = (await must(s, 'GET', '/api/access/groups')).groups;
  assert.equal(
    groups.map((g: any) => ({ name: g.name, members: g.members.map((m: any) => [m.username, m.source]) })),
    [{ name: GROUP, members: [[CHILD.username, null]] }],
  );
});

j.step(
  'the parent sets Photos read-only for the group and hides the bills from the child, and the explainer says why',
  async (s) => {
    await s.goto('/admin/permissions');
    const form = s.page.getByRole('form', { name: 'Set a rule' });
    const setRule = async (folder: string, who: string, level: RegExp, saved: number) => {
      await form.getByLabel('Folder', { exact: true }).fill(folder);
      await form.getByLabel(/^Who/).selectOption({ label: who });
      const option = (
        await form
          .getByLabel(/^Level/)
          .locator('option')
          .allTextContents()
      ).find((t) => level.test(t));
      await form.getByLabel(/^Level/).selectOption({ label: option! });
      await s.tap(form.getByRole('button', { name: 'Set rule' }));
      await s.eventually(
        `${saved} rules at the server`,
        async () => (await must(s, 'GET', '/api/access/rules')).rules.length === saved,
      );
    };
    await setRule(PHOTOS, GROUP, /^Read —/, 1);
    await setRule(BILLS, CHILD.username, /^Hidden —/, 2);
    const rules = (await must(s, 'GET', '/api/access/rules')).rules.map((r: any) => ({
      path: r.path,
      who: [r.subject.kind, r.subject.name],
      level: r.level,
      inherit: r.inherit,
    }));
    assert.equal(
      rules.sort((a: any, b: any) => a.path.localeCompare(b.path)),
      [
        { path: BILLS, who: ['account', CHILD.username], level: 'hidden', inherit: true },
        { path: PHOTOS, who: ['group', GROUP], level: 'read', inherit: true },
      ],
    );
    // Both rules are on the screen's list.
    const list = s.page.getByRole('table', { name: 'Rules' });
    await list.getByText(`Group ${GROUP}`).waitFor();
    await list.getByText(BILLS, { exact: true }).waitFor();

    // The explainer, in the page and at the server: which rule decides for the child, and where.
    const explain = s.page.getByRole('form', { name: 'Explain access' });
    await explain.getByLabel(/^Account/).selectOption({ label: CHILD.username });
    await explain.getByLabel('Folder', { exact: true }).fill(`${PHOTOS}/Holiday 2025`);
    await s.tap(explain.getByRole('button', { name: 'Explain' }));
    const said = explain.getByRole('status');
    await said.filter({ hasText: `at “${PHOTOS}/Holiday 2025”: Read (` }).waitFor();
    assert.match(await said.innerText(), `the rule for Group ${GROUP} at “${PHOTOS}” decides`);
    const photos = await must(
      s,
      'GET',
      `/api/access/explain?path=${encodeURIComponent(`${PHOTOS}/Holiday 2025`)}&userId=${childId}`,
    );
    assert.equal(
      [photos.level, photos.can, photos.decidedBy],
      ['read', { see: true, download: true, write: false, delete: false, share: false }, 'rule'],
    );
    await explain.getByLabel('Folder', { exact: true }).fill(`${BILLS}/${nameOf(W.bill)}`);
    await s.tap(explain.getByRole('button', { name: 'Explain' }));
    await said.filter({ hasText: `: Hidden (` }).waitFor();
    assert.match(await said.innerText(), `the rule for ${CHILD.username} at “${BILLS}” decides`);
    const bills = await must(s, 'GET', `/api/access/explain?path=${encodeURIComponent(BILLS)}&userId=${childId}`);
    assert.equal([bills.level, bills.can.see, bills.rule.subject.name], ['hidden', false, CHILD.username]);
    // The parent, whom no rule names, keeps every right.
    const me = (await must(s, 'GET', '/api/auth/me')).user.id;
    assert.is(
      (await must(s, 'GET', `/api/access/explain?path=${encodeURIComponent(BILLS)}&userId=${me}`)).level,
      'manage',
    );
  },
  { needs: ['the parent makes the child’s account and the group in Administration'] },
);

const RULES_SET =
  'the parent sets Photos read-only for the group and hides the bills from the child, and the explainer says why';

j.step(
  'the child signs in: Photos is read-only — no way to write, the pictures still download',
  async (s) => {
    const visitor = await s.anonymous();
    child = visitor;
    const page = visitor.page;
    await page.goto(s.url('/'), { waitUntil: 'domcontentloaded' });
    await page.getByLabel('Email or username').fill(CHILD.username);
    await page.getByLabel('Password').fill(CHILD.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' });
    assert.is((await asChild(s, 'GET', '/api/auth/me')).json.user.username, CHILD.username);

    await page.goto(s.url(filesAddress(PHOTOS)), { waitUntil: 'domcontentloaded' });
    const folder = page.getByRole('region', { name: `Folder ${PHOTOS}`, exact: true });
    await folder.waitFor();
    await page.locator('.entry[data-name="Holiday 2025"]').waitFor();
    // The banner says why: a rule, not the volume (the explainer's answer for her).
    await page
      .getByText(`Read-only by a rule: the rule for group ${GROUP} at “${PHOTOS}” gives you Read.`, { exact: true })
      .waitFor();
    const why = await asChild(s, 'GET', `/api/access/explain?path=${encodeURIComponent(PHOTOS)}`);
    assert.equal([why.json.decidedBy, why.json.limit, why.json.rule?.path], ['rule', null, PHOTOS], why.text);
    const toolbar = page.getByRole('toolbar', { name: 'Folder actions' });
    for (const action of ['Folder', 'Upload'])
      assert.ok(await toolbar.getByRole('button', { name: action, exact: true }).isDisabled(), `${action} is offered`);
    const listing = await asChild(s, 'GET', `/api/browse/${enc(PHOTOS)}`);
    assert.is(listing.status, 200, listing.text);
    assert.is(listing.json.access.canWrite, false);

    // The server refuses what the page does not offer, and writes nothing.
    const before = tree(s.disk('Photos'));
    const mkdir = await asChild(s, 'POST', '/api/files/folder', { path: PHOTOS, name: 'Mias Ordner' });
    assert.is(mkdir.status, 403, mkdir.text);
    const del = await asChild(s, 'DELETE', '/api/files', {
      items: [{ path: `${HOME}/${W.holiday}`, name: nameOf(W.cafe) }],
    });
    assert.is(del.status, 403, del.text);
    assert.equal(tree(s.disk('Photos')), before);
    // Read: a picture downloads, byte for byte.
    const got = await child!.context.request.fetch(s.url(`/api/download/${enc(`${HOME}/${W.cafe}`)}`));
    assert.is(got.status(), 200);
    const bytes = await got.body();
    assert.ok(bytes.equals(fs.readFileSync(s.disk(W.cafe))), 'the picture as on disk');
  },
  { needs: [RULES_SET] },
);

const SIGNED_IN = 'the child signs in: Photos is read-only — no way to write, the pictures still download';

j.step(
  'the bills do not exist for the child: not listed, not at their address, not found, not counted, not zipped',
  async (s) => {
    const page = child!.page;
    // Listed: Documents shows Notes and Letters, and nothing of the bills.
    await page.goto(s.url(filesAddress(`${HOME}/Documents`)), { waitUntil: 'domcontentloaded' });
    await page.getByRole('region', { name: `Folder ${HOME}/Documents`, exact: true }).waitFor();
    await page.locator('.entry[data-name="Notes"]').waitFor();
    await page.locator('.entry[data-name="Letters"]').waitFor();
    assert.is(await page.locator(`.entry[data-name="${BILLS_NAME}"]`).count(), 0);
    const docs = await asChild(s, 'GET', `/api/browse/${enc(`${HOME}/Documents`)}`);
    assert.equal(docs.json.items.map((i: any) => i.name).sort(), ['Letters', 'Notes']);
    // At its address: not found, and nothing of what is inside named.
    for (const p of [BILLS, `${HOME}/${W.bill}`]) {
      const r = await asChild(s, 'GET', `/api/browse/${enc(p)}`);
      assert.is(r.status, 404, `${p}: ${r.text}`);
      assert.not.match(r.text, 'Electricity');
    }
    assert.is((await asChild(s, 'GET', `/api/download/${enc(`${HOME}/${W.bill}`)}`)).status, 404);

    // Search: "2024" finds the backup for both; the tax return only for the parent.
    const backup = nameOf(W.zip);
    const taxReturn = nameOf(W.pdf);
    await s.eventually(
      'the index to know the tax return and the backup',
      async () => {
        const names = ((await must(s, 'GET', '/api/search?q=2024')).items ?? []).map((i: any) => i.name);
        return names.includes(taxReturn) && names.includes(backup);
      },
      60_000,
    );
    const found = await asChild(s, 'GET', '/api/search?q=2024');
    assert.is(found.status, 200, found.text);
    assert.ok(
      found.json.items.some((i: any) => i.name === backup),
      found.text,
    );
    // (The reading list, which she may read, links to the tax return in its own text: that line is hers.)
    assert.equal(
      found.json.items.filter((i: any) => i.path.startsWith(BILLS) || i.name === taxReturn),
      [],
      found.text,
    );
    await s.eventually('the index to know the bill', async () =>
      ((await must(s, 'GET', '/api/search?q=Electricity')).items ?? []).some((i: any) => i.name === nameOf(W.bill)),
    );
    const byContent = await asChild(s, 'GET', '/api/search?q=Electricity');
    assert.equal(byContent.json.items, [], byContent.text);
    const box = page.getByRole('searchbox', { name: 'Search files' });
    await box.fill('2024');
    await box.press('Enter');
    await page.getByRole('heading', { name: 'Search for “2024”' }).waitFor();
    await page.getByRole('button', { name: backup, exact: true }).first().waitFor();
    assert.is(await page.getByRole('button', { name: taxReturn, exact: true }).count(), 0);

    // Folder sizes: Documents counts for the child what they may see, and nothing of the bills.
    const all = bytesBelow(s.disk('Documents'));
    const billsBytes = bytesBelow(s.disk(W.taxes));
    assert.ok(billsBytes > 0);
    const sizeAddress = `/api/folder-size/${enc(`${HOME}/Documents`)}`;
    await s.eventually(
      'Documents to be counted',
      async () => {
        const r = await must(s, 'GET', sizeAddress);
        return r.indexed && r.complete && r.sizeBytes === all;
      },
      60_000,
    );
    const theirs = await asChild(s, 'GET', sizeAddress);
    assert.is(theirs.status, 200, theirs.text);
    assert.is(theirs.json.sizeBytes, all - billsBytes);

    // A zip of Documents holds Notes and Letters, and nothing of the bills; the parent's has them.
    const zipOf = async (context: BrowserContext) => {
      const res = await context.request.fetch(s.url('/api/download'), {
        method: 'POST',
        headers: { origin: s.base },
        data: { path: `${HOME}/Documents` },
      });
      assert.is(res.status(), 200);
      return s.zipNames(await res.body());
    };
    const names = await zipOf(child!.context);
    assert.ok(
      names.some((n) => n.endsWith(nameOf(W.readingList))),
      names.join('\n'),
    );
    assert.not.ok(
      names.some((n) => n.includes('Taxes') || n.includes('Electricity') || n.includes('Tax return')),
      names.join('\n'),
    );
    const parents = await zipOf(s.context);
    assert.ok(
      parents.some((n) => n.endsWith(nameOf(W.bill))),
      'the parent’s zip has the bill',
    );
  },
  { needs: [SIGNED_IN] },
);

j.step(
  'the parent throws away a bill and a note: the child’s trash shows the note, never the bill',
  async (s) => {
    const page = child!.page;
    await must(s, 'DELETE', '/api/files', {
      items: [
        { path: `${HOME}/${W.taxes}`, name: nameOf(W.bill) },
        { path: `${HOME}/Documents/Notes`, name: nameOf(W.shopping) },
      ],
    });
    const parents = (await must(s, 'GET', '/api/trash')).items.map((i: any) => i.name).sort();
    assert.equal(parents, [nameOf(W.bill), nameOf(W.shopping)].sort());
    const theirs = await asChild(s, 'GET', '/api/trash');
    assert.is(theirs.status, 200, theirs.text);
    assert.equal(
      theirs.json.items.map((i: any) => i.name),
      [nameOf(W.shopping)],
    );
    assert.not.match(theirs.text, 'Electricity');
    await page.goto(s.url('/trash'), { waitUntil: 'domcontentloaded' });
    await page.getByText(nameOf(W.shopping), { exact: true }).first().waitFor();
    assert.not.match(await page.locator('main').innerText(), 'Electricity');
  },
  { needs: [SIGNED_IN] },
);

const ARCHIVE = 'Archiv 1970 & Fotos #1';

j.step(
  'the family archive is a read-only volume: the explainer says read, not manage — what the child meets',
  async (s) => {
    // A folder of the computer, served as a read-only volume beside Home.
    const host = path.join(s.server.dirs.root, 'Familienarchiv');
    fs.mkdirSync(path.join(host, 'Oma'), { recursive: true });
    fs.writeFileSync(path.join(host, 'Oma', 'Brief 1970.txt'), 'Liebe Grüße aus Köln');
    await must(s, 'POST', '/api/admin/volumes', { label: ARCHIVE, path: host, accessMode: 'readonly' });
    // Administration → Volumes says how a volume becomes one group's (the group-volume journey does it).
    await s.goto('/admin/volumes');
    // The page's table, not the sidebar's entry (hidden in the phone's drawer, and there as soon as
    // the live event brings the new volume).
    await s.page.getByText(ARCHIVE, { exact: true }).filter({ visible: true }).first().waitFor();
    const note = s.page.getByRole('note', { name: 'A volume for one group' });
    assert.match(await note.innerText(), 'Hidden for everyone else');
    const folder = `${ARCHIVE}/Oma`;

    // The parent asks the explainer, in the page: read, because the volume is; the rules give manage.
    await s.goto('/admin/permissions');
    const explain = s.page.getByRole('form', { name: 'Explain access' });
    await explain.getByLabel(/^Account/).selectOption({ label: CHILD.username });
    await explain.getByLabel('Folder', { exact: true }).fill(folder);
    await s.tap(explain.getByRole('button', { name: 'Explain' }));
    const said = explain.getByRole('status');
    await said.filter({ hasText: `at “${folder}”: Read: the volume is read-only` }).waitFor();
    assert.match(await said.innerText(), 'so they may see, download and share; the rules give Manage');
    const why = await must(s, 'GET', `/api/access/explain?path=${encodeURIComponent(folder)}&userId=${childId}`);
    assert.equal(
      [why.level, why.ruleLevel, why.decidedBy, why.limit, why.can],
      [
        'read',
        'manage',
        'volume',
        'volume-read-only',
        { see: true, download: true, write: false, delete: false, share: true },
      ],
    );

    // The child's own requests meet exactly that: she looks and downloads, shares, and writes nothing.
    const page = child!.page;
    await page.goto(s.url(filesAddress(folder)), { waitUntil: 'domcontentloaded' });
    await page.locator('.entry[data-name="Brief 1970.txt"]').waitFor();
    // The banner tells the volume's read-only from a rule's: the volume is, whatever the rules give.
    await page
      .getByText('Read-only volume: the administrator serves this whole volume read-only, whatever the rules give.', {
        exact: true,
      })
      .waitFor();
    assert.is(await page.getByText(/^Read-only by a rule/).count(), 0, 'a rule is not what decides here');
    const toolbar = page.getByRole('toolbar', { name: 'Folder actions' });
    assert.ok(await toolbar.getByRole('button', { name: 'Upload', exact: true }).isDisabled(), 'Upload is offered');
    const own = await asChild(s, 'GET', `/api/access/explain?path=${encodeURIComponent(folder)}`);
    assert.equal(own.json.can, why.can, own.text);
    const before = tree(host);
    const made = await asChild(s, 'POST', '/api/files/file', { path: folder, name: 'Mias Notiz.txt', content: 'x' });
    assert.is(made.status, 403, made.text);
    const del = await asChild(s, 'DELETE', '/api/files', { items: [{ path: folder, name: 'Brief 1970.txt' }] });
    assert.is(del.status, 403, del.text);
    assert.equal(tree(host), before);
    const got = await asChild(s, 'POST', '/api/download', { path: `${folder}/Brief 1970.txt` });
    assert.is(got.status, 200, got.text);
    assert.is(got.text, 'Liebe Grüße aus Köln');
    const link = await asChild(s, 'POST', '/api/shares', {
      sourcePath: `${folder}/Brief 1970.txt`,
      sharingType: 'anyone',
    });
    assert.is(link.status, 201, link.text);
  },
  { needs: [SIGNED_IN] },
);

j.step(
  'recent destinations: the child’s folder picker offers the folders she copied into, never the parent’s',
  async (s) => {
    const notes = `${HOME}/Documents/Notes`;
    const letters = `${HOME}/Documents/Letters`;
    const readingList = [{ path: notes, name: nameOf(W.readingList) }];
    // The parent copies the reading list into Letters and into the bills: his recent destinations.
    await must(s, 'POST', '/api/files/copy', { items: readingList, destination: letters });
    await must(s, 'POST', '/api/files/copy', { items: readingList, destination: BILLS });
    // The child copies a holiday picture into Notes: hers.
    const copied = await asChild(s, 'POST', '/api/files/copy', {
      items: [{ path: `${HOME}/${W.holiday}`, name: nameOf(W.cafe) }],
      destination: notes,
    });
    assert.is(copied.status, 200, copied.text);
    assert.ok(fs.existsSync(path.join(s.disk('Documents/Notes'), nameOf(W.cafe))), 'the copy is on disk');

    // At the server: each account's list is its own.
    const hers = await asChild(s, 'GET', '/api/files/recent-destinations');
    assert.is(hers.status, 200, hers.text);
    assert.equal(
      hers.json.destinations.map((d: any) => d.path),
      [notes],
    );
    assert.not.match(hers.text, 'Letters');
    assert.not.match(hers.text, BILLS_NAME);
    const his = (await must(s, 'GET', '/api/files/recent-destinations')).destinations.map((d: any) => d.path);
    assert.equal(his.sort(), [BILLS, letters].sort());

    // In her browser: Copy to… offers her own recent folder, and nothing of the parent's.
    const page = child!.page;
    await page.goto(s.url(filesAddress(`${HOME}/${W.holiday}`)), { waitUntil: 'domcontentloaded' });
    const entry = page.locator(`.entry[data-name="${nameOf(W.cafe)}"]`);
    await entry.waitFor();
    if (s.size.touch) await entry.getByRole('button', { name: `Actions for ${nameOf(W.cafe)}` }).tap();
    else await entry.click({ button: 'right' });
    await page.getByRole('menu').getByRole('menuitem', { name: 'Copy to…' }).click();
    const picker = page.getByRole('dialog', { name: `Copy “${nameOf(W.cafe)}” to…` });
    const recent = picker.getByRole('group', { name: 'Recent destinations' });
    await recent.getByRole('button', { name: 'Notes', exact: true }).waitFor();
    assert.equal(await recent.getByRole('button').allTextContents(), ['Notes']);
    await page.keyboard.press('Escape');
    await picker.waitFor({ state: 'detached' });
  },
  { needs: [SIGNED_IN] },
);

j.run();
