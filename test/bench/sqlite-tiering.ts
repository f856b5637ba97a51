// The --liftoff-only trade: node-sqlite3-wasm with V8's optimizing WebAssembly tier (default)
// and with the baseline compiler only (the executable's SEA execArgv, build/build.ts). Each
// variant runs in its own Node process: 100k inserts in one transaction, 2,000 indexed page
// reads, a GROUP BY, a LIKE '%x%' scan; then RSS right after and after 5 s idle.
// Printed, not asserted; medians of 3 processes per variant.
//
//   npm run bench -- sqlite-tiering
//
// Measured (linux-x64, 2 cores shared with other test runs, medians of 3):
//   default tier    insert 100k 1841 ms, 2000 page reads 456 ms, GROUP BY x5 466 ms, LIKE x5 145 ms; RSS 117.1 MB
//   --liftoff-only  insert 100k 1713 ms, 2000 page reads 827 ms, GROUP BY x5 590 ms, LIKE x5 173 ms; RSS  95.9 MB
//   ratio: insert 0.93x, page reads 1.81x, GROUP BY 1.27x, LIKE 1.19x; idle RSS -21.1 MB
// The executable sets it at run time (src/db/wasm-tier.ts, so that V8's code caches stay valid):
// the third variant checks that this is the same baseline-only tier. With
// --trace-wasm-compilation-times on the same work: default 331 Liftoff + 65 TurboFan compilations,
// --liftoff-only and the run-time flags 331-332 Liftoff and none by TurboFan, both RSS 81 MB (102).
// Kept: --liftoff-only. A page read stays well under a millisecond either way (a listing's HTTP
// answer costs more), while the 21 MB the optimizing tier keeps is a third of the idle target.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { wasmBaselineOnly } from '../../src/db/wasm-tier.ts';

const RUNS = 3;
const child = process.argv[2] === '--child';

function work(): void {
  // The executable's way: the tier chosen at run time, before the module compiles (src/db/wasm-tier.ts).
  if (process.argv[3] === '--runtime-flag') wasmBaselineOnly();
  // node-sqlite3-wasm is CommonJS: a plain require, as the bundle does.
  const { Database } = createRequire(import.meta.url)('node-sqlite3-wasm') as { Database: new (f: string) => any };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-tier-'));
  const db = new Database(path.join(dir, 'b.db'));
  const t = (fn: () => void) => {
    const s = process.hrtime.bigint();
    fn();
    return Number(process.hrtime.bigint() - s) / 1e6;
  };
  db.exec(
    'PRAGMA locking_mode = EXCLUSIVE; PRAGMA synchronous = NORMAL; CREATE TABLE f (id INTEGER PRIMARY KEY, dir TEXT, name TEXT, size INTEGER); CREATE INDEX f_dir ON f (dir, name);',
  );
  const insert = t(() => {
    db.exec('BEGIN');
    const st = db.prepare('INSERT INTO f (dir, name, size) VALUES (?, ?, ?)');
    for (let i = 0; i < 100_000; i++) st.run([`d${i % 500}`, `file-${i}-${(i * 7919) % 100_000}.txt`, i * 13]);
    st.finalize();
    db.exec('COMMIT');
  });
  const pages = t(() => {
    const st = db.prepare('SELECT * FROM f WHERE dir = ? ORDER BY name LIMIT 100');
    for (let i = 0; i < 2000; i++) st.all([`d${i % 500}`]);
    st.finalize();
  });
  const group = t(() => {
    for (let i = 0; i < 5; i++) db.all('SELECT dir, COUNT(*), SUM(size) FROM f GROUP BY dir');
  });
  const like = t(() => {
    for (let i = 0; i < 5; i++) db.all("SELECT id FROM f WHERE name LIKE '%99%'");
  });
  const rss = process.memoryUsage().rss / 2 ** 20;
  // The idle reading is taken 5 s later on purpose: the time is the measure, not a condition.
  setTimeout(() => {
    const idle = process.memoryUsage().rss / 2 ** 20;
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
    process.stdout.write(JSON.stringify({ insert, pages, group, like, rss, idle }) + '\n');
  }, 5000);
}

if (child) {
  work();
} else {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const variants: [string, string[]][] = [
    ['optimizing tier (default)', []],
    ['--liftoff-only', ['--liftoff-only']],
    ['set at run time', []],
  ];
  const results: Record<string, Record<string, number>> = {};
  for (const [name, flags] of variants) {
    const runs: Record<string, number>[] = [];
    for (let i = 0; i < RUNS; i++) {
      const runtime = name === 'set at run time' ? ['--runtime-flag'] : [];
      const r = spawnSync(process.execPath, [...flags, new URL(import.meta.url).pathname, '--child', ...runtime], {
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(r.stderr);
      runs.push(JSON.parse(r.stdout.trim()));
    }
    results[name] = Object.fromEntries(Object.keys(runs[0]!).map((k) => [k, median(runs.map((x) => x[k]!))]));
  }
  const base = results['optimizing tier (default)']!;
  for (const [name, r] of Object.entries(results)) {
    console.log(
      `${name.padEnd(26)} insert 100k ${r.insert!.toFixed(0)} ms, 2000 page reads ${r.pages!.toFixed(0)} ms, GROUP BY x5 ${r.group!.toFixed(0)} ms, LIKE x5 ${r.like!.toFixed(0)} ms; RSS ${r.rss!.toFixed(1)} MB, after 5 s ${r.idle!.toFixed(1)} MB`,
    );
  }
  const lo = results['--liftoff-only']!;
  console.log(
    `liftoff-only / default: insert ${(lo.insert! / base.insert!).toFixed(2)}x, pages ${(lo.pages! / base.pages!).toFixed(2)}x, GROUP BY ${(lo.group! / base.group!).toFixed(2)}x, LIKE ${(lo.like! / base.like!).toFixed(2)}x; idle RSS ${(lo.idle! - base.idle!).toFixed(1)} MB`,
  );
  const rt = results['set at run time']!;
  console.log(
    `set at run time / --liftoff-only: pages ${(rt.pages! / lo.pages!).toFixed(2)}x, GROUP BY ${(rt.group! / lo.group!).toFixed(2)}x; idle RSS ${(rt.idle! - lo.idle!).toFixed(1)} MB`,
  );
}
