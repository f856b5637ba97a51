// A zip takes a file's type from its folder's listing and its size and time from the descriptor
// it reads (no lstat in between): a file replaced after the listing — by a link to outside the
// volume, a folder, or nothing — must neither lead outside nor fail the zip; it is left out, and
// what the zip lists is what it read.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { zipEntries } from '../support/archives.ts';
import { openSources, writeZip } from '../../src/downloads/zip.ts';
import { waitFor } from '../support/wait.ts';

test('files replaced after the listing (a link to outside, a folder, removed) are left out; the rest is whole', async () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'zip-replaced-'));
  try {
    const volume = path.join(work, 'volume');
    const folder = path.join(volume, 'set');
    fs.mkdirSync(folder, { recursive: true });
    const outside = path.join(work, 'outside.bin');
    const marker = Buffer.from(`OUTSIDE-${crypto.randomBytes(8).toString('hex')}`);
    fs.writeFileSync(outside, Buffer.concat([marker, crypto.randomBytes(1024 * 1024)]));
    // 1 MiB of random bytes each: stored, and fewer than the last five are opened ahead of the
    // one written (at most 8 MiB are read ahead).
    const names = 'abcdefghijklmnopqrst'.split('').map((c) => `${c}.bin`);
    const bytes = new Map(names.map((n) => [n, crypto.randomBytes(1024 * 1024)]));
    for (const [n, b] of bytes) fs.writeFileSync(path.join(folder, n), b);

    // An output that holds the first write until released: by then the folder has been listed
    // and only the first files opened.
    const chunks: Buffer[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    const out = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _enc, cb) {
        chunks.push(Buffer.from(chunk));
        if (first) {
          first = false;
          held.then(() => cb());
        } else cb();
      },
    });
    const sources = await openSources([{ root: volume, real: folder, name: 'set', isDirectory: true }]);
    const zipped = writeZip(out, sources, false);
    await waitFor(() => chunks.length > 0, { what: 'the first write' });
    assert.is(chunks.length, 1, 'the zip waits on its first write');
    fs.rmSync(path.join(folder, 'p.bin'));
    fs.symlinkSync(outside, path.join(folder, 'p.bin'));
    fs.symlinkSync(outside, path.join(folder, 's.bin.new'));
    fs.renameSync(path.join(folder, 's.bin.new'), path.join(folder, 's.bin'));
    fs.rmSync(path.join(folder, 'q.bin'));
    fs.mkdirSync(path.join(folder, 'q.bin'));
    fs.rmSync(path.join(folder, 'r.bin'));
    release();
    await zipped;
    const zip = Buffer.concat(chunks);
    assert.not.ok(zip.includes(marker), 'no byte from outside the volume');
    const got = await zipEntries(zip);
    const kept = names.filter((n) => !['p.bin', 'q.bin', 'r.bin', 's.bin'].includes(n));
    assert.equal([...got.keys()].sort(), ['set/', ...kept.map((n) => `set/${n}`)].sort());
    for (const n of kept) assert.ok(got.get(`set/${n}`)!.data.equals(bytes.get(n)!), n);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});

test.run();
