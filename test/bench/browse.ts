// Listing a 10,000-file folder through Burrow vs a bare Node readdir + stat of the same folder
// (target ≤ 1.2× the time). Run: npm run bench -- browse [--quick]  (through the executable;
// the source: BURROW_TEST_SERVER=source). The ceiling is the same work (readdir, a stat per
// entry, the JSON) in the bench's process, no HTTP, done the faster of two bare ways: callbacks
// through libuv's pool, or readdirSync + statSync in a loop (about twice as fast on this
// machine). The fs/promises version (the original ceiling) costs a promise per entry and Burrow
// beats it, so it is no ceiling; since Burrow's large listings stat in a thread of their own with
// synchronous calls, it beat the callbacks too (1.01-1.73x), so the synchronous loop joined.
// Measured on the shared 2-core machine (medians of 15 per round, 3-4 rounds):
//   before: bare 85-91 ms, Burrow 107-124 ms, ratio 1.26-1.42
//   after (callback stats, no per-entry promise/closure/join): bare 84-117 ms, callbacks 45-71 ms,
//         Burrow 53-86 ms, ratio 0.63-0.84 to bare, 1.15-1.28 to callbacks (median ~1.19)
import './support/executable.ts';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { removeDirs, startServer } from '../support/server.ts';
import { costRow, runAlone, type BenchOptions, type BenchRow } from './support/table.ts';

const N = 10_000;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export async function rows(opts: BenchOptions = {}): Promise<BenchRow[]> {
  const RUNS = opts.quick ? 7 : 15;
  const s = await startServer({ env: { AUTH_MODE: 'disabled', LOG_LEVEL: 'error' } });
  try {
    const dir = path.join(s.dirs.volumes, 'Files', 'big');
    fs.mkdirSync(dir);
    for (let i = 0; i < N; i++) fs.writeFileSync(path.join(dir, `file-${i}.txt`), String(i));

    async function bare() {
      const names = await fsp.readdir(dir);
      const stats = await Promise.all(names.map((n) => fsp.stat(path.join(dir, n))));
      return JSON.stringify(
        names.map((n, i) => ({ name: n, size: stats[i]!.size, mtime: stats[i]!.mtime.toISOString() })),
      ).length;
    }
    // The stricter ceiling: the same work with callbacks (no promise per entry).
    function bareCallbacks() {
      return new Promise<number>((resolve, reject) =>
        fs.readdir(dir, (err, names) => {
          if (err) return reject(err);
          const stats: fs.Stats[] = new Array(names.length);
          let pending = names.length;
          names.forEach((n, i) =>
            fs.stat(dir + path.sep + n, (e, st) => {
              if (e) return reject(e);
              stats[i] = st;
              if (--pending === 0)
                resolve(
                  JSON.stringify(
                    names.map((m, j) => ({ name: m, size: stats[j]!.size, mtime: stats[j]!.mtime.toISOString() })),
                  ).length,
                );
            }),
          );
        }),
      );
    }
    // The same with synchronous calls: no request object or hand-over per entry.
    function bareSync() {
      const names = fs.readdirSync(dir);
      const items = names.map((n) => {
        const st = fs.statSync(dir + path.sep + n);
        return { name: n, size: st.size, mtime: new Date(st.mtimeMs).toISOString() };
      });
      return JSON.stringify(items).length;
    }
    async function burrow() {
      const res = await fetch(`${s.url}/api/browse/Files/big`);
      // The client's own JSON parsing is not the server's cost: read the text, count the names.
      const text = await res.text();
      if (res.status !== 200 || text.split('"kind"').length - 1 !== N)
        throw new Error(`listing failed (${res.status})`);
    }
    for (let i = 0; i < 3; i++) {
      await bare();
      await bareCallbacks();
      bareSync();
      await burrow();
    }
    const bareTimes: number[] = [];
    const callbackTimes: number[] = [];
    const syncTimes: number[] = [];
    const burrowTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      let t = performance.now();
      await bare();
      bareTimes.push(performance.now() - t);
      t = performance.now();
      await bareCallbacks();
      callbackTimes.push(performance.now() - t);
      t = performance.now();
      bareSync();
      syncTimes.push(performance.now() - t);
      t = performance.now();
      await burrow();
      burrowTimes.push(performance.now() - t);
    }
    const b = median(bareTimes);
    const cb = median(callbackTimes);
    const sync = median(syncTimes);
    const h = median(burrowTimes);
    console.log(
      `browse: fs/promises readdir + stat ${b.toFixed(1)} ms (not a ceiling: Burrow ${(b / h).toFixed(2)}x faster); ` +
        `callbacks ${cb.toFixed(1)} ms, readdirSync + statSync ${sync.toFixed(1)} ms, Burrow ${h.toFixed(1)} ms`,
    );
    const ceiling = Math.min(cb, sync);
    return [
      costRow(
        'list a 10,000-file folder',
        h,
        ceiling,
        'ms',
        '≥ 0.83',
        `bare Node readdir + stat, no HTTP: the faster of callbacks and a statSync loop (${cb <= sync ? 'callbacks' : 'statSync'})`,
      ),
    ];
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
}

await runAlone(import.meta.main, rows);
