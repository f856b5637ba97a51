// A zip decides per file whether deflate pays, from the kind, the signature and a sample of the
// start (downloads/zip.ts): text deflates, noise and compressed data are stored, and a sample
// whose bytes look random but repeat (a block seen twice) is still deflated.
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FAST_LEVEL, levelFor, worthDeflating } from '../../src/downloads/zip.ts';

const SAMPLE = 4 * 1024;
const text = Buffer.from(
  Array.from(
    { length: 2_000 },
    (_, i) => `2026-11-24T07:${i % 60}:00Z GET /api/files/${(i * 7919) % 10007} 200\n`,
  ).join(''),
);

test('text and repeating data are worth deflating; noise is not', () => {
  assert.ok(worthDeflating(text.subarray(0, SAMPLE)), 'text');
  const block = crypto.randomBytes(SAMPLE / 4);
  assert.ok(worthDeflating(Buffer.concat([block, block, block, block])), 'a random block repeated');
  for (let i = 0; i < 20; i++) assert.not.ok(worthDeflating(crypto.randomBytes(SAMPLE)), 'random bytes');
  assert.not.ok(worthDeflating(zlib.deflateRawSync(text).subarray(0, SAMPLE)), 'deflated text');
  // Decisions do not leak from one sample to the next (the tables are reused).
  assert.ok(worthDeflating(text.subarray(0, SAMPLE)), 'text after noise');
});

test('the level: by kind, by signature, then by the sample', () => {
  const noise = crypto.randomBytes(64 * 1024);
  assert.is(levelFor('notes.txt', 1 << 20, text), FAST_LEVEL);
  assert.is(levelFor('photo.JPG', 1 << 20, text), 0, 'a compressed kind by name');
  assert.is(levelFor('tiny.txt', 1000, text.subarray(0, 1000)), 0, 'too small to pay');
  assert.is(levelFor('backup.dat', 1 << 20, zlib.gzipSync(text)), 0, 'gzip by signature');
  assert.is(levelFor('part.bin', 1 << 20, noise), 0, 'random bytes');
  assert.is(levelFor('mixed.bin', 1 << 20, Buffer.concat([text, noise])), FAST_LEVEL, 'a text start');
});

test.run();
