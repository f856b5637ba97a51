// A first-time user's first minutes: the setup page makes the administrator, Administration →
// Volumes adds the home folder of this computer (its path has a space) with the server-folder
// picker, the new volume is in the sidebar at once, and the home folder is browsed down to
// Photos/Holiday 2025 by opening folders as a user does. The server's side of each step: the
// account it made, the volume it keeps and lists, the folders it answers.
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { ADMIN, HOME, W, filesAddress, journey } from './harness.ts';

const j = journey(import.meta.url, { setup: 'none' });

j.step('the setup page creates the administrator', async (s) => {
  await s.goto('/');
  await s.page.getByRole('heading', { name: 'Welcome to Burrow' }).waitFor();
  await s.page.getByLabel('Email').fill(ADMIN.email);
  await s.page.getByLabel('Password').fill(ADMIN.password);
  await s.tap(s.page.getByRole('button', { name: 'Create account' }));
  await s.page.getByText('Your account is ready.').waitFor();
  assert.is(new URL(s.page.url()).pathname, '/admin/volumes', 'the next step is which folders to show');
  const me = await s.api('GET', '/api/auth/me');
  assert.is(me.json.user?.email, ADMIN.email, me.text);
  assert.equal(me.json.user?.roles, ['admin'], me.text);
  // A second setup is refused: the installation has its administrator.
  const again = await s.api('POST', '/api/auth/setup', { email: 'mallory@example.org', password: 'another password' });
  assert.is(again.status, 403, `a second setup answered ${again.status}`);
});

j.step(
  'Administration → Volumes adds the home folder with the picker',
  async (s) => {
    const hostPath = fs.realpathSync(s.home);
    await s.tap(s.page.getByRole('button', { name: 'Browse this computer…' }));
    const picker = s.page.getByRole('list', { name: 'Server folders' });
    const at = s.page.getByText(/^Server folder:/);
    const up = picker.getByRole('button', { name: '↰ Up' });
    // From wherever the picker starts, up until the home folder's parent is listed.
    const home = picker.getByRole('button', { name: path.basename(s.home), exact: true });
    for (let i = 0; ; i++) {
      await s.eventually('the picker to show a folder', async () => /^Server folder: \S/.test(await at.innerText()));
      if (await home.count()) break;
      if (i === 10) throw new Error(`the picker never listed ${s.home}`);
      const before = await at.innerText();
      await s.tap(up);
      await s.eventually('the picker to go up', async () => (await at.innerText()) !== before);
    }
    await s.tap(home);
    await s.page.getByText(`Server folder: ${hostPath}`).waitFor();
    await s.tap(s.page.getByRole('button', { name: 'Use this folder' }));
    assert.is(await s.page.getByLabel('Name').inputValue(), path.basename(s.home), 'the name is suggested');
    await s.page.getByLabel('Name').fill(HOME);
    await s.tap(s.page.getByRole('button', { name: 'Add folder' }));
    const row = s.page
      .getByRole('list', { name: 'Host folder volumes' })
      .getByRole('listitem')
      .filter({ hasText: HOME });
    await row.waitFor();
    const kept = await s.api('GET', '/api/admin/volumes');
    assert.equal(
      kept.json.volumes.map((v: any) => [v.label, v.path, v.accessMode]),
      [[HOME, hostPath, 'readwrite']],
      kept.text,
    );
    const listed = await s.api('GET', '/api/volumes');
    assert.ok(
      listed.json.some((v: any) => v.name === HOME),
      `GET /api/volumes lists ${HOME}: ${listed.text}`,
    );
  },
  { needs: ['the setup page creates the administrator'] },
);

j.step(
  'the new volume is in the sidebar without a reload',
  async (s) => {
    if (s.size.touch) await s.tap(s.page.getByRole('button', { name: 'Menu' }));
    const places = s.page.getByRole('navigation', { name: 'Places' });
    // The volume's link (the app's own Home page is a link named Home too).
    const link = places.locator(`a[href="${filesAddress(HOME)}"]`);
    await link.waitFor({ timeout: 5000 });
    assert.is((await link.innerText()).trim(), HOME);
  },
  { needs: ['Administration → Volumes adds the home folder with the picker'] },
);

j.step(
  'browse the home folder down to Photos/Holiday 2025 by opening folders',
  async (s) => {
    await s.goto(filesAddress(HOME));
    await s.folder(HOME);
    for (const name of ['Photos', 'Music', 'Documents', 'Code', 'Backups', 'Odd names']) await s.entry(name);
    const top = await s.api('GET', `/api/browse/${encodeURIComponent(HOME)}`);
    assert.is(top.status, 200, top.text);
    const onDisk = fs.readdirSync(s.home).filter((n) => !n.startsWith('.'));
    const listed = top.json.items.map((i: any) => i.name).filter((n: string) => !n.startsWith('.'));
    assert.equal(listed.sort(), onDisk.sort(), 'the server lists what the disk holds');

    await s.open(await s.entry('Photos'));
    await s.folder(`${HOME}/Photos`);
    await s.open(await s.entry('Holiday 2025'));
    await s.folder(`${HOME}/${W.holiday}`);
    assert.is(new URL(s.page.url()).pathname, filesAddress(HOME, W.holiday));
    const names = fs.readdirSync(s.disk(W.holiday));
    for (const n of names) await s.entry(n);
    const folder = await s.api('GET', `/api/browse/${filesAddress(HOME, W.holiday).slice('/files/'.length)}`);
    assert.is(folder.status, 200, folder.text);
    assert.equal(folder.json.items.map((i: any) => i.name).sort(), names.sort());
    // Reload keeps the folder (it has an address).
    await s.page.reload();
    await s.entry(path.basename(W.landscape));
  },
  { needs: ['Administration → Volumes adds the home folder with the picker'] },
);

j.step(
  'the 2,000-photo camera roll lists every photo down to the last',
  async (s) => {
    await s.goto(filesAddress(HOME, W.cameraRoll));
    await s.folder(`${HOME}/${W.cameraRoll}`);
    await s.page
      .getByText(`${W.cameraRollCount.toLocaleString('en')} items`)
      .or(s.page.getByText(`${W.cameraRollCount} items`))
      .first()
      .waitFor();
    const last = `IMG_${String(W.cameraRollCount).padStart(4, '0')}.jpg`;
    await s.entry(last);
    const listed = await s.api('GET', `/api/browse/${filesAddress(HOME, W.cameraRoll).slice('/files/'.length)}`);
    assert.is(listed.json.items.length, W.cameraRollCount, 'the server lists every photo');
  },
  { needs: ['Administration → Volumes adds the home folder with the picker'] },
);

j.step(
  'a folder 40 levels deep opens by its address, and its breadcrumbs lead back up',
  async (s) => {
    await s.goto(filesAddress(HOME, W.deep));
    await s.folder(`${HOME}/${W.deep}`);
    await s.entry('bottom of the well.txt');
    const crumbs = s.page.getByRole('navigation', { name: 'Breadcrumbs' });
    await s.tap(
      crumbs
        .getByRole('link', { name: 'Deep', exact: true })
        .or(crumbs.getByRole('button', { name: 'Deep', exact: true }))
        .first(),
    );
    await s.folder(`${HOME}/Deep`);
    await s.entry('level 01');
  },
  { needs: ['Administration → Volumes adds the home folder with the picker'] },
);

j.run();
