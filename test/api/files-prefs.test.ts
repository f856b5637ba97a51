// Per-folder view and sort through the API (per account, validated, carried on rename and
// move, forgotten on delete) and what a deleted account leaves behind (nothing bound to it).
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, issueToken, me, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let admin: Client;
let alice: Client;
let bob: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);

test.before(async () => {
  s = await startServer({ env: { USER_DIR_ENABLED: 'true', USER_VOLUMES: 'true' } });
  admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('defaults until chosen; partial updates merge; each account has its own', async () => {
  fs.mkdirSync(vol('Photos'));
  const first = await alice.get('/api/folder-prefs/Files/Photos');
  assert.is(first.status, 200, first.text);
  assert.equal(first.json, {
    path: 'Files/Photos',
    view: 'list',
    sortBy: 'name',
    sortDir: 'asc',
    saved: false,
    updatedAt: null,
  });
  const put = await alice.put('/api/folder-prefs/Files/Photos', { view: 'grid' });
  assert.is(put.status, 200, put.text);
  assert.is(put.json.view, 'grid');
  assert.is(put.json.saved, true);
  assert.ok(!Number.isNaN(Date.parse(put.json.updatedAt)));
  await alice.put('/api/folder-prefs/Files/Photos', { sortBy: 'modified', sortDir: 'desc' });
  const again = await alice.get('/api/folder-prefs/Files/Photos');
  assert.equal([again.json.view, again.json.sortBy, again.json.sortDir], ['grid', 'modified', 'desc']);
  assert.is((await bob.get('/api/folder-prefs/Files/Photos')).json.saved, false, "bob does not see alice's choice");
  // The top and a volume root are folders too.
  assert.is((await alice.put('/api/folder-prefs/', { view: 'grid' })).json.path, '');
  assert.is((await alice.get('/api/folder-prefs/Files')).json.saved, false);
  assert.is((await alice.delete('/api/folder-prefs/Files/Photos')).status, 204);
  assert.is((await alice.get('/api/folder-prefs/Files/Photos')).json.saved, false);
});

test('bad input: unknown values and keys 400, files 400, missing folders 404, read tokens refused', async () => {
  fs.mkdirSync(vol('Docs'));
  fs.writeFileSync(vol('Docs', 'a.txt'), 'a');
  for (const body of [
    { view: 'tiles' },
    { sortBy: 'colour' },
    { sortDir: 'up' },
    { view: 'grid', extra: 1 },
    { view: 7 },
  ]) {
    const r = await alice.put('/api/folder-prefs/Files/Docs', body);
    assert.is(r.status, 400, JSON.stringify(body));
    envelope(r);
  }
  assert.is((await alice.get('/api/folder-prefs/Files/Docs')).json.saved, false, 'nothing kept from refused bodies');
  assert.is(envelope(await alice.put('/api/folder-prefs/Files/Docs/a.txt', { view: 'grid' })).code, 'NOT_A_FOLDER');
  assert.is((await alice.get('/api/folder-prefs/Files/Nope')).status, 404);
  assert.is((await alice.get('/api/folder-prefs/Files/..%2Fetc')).status, 400);
  assert.is((await alice.get('/api/folder-prefs/personal')).status, 200);
  const read = new Client(s.url, await issueToken(alice, 'read', { password: 'alice-password-1' }));
  assert.is((await read.get('/api/folder-prefs/Files/Docs')).status, 200);
  assert.is((await read.put('/api/folder-prefs/Files/Docs', { view: 'grid' })).status, 403);
});

test('carried on rename and move, byte-exact; forgotten for every account on delete', async () => {
  fs.mkdirSync(vol('Work', 'Sub'), { recursive: true });
  fs.mkdirSync(vol('work'));
  await alice.put('/api/folder-prefs/Files/Work', { view: 'grid' });
  await alice.put('/api/folder-prefs/Files/Work/Sub', { sortBy: 'size' });
  await alice.put('/api/folder-prefs/Files/work', { sortBy: 'kind' });
  await bob.put('/api/folder-prefs/Files/Work/Sub', { sortDir: 'desc' });
  assert.is((await alice.post('/api/files/rename', { path: 'Files', name: 'Work', newName: 'Job' })).status, 200);
  assert.is((await alice.get('/api/folder-prefs/Files/Job')).json.view, 'grid');
  assert.is((await alice.get('/api/folder-prefs/Files/Job/Sub')).json.sortBy, 'size');
  assert.is((await bob.get('/api/folder-prefs/Files/Job/Sub')).json.sortDir, 'desc', "bob's row moved with the folder");
  assert.is(
    (await alice.get('/api/folder-prefs/Files/work')).json.sortBy,
    'kind',
    'a name differing by case is untouched',
  );
  fs.mkdirSync(vol('Archive'));
  assert.is(
    (await alice.post('/api/files/move', { items: [{ path: 'Files/Job', name: 'Sub' }], destination: 'Files/Archive' }))
      .status,
    200,
  );
  assert.is((await alice.get('/api/folder-prefs/Files/Archive/Sub')).json.sortBy, 'size');
  assert.is((await alice.delete('/api/files', { items: [{ path: 'Files/Archive', name: 'Sub' }] })).status, 200);
  // A new folder at the same place starts from the defaults, for both accounts.
  fs.mkdirSync(vol('Archive', 'Sub'));
  assert.is((await alice.get('/api/folder-prefs/Files/Archive/Sub')).json.saved, false);
  assert.is((await bob.get('/api/folder-prefs/Files/Archive/Sub')).json.saved, false);
});

test('a deleted account leaves no favourites, folder prefs, recent destinations, assignments; its folder name stays claimed', async () => {
  const carol = await createUser(admin, s, { username: 'carol', password: 'carol-password-1' });
  const carolId = (await me(carol)).id;
  fs.mkdirSync(vol('Shared'));
  assert.is((await carol.post('/api/favorites', { path: 'Files/Shared' })).status, 201);
  await carol.put('/api/folder-prefs/Files/Shared', { view: 'grid' });
  await carol.put('/api/folder-prefs/personal', { view: 'grid' });
  await carol.post('/api/files/file', { path: 'personal', name: 'mine.txt', content: 'carol' });
  await carol.post('/api/files/copy', { items: [{ path: 'personal', name: 'mine.txt' }], destination: 'Files/Shared' });
  assert.is((await carol.get('/api/files/recent-destinations')).json.destinations.length, 1);
  const host = path.join(s.dirs.root, 'carol-host');
  fs.mkdirSync(host);
  assert.is(
    (await admin.post(`/api/users/${carolId}/volumes`, { label: 'Host', path: host, accessMode: 'readonly' })).status,
    201,
  );
  const rows = (table: string) =>
    s.withDatabase((db) => db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE user_id = ?`, [carolId])!.n);
  for (const t of ['favorites', 'folder_prefs', 'recent_destinations', 'user_volumes', 'personal_folders'])
    assert.ok((await rows(t)) > 0, t);
  // Another account's rows stay.
  await alice.post('/api/favorites', { path: 'Files/Shared' });
  const aliceId = (await me(alice)).id;

  const del = await admin.delete(`/api/users/${carolId}`);
  assert.is(del.status, 204, del.text);
  for (const t of ['favorites', 'folder_prefs', 'recent_destinations', 'user_volumes', 'personal_folders'])
    assert.is(await rows(t), 0, t);
  assert.is(
    await s.withDatabase(
      (db) => db.get<{ n: number }>('SELECT COUNT(*) AS n FROM favorites WHERE user_id = ?', [aliceId])!.n,
    ),
    1,
  );
  // A new account named carol gets a new folder, never the old files.
  const carol2 = await createUser(admin, s, { username: 'carol', password: 'carol-password-2' });
  assert.equal((await carol2.get('/api/browse/personal')).json.items, []);
  assert.is((await carol2.get('/api/favorites')).json.length, 0);
  assert.is(
    fs.readFileSync(path.join(s.dirs.users, 'carol', 'mine.txt'), 'utf8'),
    'carol',
    'the old files stay on disk',
  );
});

test('AUTH_MODE=disabled: the local caller keeps its folder prefs', async () => {
  const local = await startServer({ env: { AUTH_MODE: 'disabled' } });
  try {
    const c = new Client(local.url);
    assert.is((await c.put('/api/folder-prefs/Files', { view: 'grid' })).status, 200);
    assert.is((await c.get('/api/folder-prefs/Files')).json.view, 'grid');
  } finally {
    await local.close();
    removeDirs(local.dirs);
  }
});

test.run();
