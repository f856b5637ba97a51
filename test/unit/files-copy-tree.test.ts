import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyTree } from '../../src/files/copy-tree.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-copy-'));

test('copies a deep tree with many files, keeping contents and times', async () => {
  const root = tmp();
  const src = path.join(root, 'src');
  for (let d = 0; d < 5; d++) {
    const dir = path.join(src, ...Array.from({ length: d }, (_, i) => `level${i}`));
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 60; f++) fs.writeFileSync(path.join(dir, `f${f}.txt`), `${d}/${f}`.repeat(f + 1));
  }
  fs.mkdirSync(path.join(src, 'empty'));
  const past = new Date('2020-05-06T07:08:09.000Z');
  fs.utimesSync(path.join(src, 'f3.txt'), past, past);
  fs.utimesSync(path.join(src, 'level0'), past, past);
  const report = await copyTree(src, path.join(root, 'dst'), { concurrency: 4 });
  assert.equal(report, { files: 300, folders: 6, links: 0, skipped: 0 });
  for (let d = 0; d < 5; d++) {
    const rel = Array.from({ length: d }, (_, i) => `level${i}`);
    for (let f = 0; f < 60; f += 7)
      assert.is(fs.readFileSync(path.join(root, 'dst', ...rel, `f${f}.txt`), 'utf8'), `${d}/${f}`.repeat(f + 1));
  }
  assert.ok(fs.statSync(path.join(root, 'dst', 'empty')).isDirectory());
  assert.is(fs.statSync(path.join(root, 'dst', 'f3.txt')).mtime.toISOString(), past.toISOString());
  assert.is(
    fs.statSync(path.join(root, 'dst', 'level0')).mtime.toISOString(),
    past.toISOString(),
    'folder times set after their content',
  );
  fs.rmSync(root, { recursive: true, force: true });
});

test('links inside the tree stay links; links leading out of it, absolute links and FIFOs are skipped', async () => {
  const root = tmp();
  const src = path.join(root, 'vol', 'src');
  fs.mkdirSync(path.join(src, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(src, 'docs', 'a.txt'), 'a');
  fs.writeFileSync(path.join(root, 'vol', 'beside.txt'), 'beside');
  fs.writeFileSync(path.join(root, 'secret.txt'), 'secret');
  fs.symlinkSync('docs/a.txt', path.join(src, 'to-a'));
  fs.symlinkSync('../docs/a.txt', path.join(src, 'docs', 'up-a'));
  fs.symlinkSync('docs', path.join(src, 'to-docs'));
  fs.symlinkSync('../beside.txt', path.join(src, 'out-of-tree'));
  fs.symlinkSync('../../secret.txt', path.join(src, 'docs', 'out-of-volume'));
  fs.symlinkSync(path.join(src, 'docs', 'a.txt'), path.join(src, 'absolute'));
  fs.symlinkSync('/etc/passwd', path.join(src, 'etc'));
  execFileSync('mkfifo', [path.join(src, 'pipe')]);
  const dst = path.join(root, 'elsewhere', 'deeper', 'copy');
  fs.mkdirSync(path.dirname(dst), { recursive: true });
  const report = await copyTree(src, dst);
  assert.equal(report, { files: 1, folders: 2, links: 3, skipped: 5 });
  assert.is(fs.readlinkSync(path.join(dst, 'to-a')), 'docs/a.txt');
  assert.is(fs.readFileSync(path.join(dst, 'to-a'), 'utf8'), 'a');
  assert.is(fs.readFileSync(path.join(dst, 'docs', 'up-a'), 'utf8'), 'a');
  assert.ok(fs.lstatSync(path.join(dst, 'to-docs')).isSymbolicLink());
  for (const gone of ['out-of-tree', 'docs/out-of-volume', 'absolute', 'etc', 'pipe'])
    assert.not.ok(fs.existsSync(path.join(dst, gone)) || isLink(path.join(dst, gone)), gone);
  fs.rmSync(root, { recursive: true, force: true });
});

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

test('a selected link is copied as what it points to; an existing destination is never written over', async () => {
  const root = tmp();
  fs.mkdirSync(path.join(root, 'real'));
  fs.writeFileSync(path.join(root, 'real', 'x.txt'), 'x');
  fs.symlinkSync('real', path.join(root, 'link'));
  const report = await copyTree(path.join(root, 'link'), path.join(root, 'copy'));
  assert.is(report.files, 1);
  assert.ok(fs.lstatSync(path.join(root, 'copy')).isDirectory());
  fs.mkdirSync(path.join(root, 'taken'));
  fs.writeFileSync(path.join(root, 'taken', 'keep.txt'), 'keep');
  await copyTree(path.join(root, 'real'), path.join(root, 'taken')).then(
    () => assert.unreachable('copied over a folder'),
    (err) => assert.is(err.code, 'EEXIST'),
  );
  assert.equal(fs.readdirSync(path.join(root, 'taken')), ['keep.txt']);
  fs.writeFileSync(path.join(root, 'file-taken.txt'), 'old');
  await copyTree(path.join(root, 'real', 'x.txt'), path.join(root, 'file-taken.txt')).then(
    () => assert.unreachable(),
    (err) => assert.is(err.code, 'EEXIST'),
  );
  assert.is(fs.readFileSync(path.join(root, 'file-taken.txt'), 'utf8'), 'old');
  fs.rmSync(root, { recursive: true, force: true });
});

test('a failure midway stops the copy and reports the error', async () => {
  const root = tmp();
  const src = path.join(root, 'src');
  fs.mkdirSync(src);
  for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(src, `f${i}.txt`), 'x');
  fs.mkdirSync(path.join(root, 'dst'));
  // A name taken inside the destination makes one file copy fail with EEXIST.
  const dst = path.join(root, 'dst', 'tree');
  const originalMkdir = fs.promises.mkdir;
  (fs.promises as any).mkdir = async (p: string, o?: any) => {
    const r = await originalMkdir(p, o);
    if (p === dst) fs.writeFileSync(path.join(dst, 'f7.txt'), 'taken');
    return r;
  };
  try {
    await copyTree(src, dst, { concurrency: 3 }).then(
      () => assert.unreachable(),
      (err) => assert.is(err.code, 'EEXIST'),
    );
  } finally {
    (fs.promises as any).mkdir = originalMkdir;
  }
  assert.is(fs.readFileSync(path.join(dst, 'f7.txt'), 'utf8'), 'taken', 'the taken file is not written over');
  fs.rmSync(root, { recursive: true, force: true });
});

test.run();
