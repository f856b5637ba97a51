// A plain tar listed from its headers (tar-index.ts) gives exactly what the tar-stream walk
// gives (the walk is what entry reads use), for what GNU tar writes in each format and what
// tar-stream writes; damage is refused the same way; and a huge tar lists from kilobytes (bytes
// read by the process, from /proc/self/io — a count, not a timing). The same tar gzipped and
// walked the way extraction walks a tar.gz (gunzip-walk.ts) gives the same entries and refusals,
// and every file's bytes.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import zlib from 'node:zlib';
import { tooManyEntries } from '../../src/archives/errors.ts';
import { walkTarGz } from '../../src/archives/gunzip-walk.ts';
import type { RawEntry } from '../../src/archives/listing.ts';
import { listPlainTar } from '../../src/archives/tar-index.ts';
import { listTar, scanTar } from '../../src/archives/tar-reader.ts';
import { archiveFile, readAll, rejects, run, service, tarFile, tmp } from '../support/archives.ts';

const dir = tmp('tar-index');
const src = path.join(dir, 'src');
const long = `${'long-folder-name-'.repeat(5)}/${'very-long-file-name-'.repeat(6)}.txt`;
fs.mkdirSync(path.join(src, 'docs', 'deep'), { recursive: true });
fs.mkdirSync(path.join(src, path.dirname(long)), { recursive: true });
fs.writeFileSync(path.join(src, 'docs', 'a.txt'), 'alpha\n');
fs.writeFileSync(path.join(src, 'docs', 'deep', 'b.bin'), Buffer.alloc(70_000, 7));
fs.writeFileSync(path.join(src, 'docs', 'empty'), '');
fs.writeFileSync(path.join(src, 'naïve – ünïcode.txt'), 'u');
fs.writeFileSync(path.join(src, long), 'long');
fs.symlinkSync('docs/a.txt', path.join(src, 'link'));
fs.linkSync(path.join(src, 'docs', 'a.txt'), path.join(src, 'hard'));

const settle = (p: Promise<unknown>) =>
  p.then(
    (v) => ({ ok: v }),
    (e) => ({ status: e.status, code: e.code }),
  );

async function both(file: string, max = 1000) {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const index = await settle(listPlainTar(fd, size, max));
    const walk = await settle(listTar(fd, 'tar', max));
    const gz = await gunzipWalk(file, max);
    // The gunzip walk lists what the header listing lists and reads every file as tar-stream does.
    assert.equal(gz.listed, index, `${file}: gunzip walk`);
    if ('ok' in gz.listed) assert.equal(gz.contents, await contents(fd), `${file}: contents`);
    return { index, walk };
  } finally {
    fs.closeSync(fd);
  }
}

/** The tar gzipped and walked as extraction walks a tar.gz: its entries, every file's bytes (each chunk copied: they are reused). */
async function gunzipWalk(file: string, max: number) {
  const gz = `${file}.gz`;
  fs.writeFileSync(gz, zlib.gzipSync(fs.readFileSync(file)));
  const fd = fs.openSync(gz, 'r');
  const out: RawEntry[] = [];
  const files: Record<string, string> = {};
  try {
    const listed = await settle(
      walkTarGz(fd, async (raw, data) => {
        if (out.length >= max) throw tooManyEntries(max);
        out.push(raw);
        if (raw.kind !== 'file') return;
        const parts: Buffer[] = [];
        await data.pump(async (chunk) => void parts.push(Buffer.from(chunk)));
        files[raw.stored] = Buffer.concat(parts).toString('base64');
      }).then(() => out),
    );
    return { listed, contents: files };
  } finally {
    fs.closeSync(fd);
  }
}

/** Every file's bytes as tar-stream reads them. */
async function contents(fd: number): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  await scanTar(fd, 'tar', async (raw, data) => {
    if (raw.kind !== 'file') return;
    const parts: Buffer[] = [];
    for await (const chunk of data) parts.push(chunk as Buffer);
    files[raw.stored] = Buffer.concat(parts).toString('base64');
  });
  return files;
}

for (const format of ['gnu', 'oldgnu', 'pax', 'ustar']) {
  test(`GNU tar --format=${format}: the header listing equals the tar-stream walk`, async () => {
    const file = path.join(dir, `${format}.tar`);
    const names = ['docs', 'naïve – ünïcode.txt', 'link', 'hard'];
    // ustar cannot hold a name this long in its 100 + 155 bytes: left out there.
    if (format !== 'ustar') names.push(path.dirname(long).split('/')[0]!);
    run('tar', [`--format=${format}`, '-cf', file, '-C', src, ...names]);
    const { index, walk } = await both(file);
    assert.ok('ok' in index, JSON.stringify(index));
    assert.equal(index, walk);
    const listed = (index as { ok: { stored: string; kind: string; size: number | null }[] }).ok;
    const byName = Object.fromEntries(listed.map((e) => [e.stored.replace(/\/$/, ''), e]));
    assert.equal([byName['docs/deep/b.bin']!.kind, byName['docs/deep/b.bin']!.size], ['file', 70_000]);
    assert.is(byName.link!.kind, 'link');
    assert.ok(byName['naïve – ünïcode.txt']);
    if (format !== 'ustar') assert.is(byName[long]!.size, 4);
  });
}

