// Zip downloads through the executable, MB/s of source, each against a ceiling measured in the
// same run with the same client (curl in its own process), rounds interleaved, medians:
// - mixed: 100 MB of photos and clips (stored by name) and small notes;
// - incompressible: 100 files × 1 MiB of random bytes under neutral names (the sampled start
//   decides). Issue 19's goal: ≥ 700 MB/s (copyparty: 822);
// - compressible: 100 files × 1 MiB of log-like text.
// The ceilings are work a zip cannot avoid, done by a bare Node server (plain-server.ts) with
// nothing else: for stored sets, the same bytes back to back with reused 1 MiB buffers (no CRC,
// no headers); for text, each file through zlib deflate level 1. A zip above its ceiling would
// mean the ceiling is wrong — as the earlier one was (a createReadStream server allocating a
// fresh buffer per read, which Burrow's pooled reads beat 2-3×). `zip -0` is no ceiling either:
// it reads in small blocks and measured below Burrow.
// Run: npm run bench -- zip [--quick]     (the source: BURROW_TEST_SERVER=source)
//
// History (shared 2-core machine, against the old plain createReadStream "ceiling"):
//   before pooled reads: zip 204-304 MB/s, plain 262-390; after: zip 566-815 MB/s, plain 284-300.
//   per-file decision (store what does not shrink, deflate the rest at level 1), load ~6.5:
//   mixed 197 / 201 MB/s; incompressible 108 / 119; compressible 37 / 24, zlib level 1 27 / 21;
//   100 MB of text → 34 MB.
//   own zip writer (zip-writer.ts) instead of yazl's stream chain, first chunk read ahead and
//   used as the sample, sample probe in JS, through the executable, same-run ceilings (load ~2):
//   before (README, 02:22): mixed 344 / 638 MB/s, incompressible 224 / 900, compressible 0.73x;
//   after: mixed 652 / 1413 (0.46x), incompressible 950 / 2279 (0.42x), compressible 71.2 / 68.5.
import './support/executable.ts';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { removeDirs, startServer } from '../support/server.ts';
import { drain, interleaved, MB } from './support/measure.ts';
import { startPlainServer } from './support/plain-server.ts';
import { rateRow, runAlone, type BenchOptions, type BenchRow } from './support/table.ts';

export async function rows(opts: BenchOptions = {}): Promise<BenchRow[]> {
  const rounds = opts.quick ? 3 : 5;
  const s = await startServer({ env: { AUTH_MODE: 'disabled', LOG_LEVEL: 'error' } });
  const root = path.join(s.dirs.volumes, 'Files');
  const plain = await startPlainServer(root);
  try {
    const noise = (n: number, seed: number) => {
      const b = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i += 4) b.writeUInt32LE(Math.imul(i + seed, 2654435761) >>> 0, i);
      return b;
    };
    const write = (set: string, name: string, b: Buffer) => {
      fs.mkdirSync(path.join(root, set), { recursive: true });
      fs.writeFileSync(path.join(root, set, name), b);
      return b.length;
    };
    const sizes: Record<string, number> = { mixed: 0, incompressible: 0, compressible: 0 };
    for (let i = 0; i < 40; i++) sizes.mixed! += write('mixed', `photo-${i}.jpg`, noise(2 * MB, i));
    for (let i = 0; i < 2; i++) sizes.mixed! += write('mixed', `clip-${i}.mp4`, noise(9 * MB, 100 + i));
    for (let i = 0; i < 200; i++)
      sizes.mixed! += write('mixed', `note-${i}.txt`, Buffer.from(`line ${i}\n`.repeat(250)));
    for (let i = 0; i < 100; i++)
      sizes.incompressible! += write('incompressible', `part-${i}.bin`, crypto.randomBytes(MB));
    // Text that compresses like logs do (~4-5x at level 1), not a repeated line (which is free).
    const words = [
      'GET',
      'POST',
      '/api/files',
      '/api/download',
      '200',
      '304',
      '404',
      'user',
      'alice',
      'bob',
      'ok',
      'slow',
      'cache',
      'miss',
      'hit',
      'ms',
    ];
    let seed = 1;
    const rnd = () => (seed = Math.imul(seed ^ (seed >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
    for (let i = 0; i < 100; i++) {
      const lines: string[] = [];
      let size = 0;
      while (size < MB) {
        const line = `2026-11-${10 + (rnd() % 20)}T${rnd() % 24}:${rnd() % 60}:${rnd() % 60}Z ${words[rnd() % 16]} ${words[rnd() % 16]} ${words[rnd() % 16]} id=${rnd() % 100000} t=${rnd() % 1000}\n`;
        lines.push(line);
        size += line.length;
      }
      sizes.compressible! += write('compressible', `log-${i}.log`, Buffer.from(lines.join('')).subarray(0, MB));
    }
    const sets: Array<[set: string, ceiling: string, note: string, goal: string]> = [
      ['mixed', 'stored', 'bare Node: the same bytes, reused 1 MiB buffers, no zip', '≥ 0.8'],
      ['incompressible', 'stored', 'bare Node: the same bytes, reused 1 MiB buffers, no zip', '≥ 700 MB/s'],
      ['compressible', 'deflate', 'bare Node: each file through zlib deflate level 1', '≥ 0.95'],
    ];
    const out: BenchRow[] = [];
    for (const [set, ceiling, note, goal] of sets) {
      const total = sizes[set]!;
      const m = await interleaved(rounds, {
        burrow: async () =>
          total /
          MB /
          (await drain(`${s.url}/api/download`, { body: JSON.stringify({ path: `Files/${set}` }) })).seconds,
        ceiling: async () => total / MB / (await drain(`${plain.url}/${ceiling}/${set}`)).seconds,
      });
      out.push(rateRow(`zip of ${Math.round(total / MB)} MB, ${set}`, m.burrow, m.ceiling, 'MB/s', goal, note));
    }
    return out;
  } finally {
    plain.close();
    await s.close();
    removeDirs(s.dirs);
  }
}

await runAlone(import.meta.main, rows);
