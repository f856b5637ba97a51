// Versions follow their file across renames and moves (also of a folder above it, also to
// another volume), and removing or restoring a version needs the right to change the file.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let c: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, ...p);
const versionsOf = async (p: string) =>
  (await c.get(`/api/versions?path=${encodeURIComponent(p)}`)).json.items as any[];

test.before(async () => {
  s = await startServer({ env: { AUTH_MODE: 'disabled' }, volumes: ['Files', 'Other'] });
  c = new Client(s.url);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

async function fileWithVersions(dir: string, name: string): Promise<void> {
  fs.mkdirSync(vol(dir), { recursive: true });
  fs.writeFileSync(vol(dir, name), 'first');
  assert.is((await c.put('/api/editor', { path: `${dir}/${name}`, content: 'second' })).status, 200);
  assert.is((await c.put('/api/editor', { path: `${dir}/${name}`, content: 'third' })).status, 200);
  assert.is((await versionsOf(`${dir}/${name}`)).length, 2);
}

test('a rename carries the versions; a name differing by case elsewhere keeps its own', async () => {
  await fileWithVersions('Files/r', 'a.txt');
  await fileWithVersions('Files/r', 'A2.txt');
  assert.is((await c.post('/api/files/rename', { path: 'Files/r', name: 'a.txt', newName: 'b.txt' })).status, 200);
  const moved = await versionsOf('Files/r/b.txt');
  assert.is(moved.length, 2);
  assert.ok(moved.every((v) => v.path === 'Files/r/b.txt'));
  assert.is((await versionsOf('Files/r/a.txt')).length, 0);
  assert.is((await versionsOf('Files/r/A2.txt')).length, 2);
  assert.is((await c.get(`/api/versions/${moved[0].id}/text`)).json.content, 'second');
});

test('renaming and moving a folder carries the versions of the files below it (byte-exact prefix)', async () => {
  await fileWithVersions('Files/Docs/deep', 'x.txt');
  await fileWithVersions('Files/Docs2', 'y.txt');
  assert.is((await c.post('/api/files/rename', { path: 'Files', name: 'Docs', newName: 'Papers' })).status, 200);
  assert.is((await versionsOf('Files/Papers/deep/x.txt')).length, 2);
  assert.is((await versionsOf('Files/Docs2/y.txt')).length, 2, '`Docs2` is not below `Docs`');
  fs.mkdirSync(vol('Files', 'Archive'));
  assert.is(
    (await c.post('/api/files/move', { items: [{ path: 'Files', name: 'Papers' }], destination: 'Files/Archive' }))
      .status,
    200,
  );
  const v = await versionsOf('Files/Archive/Papers/deep/x.txt');
  assert.is(v.length, 2);
  // Restoring at the new place puts the old text there.
  assert.is((await c.post(`/api/versions/${v[1].id}/restore`)).status, 200);
  assert.is(fs.readFileSync(vol('Files', 'Archive', 'Papers', 'deep', 'x.txt'), 'utf8'), 'first');
});

test('a move to another volume carries them too; a copy does not', async () => {
  await fileWithVersions('Files/m', 'z.txt');
  assert.is(
    (await c.post('/api/files/copy', { items: [{ path: 'Files/m', name: 'z.txt' }], destination: 'Other' })).status,
    200,
  );
  assert.is((await versionsOf('Other/z.txt')).length, 0);
  assert.is(
    (await c.post('/api/files/move', { items: [{ path: 'Files/m', name: 'z.txt' }], destination: 'Other' })).status,
    200,
  );
  const v = await versionsOf('Other/z (1).txt');
  assert.is(v.length, 2);
  assert.is((await versionsOf('Files/m/z.txt')).length, 0);
  assert.is((await c.get(`/api/versions/${v[0].id}/text`)).json.content, 'second');
});

test('removing or restoring a version needs write access to the file', async () => {
  await fileWithVersions('Files/locked', 'l.txt');
  const [v] = await versionsOf('Files/locked/l.txt');
  assert.is(
    (
      await c.patch('/api/settings', {
        access: { rules: [{ path: 'Files/locked', recursive: true, permissions: 'ro' }] },
      })
    ).status,
    200,
  );
  try {
    const del = await c.delete(`/api/versions/${v.id}`);
    assert.is(del.status, 403);
    assert.is(envelope(del).code, 'READ_ONLY');
    assert.is((await c.post(`/api/versions/${v.id}/restore`)).status, 403);
    assert.is((await c.post(`/api/versions/${v.id}/restore-copy`)).status, 403);
    assert.is((await c.get(`/api/versions/${v.id}/text`)).status, 200, 'reading stays allowed');
    assert.is(fs.readFileSync(vol('Files', 'locked', 'l.txt'), 'utf8'), 'third');
    assert.is((await versionsOf('Files/locked/l.txt')).length, 2);
  } finally {
    await c.patch('/api/settings', { access: { rules: [] } });
  }
  assert.is((await c.delete(`/api/versions/${v.id}`)).status, 204);
  assert.is((await versionsOf('Files/locked/l.txt')).length, 1);
});

test.run();
