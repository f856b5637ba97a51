// Sharing with people who have no account: a link to Photos/Holiday 2025 made from the folder's
// menu, opened in a fresh browser (no cookie): the photos with their names, one previewed whole,
// one downloaded byte for byte, the lot as a zip with each photo once; then a file request on
// Inbox, used the same way to send a scan, the sender seeing nothing of what the Inbox holds. The
// server's side: the link it keeps, that the visitor has no session, the bytes it sent, the exact
// zip, and the Inbox on disk holding what it held and the sent file, nothing else.
import fs from 'node:fs';
import * as assert from 'uvu/assert';
import { HOME, W, filesAddress, journey, pictureShown, type Step } from './harness.ts';

const j = journey(import.meta.url);
const nameOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);
let link = '';
let request = '';

async function shareDialog(s: Step, folder: string, name: string) {
  await s.goto(filesAddress(HOME, folder));
  await s.folder(folder ? `${HOME}/${folder}` : HOME);
  const menu = await s.itemMenu(name);
  await s.tap(menu.getByRole('menuitem', { name: 'Share…' }));
  const dialog = s.page.getByRole('dialog', { name: `Share “${name}”` });
  await dialog.waitFor();
  return dialog;
}

j.step('a link to Photos/Holiday 2025 is made from its menu', async (s) => {
  const dialog = await shareDialog(s, 'Photos', 'Holiday 2025');
  await dialog.getByLabel('Label').fill('Holiday photos for Zoé');
  await s.tap(dialog.getByRole('button', { name: 'Create link' }));
  const field = dialog.getByLabel('Link', { exact: true });
  await field.waitFor();
  link = await field.inputValue();
  assert.match(link, /\/s\/[A-Za-z0-9_-]{20,}$/);
  const token = link.slice(link.lastIndexOf('/') + 1);
  const shares = await s.api('GET', '/api/shares');
  assert.is(shares.status, 200, shares.text);
  const kept = JSON.stringify(shares.json);
  assert.ok(kept.includes(`${HOME}/${W.holiday}`) && kept.includes(token), `the server keeps the link: ${kept}`);
  await s.tap(dialog.getByRole('button', { name: 'Done' }));
});

j.step(
  'someone with no account opens the link: the photos, one shown whole, one downloaded, all as a zip',
  async (s) => {
    const visitor = await s.anonymous();
    const page = visitor.page;
    // The link as sent works on this server whatever host it names.
    await page.goto(s.url(new URL(link).pathname));
    const photos = fs.readdirSync(s.disk(W.holiday)).sort();
    const entries = page.getByRole('list', { name: 'Entries' }).getByRole('listitem');
    await s.eventually('every photo listed', async () => (await entries.count()) === photos.length);
    const listed = await entries.evaluateAll((els) => els.map((e) => e.getAttribute('data-name')));
    assert.equal(listed.slice().sort(), photos);
    const me = await visitor.context.request.get(s.url('/api/auth/me'));
    assert.is((await me.json()).user, null, 'the visitor has no session');

    // A photo opens whole; the next one by the preview's button; its Download is the file itself.
    await s.tap(page.getByRole('button', { name: nameOf(W.landscape), exact: true }));
    const preview = page.getByRole('dialog', { name: nameOf(W.landscape) });
    const img = preview.getByRole('img').first();
    // A 12 MP photo's rendition is made on first sight: on a busy machine it takes a while.
    await s.decoded(img, 60_000);
    const shown = await pictureShown(img);
    assert.ok(shown.whole, `the whole photo is visible: ${JSON.stringify(shown)}`);
    await page.keyboard.press('Escape');
    await preview.waitFor({ state: 'detached' });

    await s.tap(page.getByRole('button', { name: nameOf(W.cafe), exact: true }));
    const cafe = page.getByRole('dialog', { name: nameOf(W.cafe) });
    const [one] = await Promise.all([
      page.waitForEvent('download'),
      s.tap(cafe.getByRole('link', { name: `Download ${nameOf(W.cafe)}` })),
    ]);
    assert.is(one.suggestedFilename(), nameOf(W.cafe));
    assert.equal(fs.readFileSync((await one.path())!), fs.readFileSync(s.disk(W.cafe)), 'the photo byte for byte');
    await page.keyboard.press('Escape');
    await cafe.waitFor({ state: 'detached' });

    const [all] = await Promise.all([
      page.waitForEvent('download'),
      s.tap(page.getByRole('button', { name: 'Download all' })),
    ]);
    assert.is(all.suggestedFilename(), 'Holiday 2025.zip');
    const names = await s.zipNames(fs.readFileSync((await all.path())!));
    // The folder as it is, named as it is: its own entry, then each photo once.
    assert.equal(names.slice().sort(), ['Holiday 2025/', ...photos.map((p) => `Holiday 2025/${p}`)].sort());
    assert.equal(
      visitor.problems.filter((p) => p.startsWith('page error')),
      [],
    );
  },
  { needs: ['a link to Photos/Holiday 2025 is made from its menu'] },
);

j.step('a file request on Inbox', async (s) => {
  const dialog = await shareDialog(s, '', 'Inbox');
  await dialog.getByLabel(/File request/).check();
  await dialog.getByLabel('Label').fill('Send me the scan, please');
  await s.tap(dialog.getByRole('button', { name: 'Create link' }));
  request = await dialog.getByLabel('Link', { exact: true }).inputValue();
  assert.match(request, /\/s\/[A-Za-z0-9_-]{20,}$/);
  await s.tap(dialog.getByRole('button', { name: 'Done' }));
});

j.step(
  'someone with no account sends a scan through the request, seeing nothing of the Inbox; it holds the scan and nothing more',
  async (s) => {
    // What the Inbox already holds is not the sender's to see.
    const privateNote = 'Bank – account details.txt';
    fs.writeFileSync(s.disk(`${W.inbox}/${privateNote}`), 'IBAN: not for strangers\n');
    const visitor = await s.anonymous();
    const page = visitor.page;
    await page.goto(s.url(new URL(request).pathname));
    await page.getByRole('heading', { name: 'Send me the scan, please' }).waitFor();
    await page.getByRole('button', { name: 'Drop files here or choose files' }).waitFor();
    assert.not.match(await page.locator('body').innerText(), /Bank|IBAN/, 'a request shows nothing of the folder');
    assert.is(await page.locator('.link-entry').count(), 0, 'a request lists no entry');
    const scan = fs.readFileSync(s.disk(W.pdf));
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      s.tap(page.getByRole('button', { name: 'Drop files here or choose files' })),
    ]);
    await chooser.setFiles({ name: 'Passport scan – Zoé.pdf', mimeType: 'application/pdf', buffer: scan });
    await page.locator('.drop-item.done').waitFor();
    assert.equal(fs.readFileSync(s.disk(`${W.inbox}/Passport scan – Zoé.pdf`)), scan, 'the scan byte for byte');
    const only = [privateNote, 'Passport scan – Zoé.pdf'].sort();
    await s
      .eventually(
        'the Inbox to hold the scan alone',
        () => JSON.stringify(fs.readdirSync(s.disk(W.inbox)).sort()) === JSON.stringify(only),
        5000,
      )
      .catch(() => assert.equal(fs.readdirSync(s.disk(W.inbox)).sort(), only, 'nothing of Burrow left in the Inbox'));
    assert.equal(
      visitor.problems.filter((p) => p.startsWith('page error')),
      [],
    );
  },
  { needs: ['a file request on Inbox'] },
);

j.run();
