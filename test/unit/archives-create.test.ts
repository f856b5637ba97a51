// A selection into a new zip beside it: stored for compressed kinds and content that does not
// shrink, deflated otherwise, the name numbered when taken, read back byte-exact by Debian's
// unzip and by yauzl; a cancelled run, or one the disk cannot hold, leaves nothing behind.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openSources } from '../../src/downloads/zip.ts';
import { archiveFile, run, service, tmp, tree, zipEntries } from '../support/archives.ts';

test('a selection becomes a new zip; a taken name becomes name (1); unzip reads it back', async () => {
  const dir = tmp('create');
  const work = path.join(dir, 'work');
  fs.mkdirSync(path.join(work, 'photos', 'trip'), { recursive: true });
  fs.writeFileSync(path.join(work, 'photos', 'trip', 'a.jpg'), Buffer.alloc(50_000, 9));
  fs.writeFileSync(path.join(work, 'notes.txt'), 'n'.repeat(40_000));
  fs.writeFileSync(path.join(work, 'bundle.zip'), 'taken');
  const s = service();
  const sources = await openSources([
    { root: work, real: path.join(work, 'photos'), name: 'photos', isDirectory: true },
    { root: work, real: path.join(work, 'notes.txt'), name: 'notes.txt', isDirectory: false },
  ]);
  const made = await s.compress(sources, { path: work }, 'bundle.zip', { showHidden: false });
  assert.is(made.name, 'bundle (1).zip');
  assert.is(fs.readFileSync(path.join(work, 'bundle.zip'), 'utf8'), 'taken');
  run('unzip', ['-tq', made.path]);
  const listed = await s.list(archiveFile(made.path));
  assert.equal(
    listed.entries.map((e) => e.name),
    ['photos', 'notes.txt'],
  );
  const out = path.join(dir, 'out');
  fs.mkdirSync(out);
  run('unzip', ['-q', made.path, '-d', out]);
  const t = tree(out);
  assert.is(t['photos/trip/a.jpg'], Buffer.alloc(50_000, 9).toString('latin1'));
  assert.is(t['notes.txt'], 'n'.repeat(40_000));
  // Stored for a compressed kind, deflated (level 1, not marked in the flags) for text.
  const v = unzipOutput('unzip', ['-v', made.path]);
  assert.match(v, /50000\s+Stored\s+50000.*photos\/trip\/a\.jpg/);
  assert.match(v, /40000\s+Defl:\w\s.*notes\.txt/);
  assert.equal(
    fs.readdirSync(work).filter((n) => n.startsWith('.burrow')),
    [],
  );
  fs.rmSync(dir, { recursive: true, force: true });
});

test('content decides stored or deflated; a multi-MiB text and random bytes read back by yauzl and unzip -t', async () => {
  const dir = tmp('create-mix');
  const work = path.join(dir, 'work');
  fs.mkdirSync(path.join(work, 'mix'), { recursive: true });
  const random = crypto.randomBytes(3 * 1024 * 1024 + 17);
  const text = Buffer.from(
    Array.from({ length: 90_000 }, (_, i) => `line ${i}: the quick brown fox ${i % 97}\n`).join(''),
  );
  const small = Buffer.from('small text '.repeat(30_000));
  fs.writeFileSync(path.join(work, 'mix', 'random.dat'), random);
  fs.writeFileSync(path.join(work, 'mix', 'text.log'), text);
  fs.writeFileSync(path.join(work, 'mix', 'small.txt'), small);
  fs.writeFileSync(path.join(work, 'mix', 'empty.txt'), '');
  const s = service();
  const sources = await openSources([{ root: work, real: path.join(work, 'mix'), name: 'mix', isDirectory: true }]);
  const made = await s.compress(sources, { path: work }, 'mix.zip', { showHidden: false });
  assert.is(made.name, 'mix.zip');
  run('unzip', ['-tq', made.path]);
  const got = await zipEntries(fs.readFileSync(made.path));
  assert.equal([...got.keys()].sort(), ['mix/', 'mix/empty.txt', 'mix/random.dat', 'mix/small.txt', 'mix/text.log']);
  assert.is(got.get('mix/random.dat')!.method, 0);
  assert.ok(got.get('mix/random.dat')!.data.equals(random));
  assert.is(got.get('mix/text.log')!.method, 8);
  assert.ok(got.get('mix/text.log')!.data.equals(text));
  assert.is(got.get('mix/small.txt')!.method, 8);
  assert.ok(got.get('mix/small.txt')!.data.equals(small));
  assert.is(got.get('mix/empty.txt')!.data.length, 0);
  assert.ok(fs.statSync(made.path).size < random.length + text.length / 2);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a cancelled run leaves no zip and no temporary file, and closes its sources', async () => {
  const dir = tmp('create-cancel');
  const work = path.join(dir, 'work');
  fs.mkdirSync(path.join(work, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(work, 'docs', 'a.txt'), 'a'.repeat(100_000));
  const s = service();
  const descriptors = fs.readdirSync('/proc/self/fd').length;
  const sources = await openSources([{ root: work, real: path.join(work, 'docs'), name: 'docs', isDirectory: true }]);
  const cancel = new AbortController();
  cancel.abort(new Error('cancelled'));
  await s.compress(sources, { path: work }, 'docs.zip', { showHidden: false, signal: cancel.signal }).then(
    () => assert.unreachable('a cancelled zip was placed'),
    (err: Error) => assert.is(err.message, 'cancelled'),
  );
  assert.equal(fs.readdirSync(work), ['docs']);
  assert.is(fs.readdirSync('/proc/self/fd').length, descriptors);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a disk that fills up midway leaves no zip and no temporary file, and closes its sources', async () => {
  const dir = tmp('create-full');
  const work = path.join(dir, 'work');
  const small = path.join(dir, 'small');
  fs.mkdirSync(path.join(work, 'photos'), { recursive: true });
  fs.mkdirSync(small);
  // Random bytes are stored as they are: 3 MiB cannot fit a 1 MiB filesystem.
  for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(work, 'photos', `p${i}.raw`), crypto.randomBytes(1024 * 1024));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', small], { encoding: 'utf8' });
  assert.is(mounted.status, 0, `a 1 MiB tmpfs is needed (run as root, as CI does): ${mounted.stderr}`);
  try {
    fs.writeFileSync(path.join(small, 'kept.txt'), 'kept');
    const s = service();
    const descriptors = fs.readdirSync('/proc/self/fd').length;
    const sources = await openSources([
      { root: work, real: path.join(work, 'photos'), name: 'photos', isDirectory: true },
    ]);
    await s.compress(sources, { path: small }, 'photos.zip', { showHidden: false }).then(
      () => assert.unreachable('a zip was placed on a full disk'),
      (err: NodeJS.ErrnoException) => assert.is(err.code, 'ENOSPC'),
    );
    assert.equal(fs.readdirSync(small), ['kept.txt']);
    assert.is(fs.readFileSync(path.join(small, 'kept.txt'), 'utf8'), 'kept');
    assert.is(fs.readdirSync('/proc/self/fd').length, descriptors);
  } finally {
    spawnSync('umount', [small]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function unzipOutput(cmd: string, args: string[]): string {
  return spawnSync(cmd, args, { encoding: 'utf8' }).stdout;
}

test.run();
