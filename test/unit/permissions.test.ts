// Permissions on real files: mode/owner read back as the host sees them, chmod and chown
// applied, never through a link (the link itself, a link inside a tree, a link leading out),
// never outside a volume or on a volume's own folder, administrators only, refused on Windows.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPathResolver } from '../../src/files/resolver.ts';
import type { PersonalFolders } from '../../src/files/personal.ts';
import type { Caller } from '../../src/core/caller.ts';
import { AppError } from '../../src/core/errors.ts';
import { createPermissions } from '../../src/permissions/service.ts';

const admin: Caller = { userId: 'u-admin', username: 'admin', roles: ['admin'], isAdmin: true, via: 'session' };
const user: Caller = { userId: 'u-user', username: 'user', roles: ['user'], isAdmin: false, via: 'session' };
const isRoot = process.getuid?.() === 0;

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-perms-')));
const vol = path.join(root, 'volumes');
const files = path.join(vol, 'Files');
fs.mkdirSync(path.join(files, 'tree', 'sub'), { recursive: true });
fs.writeFileSync(path.join(files, 'a.txt'), 'a');
fs.writeFileSync(path.join(files, 'tree', 'b.txt'), 'b');
fs.writeFileSync(path.join(files, 'tree', 'sub', 'c.txt'), 'c');
fs.writeFileSync(path.join(root, 'outside.txt'), 'outside');
fs.chmodSync(path.join(root, 'outside.txt'), 0o600);
fs.symlinkSync('a.txt', path.join(files, 'link-in'));
fs.symlinkSync(path.join(root, 'outside.txt'), path.join(files, 'link-out'));
fs.symlinkSync(path.join(root, 'outside.txt'), path.join(files, 'tree', 'link-out'));
const personal: PersonalFolders = { folderFor: async () => path.join(root, 'users', 'x'), all: () => [] };
const resolver = createPathResolver({
  volumeRoot: vol,
  userDirEnabled: false,
  userVolumesEnabled: false,
  personal,
  privateDirs: [],
});
const perms = createPermissions({ resolver });
const modeOf = (p: string) => fs.lstatSync(p).mode & 0o7777;

async function refused(p: Promise<unknown>, status: number, code?: string) {
  try {
    await p;
  } catch (err) {
    assert.instance(err, AppError, String(err));
    assert.is((err as AppError).status, status, (err as Error).message);
    if (code) assert.is((err as AppError).code, code);
    return err as AppError;
  }
  assert.unreachable(`expected a refusal with ${status}`);
  throw new Error('unreachable');
}

test('get answers the raw mode with type bits, owner and group by name and number', async () => {
  fs.chmodSync(path.join(files, 'a.txt'), 0o644);
  const info = await perms.get(admin, 'Files/a.txt');
  const st = fs.statSync(path.join(files, 'a.txt'));
  assert.is(info.mode, st.mode);
  assert.is(info.mode & 0o170000, 0o100000);
  assert.is(info.uid, st.uid);
  assert.is(info.gid, st.gid);
  assert.is(info.owner, os.userInfo().uid === st.uid ? os.userInfo().username : String(st.uid));
  assert.type(info.group, 'string');
  assert.is(info.isDirectory, false);
  assert.is((await perms.get(admin, 'Files/tree')).isDirectory, true);
});

test('chmod changes a file, and a tree when recursive, passing over links inside it', async () => {
  const r = await perms.chmod(admin, { path: 'Files/a.txt', mode: '600' });
  assert.is(r.mode, '600');
  assert.is(modeOf(path.join(files, 'a.txt')), 0o600);
  const before = modeOf(path.join(root, 'outside.txt'));
  const tree = await perms.chmod(admin, { path: 'Files/tree', mode: '750', recursive: true });
  assert.is(tree.changed, 4);
  for (const p of ['tree', 'tree/b.txt', 'tree/sub', 'tree/sub/c.txt'])
    assert.is(modeOf(path.join(files, p)), 0o750, p);
  assert.is(modeOf(path.join(root, 'outside.txt')), before, 'the link inside the tree was followed');
  fs.chmodSync(path.join(files, 'tree'), 0o755);
});