test('tar-stream archives (links, devices, pax for long names, a name with a trailing slash) list the same', async () => {
  const file = path.join(dir, 'crafted.tar');
  await tarFile(file, [
    { name: 'f.txt', data: 'file' },
    { name: 'd', type: 'directory' },
    { name: 'out', type: 'symlink', linkname: '../../../etc/passwd' },
    { name: 'null', type: 'character-device', devmajor: 1, devminor: 3 },
    { name: 'fifo', type: 'fifo' },
    { name: `${'x'.repeat(120)}/${'y'.repeat(120)}`, data: 'deep' },
    { name: '../up.txt', data: 'x' },
  ]);
  const { index, walk } = await both(file);
  assert.ok('ok' in index, JSON.stringify(index));
  assert.equal(index, walk);
});

test('damage and the entry cap are refused as the walk refuses them', async () => {
  const good = path.join(dir, 'gnu.tar');
  const bytes = fs.readFileSync(good);
  const cases: Record<string, Buffer> = {
    cut: bytes.subarray(0, 512 + 100),
    'cut mid-block': bytes.subarray(0, bytes.length - 300),
    checksum: Buffer.concat([Buffer.from('x'), bytes.subarray(1)]),
  };
  for (const [name, data] of Object.entries(cases)) {
    const file = path.join(dir, `${name}.tar`);
    fs.writeFileSync(file, data);
    const { index, walk } = await both(file);
    assert.equal(index, { status: 422, code: 'ARCHIVE_UNREADABLE' }, name);
    assert.equal(walk, index, name);
  }
  const capped = await both(good, 3);
  assert.equal(capped.index, { status: 413, code: 'ARCHIVE_TOO_MANY_ENTRIES' });
  assert.equal(capped.walk, capped.index);
});

/** Bytes this process has read through read(2) and friends so far. */
const rchar = () => Number(/rchar: (\d+)/.exec(fs.readFileSync('/proc/self/io', 'utf8'))![1]);

test('a 9 GiB tar (sparse on disk; a base-256 size) lists from kilobytes, and its small entries still read', async () => {
  const file = path.join(dir, 'huge.tar');
  // One small file, then a 9 GiB one (GNU base-256 size field), then another small file.
  await tarFile(file, [
    { name: 'first.txt', data: 'first' },
    { name: 'huge.bin', data: 'h' },
  ]);
  const head = fs.readFileSync(file).subarray(0, 2048);
  const huge = Buffer.from(head.subarray(1024, 1536));
  const size = 9 * 1024 ** 3;
  huge.fill(0, 124, 136);
  huge[124] = 0x80;
  huge.writeUInt32BE(Math.floor(size / 2 ** 32), 128);
  huge.writeUInt32BE(size % 2 ** 32, 132);
  huge.fill(32, 148, 156);
  let sum = 0;
  for (const b of huge) sum += b;
  huge.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  const tail = path.join(dir, 'tail.tar');
  await tarFile(tail, [{ name: 'last.txt', data: 'last' }]);
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, head.subarray(0, 1024), 0, 1024, 0);
  fs.writeSync(fd, huge, 0, 512, 1024);
  const last = fs.readFileSync(tail);
  fs.writeSync(fd, last, 0, last.length, 1536 + size);
  fs.closeSync(fd);
  assert.ok(fs.statSync(file).blocks * 512 < 1024 * 1024, 'the file is sparse');

  const s = service();
  const before = rchar();
  const listed = await s.list(archiveFile(file));
  const read = rchar() - before;
  assert.equal(
    listed.entries.map((e) => [e.name, e.size]),
    [
      ['first.txt', 5],
      ['huge.bin', size],
      ['last.txt', 4],
    ],
  );
  assert.ok(read < 256 * 1024, `listing read ${read} bytes`);
  // Listed again from the cache: nothing of the archive read.
  const again = rchar();
  await s.list(archiveFile(file));
  const second = rchar() - again;
  assert.ok(second < 4096, `the cached listing read ${second} bytes`);
  assert.is((await readAll((await s.openEntry(archiveFile(file), 'first.txt')).stream)).toString(), 'first');
  const ranged = await s.openEntry(archiveFile(file), 'huge.bin', { start: 0, end: 3 });
  assert.equal([...(await readAll(ranged.stream))], [0, 0, 0, 0]);
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
test.run();
