// Zip entries compressed with methods other than store and deflate (bzip2 12, LZMA 14, xz 95,
// PPMd 98, Deflate64 9, zstd 93), made by Debian's 7-Zip, Info-ZIP and zstd: listed by yauzl
// like any entry, read and extracted through 7z-wasm, byte-exact, with ranges, damage refused.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { archiveFile, readAll, rejects, run, service, sevenZipTool, tmp, tree } from '../support/archives.ts';

const dir = tmp('zip-methods');
const src = path.join(dir, 'src');
fs.mkdirSync(path.join(src, 'docs', 'deep'), { recursive: true });
fs.writeFileSync(path.join(src, 'docs', 'a.txt'), 'alpha\n'.repeat(1000));
fs.writeFileSync(
  path.join(src, 'docs', 'deep', 'b.bin'),
  Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 251)),
);
fs.writeFileSync(path.join(src, 'top.txt'), 'top\n');
const expected = tree(src);
const sevenZip = sevenZipTool();

/** A zip by 7-Zip with `method` for the files under docs/, then top.txt added (stored: too small to gain). */
function mixed(method: string): string {
  const file = path.join(dir, `${method}.zip`);
  run(sevenZip, ['a', '-bd', '-bso0', '-tzip', `-mm=${method}`, file, 'docs'], src);
  run(sevenZip, ['a', '-bd', '-bso0', '-tzip', '-mm=Deflate', file, 'top.txt'], src);
  return file;
}

/** The method number of each entry, from the central directory. */
function methods(file: string): Record<string, number> {
  const bytes = fs.readFileSync(file);
  const out: Record<string, number> = {};
  for (let i = bytes.indexOf('PK\x01\x02'); i >= 0; i = bytes.indexOf('PK\x01\x02', i + 4)) {
    const nameLength = bytes.readUInt16LE(i + 28);
    out[bytes.toString('utf8', i + 46, i + 46 + nameLength)] = bytes.readUInt16LE(i + 10);
  }
  return out;
}

for (const [method, number] of [
  ['BZip2', 12],
  ['LZMA', 14],
  ['xz', 95],
  ['PPMd', 98],
  ['Deflate64', 9],
] as const) {
  test(`${method} (method ${number}): listed, one entry, a range, extracted byte-exact`, async () => {
    const file = mixed(method);
    assert.is(methods(file)['docs/deep/b.bin'], number);
    assert.is(methods(file)['top.txt'], 0);
    const s = service();
    const top = await s.list(archiveFile(file));
    assert.equal(
      top.entries.map((e) => [e.name, e.isDirectory, e.size]),
      [
        ['docs', true, null],
        ['top.txt', false, 4],
      ],
    );
    const deep = await s.list(archiveFile(file), 'docs/deep');
    assert.equal(
      deep.entries.map((e) => [e.name, e.size, e.encrypted]),
      [['b.bin', 300_000, false]],
    );
    const entry = await s.openEntry(archiveFile(file), 'docs/deep/b.bin');
    assert.ok((await readAll(entry.stream)).equals(fs.readFileSync(path.join(src, 'docs/deep/b.bin'))));
    const ranged = await s.openEntry(archiveFile(file), 'docs/a.txt', { start: 4000, end: 4008 });
    assert.is((await readAll(ranged.stream)).toString(), 'a\nalpha\na');
    const out = fs.mkdtempSync(path.join(dir, `out-${method}-`));
    const result = await s.extract(archiveFile(file), [], { path: out });
    assert.equal(tree(out), expected);
    assert.is(result.files, 3);
  });
}

test('Info-ZIP bzip2 written to a pipe (sizes in a data descriptor after the data) reads and extracts', async () => {
  const file = path.join(dir, 'piped.zip');
  const r = spawnSync('sh', ['-c', 'zip -q -Z bzip2 -r - docs top.txt'], {
    cwd: src,
    maxBuffer: 16 * 1024 * 1024,
  });
  assert.is(r.status, 0, String(r.stderr));
  fs.writeFileSync(file, r.stdout);
  assert.is(methods(file)['docs/deep/b.bin'], 12);
  const bytes = fs.readFileSync(file);
  const local = bytes.indexOf('PK\x03\x04\x2e\x00\x08\x00\x0c\x00', 0, 'latin1');
  assert.ok(local >= 0, 'a bzip2 entry whose sizes follow in a data descriptor (flag bit 3)');
  const s = service();
  const entry = await s.openEntry(archiveFile(file), 'docs/deep/b.bin');
  assert.ok((await readAll(entry.stream)).equals(fs.readFileSync(path.join(src, 'docs/deep/b.bin'))));
  const out = fs.mkdtempSync(path.join(dir, 'out-piped-'));
  await s.extract(archiveFile(file), [], { path: out });
  assert.equal(tree(out), expected);
});

