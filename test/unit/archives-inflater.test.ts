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
