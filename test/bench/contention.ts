// A zip, a listing and a download while uploads run, against the same requests idle, through the
// executable, in one run (issue 33, item 2: each ≥ 0.5× of its idle speed):
//   - zip: POST /api/download of a 28-file folder (issue 33's case: 15 ms idle, 1.3-3.4 s during
//     uploads);
//   - listing: GET /api/browse of a 1,000-file folder;
//   - download: 64 MiB by GET /api/download.
// "During": UPLOADS (4) clients each sending TUS uploads of 128 MiB in 8 MiB PATCHes back to back
// from this process (each upload flushed before it is placed), every finished file removed by the
// bench so the disk does not fill. Each request is timed by curl in its own process; the idle
// rounds are taken before and after the loaded ones and pooled; figures are medians.
//
// Why they starved: every upload keeps one pwritev in flight on libuv's thread pool, and its
// fdatasync before placement holds a thread until the disk has the file (seconds while others
// write); with libuv's default of 4 threads, a zip's dozens of open/read/close trips queued
// behind them. Burrow now starts with 16 threads unless UV_THREADPOOL_SIZE says otherwise
// (src/threadpool.ts). `BURROW_BENCH_THREADPOOL=4 npm run bench -- contention` measures the old
// pool size.
//
// Measured (2026-11-29 06:20-06:58, the executable, --quick, machine load 16-22 from other work):
// pool 4 then 16 in back-to-back runs, during/idle medians in ms — zip 1318/52 → 543/49,
// 1005/221 → 913/133, 2925/147 → 2201/108; listing 727/84 → 401/51, 1088/93 → 857/101,
// 1299/190 → 1101/133; download 2347/174 → 980/114, 3850/266 → 3239/399, 3555/384 → 5918/365.
// Better, far from 0.5×. With 16 threads the pool is idle (per-thread states sampled every
// 50 ms during the loaded rounds: the pool threads in futex wait 1591 of ~1650 samples) and the
// main thread is the one that waits: runnable (R) in 65 samples, asleep in epoll 29, twice in
// D state in submit_bio_wait, and a bare /readyz took 75-539 ms against 16-29 idle. Left: the
// database's commits fsync on the main thread (node-sqlite3-wasm's VFS calls fs.fsyncSync;
// rollback journal, synchronous=NORMAL), and with uploads' data queued for the disk a commit's
// fsync waits for it (ext4's ordered journal). WAL works with the exclusive lock Burrow holds
// (no shared memory needed) and would take the fsync off every commit — not done yet: backups,
// doctor and tests copy the database file alone. On this machine at load ~20 the two cores are
// also shared by the upload clients (this process) and curl, so the CPU left to the server is a
// fraction of the idle one whatever it does.
//
// Run: npm run bench -- contention [--quick]     (the source: BURROW_TEST_SERVER=source, where
// the server shares this process, its event loop and its pool with the upload clients)
import './support/executable.ts';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { removeDirs, startServer } from '../support/server.ts';
import { drain, MB, median, quiet, childPid } from './support/measure.ts';
import { tusUpload } from './support/upload-client.ts';
import { costRow, runAlone, type BenchOptions, type BenchRow } from './support/table.ts';

const UPLOADS = 4;
const UPLOAD_BYTES = 128 * MB;