test('zstd (method 93): a zip around a frame from the zstd tool (no Debian archiver writes one) reads and extracts', async () => {
  const data = fs.readFileSync(path.join(src, 'docs/deep/b.bin'));
  const packed = spawnSync('zstd', ['-q', '-c'], { input: data, maxBuffer: 16 * 1024 * 1024 });
  assert.is(packed.status, 0, String(packed.stderr));
  const file = path.join(dir, 'zstd.zip');
  fs.writeFileSync(file, oneEntryZipFile('b.bin', 93, packed.stdout, data));
  run(sevenZip, ['t', '-bd', '-bso0', file]); // Debian's 7-Zip reads it: the fixture is a real zstd zip
  const s = service();
  const listed = await s.list(archiveFile(file));
  assert.equal(
    listed.entries.map((e) => [e.name, e.size]),
    [['b.bin', data.length]],
  );
  assert.ok((await readAll((await s.openEntry(archiveFile(file), 'b.bin')).stream)).equals(data));
  const out = fs.mkdtempSync(path.join(dir, 'out-zstd-'));
  await s.extract(archiveFile(file), [], { path: out });
  assert.ok(fs.readFileSync(path.join(out, 'b.bin')).equals(data));
});

/** A zip of one entry whose compressed bytes were made elsewhere. */
function oneEntryZipFile(name: string, method: number, packed: Buffer, data: Buffer): Buffer {
  const n = Buffer.from(name);
  const crc = zlib.crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(63, 4);
  local.writeUInt16LE(method, 8);
  local.writeUInt16LE(0x21, 12);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(packed.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(n.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(63, 4);
  central.writeUInt16LE(63, 6);
  central.writeUInt16LE(method, 10);
  central.writeUInt16LE(0x21, 14);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(packed.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(n.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + n.length, 12);
  end.writeUInt32LE(local.length + n.length + packed.length, 16);
  return Buffer.concat([local, n, packed, central, n, end]);
}

test('1,200 bzip2 entries beside deflated ones extract in two 7-Zip runs, every byte in place', async () => {
  const many = path.join(dir, 'many-src');
  fs.mkdirSync(path.join(many, 'bz'), { recursive: true });
  fs.mkdirSync(path.join(many, 'plain'));
  for (let i = 0; i < 1200; i++) fs.writeFileSync(path.join(many, 'bz', `f${i}.txt`), `file ${i}\n`.repeat(100));
  for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(many, 'plain', `p${i}.txt`), `plain ${i}\n`.repeat(100));
  const file = path.join(dir, 'many.zip');
  run(sevenZip, ['a', '-bd', '-bso0', '-tzip', '-mm=BZip2', file, 'bz'], many);
  run(sevenZip, ['a', '-bd', '-bso0', '-tzip', '-mm=Deflate', file, 'plain'], many);
  const m = methods(file);
  assert.is(Object.keys(m).filter((n) => m[n] === 12).length, 1200);
  assert.is(m['plain/p0.txt'], 8);
  const out = fs.mkdtempSync(path.join(dir, 'out-many-'));
  const result = await service().extract(archiveFile(file), [], { path: out });
  assert.is(result.files, 1205);
  assert.equal(tree(out), tree(many));
});

test('damaged compressed bytes: the entry read fails (422) and an extraction leaves nothing', async () => {
  const file = path.join(dir, 'damaged.zip');
  run(sevenZip, ['a', '-bd', '-bso0', '-tzip', '-mm=BZip2', file, 'docs/deep/b.bin'], src);
  const bytes = fs.readFileSync(file);
  // Inside the compressed data, past the local header and its name.
  for (let i = 200; i < 260; i++) bytes[i]! ^= 0x5a;
  fs.writeFileSync(file, bytes);
  const s = service();
  await rejects(
    (async () => readAll((await s.openEntry(archiveFile(file), 'docs/deep/b.bin')).stream))(),
    (e) => e.status === 422 && e.code === 'ARCHIVE_UNREADABLE',
  );
  const out = fs.mkdtempSync(path.join(dir, 'out-damaged-'));
  await rejects(s.extract(archiveFile(file), [], { path: out }), (e) => e.status === 422);
  assert.equal(fs.readdirSync(out), []);
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
test.run();
