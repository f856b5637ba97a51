// Inflating into buffers the caller reuses (inflater.ts), and the two extraction paths built on
// it: a zip entry's deflated bytes (zip-reader.ts) and a tar.gz walked for extraction
// (gunzip-walk.ts). Each hands over its chunks in the same two output buffers, whatever the
// entry's size — before, every 1 MiB chunk was a fresh buffer — and gives exactly the bytes
// zlib's own functions give, across chunk boundaries, several gzip members, trailing zeros and
// damage.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { walkTarGz } from '../../src/archives/gunzip-walk.ts';
import { Inflater } from '../../src/archives/inflater.ts';
import { readBuffers, zipEntrySource, type ZipRef } from '../../src/archives/zip-reader.ts';
import { listZip } from '../../src/archives/zip-reader.ts';
import { rejects, run, tarFile, tmp } from '../support/archives.ts';

const dir = tmp('inflater');
const MB = 1024 * 1024;
/** Text that deflates well, then bytes that do not: output chunks of both kinds. */
const payload = (n: number, seed: number) => {
  const text = Buffer.from(
    Array.from({ length: n / 64 }, (_, i) => `line ${i * seed} of a log file, words ${i % 97}\n`).join(''),
  );
  return Buffer.concat([text.subarray(0, n / 2), crypto.randomBytes(n - n / 2)]);
};

/** Everything `input` inflates to through an Inflater, in steps of `inStep` bytes into a `outSize`-byte buffer. */
function inflateAll(kind: 'raw' | 'gzip', input: Buffer, inStep: number, outSize: number): Buffer {
  const z = new Inflater(kind);
  const out = Buffer.alloc(outSize);
  const parts: Buffer[] = [];
  try {
    for (let at = 0; at < input.length; at += inStep) {
      const slice = input.subarray(at, at + inStep);
      for (let from = 0; from < slice.length;) {
        const { read, wrote } = z.step(slice, from, out);
        parts.push(Buffer.from(out.subarray(0, wrote)));
        from += read;
        if (!read && !wrote) break;
      }
    }
    for (let wrote = outSize; wrote === outSize;) {
      wrote = z.finish(out);
      parts.push(Buffer.from(out.subarray(0, wrote)));
    }
    return Buffer.concat(parts);
  } finally {
    z.close();
  }
}

test('an Inflater gives what zlib gives: raw and gzip, any step sizes, several members, zeros after the end', () => {
  const data = payload(3 * MB, 7);
  const raw = zlib.deflateRawSync(data);
  const gz = zlib.gzipSync(data);
  for (const [inStep, outSize] of [
    [raw.length, MB],
    [4096, 1000],
    [1, 65536],
  ] as const) {
    assert.ok(inflateAll('raw', raw, inStep, outSize).equals(data), `raw ${inStep}/${outSize}`);
    assert.ok(inflateAll('gzip', gz, inStep, outSize).equals(data), `gzip ${inStep}/${outSize}`);
  }
  // Two members, then the zeros a tape or a padded copy leaves: both members, as zlib.gunzipSync reads them.
  const two = Buffer.concat([gz, zlib.gzipSync(Buffer.from('second member')), Buffer.alloc(1000)]);
  assert.ok(inflateAll('gzip', two, 65536, MB).equals(zlib.gunzipSync(two)));
  assert.ok(inflateAll('gzip', two, 65536, MB).subarray(data.length).equals(Buffer.from('second member')));
});

test('an Inflater refuses a damaged stream and a stream cut short', () => {
  const gz = zlib.gzipSync(payload(MB, 3));
  const damaged = Buffer.from(gz);
  damaged.fill(0xff, 5000, 5100);
  assert.throws(() => inflateAll('gzip', damaged, 65536, MB), /invalid|incorrect|unknown/i);
  assert.throws(() => inflateAll('gzip', gz.subarray(0, gz.length - 5000), 65536, MB), /unexpected end of file/);
  assert.throws(() => inflateAll('gzip', Buffer.from('not gzip at all'), 65536, MB), /incorrect header check/);
});

test('a zip entry is inflated into the same two buffers whatever its size, its bytes exact', async () => {
  const src = path.join(dir, 'zip-src');
  fs.mkdirSync(src, { recursive: true });
  const files: Record<string, Buffer> = {
    'Holiday notes.txt': payload(5 * MB + 123, 1),
    'Einkaufsliste & Notizen #3 (100%).txt': payload(64 * 10, 2),
    // Info-ZIP writes names in the locale's bytes (here no UTF-8 flag): the accents are the tar test's.
    'leer + nichts #0.txt': Buffer.alloc(0),
  };
  for (const [name, data] of Object.entries(files)) fs.writeFileSync(path.join(src, name), data);
  const zip = path.join(dir, 'My Backup 2024.zip');
  run('zip', ['-q', '-r', zip, '.'], src);
  const fd = fs.openSync(zip, 'r');
  try {
    const refs: { name: string; ref: ZipRef }[] = [];
    await listZip(fd, 100, (e) => void refs.push({ name: e.stored, ref: (e as { ref?: ZipRef }).ref! }));
    const buffers = readBuffers();
    const owned = new Set([buffers.out[0].buffer, buffers.out[1].buffer, buffers.a.buffer, buffers.b.buffer]);
    for (const { name, ref } of refs) {
      const seen: Buffer[] = [];
      const source = await zipEntrySource(fd, fs.fstatSync(fd).size, ref, name, buffers);
      await source.pump(async (chunk) => {
        assert.ok(owned.has(chunk.buffer), `${name}: a chunk in a buffer of its own`);
        seen.push(Buffer.from(chunk));
      });
      assert.ok(Buffer.concat(seen).equals(files[name]!), name);
    }
  } finally {
    fs.closeSync(fd);
  }
});

