// The resolver keeps the volumes it read from disk for up to a second (src/files/paths.ts): a
// change to VOLUME_ROOT's entries or to the host-volume list must be seen by the very next
// request, and a swapped volume link must never be followed to its old or its new target
// through a stale root.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AssignedVolume } from '../../src/files/paths.ts';
import { createPathResolver } from '../../src/files/resolver.ts';
import type { Caller } from '../../src/core/caller.ts';

const admin: Caller = { userId: 'u-admin', username: 'admin', roles: ['admin'], isAdmin: true, via: 'session' };

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-paths-volumes-')));
const volumes = path.join(root, 'volumes');
const hostA = path.join(root, 'host-a');
const hostB = path.join(root, 'host-b');
for (const dir of [path.join(volumes, 'Files'), hostA, hostB]) fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(hostA, 'a.txt'), 'a');
fs.writeFileSync(path.join(hostB, 'b.txt'), 'b');

let hosts: AssignedVolume[] = [];
const resolver = createPathResolver({
  volumeRoot: volumes,
  userDirEnabled: false,
  userVolumesEnabled: false,
  personal: { folderFor: async () => path.join(root, 'nobody'), all: () => [] },
  privateDirs: [],
  hostVolumes: () => hosts,
});

async function status(virtualPath: string): Promise<number> {
  try {
    await resolver.resolve(admin, virtualPath, { mustExist: true });
    return 200;
  } catch (err: any) {
    return err.status;
  }
}

const names = async () => (await resolver.spaces(admin)).map((s) => s.path).sort();

test.after(() => fs.rmSync(root, { recursive: true, force: true }));

test('the volumes are read from disk once while nothing changes', async () => {
  const readdir = fsp.readdir;
  let reads = 0;
  (fsp as any).readdir = (dir: fs.PathLike, ...rest: unknown[]) => {
    if (String(dir) === volumes) reads++;
    return (readdir as any)(dir, ...rest);
  };
  // The volumes are also re-read once they are a second old (a symlink re-pointed below VOLUME_ROOT);
  // the clock stands still here, so only a change the key sees could make another read.
  const now = Date.now;
  const frozen = now();
  Date.now = () => frozen;
  try {
    await resolver.resolve(admin, 'Files');
    const before = reads;
    for (let i = 0; i < 20; i++) await resolver.resolve(admin, 'Files');
    assert.ok(before <= 1, `first resolve read VOLUME_ROOT ${before} times`);
    assert.is(reads, before, 'twenty more resolves read VOLUME_ROOT again');
  } finally {
    (fsp as any).readdir = readdir;
    Date.now = now;
  }
});

test('a volume made or removed is seen by the next request', async () => {
  assert.equal(await names(), ['Files']);
  fs.mkdirSync(path.join(volumes, 'Photos'));
  assert.is(await status('Photos'), 200);
  assert.equal(await names(), ['Files', 'Photos']);
  fs.rmdirSync(path.join(volumes, 'Photos'));
  assert.is(await status('Photos'), 404);
  assert.equal(await names(), ['Files']);
});

test('a volume link swapped to another folder is followed to the new folder only', async () => {
  const link = path.join(volumes, 'Linked');
  fs.symlinkSync(hostA, link);
  assert.is(await status('Linked/a.txt'), 200);
  // Replaced in one rename, as a careful administrator (or an attacker) would.
  fs.symlinkSync(hostB, `${link}.new`);
  fs.renameSync(`${link}.new`, link);
  assert.is(await status('Linked/b.txt'), 200);
  assert.is(await status('Linked/a.txt'), 404);
  const resolved = await resolver.resolve(admin, 'Linked/b.txt', { mustExist: true });
  assert.is(resolved.realPath, path.join(hostB, 'b.txt'));
  fs.unlinkSync(link);
  assert.is(await status('Linked'), 404);
});

test('a host volume added, re-pointed or removed is seen by the next request', async () => {
  hosts = [{ id: 'h1', label: 'Host', path: hostA, accessMode: 'readwrite' }];
  assert.is(await status('Host/a.txt'), 200);
  hosts = [{ id: 'h1', label: 'Host', path: hostB, accessMode: 'readonly' }];
  assert.is(await status('Host/a.txt'), 404);
  const b = await resolver.resolve(admin, 'Host/b.txt', { mustExist: true });
  assert.is(b.realPath, path.join(hostB, 'b.txt'));
  assert.is(b.access.canWrite, false);
  hosts = [];
  assert.is(await status('Host'), 404);
});

test.run();
