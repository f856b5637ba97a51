// The bell, live (issue 29): Ada watches a folder; Lena, in a browser of her own, uploads a file
// there through the page; Ada's bell — on a page she opened before and never reloads — counts
// it and lists it, as the server's inbox has it. Opening the bell marks it read at the server.
import * as assert from 'uvu/assert';
import { HOME, filesAddress, journey, onDisk } from './harness.ts';

const j = journey(import.meta.url);

const PICTURE = 'Sonnenuntergang am Steg – été #3 “Zoë” (100%) 🌅.txt';
const LENA = { email: 'lena@example.org', username: 'lena', password: 'lenas own long password' };

j.step('a housemate’s upload in a watched folder shows on the bell without a reload', async (s) => {
  const { page } = s;
  const folder = `${HOME}/Photos`;
  const prefs = await s.api('PUT', '/api/notify/prefs', {
    kinds: ['folder.uploaded'],
    destinations: [],
    folders: [folder],
  });
  assert.is(prefs.status, 200, prefs.text);
  const created = await s.api('POST', '/api/users', { ...LENA, roles: [] });
  assert.is(created.status, 201, created.text);

  // Ada's page, opened once: a mark on its window tells a reload apart.
  await s.goto(filesAddress(HOME));
  await s.folder(HOME);
  const bell = page.getByRole('button', { name: /^Notifications/ });
  await bell.waitFor();
  assert.is(await bell.getAttribute('aria-label'), 'Notifications');
  await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));

  // Lena, in her own browser, uploads into the watched folder through the page.
  const lena = await s.anonymous();
  await lena.page.goto(s.url(filesAddress(HOME, 'Photos')));
  await lena.page.getByLabel('Email or username').fill(LENA.username);
  await lena.page.getByLabel('Password').fill(LENA.password);
  await lena.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await lena.page.getByRole('region', { name: `Folder ${folder}`, exact: true }).waitFor();
  const chooser = lena.page.waitForEvent('filechooser');
  await lena.page
    .getByRole('toolbar', { name: 'Folder actions' })
    .getByRole('button', { name: 'Upload', exact: true })
    .click();
  await (await chooser).setFiles([onDisk(PICTURE, 'the jetty at dusk\n')]);
  await s.eventually('the file at the server', () => s.exists(`Photos/${PICTURE}`));

  // Ada's bell counts it, on the same page.
  await page.getByRole('button', { name: 'Notifications, 1 unread' }).waitFor();
  assert.ok(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere === true));
  const inbox = (await s.api('GET', '/api/notify/inbox')).json;
  assert.is(inbox.unread, 1);
  assert.is(inbox.items.length, 1);
  assert.is(inbox.items[0].kind, 'folder.uploaded');
  assert.equal(inbox.items[0].paths, [`${folder}/${PICTURE}`]);

  // Opened: the item as the server words it, and read at the server.
  await s.tap(page.getByRole('button', { name: 'Notifications, 1 unread' }));
  const list = page.getByRole('dialog', { name: 'Notifications' });
  await list.getByText(inbox.items[0].title, { exact: true }).waitFor();
  await list.getByText(`lena added ${folder}/${PICTURE}.`, { exact: true }).waitFor();
  await s.eventually('read at the server', async () => (await s.api('GET', '/api/notify/inbox')).json.unread === 0);
  await page.getByRole('button', { name: 'Notifications', exact: true }).waitFor();
});

j.run();
