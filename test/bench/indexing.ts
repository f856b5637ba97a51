// Background work never starves a person: download and TUS throughput and browse latency
// measured while a fresh catalogue pass of a generated tree runs (folder sizes, every name, the
// text of the documents in it), each against the same figure measured idle on the same server
// in the same run (before and after the pass, interleaved with nothing else). Goal: ≥ 0.8 of idle.
//
// The pass is started by a restart with FOLDER_SIZE_REBUILD=true, so it runs from launch, as on a
// first start. The client keeps the server busy for the whole pass (or MAX_LOADED_S, whichever
// ends first); the pass's own duration, idle and under load, is printed as a note.
//
//   npm run bench -- indexing [--quick] [--million]      (BURROW_TEST_SERVER=source: from source)
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { launch, type BenchServer, type LogLine } from './support/serve.ts';
import { rateRow, costRow, runAlone, type BenchOptions, type BenchRow } from './support/table.ts';
import { block, CHUNK, request, tusUpload } from './support/upload-client.ts';

const MiB = 1024 * 1024;
const run = promisify(execFile);

export interface IndexingOptions extends BenchOptions {
  /** A 1,000,000-file tree instead of 100,000 (`--million`). */
  million?: boolean;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
};

/** Files in folders of 20, one in ten a short text document (the content catalogue reads it). */
function makeTree(dir: string, files: number): void {
  const perFolder = 20;
  for (let d = 0; d * perFolder < files; d++) {
    const folder = path.join(dir, `group-${d % 100}`, `folder-${d}`);
    fs.mkdirSync(folder, { recursive: true });
    for (let f = 0; f < perFolder && d * perFolder + f < files; f++) {
      const doc = f % 10 === 0;
      fs.writeFileSync(
        path.join(folder, doc ? `note-${d}-${f}.txt` : `file-${d}-${f}.dat`),
        doc
          ? `meeting notes ${d} ${f}\nthe quarterly figures for folder ${d}\n`
          : Buffer.alloc((d * 7 + f * 13) % 3000),
      );
    }
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
/** curl in its own process: reading a fast download in this process would cap both figures alike. */
async function download(s: BenchServer, bytes: number): Promise<number> {
  const { stdout } = await run('curl', [
    '-s',
    '-o',
    '/dev/null',
    '-w',
    '%{size_download} %{time_total} %{http_code}',
    `${s.url}/api/download/Files/big.bin`,
  ]);
  const [got, seconds, status] = stdout.trim().split(' ').map(Number);
  if (status !== 200 || got !== bytes) throw new Error(`download answered ${status}, ${got} bytes`);
  return bytes / MiB / seconds!;
}

let tusCount = 0;
/**
 * Each upload is removed after it is timed (behind the server's back, no request): kept, the
 * ~190 uploads of a run wrote 12 GB that stayed, and this virtual disk writes new blocks far
 * slower than it rewrites freed ones — the same upload, idle, went from 413-475 MB/s before the
 * pass to 238-363 after it, and the rounds during the pass from ~450 down to ~270 in order. Not
 * Burrow's: 150 × 64 MiB written and fdatasynced by plain Node, kept, ran at 1502 then ~350 MB/s
 * (medians of each 30) and removed after each at 1740-1918 throughout; Burrow's TUS alone, idle,
 * kept 441 → 268, removed 677-717 (2026-11-24).
 */
async function tus(s: BenchServer, bytes: number, uploads: string): Promise<number> {
  const name = `tus-${tusCount++}.bin`;
  const t = performance.now();
  await tusUpload(agent, s.url, bytes, { filename: name, uploadTo: 'Files/uploads', first: CHUNK });
  const rate = bytes / MiB / ((performance.now() - t) / 1000);
  fs.rmSync(path.join(uploads, name));
  return rate;
}

async function browse(s: BenchServer): Promise<number> {
  const t = performance.now();
  const r = await request(agent, 'GET', `${s.url}/api/browse/Files/many`, {});
  if (r.status !== 200) throw new Error(`browse answered ${r.status}`);
  return performance.now() - t;
}

interface Figures {
  download: number[];
  tus: number[];
  browse: number[];
}

async function round(s: BenchServer, f: Figures, bigBytes: number, tusBytes: number, uploads: string): Promise<void> {
  f.download.push(await download(s, bigBytes));
  f.tus.push(await tus(s, tusBytes, uploads));
  for (let i = 0; i < 5; i++) f.browse.push(await browse(s));
}

export async function rows(opts: IndexingOptions = {}): Promise<BenchRow[]> {
  const million = opts.million ?? process.argv.includes('--million');
  const files = million ? 1_000_000 : opts.quick ? 30_000 : 100_000;
  const bigBytes = (opts.quick ? 128 : 256) * MiB;
  const tusBytes = (opts.quick ? 32 : 64) * MiB;
  const idleRounds = opts.quick ? 2 : 3;
  const maxLoadedMs = (million ? 120 : opts.quick ? 20 : 60) * 1000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-bench-idx-'));
  const volumes = path.join(dir, 'volumes');
  const data = path.join(volumes, 'Data');
  makeTree(data, files);
  fs.mkdirSync(path.join(volumes, 'Files', 'many'), { recursive: true });
  const uploads = path.join(volumes, 'Files', 'uploads');
  fs.mkdirSync(uploads);
  for (let i = 0; i < 1000; i++) fs.writeFileSync(path.join(volumes, 'Files', 'many', `item-${i}.txt`), String(i));
  const fd = fs.openSync(path.join(volumes, 'Files', 'big.bin'), 'w');
  for (let i = 0; i < bigBytes / CHUNK; i++) fs.writeSync(fd, block);
  fs.closeSync(fd);
  const dataReal = fs.realpathSync(data);
  const env = {
    VOLUME_ROOT: volumes,
    CONFIG_DIR: path.join(dir, 'config'),
    CACHE_DIR: path.join(dir, 'cache'),
    AUTH_MODE: 'disabled',
    UPLOAD_CHUNKED_ENABLED: 'true',
    FOLDER_SIZE_MODE: 'full',
    LOG_LEVEL: 'info',
  };
  const catalogued = (l: LogLine) => l.msg === 'index catalogue finished' && l.root === dataReal;
  const idle: Figures = { download: [], tus: [], browse: [] };
  const loaded: Figures = { download: [], tus: [], browse: [] };
  let s = await launch(env);
  let passIdleMs = 0;
  let passLoadedMs = 0;
  let finishedUnderLoad = false;
  try {
    // First start: the pass with nobody asking anything (its duration is the idle pass).
    passIdleMs = (await s.waitFor(catalogued)).at - s.launchedAt;
    // Warm the caches and connections, then idle figures.
    await round(s, { download: [], tus: [], browse: [] }, bigBytes, tusBytes, uploads);
    for (let i = 0; i < idleRounds; i++) await round(s, idle, bigBytes, tusBytes, uploads);
    await s.stop();

    // A fresh pass from launch, with the client busy all along.
    s = await launch({ ...env, FOLDER_SIZE_REBUILD: 'true' });
    let done = false;
    const pass = s.waitFor(catalogued).then((l) => {
      done = true;
      passLoadedMs = l.at - s.launchedAt;
    });
    const until = performance.now() + maxLoadedMs;
    for (let n = 0; !done && performance.now() < until; n++) {
      const part: Figures = { download: [], tus: [], browse: [] };
      await round(s, part, bigBytes, tusBytes, uploads);
      if (process.env.BENCH_VERBOSE) console.error('during', done, JSON.stringify(part));
      // The first round warms the new process (as the idle figures' warm-up round did); only
      // rounds that ended while the pass was still running count as "during".
      if (n > 0 && !done) for (const k of ['download', 'tus', 'browse'] as const) loaded[k].push(...part[k]);
    }
    finishedUnderLoad = done;
    await pass.catch(() => {});
    if (!done) await s.waitFor(catalogued);
    for (let i = 0; i < idleRounds; i++) await round(s, idle, bigBytes, tusBytes, uploads);
    if (process.env.BENCH_VERBOSE) console.error('idle', JSON.stringify(idle));
  } finally {
    await s.stop();
    agent.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const size = million ? '1M' : `${Math.round(files / 1000)}k`;
  const passNote =
    `idle medians of ${idle.download.length} rounds (before and after the pass); during: ${loaded.download.length} rounds; ` +
    `the ${size}-file pass took ${(passIdleMs / 1000).toFixed(1)} s idle, ` +
    (finishedUnderLoad
      ? `${(passLoadedMs / 1000).toFixed(1)} s under constant load`
      : `more than ${maxLoadedMs / 1000} s under constant load`);
  if (!loaded.download.length) throw new Error(`the ${size} pass ended before one loaded round: ${passNote}`);
  return [
    rateRow(
      `download ${bigBytes / MiB} MiB during a fresh ${size} catalogue pass`,
      median(loaded.download),
      median(idle.download),
      'MB/s',
      '≥ 0.8',
      `ceiling: the same download idle; ${passNote}`,
    ),
    rateRow(
      `TUS upload ${tusBytes / MiB} MiB (8 MiB PATCHes) during the pass`,
      median(loaded.tus),
      median(idle.tus),
      'MB/s',
      '≥ 0.8',
      'ceiling: the same upload idle',
    ),
    costRow(
      'browse a 1,000-file folder during the pass',
      median(loaded.browse),
      median(idle.browse),
      'ms',
      '≥ 0.8',
      'ceiling: the same listing idle (median latency)',
    ),
  ];
}

await runAlone(import.meta.main, rows);
