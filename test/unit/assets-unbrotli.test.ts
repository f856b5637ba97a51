// Embedded assets are brotli-decompressed without leaving the output's memory in glibc's main
// arena (src/assets.ts unbrotli): zlib's default 16 KiB steps gathered a 5.7 MB UI pack in
// hundreds of small blocks carved from `[heap]`, which kept them after they were freed. Measured
// in a child started with the executable's allocator settings (core/malloc-env.ts), as the
// executable runs: its own `[heap]` before and after unpacking 7 MiB, everything freed.
import { spawnSync } from 'node:child_process';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { unbrotli } from '../../src/assets.ts';
import { MALLOC_TUNABLES } from '../../src/core/malloc-env.ts';

const MiB = 1024 * 1024;

test('unbrotli gives back what it unpacked, byte for byte', () => {
  const text = Buffer.from('Fotos & Filme/Übersicht #2 (Kopie) 😀\n'.repeat(200_000));
  const packed = zlib.brotliCompressSync(text, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } });
  assert.ok(unbrotli(packed).equals(text));
  assert.is(unbrotli(zlib.brotliCompressSync(Buffer.alloc(0))).length, 0);
});

const CHILD = `
import fs from 'node:fs';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
const { unbrotli } = await import(process.env.ASSETS_MODULE);
const heapKb = () => {
  for (const m of fs.readFileSync('/proc/self/smaps', 'utf8').split(/\\n(?=[0-9a-f]+-)/))
    if (/ \\[heap\\]\\n/.test(m)) return Number(/\\nRss:\\s+(\\d+) kB/.exec(m)[1]);
  return 0;
};
// What a UI pack holds: files of text and of bytes that do not compress.
const parts = [];
for (let i = 0; i < 64; i++) parts.push(i % 2 ? crypto.randomBytes(64 * 1024) : Buffer.from(('const x' + i + ' = 1;\\n').repeat(10_000)));
const packed = zlib.brotliCompressSync(Buffer.concat(parts), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } });
parts.length = 0;
const before = heapKb();
let out = unbrotli(packed);
const size = out.length;
out = null;
setTimeout(() => {
  globalThis.gc();
  process.stdout.write(JSON.stringify({ size, grownKb: heapKb() - before }));
}, 50);
`;

test("unpacking 7 MiB leaves less than 1 MiB in glibc's main arena (Linux)", () => {
  if (process.platform !== 'linux') return;
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', CHILD], {
    env: {
      PATH: process.env.PATH,
      GLIBC_TUNABLES: MALLOC_TUNABLES,
      ASSETS_MODULE: new URL('../../src/assets.ts', import.meta.url).href,
    },
    encoding: 'utf8',
  });
  assert.is(r.status, 0, r.stderr);
  const { size, grownKb } = JSON.parse(r.stdout) as { size: number; grownKb: number };
  assert.ok(size > 5 * MiB, `unpacked ${size} bytes`);
  assert.ok(grownKb < 1024, `[heap] grew by ${grownKb} kB`);
});

test.run();