export async function rows(opts: BenchOptions = {}): Promise<BenchRow[]> {
  const rounds = opts.quick ? 5 : 9;
  const pool = process.env.BURROW_BENCH_THREADPOOL;
  const s = await startServer({
    env: {
      AUTH_MODE: 'disabled',
      LOG_LEVEL: 'error',
      UPLOAD_CHUNKED_ENABLED: 'true',
      ...(pool ? { UV_THREADPOOL_SIZE: pool } : {}),
    },
  });
  const root = path.join(s.dirs.volumes, 'Files');
  const album = 'Holiday 2026 — Mum & Dad #1';
  const docs = 'Documents + Letters';
  const incoming = 'Incoming uploads';
  try {
    fs.mkdirSync(path.join(root, album));
    fs.mkdirSync(path.join(root, docs));
    fs.mkdirSync(path.join(root, incoming));
    // 28 photos-like files, 64-640 KiB of random bytes (stored in the zip, as photos are).
    for (let i = 0; i < 28; i++)
      fs.writeFileSync(
        path.join(root, album, `IMG_${4000 + i} café.jpg`),
        crypto.randomBytes((64 + (i % 10) * 64) * 1024),
      );
    for (let i = 0; i < 1000; i++)
      fs.writeFileSync(path.join(root, docs, `Lettre n°${i} à Zoë & Bob.txt`), `letter ${i}\n`);
    const big = path.join(root, 'Home video 2019.mp4');
    fs.writeFileSync(big, crypto.randomBytes(64 * MB));
    if (s.mode === 'executable') await quiet(childPid(/\/burrow-\w+-\w+( |$)/));

    const ms = async (url: string, body?: string) => {
      const r = await drain(url, { body });
      if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
      return r.seconds * 1000;
    };
    const ops: Record<string, () => Promise<number>> = {
      zip: () => ms(`${s.url}/api/download`, JSON.stringify({ path: `Files/${album}` })),
      listing: () => ms(`${s.url}/api/browse/Files/${encodeURIComponent(docs)}`),
      download: () => ms(`${s.url}/api/download/Files/${encodeURIComponent('Home video 2019.mp4')}`),
    };
    const names = Object.keys(ops);
    const idle: Record<string, number[]> = Object.fromEntries(names.map((k) => [k, []]));
    const busy: Record<string, number[]> = Object.fromEntries(names.map((k) => [k, []]));
    const measure = async (into: Record<string, number[]>, n: number) => {
      for (let i = 0; i < n; i++) for (const k of names) into[k]!.push(await ops[k]!());
    };
    for (const k of names) await ops[k]!(); // warm-up
    await measure(idle, Math.ceil(rounds / 2));

    // Sustained uploads: UPLOADS loops, each a TUS upload after another until told to stop.
    let stop = false;
    let uploaded = 0;
    const started = performance.now();
    const loops = Array.from({ length: UPLOADS }, async (_, k) => {
      const agent = new http.Agent({ keepAlive: true });
      for (let n = 0; !stop; n++) {
        const name = `clip ${k}-${n} (copie).bin`;
        await tusUpload(agent, s.url, UPLOAD_BYTES, { filename: name, uploadTo: `Files/${incoming}`, first: 8 * MB });
        uploaded += UPLOAD_BYTES;
        fs.rmSync(path.join(root, incoming, name), { force: true });
      }
      agent.destroy();
    });
    let failed: unknown = null;
    const running = Promise.all(loops).catch((err) => {
      failed = err;
      stop = true;
    });
    // Once every loop has a flush behind it, so the measure falls on the steady state.
    while (!stop && uploaded < UPLOADS * UPLOAD_BYTES) await new Promise((r) => setTimeout(r, 100));
    await measure(busy, rounds);
    stop = true;
    const seconds = (performance.now() - started) / 1000;
    await running;
    if (failed) throw failed;
    await measure(idle, Math.ceil(rounds / 2));

    const rate = (uploaded / MB / seconds).toFixed(0);
    const note = (k: string) =>
      `the same request idle, same run (medians: idle ${idle[k]!.length}, during ${busy[k]!.length}; ` +
      `during p90 ${Math.round([...busy[k]!].sort((a, b) => a - b)[Math.floor(busy[k]!.length * 0.9)]!)} ms); ` +
      `${UPLOADS} TUS uploads of ${UPLOAD_BYTES / MB} MiB in 8 MiB PATCHes back to back, ${rate} MB/s in all, ` +
      `libuv pool ${pool ?? 'default'}; load ${os.loadavg()[0]!.toFixed(1)}`;
    return [
      costRow(
        'zip a 28-file folder (9 MB) during uploads',
        median(busy.zip!),
        median(idle.zip!),
        'ms',
        '≥ 0.5',
        note('zip'),
      ),
      costRow(
        'list a 1,000-file folder during uploads',
        median(busy.listing!),
        median(idle.listing!),
        'ms',
        '≥ 0.5',
        note('listing'),
      ),
      costRow(
        'download 64 MiB during uploads',
        median(busy.download!),
        median(idle.download!),
        'ms',
        '≥ 0.5',
        note('download'),
      ),
    ];
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
}

await runAlone(import.meta.main, rows);
