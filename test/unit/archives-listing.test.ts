import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { entryPath, linkTargetInside } from '../../src/archives/entry-path.ts';
import { Listing } from '../../src/archives/listing.ts';
import { archiveFile, patchZipNames, readAll, service, tmp, yazlZip } from '../support/archives.ts';

const raw = (stored: string, kind: 'file' | 'directory' = 'file', size: number | null = 1) => ({
  stored,
  kind,
  size,
  mtime: new Date(2024, 0, 2, 3, 4, 5),
  encrypted: false,
});

test('names pointing outside are outside: absolute, drive letters, .., backslashes, reserved', () => {
  for (const bad of [
    '/etc/passwd',
    '../x',
    'a/../../x',
    'C:/x',
    'c:x',
    '\\\\server\\x',
    '..\\..\\x',
    'a/.burrow/x',
    'a\0b',
  ])
    assert.is(entryPath(bad), null, bad);
  assert.is(entryPath('./a//b/./c'), 'a/b/c');
  assert.is(entryPath('a\\b'), 'a/b');
  assert.is(linkTargetInside('a/link', '../b'), 'b');
  assert.is(linkTargetInside('a/link', '../../etc'), null);
});

test('a listing implies folders from file paths, counts names outside, lists one level', () => {
  const l = new Listing([
    raw('docs/a.txt'),
    raw('docs/sub/b.txt'),
    raw('../evil'),
    raw('/abs'),
    raw('top.txt'),
    raw('empty/', 'directory', null),
  ]);
  assert.is(l.total, 6);
  assert.is(l.outside, 2);
  const top = l.level(undefined);
  assert.is(top.inside, null);
  assert.equal(
    top.entries.map((e) => [e.name, e.isDirectory]),
    [
      ['docs', true],
      ['empty', true],
      ['top.txt', false],
    ],
  );
  assert.equal(top.entries[2], {
    name: 'top.txt',
    path: 'top.txt',
    isDirectory: false,
    size: 1,
    modified: '2024-01-02 03:04:05',
    encrypted: false,
  });
  assert.equal(top.entries[0]!.size, null);
  assert.equal(
    l.level('docs').entries.map((e) => e.path),
    ['docs/sub', 'docs/a.txt'],
  );
  assert.equal(l.level('docs/').entries.length, 2);
  assert.throws(
    () => l.level('../x'),
    (e: any) => e.status === 400 && e.code === 'ARCHIVE_BAD_POSITION',
  );
  assert.throws(
    () => l.level('nope'),
    (e: any) => e.status === 404 && e.code === 'ARCHIVE_ENTRY_NOT_FOUND',
  );
});

test('entries are matched exactly: folder/alph is not folder/alpha', () => {
  const l = new Listing([raw('folder/alpha')]);
  assert.is(l.lookupFile('folder/alpha').path, 'folder/alpha');
  assert.throws(
    () => l.lookupFile('folder/alph'),
    (e: any) => e.code === 'ARCHIVE_ENTRY_NOT_FOUND',
  );
  assert.throws(
    () => l.lookupFile('folder'),
    (e: any) => e.code === 'ARCHIVE_ENTRY_NOT_FOUND',
  );
  assert.throws(
    () => l.lookupFile('../folder/alpha'),
    (e: any) => e.code === 'ARCHIVE_BAD_POSITION',
  );
});

test('a name twice, and a file and a folder of one name: the folder is listed once, the first file is the one opened', () => {
  const first = { ...raw('docs/a.txt', 'file', 1) };
  const l = new Listing([
    first,
    raw('docs/a.txt', 'file', 2),
    raw('clash', 'file', 3),
    raw('clash/inner.txt'),
    raw('later', 'file', 4),
    raw('later/', 'directory', null),
    raw('later', 'file', 5),
  ]);
  assert.equal(
    l.level(undefined).entries.map((e) => [e.name, e.isDirectory]),
    [
      ['clash', true],
      ['docs', true],
      ['later', true],
    ],
  );
  assert.equal(
    l.level('docs').entries.map((e) => [e.name, e.size]),
    [['a.txt', 1]],
  );
  assert.is(l.lookupFile('docs/a.txt').size, 1);
  assert.throws(
    () => l.lookupFile('clash'),
    (e: any) => e.code === 'ARCHIVE_ENTRY_NOT_FOUND',
  );
  assert.throws(
    () => l.lookupFile('later'),
    (e: any) => e.code === 'ARCHIVE_ENTRY_NOT_FOUND',
  );
  // Every entry is still extracted (the second of a name as `name (1)`).
  assert.is(l.records.length, 7);
  assert.equal(l.declaredBytes(l.selection(['docs'])), { files: 2, bytes: 3 });
});

