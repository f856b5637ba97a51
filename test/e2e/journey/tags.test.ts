// Tags as a first-time user uses them: two holiday photos and the tax folder's bill tagged at
// once from the selection bar with a tag named as people name things ("Urlaub & Strand #1 🏖"),
// the chips in the list and in the details panel, the tag in the sidebar as a place listing
// everything it is on, and the tag still there after the photo is renamed. Each step checks the
// server's answer too.
import * as assert from 'uvu/assert';
import type { Locator } from 'playwright-core';
import { waitFor } from '../../support/wait.ts';
import { HOME, W, filesAddress, journey, type Step } from './harness.ts';

const j = journey(import.meta.url);
const TAG = 'Urlaub & Strand #1 🏖';
const nameOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);
/** Waits until the list shows exactly these names (not one of them and a count read before the list changed). */
const shows = (list: Locator, names: string[]) =>
  waitFor(() => list.locator('li').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.name ?? '')), {
    what: `the list showing ${names.join(', ')}`,
    until: (got) => JSON.stringify([...got].sort()) === JSON.stringify([...names].sort()),
    seen: (got) => got.join(', '),
    timeoutMs: 15_000,
  });
const tagged = async (s: Step) =>
  ((await s.api('GET', `/api/tags/files?${new URLSearchParams({ tag: TAG })}`)).json?.items ?? []).map(
    (i: { path: string; name: string }) => `${i.path}/${i.name}`,
  );

j.step('two photos tagged at once from the selection bar show the tag as chips', async (s) => {
  await s.goto(filesAddress(HOME, W.holiday));
  await s.folder(`${HOME}/${W.holiday}`);
  await s.select(await s.entry(nameOf(W.landscape)), await s.entry(nameOf(W.cafe)));
  await s.tap(s.page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Tags…' }));
  const dialog = s.page.getByRole('dialog', { name: 'Tags of 2 items' });
  const field = dialog.getByLabel('Add a tag');
  await field.waitFor();
  await field.fill(TAG);
  await s.tap(dialog.getByRole('button', { name: 'Add tag' }));
  await dialog.getByRole('listitem').filter({ hasText: TAG }).waitFor();
  await s.tap(dialog.getByRole('button', { name: 'Done' }));
  await dialog.waitFor({ state: 'detached' });
  for (const rel of [W.landscape, W.cafe]) {
    const chip = (await s.entry(nameOf(rel))).locator('.tag-chip', { hasText: TAG });
    await chip.waitFor();
    assert.ok(await chip.isVisible(), `${rel}: the chip is seen`);
  }
  assert.is(await (await s.entry(nameOf(W.portrait))).locator('.tag-chip').count(), 0, 'the photo not chosen');
  assert.equal((await tagged(s)).sort(), [`${HOME}/${W.cafe}`, `${HOME}/${W.landscape}`].sort());
});

j.step(
  'the tag is a place in the sidebar listing everything it is on; the details panel shows it',
  async (s) => {
    await s.goto(filesAddress(HOME, W.holiday));
    await s.folder(`${HOME}/${W.holiday}`);
    if (s.size.touch) await s.tap(s.page.getByRole('button', { name: 'Menu' }));
    const places = s.page.getByRole('navigation', { name: 'Places' });
    await s.tap(places.getByRole('list', { name: 'Tags' }).getByRole('link', { name: TAG }));
    const list = s.page.getByRole('list', { name: `Tagged ${TAG}` });
    await list.waitFor();
    await shows(list, [nameOf(W.cafe), nameOf(W.landscape)]);
    assert.ok(await list.getByText(`${HOME}/${W.holiday}`).first().isVisible(), 'the folder of each is said');
    // Open folder goes to the photo where it is; its details show the tag.
    await s.tap(list.locator(`li[data-name="${nameOf(W.cafe)}"]`).getByRole('button', { name: 'Open folder' }));
    await s.folder(`${HOME}/${W.holiday}`);
    const menu = await s.itemMenu(nameOf(W.cafe));
    await s.tap(menu.getByRole('menuitem', { name: 'Details and versions' }));
    const panel = s.page.getByRole('complementary', { name: `Details of ${nameOf(W.cafe)}` });
    await panel.locator('.tag-chip', { hasText: TAG }).waitFor();
  },
  { needs: ['two photos tagged at once from the selection bar show the tag as chips'] },
);

j.step(
  'search by the tag, narrowed and widened with the filter chips',
  async (s) => {
    await s.goto(`/search?${new URLSearchParams({ q: `tag:"${TAG}" in:"Holiday 2025"` })}`);
    const filters = s.page.getByRole('group', { name: 'Filters' });
    await filters.getByText(`Tag: ${TAG}`).waitFor();
    await filters.getByText('In: Holiday 2025').waitFor();
    const results = s.page.getByRole('list', { name: 'Name matches' });
    await shows(results, [nameOf(W.cafe), nameOf(W.landscape)]);
    // Kind → Folders: nothing tagged is a folder; the box shows the query as it now reads.
    await filters.getByRole('combobox', { name: 'Add a filter: Kind' }).selectOption('folder');
    await filters.getByText('Kind: folder').waitFor();
    await s.page.getByText('Nothing found.').waitFor();
    assert.is(
      await s.page.getByRole('searchbox', { name: 'Search files' }).inputValue(),
      `tag:"${TAG}" in:"Holiday 2025" kind:folder`,
    );
    // The kind's × takes it out again, then Kind → Photos keeps both photos.
    await s.tap(filters.getByRole('button', { name: 'Remove filter Kind: folder' }));
    await filters.getByRole('combobox', { name: 'Add a filter: Kind' }).selectOption('photo');
    await filters.getByText('Kind: photo').waitFor();
    // The page shows only the answer to the query as it now reads (never the list from before).
    await shows(results, [nameOf(W.cafe), nameOf(W.landscape)]);
    // Without the tag, every photo of the holiday folder is found, as the server finds them.
    await s.tap(filters.getByRole('button', { name: `Remove filter Tag: ${TAG}` }));
    const server = await s.api('GET', `/api/search?${new URLSearchParams({ q: 'kind:photo', in: 'Holiday 2025' })}`);
    assert.is(server.status, 200, server.text);
    const names = server.json.items.map((i: { name: string }) => i.name).sort();
    assert.ok(names.includes(nameOf(W.portrait)) && names.includes(nameOf(W.rotated)), names.join(', '));
    await shows(results, names);
    assert.is(
      await s.page.getByRole('searchbox', { name: 'Search files' }).inputValue(),
      'in:"Holiday 2025" kind:photo',
    );
  },
  { needs: ['two photos tagged at once from the selection bar show the tag as chips'] },
);

j.step(
  'a renamed photo keeps its tag',
  async (s) => {
    const renamed = 'Café & crêpes #2 – Lieblingsbild.jpg';
    const r = await s.api('POST', '/api/files/rename', {
      path: `${HOME}/${W.holiday}`,
      name: nameOf(W.cafe),
      newName: renamed,
    });
    assert.is(r.status, 200, r.text);
    await s.goto(filesAddress(HOME, W.holiday));
    await s.folder(`${HOME}/${W.holiday}`);
    await (await s.entry(renamed)).locator('.tag-chip', { hasText: TAG }).waitFor();
    assert.ok((await tagged(s)).includes(`${HOME}/${W.holiday}/${renamed}`));
  },
  { needs: ['two photos tagged at once from the selection bar show the tag as chips'] },
);

j.run();