/**
 * A zip by hand whose local headers carry an extra field of `extra` bytes (a camera's or an
 * archiver's own, unknown here) that the central directory does not repeat, as some archivers
 * write them: names in UTF-8 (flag 11), each entry stored or deflated.
 */
function zipWithLocalExtra(entries: { name: string; data: Buffer; deflate: boolean; extra: number }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const body = e.deflate ? zlib.deflateRawSync(e.data) : e.data;
    const extra = Buffer.alloc(e.extra);
    extra.writeUInt16LE(0xcafe, 0);
    extra.writeUInt16LE(e.extra - 4, 2);
    const crc = zlib.crc32(e.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(e.deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(extra.length, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(e.deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(e.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, extra, body);
    centrals.push(central, name);
    offset += 30 + name.length + extra.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

test('a small entry whose local header is longer than the one read guessed is read again, its bytes exact', async () => {
  // The one read of a small entry takes its local header with 1 KiB for the name and extra
  // fields; past that, the entry's bytes are read on their own.
  const entries = [
    { name: 'Großmutters Rezept – Käsekuchen.txt', data: payload(3000, 3), deflate: true, extra: 4000 },
    { name: 'Reisepass Scan – Kopie (2) #1.txt', data: payload(700, 4), deflate: false, extra: 2000 },
    { name: 'Notizen & Ideen 100%.txt', data: payload(500, 5), deflate: true, extra: 200 },
    { name: 'leer + nichts.txt', data: Buffer.alloc(0), deflate: false, extra: 1500 },
    // Its name and extra field just past the slack.
    { name: 'Urlaub an der Ostsee – Juli 🌅.txt', data: payload(900, 6), deflate: false, extra: 1030 },
  ];
  const zip = path.join(dir, 'Scans vom Handy 2025.zip');
  fs.writeFileSync(zip, zipWithLocalExtra(entries));
  const fd = fs.openSync(zip, 'r');
  try {
    const refs: { name: string; ref: ZipRef }[] = [];
    await listZip(fd, 100, (e) => void refs.push({ name: e.stored, ref: (e as { ref?: ZipRef }).ref! }));
    assert.equal(
      refs.map((r) => r.name),
      entries.map((e) => e.name),
    );
    const buffers = readBuffers();
    for (const [i, { name, ref }] of refs.entries()) {
      const seen: Buffer[] = [];
      const source = await zipEntrySource(fd, fs.fstatSync(fd).size, ref, name, buffers);
      await source.pump(async (chunk) => void seen.push(Buffer.from(chunk)));
      assert.ok(Buffer.concat(seen).equals(entries[i]!.data), name);
    }
  } finally {
    fs.closeSync(fd);
  }
});

test('a tar.gz is walked in the same two buffers, headers across chunk boundaries, files read or skipped', async () => {
  // Sizes that put headers across the 1 MiB output boundaries, and names a person uses.
  const entries = Array.from({ length: 12 }, (_, i) => ({
    name: `Holiday 2025/photo ${i} – été.jpg`,
    data: payload(300_000 + i * 97_331 - ((300_000 + i * 97_331) % 64), i + 1),
  }));
  const tar = path.join(dir, 'holiday.tar');
  await tarFile(tar, entries);
  const gz = path.join(dir, 'holiday.tar.gz');
  fs.writeFileSync(gz, zlib.gzipSync(fs.readFileSync(tar)));
  const fd = fs.openSync(gz, 'r');
  const buffers = new Set<ArrayBufferLike>();
  const got: Record<string, Buffer> = {};
  try {
    let i = 0;
    await walkTarGz(fd, async (raw, data) => {
      // Every third file left unread: the walk skips its content.
      if (i++ % 3 === 2) return;
      const parts: Buffer[] = [];
      await data.pump(async (chunk) => {
        buffers.add(chunk.buffer);
        parts.push(Buffer.from(chunk));
      });
      got[raw.stored] = Buffer.concat(parts);
    });
  } finally {
    fs.closeSync(fd);
  }
  const wanted = entries.filter((_, i) => i % 3 !== 2);
  assert.equal(
    Object.keys(got),
    wanted.map((e) => e.name),
  );
  for (const e of wanted) assert.ok(got[e.name]!.equals(e.data), e.name);
  assert.ok(buffers.size <= 2, `chunks came in ${buffers.size} buffers`);
  // Cut short: the archive is unreadable (422), not a shorter file.
  const cut = path.join(dir, 'cut.tar.gz');
  fs.writeFileSync(cut, fs.readFileSync(gz).subarray(0, 1_500_000));
  const cfd = fs.openSync(cut, 'r');
  try {
    await rejects(
      walkTarGz(cfd, async (_raw, data) => data.pump(async () => {})),
      (e) => e.status === 422 && e.code === 'ARCHIVE_UNREADABLE',
    );
  } finally {
    fs.closeSync(cfd);
  }
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
test.run();