test('chmod of a file the server may not read works (the entry is not opened for reading)', async () => {
  fs.chmodSync(path.join(files, 'a.txt'), 0o000);
  await perms.chmod(admin, { path: 'Files/a.txt', mode: '640' });
  assert.is(modeOf(path.join(files, 'a.txt')), 0o640);
});

test('never through a link: a link inside the volume is refused, one leading out is refused', async () => {
  const before = modeOf(path.join(files, 'a.txt'));
  await refused(perms.chmod(admin, { path: 'Files/link-in', mode: '777' }), 400, 'IS_A_LINK');
  assert.is(modeOf(path.join(files, 'a.txt')), before);
  await refused(perms.chmod(admin, { path: 'Files/link-out', mode: '777' }), 403, 'PATH_OUTSIDE');
  await refused(perms.chown(admin, { path: 'Files/link-in', owner: '0' }), 400, 'IS_A_LINK');
  assert.is(modeOf(path.join(root, 'outside.txt')), 0o600);
});

test('outside volumes, the top, a volume root, bad input and non-administrators are refused', async () => {
  await refused(perms.chmod(admin, { path: '../outside.txt', mode: '777' }), 400, 'BAD_PATH');
  await refused(perms.chmod(admin, { path: 'Files', mode: '777' }), 400, 'VOLUME_ROOT');
  await refused(perms.get(admin, ''), 400, 'TOP_LEVEL');
  await refused(perms.chmod(admin, { path: 'Files/a.txt', mode: '8' }), 400, 'BAD_MODE');
  await refused(perms.chmod(admin, { path: 'Files/a.txt', mode: 'u+x' }), 400, 'BAD_MODE');
  await refused(perms.chmod(user, { path: 'Files/a.txt', mode: '777' }), 403, 'ADMIN_ONLY');
  await refused(perms.get(user, 'Files/a.txt'), 403, 'ADMIN_ONLY');
  await refused(perms.chown(admin, { path: 'Files/a.txt' }), 400, 'NOTHING_TO_CHANGE');
  await refused(perms.chown(admin, { path: 'Files/a.txt', owner: 'no-such-account-burrow' }), 400, 'UNKNOWN_OWNER');
  await refused(perms.get(admin, 'Files/missing.txt'), 404);
});

test('chown gives a file to another account and group by name or number (needs root)', async () => {
  assert.ok(isRoot, 'this test needs root (CI runs as root); as another user chown is refused by the host');
  const r = await perms.chown(admin, { path: 'Files/tree', owner: 'nobody', group: '65534', recursive: true });
  assert.is(r.uid, 65534);
  assert.is(r.gid, 65534);
  assert.is(r.owner, 'nobody');
  for (const p of ['tree', 'tree/b.txt', 'tree/sub/c.txt']) assert.is(fs.lstatSync(path.join(files, p)).uid, 65534, p);
  assert.is(fs.statSync(path.join(root, 'outside.txt')).uid, 0, 'the link inside the tree was followed');
  const groupOnly = await perms.chown(admin, { path: 'Files/a.txt', group: 'nogroup' });
  assert.is(groupOnly.uid, fs.statSync(path.join(files, 'a.txt')).uid);
  assert.is(groupOnly.gid, 65534);
});

test('a Windows host refuses with a message that says why', async () => {
  const onWindows = createPermissions({ resolver, platform: 'win32' });
  const err = await refused(onWindows.get(admin, 'Files/a.txt'), 501, 'PERMISSIONS_UNSUPPORTED_PLATFORM');
  assert.match(err.message, /Windows/);
  await refused(onWindows.chmod(admin, { path: 'Files/a.txt', mode: '644' }), 501);
});

test.after(() => fs.rmSync(root, { recursive: true, force: true }));
test.run();
