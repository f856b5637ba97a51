// A tag's name shared in a group, in the browser: the administrator makes the group "Famille
// Dupont & Co" with Claire and Hugo in it (Administration → Groups). Claire tags her tax return
// "Reçus 2025 🧾" and shares the tag with the group on the tag's page; Hugo, whose page was
// open all along (never reloaded), finds it offered in his Tags… dialog and puts it on his own
// bill — his tag's place and a search by the tag show his bill only, never Claire's return,
// though he may open it. Zoé, not in the group, is offered nothing and finds nothing. Claire
// stops sharing: Hugo's bill keeps its tag (his own now), and once he takes it off, nothing
// offers it to him again. Each step checks the server's answer as each person (GET /api/tags,
// the tag's files, search tag:…), not only the page.
import * as assert from 'uvu/assert';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { waitFor } from '../../support/wait.ts';
import { HOME, W, contextApi, cssString, filesAddress, journey, type ApiAnswer, type Step } from './harness.ts';

const j = journey(import.meta.url);

const TAG = 'Reçus 2025 🧾';
const GROUP = 'Famille Dupont & Co';
const CLAIRE = { email: 'claire@example.org', username: 'claire', password: 'Le mot de passe de Claire ✨' };
const HUGO = { email: 'hugo@example.org', username: 'hugo', password: 'Le mot de passe de Hugo 🚲' };
const ZOE = { email: 'zoe@example.org', username: 'zoe', password: 'Le mot de passe de Zoé 🌻' };
const FOLDER = `${HOME}/${W.taxes}`;
const nameOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);
const CLAIRES = nameOf(W.pdf);
const HUGOS = nameOf(W.bill);

interface Person {
  context: BrowserContext;
  page: Page;
  api(method: string, address: string, body?: unknown): Promise<ApiAnswer>;
}
/** Each person's own browser (their session), kept across the steps of one size. */
const people = new Map<string, Person>();
let groupId = '';

async function must(call: Promise<ApiAnswer>, what: string): Promise<any> {
  const r = await call;
  if (r.status >= 300) throw new Error(`${what} answered ${r.status}: ${r.text.slice(0, 400)}`);
  return r.json;
}

/** A browser of the step's size, signed in as this person through the sign-in page. */
async function signedIn(s: Step, who: typeof CLAIRE): Promise<Person> {
  const { context, page } = await s.anonymous();
  await page.goto(s.url('/'), { waitUntil: 'domcontentloaded' });
  await page.getByLabel('Email or username').fill(who.username);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' });
  const person: Person = {
    context,
    page,
    api: contextApi(context, s.base),
  };
  assert.is((await must(person.api('GET', '/api/auth/me'), 'me')).user.username, who.username);
  people.set(who.username, person);
  return person;
}

/** The page's next answer to GET /api/tags (set up before what causes it). */
const tagsRead = (page: Page) =>
  page.waitForResponse((r) => r.request().method() === 'GET' && new URL(r.url()).pathname === '/api/tags');
/** Two frames of the page: a change of state it received is on the screen. */
const painted = (page: Page) =>
  page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));

const tap = (s: Step, target: Locator) => (s.size.touch ? target.tap() : target.click());

/** The folder of the bills in this person's page. */
async function openFolder(s: Step, p: Person): Promise<void> {
  await p.page.goto(s.url(filesAddress(FOLDER)), { waitUntil: 'domcontentloaded' });
  await p.page.getByRole('region', { name: `Folder ${FOLDER}`, exact: true }).waitFor();
}

/** "Tags…" of one entry of the open folder, from its menu (a right click, or its ⋮ on a phone). */
async function tagDialog(s: Step, p: Person, name: string): Promise<Locator> {
  const entry = p.page.locator(`.entry[data-name=${cssString(name)}]`);
  await entry.waitFor();
  if (s.size.touch) await entry.getByRole('button', { name: `Actions for ${name}` }).tap();
  else await entry.click({ button: 'right' });
  await tap(s, p.page.getByRole('menu').getByRole('menuitem', { name: 'Tags…' }));
  const dialog = p.page.getByRole('dialog', { name: `Tags of “${name}”` });
  await dialog.getByText('Reading tags…').waitFor({ state: 'detached' });
  return dialog;
}

