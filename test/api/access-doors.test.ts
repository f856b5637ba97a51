// The access model held on the ways out: a zip, a download plan, a new archive and a copy of a
// folder leave out what the person may not take away (hidden or view only) and name none of it;
// a copy of what one may only view is refused with the disk unchanged; WebDAV's PROPFIND lists
// no hidden folder; a rule follows its folder when the folder is renamed or moved.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { createUser, me, setupAdmin } from '../support/auth.ts';

const HOME = 'Family Home';
const SECRET = 'Finances #taxes 100%';
const VIEW = 'Photos & Summer 🌞';
const OPEN = "Kids' drawings";
const PASSWORD = 'maya-password-1';

let s: TestServer;
let admin: Client;
let maya: Client;
let mayaId: string;
let kids: string;

const disk = (...p: string[]) => path.join(s.dirs.volumes, HOME, ...p);
const tree = (dir: string): string[] =>
  fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => p.split(path.sep).join('/'))
    .sort();

test.before(async () => {
  s = await startServer({ volumes: [HOME, 'Copies'], env: { WEBDAV_ENABLED: 'true' } });
  fs.mkdirSync(disk(SECRET), { recursive: true });
  fs.writeFileSync(disk(SECRET, 'salary 2024.pdf'), 'the family salary');
  fs.mkdirSync(disk(VIEW), { recursive: true });
  fs.writeFileSync(disk(VIEW, 'beach +1.jpg'), 'beach bytes');
  fs.mkdirSync(disk(OPEN), { recursive: true });
  fs.writeFileSync(disk(OPEN, 'sun.png'), 'a yellow sun');
  admin = await setupAdmin(s);
  maya = await createUser(admin, s, { username: 'maya', password: PASSWORD });
  mayaId = (await me(maya)).id;
  kids = (await admin.post('/api/access/groups', { name: 'Kids' })).json.group.id;
  await admin.post(`/api/access/groups/${kids}/members`, { userId: mayaId });
  const rule = (p: string, subject: object, level: string) =>
    admin.put('/api/access/rules', { path: p, subject, level }).then((r) => assert.is(r.status, 200, r.text));
  await rule(`${HOME}/${SECRET}`, { kind: 'group', id: kids }, 'hidden');
  await rule(`${HOME}/${VIEW}`, { kind: 'group', id: kids }, 'view');
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('a zip of the whole volume leaves out the hidden and view-only folders, names neither', async () => {
  const zip = await fetch(`${s.url}/api/download`, {
    method: 'POST',
    headers: { cookie: maya.cookieHeader, 'content-type': 'application/json', origin: s.url },
    body: JSON.stringify({ path: HOME }),
  });
  assert.is(zip.status, 200);
  const bytes = Buffer.from(await zip.arrayBuffer());
  assert.ok(bytes.includes(Buffer.from('sun.png')), 'what she may take is there');
  for (const name of ['salary', 'Finances', 'beach', 'Photos']) assert.not.ok(bytes.includes(Buffer.from(name)), name);
  const plan = await maya.post('/api/download/plan', { path: HOME });
  assert.is(plan.status, 200, plan.text);
  assert.is(plan.json.files, 1);
  // The administrator, whom no rule names, takes everything.
  assert.is((await admin.post('/api/download/plan', { path: HOME })).json.files, 3);
});

test('a new archive of the volume holds only what she may take', async () => {
  const made = await maya.post('/api/files/zip/compress', {
    items: [{ path: '', name: HOME }],
    destination: 'Copies',
    name: 'everything',
  });
  assert.is(made.status, 201, made.text);
  const bytes = fs.readFileSync(path.join(s.dirs.volumes, 'Copies', 'everything.zip'));
  assert.ok(bytes.includes(Buffer.from('sun.png')));
  for (const name of ['salary', 'beach']) assert.not.ok(bytes.includes(Buffer.from(name)), name);
});

test('copying what she may only view is refused, the disk unchanged; a copied folder leaves out what is withheld', async () => {
  const before = tree(path.join(s.dirs.volumes, 'Copies'));
  const refused = await maya.post('/api/files/copy', {
    items: [{ path: `${HOME}/${VIEW}`, name: 'beach +1.jpg' }],
    destination: 'Copies',
  });
  assert.is(refused.status, 403, refused.text);
  assert.is(envelope(refused).code, 'NO_DOWNLOAD');
  const hidden = await maya.post('/api/files/copy', { items: [{ path: HOME, name: SECRET }], destination: 'Copies' });
  assert.is(hidden.status, 404);
  assert.not.match(hidden.text, 'salary');
  assert.equal(tree(path.join(s.dirs.volumes, 'Copies')), before);
  fs.mkdirSync(disk('Box', 'Diary – private'), { recursive: true });
  fs.writeFileSync(disk('Box', 'Diary – private', 'secret.txt'), 'dear diary');
  fs.writeFileSync(disk('Box', 'list.txt'), 'milk');
  const r = await admin.put('/api/access/rules', {
    path: `${HOME}/Box/Diary – private`,
    subject: { kind: 'group', id: kids },
    level: 'hidden',
  });
  assert.is(r.status, 200);
  const box = await maya.post('/api/files/copy', { items: [{ path: HOME, name: 'Box' }], destination: 'Copies' });
  assert.is(box.status, 200, box.text);
  assert.equal(tree(path.join(s.dirs.volumes, 'Copies', 'Box')), ['list.txt']);
  // The administrator's copy takes everything.
  await admin.post('/api/files/copy', {
    items: [{ path: HOME, name: 'Box' }],
    destination: 'Copies',
    conflict: 'rename',
  });
  assert.equal(tree(path.join(s.dirs.volumes, 'Copies', 'Box (1)')), [
    'Diary – private',
    'Diary – private/secret.txt',
    'list.txt',
  ]);
});

test('WebDAV PROPFIND lists no hidden folder, and the hidden folder answers 404', async () => {
  const auth = { authorization: 'Basic ' + Buffer.from(`maya:${PASSWORD}`).toString('base64') };
  const list = await fetch(`${s.url}/dav/${encodeURIComponent(HOME)}/`, {
    method: 'PROPFIND',
    headers: { ...auth, depth: '1' },
  });
  assert.is(list.status, 207);
  const xml = await list.text();
  assert.ok(xml.includes('drawings'));
  assert.not.ok(xml.includes('Finances'));
  const gone = await fetch(`${s.url}/dav/${encodeURIComponent(HOME)}/${encodeURIComponent(SECRET)}/`, {
    method: 'PROPFIND',
    headers: { ...auth, depth: '1' },
  });
  assert.is(gone.status, 404);
  assert.not.ok((await gone.text()).includes('salary'));
});

test('a rule follows its folder when the folder is renamed or moved', async () => {
  const renamed = await admin.post('/api/files/rename', { path: HOME, name: SECRET, newName: 'Money' });
  assert.is(renamed.status, 200, renamed.text);
  assert.is((await maya.get(`/api/browse/${encodeURIComponent(HOME)}/Money`)).status, 404);
  const moved = await admin.post('/api/files/move', { items: [{ path: HOME, name: 'Money' }], destination: 'Copies' });
  assert.is(moved.status, 200, moved.text);
  assert.is((await maya.get('/api/browse/Copies/Money')).status, 404);
  const rules = (await admin.get('/api/access/rules')).json.rules.map((r: any) => [r.path, r.level]);
  assert.ok(
    rules.some(([p, l]: string[]) => p === 'Copies/Money' && l === 'hidden'),
    JSON.stringify(rules),
  );
  assert.not.ok((await maya.get('/api/browse/Copies')).json.items.some((i: any) => i.name === 'Money'));
});

test.run();
