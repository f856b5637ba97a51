// Each format listed and extracted byte-exact, with archives made by the Debian tools
// (zip, tar, gzip, bzip2, xz, 7zz, xorriso, gcab), and a stored RAR 4 written here.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  archiveFile,
  cabinet,
  collect,
  isoImage,
  readAll,
  run,
  service,
  sevenZipTool,
  storedRar,
  tmp,
  tree,
} from '../support/archives.ts';

const dir = tmp('formats');
const src = path.join(dir, 'src');
fs.mkdirSync(path.join(src, 'docs', 'deep'), { recursive: true });
fs.writeFileSync(path.join(src, 'docs', 'a.txt'), 'alpha\n');
fs.writeFileSync(
  path.join(src, 'docs', 'deep', 'b.bin'),
  Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 251)),
);
fs.writeFileSync(path.join(src, 'top.txt'), 'top\n');
const expected = tree(src);

const made: Record<string, string> = {
  zip: 'set.zip',
  tar: 'set.tar',
  'tar.gz': 'set.tar.gz',
  tgz: 'set.tgz',
  'tar.bz2': 'set.tar.bz2',
  'tar.xz': 'set.tar.xz',
  '7z': 'set.7z',
  iso: 'set.iso',
  cab: 'set.cab',
  rar: 'set.rar',
};
run('zip', ['-qr', path.join(dir, made.zip!), '.'], src);
run('tar', ['cf', path.join(dir, made.tar!), '-C', src, 'docs', 'top.txt']);
run('tar', ['czf', path.join(dir, made['tar.gz']!), '-C', src, 'docs', 'top.txt']);
fs.copyFileSync(path.join(dir, made['tar.gz']!), path.join(dir, made.tgz!));
run('tar', ['cjf', path.join(dir, made['tar.bz2']!), '-C', src, 'docs', 'top.txt']);
run('tar', ['cJf', path.join(dir, made['tar.xz']!), '-C', src, 'docs', 'top.txt']);
run(sevenZipTool(), ['a', '-bd', '-bso0', path.join(dir, made['7z']!), 'docs', 'top.txt'], src);
// ISO 9660 with Rock Ridge and Joliet names (xorriso), a cabinet with MSZIP blocks (gcab):
// both read through 7z-wasm; the cabinet has no folder entries, its folders are implied.
isoImage(path.join(dir, made.iso!), src);
cabinet(path.join(dir, made.cab!), src, ['docs/a.txt', 'docs/deep/b.bin', 'top.txt']);
// RAR 4 with stored entries, written by the test (no free RAR creator exists) and checked by bsdtar.
storedRar(path.join(dir, made.rar!), [
  { name: 'docs', dir: true },
  { name: 'docs/a.txt', data: fs.readFileSync(path.join(src, 'docs/a.txt')) },
  { name: 'docs/deep', dir: true },
  { name: 'docs/deep/b.bin', data: fs.readFileSync(path.join(src, 'docs/deep/b.bin')) },
  { name: 'top.txt', data: fs.readFileSync(path.join(src, 'top.txt')) },
]);

for (const [kind, name] of Object.entries(made)) {
  test(`${kind}: listed and extracted byte-exact`, async () => {
    const s = service();
    const file = archiveFile(path.join(dir, name));
    const top = await s.list(file);
    assert.equal(
      top.entries.map((e) => `${e.name}${e.isDirectory ? '/' : ''}`),
      ['docs/', 'top.txt'],
      kind,
    );
    const deep = await s.list(file, 'docs/deep');
    assert.equal(
      deep.entries.map((e) => [e.name, e.size]),
      [['b.bin', 300_000]],
    );
    assert.is(deep.inside, 'docs/deep');
    const entry = await s.openEntry(file, 'docs/deep/b.bin');
    assert.ok((await readAll(entry.stream)).equals(fs.readFileSync(path.join(src, 'docs/deep/b.bin'))));
    const ranged = await s.openEntry(file, 'docs/a.txt', { start: 2, end: 4 });
    assert.is((await readAll(ranged.stream)).toString(), 'pha');
    const out = fs.mkdtempSync(path.join(dir, `out-${kind}-`));
    const { events, emit } = collect();
    const result = await s.extract(file, [], { path: out }, emit);
    assert.equal(tree(out), expected, kind);
    assert.equal(result.landed.map((l) => l.name).sort(), ['docs', 'top.txt']);
    assert.equal(
      events.map((e) => e.type).filter((t, i, a) => t !== a[i - 1]),
      ['start', 'progress', 'done'],
    );
    const done = events.at(-1)!;
    assert.is(done.type === 'done' && done.entries, 3);
  });
}

test('plain .gz, .bz2 and .xz hold one file named without the extension', async () => {
  for (const [tool, ext] of [
    ['gzip', 'gz'],
    ['bzip2', 'bz2'],
    ['xz', 'xz'],
  ] as const) {
    const f = path.join(dir, `single-${ext}.txt`);
    fs.copyFileSync(path.join(src, 'docs/deep/b.bin'), f);
    run(tool, ['-k', f]);
    const s = service();
    const listed = await s.list(archiveFile(`${f}.${ext}`));
    assert.equal(
      listed.entries.map((e) => e.name),
      [`single-${ext}.txt`],
    );
    const entry = await s.openEntry(archiveFile(`${f}.${ext}`), `single-${ext}.txt`);
    assert.ok((await readAll(entry.stream)).equals(fs.readFileSync(f)), ext);
  }
});

test('a folder entry stands for everything under it; the selection lands by its own name', async () => {
  const s = service();
  const out = fs.mkdtempSync(path.join(dir, 'out-sel-'));
  const result = await s.extract(archiveFile(path.join(dir, 'set.tar.gz')), ['docs/deep'], { path: out });
  assert.equal(tree(out), { 'deep/': '', 'deep/b.bin': expected['docs/deep/b.bin']! });
  assert.equal(result.landed, [{ entry: 'docs/deep', name: 'deep', outcome: 'placed' }]);
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
test.run();