/** What the dialog offers to add: the group's tags and the suggestions of the field. */
const offered = async (dialog: Locator) => ({
  fromGroups: await dialog.getByRole('group', { name: "Your groups' tags" }).getByRole('button').allTextContents(),
  suggested: await dialog.locator('datalist option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)),
});

const tags = (p: Person) => must(p.api('GET', '/api/tags'), 'GET /api/tags');
const taggedFiles = async (p: Person) =>
  (await must(p.api('GET', `/api/tags/files?${new URLSearchParams({ tag: TAG })}`), 'the tag’s files')).items.map(
    (i: { path: string; name: string }) => `${i.path}/${i.name}`,
  );
const searched = async (p: Person) =>
  (await must(p.api('GET', `/api/search?${new URLSearchParams({ q: `tag:"${TAG}"` })}`), 'search')).items
    .map((i: { name: string }) => i.name)
    .sort();
/** Waits until the server's answer is this (an index or a list may follow a change a moment later). */
const serverSays = <T>(what: string, read: () => Promise<T>, want: T) =>
  waitFor(read, {
    what,
    until: (got) => JSON.stringify(got) === JSON.stringify(want),
    seen: (got) => JSON.stringify(got),
    timeoutMs: 15_000,
  });

const MADE = 'the administrator makes the group “Famille Dupont & Co” with Claire and Hugo in it';
j.step(MADE, async (s) => {
  people.clear();
  for (const who of [CLAIRE, HUGO, ZOE]) await must(s.api('POST', '/api/users', who), `the account ${who.username}`);
  await s.goto('/admin/groups');
  const newGroup = s.page.getByRole('form', { name: 'Create a group' });
  await newGroup.getByRole('textbox').fill(GROUP);
  await s.tap(newGroup.getByRole('button', { name: 'Create group' }));
  const add = s.page.getByRole('form', { name: `Add a member to ${GROUP}` });
  const members = s.page.getByRole('list', { name: `Members of ${GROUP}` });
  for (const who of [CLAIRE, HUGO]) {
    await add.getByLabel(`Account to add to ${GROUP}`).selectOption({ label: who.username });
    await s.tap(add.getByRole('button', { name: 'Add' }));
    await members.getByText(who.username, { exact: true }).waitFor();
  }
  const groups = (await must(s.api('GET', '/api/access/groups'), 'groups')).groups;
  assert.equal(
    groups.map((g: any) => [g.name, g.members.map((m: any) => m.username).sort()]),
    [[GROUP, [CLAIRE.username, HUGO.username]]],
  );
  groupId = groups[0].id;
  // Hugo and Zoé have the folder of the bills open from now on; their pages are never reloaded.
  for (const who of [HUGO, ZOE]) await openFolder(s, await signedIn(s, who));
});

const SHARED = 'Claire tags her tax return “Reçus 2025 🧾” and shares the tag with the group on its page';
j.step(
  SHARED,
  async (s) => {
    const claire = await signedIn(s, CLAIRE);
    await openFolder(s, claire);
    const dialog = await tagDialog(s, claire, CLAIRES);
    await dialog.getByLabel('Add a tag').fill(TAG);
    await tap(s, dialog.getByRole('button', { name: 'Add tag' }));
    await dialog.getByRole('listitem').filter({ hasText: TAG }).waitFor();
    await tap(s, dialog.getByRole('button', { name: 'Done' }));
    await dialog.waitFor({ state: 'detached' });
    // The tag's place, from the sidebar (behind Menu on a phone).
    if (s.size.touch) await claire.page.getByRole('button', { name: 'Menu' }).tap();
    const places = claire.page.getByRole('navigation', { name: 'Places' });
    await tap(s, places.getByRole('list', { name: 'Tags' }).getByRole('link', { name: TAG }));
    await claire.page
      .getByRole('list', { name: `Tagged ${TAG}` })
      .locator(`li[data-name=${cssString(CLAIRES)}]`)
      .waitFor();
    const box = claire.page.getByRole('group', { name: /^Share this tag's name with a group/ }).getByLabel(GROUP);
    assert.is(await box.isChecked(), false, 'not shared yet');
    await tap(s, box);
    await serverSays('Claire’s tag shared with the group', async () => (await tags(claire)).tags, [
      { name: TAG, count: 1, groups: [{ id: groupId, name: GROUP }] },
    ]);
    await waitFor(() => box.isChecked(), { what: 'the box to show it shared', timeoutMs: 15_000 });
    // Hugo is offered its name (only), Zoé nothing.
    const hugo = people.get(HUGO.username)!;
    assert.equal((await tags(hugo)).shared, [{ name: TAG, groups: [{ id: groupId, name: GROUP }] }]);
    assert.equal((await tags(people.get(ZOE.username)!)).shared, []);
  },
  { needs: [MADE] },
);

const USED = 'Hugo finds the group’s tag offered without reloading and puts it on his own bill; Claire’s stays hers';
j.step(
  USED,
  async (s) => {
    const hugo = people.get(HUGO.username)!;
    // His page was opened before Claire shared: the dialog still offers what the group shares now.
    const dialog = await tagDialog(s, hugo, HUGOS);
    const fromGroups = dialog.getByRole('group', { name: "Your groups' tags" });
    await fromGroups.getByRole('button', { name: `+ ${TAG}` }).waitFor();
    assert.ok((await offered(dialog)).suggested.includes(TAG), 'the field suggests it too');
    await tap(s, fromGroups.getByRole('button', { name: `+ ${TAG}` }));
    await dialog
      .getByRole('list', { name: 'Tags on every item' })
      .getByRole('listitem')
      .filter({ hasText: TAG })
      .waitFor();
    await tap(s, dialog.getByRole('button', { name: 'Done' }));
    await dialog.waitFor({ state: 'detached' });
    await hugo.page.locator(`.entry[data-name=${cssString(HUGOS)}] .tag-chip`, { hasText: TAG }).waitFor();
    assert.is(await hugo.page.locator(`.entry[data-name=${cssString(CLAIRES)}] .tag-chip`).count(), 0);

    // At the server: spelled as shared, his own now, on his bill only.
    const his = await tags(hugo);
    assert.equal([his.tags, his.shared], [[{ name: TAG, count: 1, groups: [] }], []]);
    assert.equal(await taggedFiles(hugo), [`${FOLDER}/${HUGOS}`]);
    await serverSays('Hugo’s search by the tag', () => searched(hugo), [HUGOS]);
    // Claire's return, which Hugo may open, is never among his; Claire sees hers only.
    const hers = `/api/metadata/${`${FOLDER}/${CLAIRES}`.split('/').map(encodeURIComponent).join('/')}`;
    assert.is((await hugo.api('GET', hers)).status, 200, 'Hugo may open Claire’s return');
    const claire = people.get(CLAIRE.username)!;
    assert.equal(await taggedFiles(claire), [`${FOLDER}/${CLAIRES}`]);
    await serverSays('Claire’s search by the tag', () => searched(claire), [CLAIRES]);

    // His tag's place lists his bill only.
    if (s.size.touch) await hugo.page.getByRole('button', { name: 'Menu' }).tap();
    await tap(
      s,
      hugo.page
        .getByRole('navigation', { name: 'Places' })
        .getByRole('list', { name: 'Tags' })
        .getByRole('link', { name: TAG }),
    );
    const list = hugo.page.getByRole('list', { name: `Tagged ${TAG}` });
    await list.locator(`li[data-name=${cssString(HUGOS)}]`).waitFor();
    assert.equal(await list.locator('li').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.name)), [
      HUGOS,
    ]);
    // The search page too.
    await hugo.page.goto(s.url(`/search?${new URLSearchParams({ q: `tag:"${TAG}"` })}`), {
      waitUntil: 'domcontentloaded',
    });
    const results = hugo.page.getByRole('list', { name: 'Name matches' });
    await results.locator(`li[data-name=${cssString(HUGOS)}]`).waitFor();
    assert.equal(await results.locator('li').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.name)), [
      HUGOS,
    ]);
  },
  { needs: [SHARED] },
);

