// File permissions on the real server with real files: mode, owner and group read back as the
// host sees them; chmod (also through a tree) and chown applied; never through a link (the
// link itself, or a folder link on the way), never outside a volume or on a volume's own
// folder; administrators only; a read token may look but not change; a write token of an
// administrator may change. Runs against the source and the built executable.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, issueToken, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { startServer, removeDirs, type TestServer } from '../support/server.ts';

let s: TestServer;
let admin: Client;
let bob: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const modeOf = (p: string) => fs.lstatSync(p).mode & 0o7777;
const isRoot = process.getuid?.() === 0;

test.before(async () => {
  s = await startServer();
  admin = await setupAdmin(s);
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  fs.mkdirSync(vol('tree', 'sub'), { recursive: true });
  fs.writeFileSync(vol('a.txt'), 'a');
  fs.writeFileSync(vol('tree', 'b.txt'), 'b');
  fs.writeFileSync(vol('tree', 'sub', 'c.txt'), 'c');
  fs.chmodSync(vol('a.txt'), 0o644);
  fs.writeFileSync(path.join(s.dirs.root, 'outside.txt'), 'outside');
  fs.chmodSync(path.join(s.dirs.root, 'outside.txt'), 0o600);
  fs.symlinkSync(path.join(s.dirs.root, 'outside.txt'), vol('link-out'));
  fs.symlinkSync(path.join(s.dirs.root, 'outside.txt'), vol('tree', 'link-out'));
  fs.symlinkSync(s.dirs.root, vol('dir-link'));
});

test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('mode, owner and group as the host sees them', async () => {
  const a = await admin.get('/api/permissions/Files/a.txt');
  assert.is(a.status, 200, a.text);
  const st = fs.statSync(vol('a.txt'));
  assert.is(a.json.path, 'Files/a.txt');
  assert.is(a.json.mode, st.mode);
  assert.is(a.json.mode, 0o100644);
  assert.is(a.json.uid, st.uid);
  assert.is(a.json.gid, st.gid);
  assert.is(a.json.isDirectory, false);
  assert.is(
    a.json.owner,
    execFileSync('id', ['-nu', String(st.uid)])
      .toString()
      .trim(),
  );
  assert.type(a.json.group, 'string');
  const d = await admin.get('/api/permissions/Files/tree');
  assert.is(d.json.isDirectory, true);
});

test('chmod changes the mode, and the whole tree when recursive (links left alone)', async () => {
  const a = await admin.post(
    '/api/permissions/chmod',
    { path: 'Files/a.txt', mode: '600', recursive: false },
    { origin: s.url },
  );
  assert.is(a.status, 200, a.text);
  assert.is(a.json.success, true);
  assert.is(modeOf(vol('a.txt')), 0o600);
  const t = await admin.post('/api/permissions/chmod', { path: 'Files/tree', mode: '750', recursive: true });
  assert.is(t.status, 200, t.text);
  assert.is(t.json.changed, 4);
  for (const p of [vol('tree'), vol('tree', 'b.txt'), vol('tree', 'sub'), vol('tree', 'sub', 'c.txt')])
    assert.is(modeOf(p), 0o750, p);
  assert.is(modeOf(path.join(s.dirs.root, 'outside.txt')), 0o600, 'the target of a link inside the tree was changed');
  for (const mode of ['999', 'rwx', '7', '12345']) {
    const bad = await admin.post('/api/permissions/chmod', { path: 'Files/a.txt', mode });
    assert.is(bad.status, 400, mode);
    envelope(bad);
  }
});

test('chown gives a file to another owner and group', async () => {
  if (!isRoot) throw new Error('this test changes owners: run it as root (CI is root)');
  const a = await admin.post('/api/permissions/chown', { path: 'Files/a.txt', owner: 'nobody', group: 'nogroup' });
  assert.is(a.status, 200, a.text);
  const st = fs.lstatSync(vol('a.txt'));
  assert.is(st.uid, Number(execFileSync('id', ['-u', 'nobody']).toString().trim()));
  assert.is(a.json.owner, 'nobody');
  assert.is(a.json.group, 'nogroup');
  const back = await admin.post('/api/permissions/chown', { path: 'Files/a.txt', owner: 'root' });
  assert.is(back.status, 200);
  assert.is(fs.lstatSync(vol('a.txt')).uid, 0);
  assert.is(fs.lstatSync(vol('a.txt')).gid, st.gid, 'an absent group stays as it was');
  const unknown = await admin.post('/api/permissions/chown', { path: 'Files/a.txt', owner: 'no-such-account-here' });
  assert.is(unknown.status, 400);
  const nothing = await admin.post('/api/permissions/chown', { path: 'Files/a.txt' });
  assert.is(nothing.status, 400);
});

test("never through a link, never outside a volume, never a volume's own folder", async () => {
  const before = fs.lstatSync(path.join(s.dirs.root, 'outside.txt'));
  for (const body of [
    { path: 'Files/link-out', mode: '777' },
    { path: 'Files/dir-link/outside.txt', mode: '777' },
  ]) {
    const r = await admin.post('/api/permissions/chmod', body);
    assert.is(r.status, 403, `${body.path}: ${r.status} ${r.text}`);
    assert.is(envelope(r).code, 'PATH_OUTSIDE');
  }
  const owner = await admin.post('/api/permissions/chown', { path: 'Files/link-out', owner: 'nobody' });
  assert.is(owner.status, 403, owner.text);
  const after = fs.lstatSync(path.join(s.dirs.root, 'outside.txt'));
  assert.is(after.mode, before.mode);
  assert.is(after.uid, before.uid);
  for (const p of ['../outside.txt', 'Files/../../outside.txt']) {
    const r = await admin.post('/api/permissions/chmod', { path: p, mode: '777' });
    assert.is(r.status, 400, `${p}: ${r.status}`);
  }
  const top = await admin.post('/api/permissions/chmod', { path: 'Files', mode: '777' });
  assert.is(top.status, 400);
  assert.is(envelope(top).code, 'VOLUME_ROOT');
  assert.is(after.mode, fs.lstatSync(path.join(s.dirs.root, 'outside.txt')).mode);
});

test("administrators only; a read token may look but not change; an administrator's write token may change", async () => {
  const g = await bob.get('/api/permissions/Files/a.txt');
  assert.is(g.status, 403);
  assert.is(envelope(g).code, 'ADMIN_ONLY');
  const c = await bob.post('/api/permissions/chmod', { path: 'Files/a.txt', mode: '777' });
  assert.is(c.status, 403);
  assert.is(modeOf(vol('a.txt')), 0o600);
  const read = new Client(s.url, await issueToken(admin, 'read'));
  assert.is((await read.get('/api/permissions/Files/a.txt')).status, 200);
  const refused = await read.post('/api/permissions/chmod', { path: 'Files/a.txt', mode: '777' });
  assert.is(refused.status, 403);
  assert.is(envelope(refused).code, 'AUTH_TOKEN_READ_ONLY');
  assert.is(modeOf(vol('a.txt')), 0o600);
  const write = new Client(s.url, await issueToken(admin, 'write'));
  assert.is((await write.post('/api/permissions/chmod', { path: 'Files/a.txt', mode: '640' })).status, 200);
  assert.is(modeOf(vol('a.txt')), 0o640);
  const cross = await admin.post(
    '/api/permissions/chmod',
    { path: 'Files/a.txt', mode: '777' },
    { origin: 'http://evil.example' },
  );
  assert.is(cross.status, 403);
  assert.is(modeOf(vol('a.txt')), 0o640);
});

test.run();
