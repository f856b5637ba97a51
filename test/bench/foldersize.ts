// Baseline walk of a generated 100,000-file / 5,000-folder tree by the real indexer (worker
// walk + batched writes on the main thread) against `du -sb` of the same tree in the same run;
// event-loop delay of the main thread during the walk (p50/p99/max) and peak RSS.
// Run: node test/bench/foldersize.ts [files=100000] [folders=5000]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/http/log.ts';

const FILES = Number(process.argv[2] ?? 100_000);
const FOLDERS = Number(process.argv[3] ?? 5000);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-bench-fs-'));
const vol = path.join(root, 'volumes', 'Data');
let bytes = 0;
for (let d = 0; d < FOLDERS; d++) {
  const dir = path.join(vol, `group-${d % 50}`, `folder-${d}`);
  fs.mkdirSync(dir, { recursive: true });
  for (let f = 0; f < FILES / FOLDERS; f++) {
    const n = (d * 7 + f * 13) % 3000;
    fs.writeFileSync(path.join(dir, `file-${d}-${f}.dat`), Buffer.alloc(n));
    bytes += n;
  }
}

function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}
execFileSync('du', ['-sb', vol]); // warm the cache for both
const duMs = Math.min(time(() => execFileSync('du', ['-sb', vol])), time(() => execFileSync('du', ['-sb', vol])));

const env = {
  HOST: '127.0.0.1', PORT: '0', VOLUME_ROOT: path.join(root, 'volumes'), CONFIG_DIR: path.join(root, 'config'), CACHE_DIR: path.join(root, 'cache'),
  AUTH_MODE: 'disabled', FOLDER_SIZE_MODE: 'full', LOG_LEVEL: 'info',
};
let finished: (line: Record<string, any>) => void = () => {};
const done = new Promise<Record<string, any>>((r) => { finished = r; });
const app = createApp(loadConfig(env), { uiDir: null, log: createLogger('info', {}, (line) => { const l = JSON.parse(line); if (l.msg === 'index baseline walk finished') finished(l); }) }, env);
const delay = monitorEventLoopDelay({ resolution: 5 });
const rssBefore = process.memoryUsage().rss;
let peakRss = rssBefore;
const rssTimer = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 20);
const started = performance.now();
delay.enable();
await app.listen(0, '127.0.0.1');
const line = await done;
const walkMs = performance.now() - started;
delay.disable();
clearInterval(rssTimer);
const row = app.db.get<{ total_size: number; total_entries: number }>("SELECT total_size, total_entries FROM idx_entries WHERE dir = '' AND name = ''");
const dbBytes = fs.statSync(path.join(root, 'config', 'burrow.db')).size;
await app.close(1000);
fs.rmSync(root, { recursive: true, force: true });

const ms = (ns: number) => (ns / 1e6).toFixed(1);
console.log(JSON.stringify({
  tree: { files: FILES, folders: FOLDERS + 50, bytes },
  indexed: { bytes: row?.total_size, entries: row?.total_entries, correct: row?.total_size === bytes },
  duMs: Math.round(duMs),
  baselineMs: Math.round(walkMs),
  workerWalkMs: line.ms,
  ratioToDu: Number((walkMs / duMs).toFixed(2)),
  eventLoopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
  peakRssMb: Math.round(peakRss / 1048576),
  rssGrowthMb: Math.round((peakRss - rssBefore) / 1048576),
  dbBytesPerEntry: row ? Math.round(dbBytes / row.total_entries) : null,
}, null, 2));
