// Who reaches what: personal folders (no other account by any route), read tokens, access
// rules from the settings, assigned volumes, and hostile paths over every file route.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { createUser, issueToken, me, setupAdmin } from '../support/auth.ts';

let s: TestServer;
let admin: Client;
let alice: Client;
let bob: Client;

test.before(async () => {
  s = await startServer({ env: { USER_DIR_ENABLED: 'true', USER_VOLUMES: 'true' }, volumes: ['Files', 'Media'] });
  admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('without a credential the file routes answer 401', async () => {
  const anon = new Client(s.url);
  assert.is((await anon.get('/api/volumes')).status, 401);
  assert.is((await anon.get('/api/browse/Files')).status, 401);
});

test('a personal folder is reachable by its owner only, by every route', async () => {
  const vols = (await alice.get('/api/volumes')).json;
  assert.ok(vols.some((v: any) => v.kind === 'personal' && v.path === 'personal'));
  const created = await alice.post('/api/files/file', { path: 'personal', name: 'diary.txt', content: 'alice secret' });
  assert.is(created.status, 201, created.text);
  // bob's `personal` is his own folder: alice's file is not there.
  assert.is((await bob.get('/api/browse/personal')).json.items.length, 0);
  assert.is((await bob.post('/api/download', { path: 'personal/diary.txt' })).status, 404);
  // The personal folders' host folder is not reachable through a volume either (USER_ROOT
  // placed inside VOLUME_ROOT would expose it): simulate with a symlink inside a volume.
  const aliceDir = fs.readdirSync(s.dirs.users).find((d) => fs.existsSync(path.join(s.dirs.users, d, 'diary.txt')))!;
  fs.symlinkSync(path.join(s.dirs.users, aliceDir), path.join(s.dirs.volumes, 'Files', 'peek'));
  for (const [method, url, body] of [
    ['GET', '/api/browse/Files/peek', undefined],
    ['GET', '/api/metadata/Files/peek/diary.txt', undefined],
    ['GET', '/api/download/Files/peek/diary.txt', undefined],
    ['POST', '/api/download', { path: 'Files/peek/diary.txt' }],
    ['POST', '/api/download', { path: 'Files/peek' }],
    ['POST', '/api/files/copy', { items: [{ path: 'Files/peek', name: 'diary.txt' }], destination: 'Files' }],
    ['DELETE', '/api/files', { items: [{ path: 'Files/peek', name: 'diary.txt' }] }],
    ['POST', '/api/favorites', { path: 'Files/peek/diary.txt' }],
  ] as const) {
    const r = await bob.request(method, url, body);
    assert.is(r.status, 403, `${method} ${url} answered ${r.status}`);
    assert.is(envelope(r).code, 'PATH_OUTSIDE');
  }
  assert.ok(fs.existsSync(path.join(s.dirs.users, aliceDir, 'diary.txt')));
  fs.unlinkSync(path.join(s.dirs.volumes, 'Files', 'peek'));
  // Trash of a personal folder is the owner's only.
  await alice.delete('/api/files', { items: [{ path: 'personal', name: 'diary.txt' }] });
  const aliceTrash = (await alice.get('/api/trash')).json.items;
  assert.is(aliceTrash.length, 1);
  assert.equal((await bob.get('/api/trash')).json.items, []);
  assert.is((await bob.get(`/api/trash/items/${aliceTrash[0].id}/text`)).status, 404);
  assert.is((await bob.post(`/api/trash/items/${aliceTrash[0].id}/restore`, {})).status, 404);
});

test('read tokens read and download but never write', async () => {
  fs.writeFileSync(path.join(s.dirs.volumes, 'Files', 'r.txt'), 'readable');
  const secret = await issueToken(alice, 'read', { password: 'alice-password-1' });
  const t = new Client(s.url, secret);
  const listing = await t.get('/api/browse/Files');
  assert.is(listing.status, 200);
  assert.is(listing.json.access.canWrite, false);
  assert.is((await t.post('/api/download', { path: 'Files/r.txt' })).text, 'readable');
  assert.is((await t.post('/api/download/plan', { path: 'Files/r.txt' })).status, 200);
  const refused = await t.post('/api/files/folder', { path: 'Files', name: 'x' });
  assert.is(refused.status, 403);
  assert.is(envelope(refused).code, 'AUTH_TOKEN_READ_ONLY');
  assert.is((await t.get('/api/users/x/volumes')).status, 403);
});

test('access rules: hidden is gone everywhere, read-only refuses writes', async () => {
  fs.mkdirSync(path.join(s.dirs.volumes, 'Files', 'Secret', 'in'), { recursive: true });
  fs.mkdirSync(path.join(s.dirs.volumes, 'Media', 'Archive'), { recursive: true });
  const set = await admin.patch('/api/settings', {
    access: {
      rules: [
        { id: 'a', path: 'Files/Secret', recursive: true, permissions: 'hidden' },
        { id: 'b', path: 'Media/Archive', recursive: true, permissions: 'ro' },
      ],
    },
  });
  assert.is(set.status, 200, set.text);
  assert.not.ok((await alice.get('/api/browse/Files')).json.items.some((i: any) => i.name === 'Secret'));
  assert.is((await alice.get('/api/browse/Files/Secret/in')).status, 404);
  const ro = await alice.get('/api/browse/Media/Archive');
  assert.is(ro.json.access.readOnly, 'access');
  assert.is(ro.json.access.canUpload, false);
  assert.is((await alice.post('/api/files/folder', { path: 'Media/Archive', name: 'n' })).status, 403);
  await admin.patch('/api/settings', { access: { rules: [] } });
});

test('hidden files are listed once the account asks for them', async () => {
  fs.writeFileSync(path.join(s.dirs.volumes, 'Files', '.dot'), 'x');
  assert.not.ok((await alice.get('/api/browse/Files')).json.items.some((i: any) => i.name === '.dot'));
  assert.is((await alice.patch('/api/settings', { user: { showHiddenFiles: true } })).status, 200);
  assert.ok((await alice.get('/api/browse/Files')).json.items.some((i: any) => i.name === '.dot'));
  assert.not.ok((await alice.get('/api/browse/Files')).json.items.some((i: any) => i.name === '.burrow'));
});

test('assigned volumes replace the volumes for that account', async () => {
  const host = path.join(s.dirs.root, 'projects');
  fs.mkdirSync(host);
  fs.writeFileSync(path.join(host, 'plan.txt'), 'plan');
  const bobId = (await me(bob)).id;
  const add = await admin.post(`/api/users/${bobId}/volumes`, {
    label: 'Projects',
    path: host,
    accessMode: 'readonly',
  });
  assert.is(add.status, 201, add.text);
  assert.is(add.json.volume.path, fs.realpathSync(host));
  assert.is(typeof add.json.volume.id, 'string');
  assert.is((await admin.post(`/api/users/${bobId}/volumes`, { label: 'personal', path: host })).status, 400);
  assert.is((await admin.post(`/api/users/${bobId}/volumes`, { label: 'X', path: 'relative/path' })).status, 400);
  const vols = (await bob.get('/api/volumes')).json;
  assert.equal(vols, [
    { name: 'Projects', path: 'Projects', kind: 'volume', readOnly: 'access', accessMode: 'readonly' },
  ]);
  assert.is((await bob.get('/api/browse/Files')).status, 404);
  assert.is((await bob.post('/api/download', { path: 'Projects/plan.txt' })).text, 'plan');
  assert.is((await bob.post('/api/files/folder', { path: 'Projects', name: 'n' })).status, 403);
  const patched = await admin.patch(`/api/users/${bobId}/volumes/${add.json.volume.id}`, { accessMode: 'readwrite' });
  assert.is(patched.json.volume.accessMode, 'readwrite');
  assert.is((await bob.post('/api/files/folder', { path: 'Projects', name: 'n' })).status, 201);
  assert.is((await alice.get(`/api/users/${bobId}/volumes`)).status, 403);
  const dirs = await admin.get(`/api/admin/browse-directories?path=${encodeURIComponent(s.dirs.root)}`);
  assert.ok(dirs.json.directories.some((d: any) => d.name === 'projects'));
  assert.is(dirs.json.current, s.dirs.root);
  assert.is((await admin.delete(`/api/users/${bobId}/volumes/${add.json.volume.id}`)).status, 204);
  assert.ok((await bob.get('/api/volumes')).json.some((v: any) => v.path === 'Files'));
});

const HOSTILE = [
  '..',
  'Files/..',
  'Files/../..',
  '/etc',
  '\\Files',
  'Files\\..',
  'Files/%2e%2e',
  'Files/a%2fb',
  'Files/.burrow',
  'C:/x',
  'Files//x',
  'Files/./x',
];

test('hostile paths are refused by every file route', async () => {
  const routes: Array<(p: string) => Promise<{ status: number }>> = [
    (p) => alice.post('/api/files/folder', { path: p, name: 'x' }),
    (p) => alice.post('/api/files/file', { path: p, name: 'x' }),
    (p) => alice.post('/api/files/rename', { path: p, name: 'x', newName: 'y' }),
    (p) => alice.post('/api/files/move', { items: [{ path: p, name: 'x' }], destination: 'Files' }),
    (p) => alice.post('/api/files/copy', { items: [{ path: 'Files', name: 'r.txt' }], destination: p }),
    // An unreachable item is reported as missing (nothing deleted), like a vanished one.
    async (p) => {
      const r = await alice.delete('/api/files', { items: [{ path: p, name: 'x' }] });
      return { status: r.status === 200 && r.json.items[0].status === 'missing' ? 404 : r.status };
    },
    (p) => alice.post('/api/files/delete-impact', { items: [{ path: p, name: 'x' }] }),
    (p) => alice.post('/api/download', { path: p }),
    (p) => alice.post('/api/download/plan', { paths: [p] }),
    (p) => alice.post('/api/favorites', { path: p }),
    (p) => alice.get(`/api/versions?path=${encodeURIComponent(p)}`),
  ];
  for (const p of HOSTILE) {
    // Burrow's own folder is as if it were not there; every other spelling is a bad path.
    const expected = p === 'Files/.burrow' ? 404 : 400;
    for (const [i, call] of routes.entries()) {
      const r = await call(p);
      assert.is(r.status, expected, `route ${i} with ${JSON.stringify(p)} answered ${r.status}`);
    }
  }
  // Sent as written: a browser resolves a plain or %2e-spelled '..' before sending, curl
  // --path-as-is and a script's own HTTP code do not.
  for (const [url, expected] of [
    ['/api/browse/Files/..%2F..', 400],
    ['/api/metadata/..', 400],
    ['/api/usage/Files%2F..%2F..', 400],
    ['/api/download/Files/%2e%2e/x', 400],
    ['/api/browse/Files/.burrow', 404],
  ] as const) {
    const r = await alice.raw(url);
    assert.is(r.status, expected, `${url} answered ${r.status}`);
    envelope(r);
  }
});

test.run();