test('zip: an Info-ZIP Unicode path field names the entry, even when the stored name is plain ASCII', async () => {
  const dir = tmp();
  const file = path.join(dir, 'unicode-path.zip');
  fs.writeFileSync(
    file,
    storedZip([
      { stored: 'caf_.txt', unicode: 'café.txt', data: 'field' },
      { stored: 'plain.txt', data: 'plain' },
      { stored: 'bad_.txt', unicode: 'ignored.txt', data: 'crc', wrongCrc: true },
    ]),
  );
  const s = service();
  const top = await s.list(archiveFile(file));
  assert.equal(
    top.entries.map((e) => e.name),
    ['bad_.txt', 'café.txt', 'plain.txt'],
  );
  assert.is((await readAll((await s.openEntry(archiveFile(file), 'café.txt')).stream)).toString(), 'field');
  fs.rmSync(dir, { recursive: true });
});

/** A zip of stored entries written byte by byte: yazl writes no Info-ZIP Unicode path field (0x7075). */
function storedZip(entries: { stored: string; unicode?: string; data: string; wrongCrc?: boolean }[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let at = 0;
  for (const e of entries) {
    const name = Buffer.from(e.stored, 'latin1');
    const data = Buffer.from(e.data);
    let extra = Buffer.alloc(0);
    if (e.unicode) {
      const utf8 = Buffer.from(e.unicode);
      extra = Buffer.alloc(4 + 5 + utf8.length);
      extra.writeUInt16LE(0x7075, 0);
      extra.writeUInt16LE(5 + utf8.length, 2);
      extra.writeUInt8(1, 4);
      extra.writeUInt32LE((zlib.crc32(name) + (e.wrongCrc ? 1 : 0)) >>> 0, 5);
      utf8.copy(extra, 9);
    }
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(10, 4);
    local.writeUInt32LE(zlib.crc32(data), 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const head = Buffer.alloc(46);
    head.writeUInt32LE(0x02014b50, 0);
    head.writeUInt16LE(0x031e, 4);
    head.writeUInt16LE(10, 6);
    head.writeUInt32LE(zlib.crc32(data), 16);
    head.writeUInt32LE(data.length, 20);
    head.writeUInt32LE(data.length, 24);
    head.writeUInt16LE(name.length, 28);
    head.writeUInt16LE(extra.length, 30);
    head.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    head.writeUInt32LE(at, 42);
    parts.push(local, name, data);
    central.push(head, name, extra);
    at += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(at, 16);
  return Buffer.concat([...parts, directory, end]);
}

test('zip: UTF-8 and CP437 names, ZIP64, implied folders, Range on a stored entry', async () => {
  const dir = tmp();
  const file = path.join(dir, 'names.zip');
  await yazlZip(
    file,
    [
      { name: 'ünï/cødé.txt', data: 'utf8' },
      { name: 'X.txt', data: 'cp437', compress: false },
      { name: 'deep/a/b/c.bin', data: Buffer.alloc(70_000, 7) },
    ],
    true,
  );
  // Make X.txt a CP437 name: byte 0x81 is "ü" there, and the UTF-8 flag goes off.
  patchZipNames(file, { 'X.txt': '\x81.txt' }, true);
  const s = service();
  const top = await s.list(archiveFile(file));
  assert.equal(
    top.entries.map((e) => e.name),
    ['deep', 'ünï', 'ü.txt'],
  );
  assert.is(top.total, 3);
  assert.is(top.outside, 0);
  assert.is((await s.list(archiveFile(file), 'deep/a/b')).entries[0]!.size, 70_000);
  const whole = await s.openEntry(archiveFile(file), 'ü.txt');
  assert.is((await readAll(whole.stream)).toString(), 'cp437');
  const part = await s.openEntry(archiveFile(file), 'ü.txt', { start: 1, end: 3 });
  assert.is((await readAll(part.stream)).toString(), 'p43');
  const deflated = await s.openEntry(archiveFile(file), 'deep/a/b/c.bin', { start: 69_990, end: 69_999 });
  assert.equal([...(await readAll(deflated.stream))], Array(10).fill(7));
  fs.rmSync(dir, { recursive: true });
});

test('zip with ../, absolute and drive-letter names lists the rest and counts them outside', async () => {
  const dir = tmp();
  const file = path.join(dir, 'slip.zip');
  // yazl refuses these names: placeholders of the same length, renamed in place.
  await yazlZip(file, [
    { name: 'ok.txt', data: 'ok' },
    { name: 'a/XX/XX/evil.txt', data: 'x' },
    { name: 'Q_/win.txt', data: 'x' },
    { name: 'Zetc/x', data: 'x' },
  ]);
  patchZipNames(file, { 'a/XX/XX/evil.txt': 'a/../../evil.txt', 'Q_/win.txt': 'C:/win.txt', 'Zetc/x': '/etc/x' });
  const s = service();
  const answer = await s.list(archiveFile(file));
  assert.equal(
    answer.entries.map((e) => e.name),
    ['ok.txt'],
  );
  assert.is(answer.total, 4);
  assert.is(answer.outside, 3);
  fs.rmSync(dir, { recursive: true });
});

test.run();