j.step(
  'Zoé, not in the group, is offered nothing and finds nothing by the tag',
  async (s) => {
    const zoe = people.get(ZOE.username)!;
    // The dialog reads the groups' tags again on opening: that answer is in before it is looked at.
    const read = tagsRead(zoe.page);
    const dialog = await tagDialog(s, zoe, CLAIRES);
    await read;
    await painted(zoe.page);
    assert.equal(await offered(dialog), { fromGroups: [], suggested: [] });
    await tap(s, dialog.getByRole('button', { name: 'Done' }));
    assert.equal(await tags(zoe), { tags: [], groups: [], shared: [] });
    assert.equal(await taggedFiles(zoe), []);
    assert.equal(await searched(zoe), []);
    // Neither can she share Claire's tag into the group.
    const r = await zoe.api('PUT', `/api/tags/${encodeURIComponent(TAG)}/groups/${encodeURIComponent(groupId)}`);
    assert.is(r.status, 404, r.text);
  },
  { needs: [SHARED] },
);

j.step(
  'Claire stops sharing: Hugo’s bill keeps the tag, and once he takes it off nothing offers it again',
  async (s) => {
    const claire = people.get(CLAIRE.username)!;
    const box = claire.page.getByRole('group', { name: /^Share this tag's name with a group/ }).getByLabel(GROUP);
    await tap(s, box);
    await serverSays('Claire’s tag no longer shared', async () => (await tags(claire)).tags, [
      { name: TAG, count: 1, groups: [] },
    ]);
    await waitFor(async () => !(await box.isChecked()), { what: 'the box to show it not shared', timeoutMs: 15_000 });
    const hugo = people.get(HUGO.username)!;
    assert.equal(await taggedFiles(hugo), [`${FOLDER}/${HUGOS}`], 'what he tagged stays his');
    // He takes it off his bill: the group no longer offers it.
    await openFolder(s, hugo);
    const dialog = await tagDialog(s, hugo, HUGOS);
    // Taking it off reads the tags again: what the dialog offers then is the answer of now.
    const read = tagsRead(hugo.page);
    await tap(s, dialog.getByRole('button', { name: `Remove tag ${TAG}` }));
    await dialog.getByText('No tags yet.').waitFor();
    await read;
    await painted(hugo.page);
    assert.equal(await offered(dialog), { fromGroups: [], suggested: [] });
    assert.equal(await tags(hugo), { tags: [], groups: [{ id: groupId, name: GROUP }], shared: [] });
    await tap(s, dialog.getByRole('button', { name: 'Done' }));
    assert.equal(await searched(hugo), []);
    assert.equal(await taggedFiles(claire), [`${FOLDER}/${CLAIRES}`], 'Claire’s tag stays on her return');
  },
  { needs: [USED] },
);

j.run();
