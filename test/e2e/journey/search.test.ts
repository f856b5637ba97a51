// Searching as people type: the song by its name ("Morning Tune"), a folder by its name
// ("Holiday 2025"), a word inside a document ("rhubarb") and one inside a PDF with its page
// ("Deductions", page 2), a search inside Photos/Holiday 2025,
// and names with `+`, `&`, `%` and `#` — typed into the search box, results opened. The server's
// side: before each search the index is asked (percent-encoded, as any client may) until it knows
// the file, so a miss in the page is the page's; each hit is checked against the server's answer.
import * as assert from 'uvu/assert';
import { HOME, W, filesAddress, journey, type Step } from './harness.ts';

const j = journey(import.meta.url);

const parentOf = (rel: string) => rel.slice(0, rel.lastIndexOf('/'));
const nameOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);

/** Waits until the server's index finds `name` in `folder` for `term` (by name, or by content when `line`). */
async function indexed(s: Step, term: string, folder: string, name: string, scope?: string): Promise<any> {
  let last = '';
  let hit: any;
  await s
    .eventually(
      `the index to find ${folder}/${name} for "${term}"`,
      async () => {
        const q = `q=${encodeURIComponent(term)}${scope ? `&path=${encodeURIComponent(scope)}` : ''}`;
        const r = await s.api('GET', `/api/search?${q}`);
        last = r.text;
        hit = r.json?.items?.find((i: any) => i.path === folder && i.name === name);
        return Boolean(hit);
      },
      30_000,
    )
    .catch((err) => {
      throw new Error(`${(err as Error).message}; last answer: ${last.slice(0, 500)}`);
    });
  return hit;
}

async function searchFor(s: Step, term: string): Promise<void> {
  const box = s.page.getByRole('searchbox', { name: 'Search files' });
  await box.fill(term);
  await box.press('Enter');
  await s.page.getByRole('heading', { name: `Search for “${term}”` }).waitFor();
}

j.step('searching "Morning Tune" finds the song: it plays at its address, and "Open folder" shows it', async (s) => {
  await indexed(s, 'Morning Tune', `${HOME}/${parentOf(W.song)}`, nameOf(W.song));
  await s.goto(filesAddress(HOME));
  await searchFor(s, 'Morning Tune');
  const hit = s.page
    .getByRole('list', { name: 'Name matches' })
    .getByRole('listitem')
    .filter({ hasText: nameOf(W.song) });
  await hit.waitFor();
  // The name opens the song itself, in the player, at the song's own address.
  await s.tap(hit.getByRole('button', { name: nameOf(W.song), exact: true }));
  const viewer = s.page.getByRole('dialog', { name: `Viewer: ${nameOf(W.song)}`, exact: true });
  const audio = viewer.locator('audio');
  await s.eventually('the song to be read by the player', () =>
    audio.evaluate((el: HTMLAudioElement) => el.readyState >= 1 && el.duration > 0),
  );
  assert.ok(s.page.url().endsWith(filesAddress(HOME, W.song)), `the song's address: ${s.page.url()}`);
  // Close comes back to the results; "Open folder" shows the song in its folder, selected.
  await s.tap(viewer.getByRole('button', { name: 'Close' }));
  await viewer.waitFor({ state: 'detached' });
  await s.tap(hit.getByRole('button', { name: 'Open folder' }));
  await s.folder(`${HOME}/${parentOf(W.song)}`);
  const entry = await s.entry(nameOf(W.song));
  assert.is(await entry.getAttribute('aria-selected'), 'true', 'the song is selected in its folder');
});

j.step('searching "Holiday 2025" finds the folder and opens it', async (s) => {
  await indexed(s, 'Holiday 2025', `${HOME}/Photos`, 'Holiday 2025');
  await searchFor(s, 'Holiday 2025');
  const hit = s.page
    .getByRole('list', { name: 'Name matches' })
    .getByRole('listitem')
    .filter({ hasText: 'Holiday 2025' });
  await hit.first().waitFor();
  await s.tap(hit.first().getByRole('button', { name: 'Holiday 2025' }));
  await s.folder(`${HOME}/${W.holiday}`);
  await s.entry(nameOf(W.landscape));
});

j.step('searching a word inside a document finds it with its line', async (s) => {
  const server = await indexed(s, W.contentWord, `${HOME}/${parentOf(W.gardenPlan)}`, nameOf(W.gardenPlan));
  assert.match(server.matchLine ?? '', /rhubarb crowns/);
  await searchFor(s, W.contentWord);
  const hit = s.page
    .getByRole('list', { name: 'Content matches' })
    .getByRole('listitem')
    .filter({ hasText: nameOf(W.gardenPlan) });
  await hit.waitFor();
  assert.match(await hit.innerText(), /plant the rhubarb crowns by the shed/);
  await s.tap(hit.getByRole('button', { name: 'Open folder' }));
  await s.folder(`${HOME}/${parentOf(W.gardenPlan)}`);
  assert.is(await (await s.entry(nameOf(W.gardenPlan))).getAttribute('aria-selected'), 'true');
});

j.step(
  'a word only inside the tax return PDF ("Deductions", on its page 2) is found, its passage and page shown',
  async (s) => {
    const server = await indexed(s, 'Deductions', `${HOME}/${parentOf(W.pdf)}`, nameOf(W.pdf));
    assert.equal([server.matchLine, server.matchPage], ['Deductions: garden tools', 2]);
    await s.goto(filesAddress(HOME));
    await searchFor(s, 'Deductions');
    const hit = s.page
      .getByRole('list', { name: 'Content matches' })
      .getByRole('listitem')
      .filter({ hasText: nameOf(W.pdf) });
    await hit.waitFor();
    const text = await hit.innerText();
    assert.match(text, /Deductions: garden tools/);
    assert.match(text, /· page 2/);
  },
);

j.step('"Search in this folder" inside Photos/Holiday 2025 finds only what is there', async (s) => {
  const scope = `${HOME}/${W.holiday}`;
  await indexed(s, 'Beach', scope, nameOf(W.landscape), scope);
  await s.goto(filesAddress(HOME, W.holiday));
  await s.folder(scope);
  await s.page.getByLabel('Filter this folder').fill('Beach');
  await s.tap(s.page.getByRole('button', { name: 'Search in this folder' }));
  const names = s.page.getByRole('list', { name: 'Name matches' }).getByRole('listitem');
  await names.first().waitFor();
  const shown = await names.evaluateAll((els) => els.map((e) => e.getAttribute('data-name')));
  assert.equal(shown, [nameOf(W.landscape)]);
});

j.step('names with +, &, % and # are found as typed', async (s) => {
  for (const name of ['Rock + Roll.txt', 'Tom & Jerry.txt', '100% done.txt', '#1 hits.txt']) {
    const term = name.replace(/\.txt$/, '');
    await indexed(s, term, `${HOME}/${W.odd}`, name);
    await searchFor(s, term);
    await s.page
      .getByRole('list', { name: 'Name matches' })
      .getByRole('listitem')
      .filter({ has: s.page.getByRole('button', { name, exact: true }) })
      .waitFor();
  }
});

j.run();
