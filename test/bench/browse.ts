// Listing a 10,000-file folder through Burrow vs a bare Node readdir + stat of the same folder
// (target ≤ 1.2×). Run: node test/bench/browse.ts
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { removeDirs, startServer } from '../support/server.ts';

const N = 10_000;
const RUNS = 15;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const s = await startServer({ env: { AUTH_MODE: 'disabled', LOG_LEVEL: 'error' } });
try {
  const dir = path.join(s.dirs.volumes, 'Files', 'big');
  fs.mkdirSync(dir);
  for (let i = 0; i < N; i++) fs.writeFileSync(path.join(dir, `file-${i}.txt`), String(i));

  async function bare() {
    const names = await fsp.readdir(dir);
    const stats = await Promise.all(names.map((n) => fsp.stat(path.join(dir, n))));
    return JSON.stringify(names.map((n, i) => ({ name: n, size: stats[i]!.size, mtime: stats[i]!.mtime.toISOString() }))).length;
  }
  async function burrow() {
    const res = await fetch(`${s.url}/api/browse/Files/big`);
    // The client's own JSON parsing is not the server's cost: read the text, count the names.
    const text = await res.text();
    if (res.status !== 200 || text.split('"kind"').length - 1 !== N) throw new Error(`listing failed (${res.status})`);
  }
  for (let i = 0; i < 3; i++) { await bare(); await burrow(); }
  const bareTimes: number[] = [];
  const burrowTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now(); await bare(); bareTimes.push(performance.now() - t);
    t = performance.now(); await burrow(); burrowTimes.push(performance.now() - t);
  }
  const b = median(bareTimes);
  const h = median(burrowTimes);
  console.log(JSON.stringify({ bench: 'browse-10k', bareNodeMs: Math.round(b), burrowHttpMs: Math.round(h), ratio: Math.round((h / b) * 100) / 100, target: '<= 1.2' }));
} finally {
  await s.close();
  removeDirs(s.dirs);
}
