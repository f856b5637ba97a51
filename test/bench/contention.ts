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
// Why they starved first: every upload keeps one pwritev in flight on libuv's thread pool, and its
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
// Better, far from 0.5×. WAL (114a5d0) took the database's fsync off every commit since.
//
// Where the time went then (2026-11-30, the executable, WAL, pool 16, load 13-20): the same
// rows at 0.03-0.28× (zip), 0.04-0.48× (listing), 0.04-0.19× (download) in five runs, the
// idle figures faster (zip 18-45 ms). Per-thread states sampled every 50 ms through the loaded
// rounds: the pool threads asleep (futex) in 2475 of ~2800 samples, the main thread runnable (R)
// in 133 of 166 and asleep in epoll in 22 — yet it ran 2.3 s of CPU in 9.4 s. So nothing waits
// on the disk or the pool: the main thread wants the CPU and the machine gives it a quarter of
// a core, and what it gets goes to the uploads' bytes (a CPU profile of the run: fs.writev
// submissions 1.1 s, socket reads and the HTTP parser's copies, the collector 1.7 s) before the
// listing's. A bare Node server (support/plain-server.ts) under the same four uploads does no
// better: 0.14× (zip), 0.37× (listing), 0.20× (download) in the run of 2026-11-30 01:02.
//
// The fix is priority, not speed: upload bodies yield to people's other requests (core/load.ts,
// uploads/body-writer.ts) — while a request that is not a bulk body is younger than 2 s, each
// upload stops reading its socket after its batch (TCP holds the sender back) and goes on once
// that request is answered, or after 200 ms with a 4 MiB slice. Measured after, four runs:
// zip 0.36-0.73×, listing 0.13-0.29×, download 0.39-0.86×. Most of a short request's wait was
// then the loop turn it arrives in (a bare /readyz: 13-33 ms p50 during uploads): the bench's
// requests come one after another, like a person's, and between two of them the uploads had
// filled the loop again. So bulk bodies also linger LINGER_MS (100 ms) after the last answer.
// A/B through the executable, interleaved (landed, linger, linger, landed, landed, linger;
// 2026-11-30 01:33-01:41, load 16-19), during/idle ratios zip / listing / download — without
// the linger 0.16/0.16/0.36, 0.13/0.10/0.30, 0.12/0.04/0.50; with it 0.98/1.62/0.89,
// 0.76/0.88/1.82, 0.63/0.31/0.48; the uploads' own rate over the loaded period 107-113 MB/s
// without, 80-149 with; the bare Node server's in the same runs 0.03-0.07 (zip), 0.12-0.55
// (listing), 0.08-0.15 (download). Left: the listing's spread (0.31-1.62×) on this machine.
// 2026-11-30 05:00-05:17, load 38-46, three runs (the first before a body yielding inside the
// linger went on at its end instead of after MAX_YIELD_MS): zip/listing/download 0.26/0.52/0.65,
// 0.33/0.38/0.39, 1.05/1.66/0.88; the uploads 126, 52, 174 MB/s in all; the bare Node server
// 0.07-0.22×. At that load the spread between runs is larger than any change.
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
import { CHUNK, expect, pump, request, tusUpload } from './support/upload-client.ts';
import { startPlainServer } from './support/plain-server.ts';
import { costRow, runAlone, type BenchOptions, type BenchRow } from './support/table.ts';

const UPLOADS = 4;
type Op = 'zip' | 'listing' | 'download';
type Samples = Record<Op, number[]>;

/**
 * Each op idle (half the rounds before, half after), then `rounds` times while UPLOADS loops
 * each send `upload` after `upload` (every finished file given to `removeFile`), once every loop
 * has finished one, so the measure falls on the steady state.
 */
async function underUploads(
  ops: Record<Op, () => Promise<number>>,
  upload: (agent: http.Agent, name: string) => Promise<void>,
  removeFile: (name: string) => void,
  rounds: number,
): Promise<{ idle: Samples; busy: Samples; rate: string }> {
  const names = Object.keys(ops) as Op[];
  const idle: Samples = { zip: [], listing: [], download: [] };
  const busy: Samples = { zip: [], listing: [], download: [] };
  const measure = async (into: Samples, n: number) => {
    for (let i = 0; i < n; i++) for (const k of names) into[k].push(await ops[k]());
  };
  for (const k of names) await ops[k](); // warm-up
  await measure(idle, Math.ceil(rounds / 2));
  let stop = false;
  let uploaded = 0;
  const started = performance.now();
  const loops = Array.from({ length: UPLOADS }, async (_, k) => {
    const agent = new http.Agent({ keepAlive: true });
    for (let n = 0; !stop; n++) {
      const name = `clip ${k}-${n} (copie).bin`;
      await upload(agent, name);
      uploaded += UPLOAD_BYTES;
      removeFile(name);
    }
    agent.destroy();
  });
  let failed: unknown = null;
  const running = Promise.all(loops).catch((err) => {
    failed = err;
    stop = true;
  });
  while (!stop && uploaded < UPLOADS * UPLOAD_BYTES) await new Promise((r) => setTimeout(r, 100));
  await measure(busy, rounds);
  stop = true;
  const seconds = (performance.now() - started) / 1000;
  await running;
  if (failed) throw failed;
  await measure(idle, Math.ceil(rounds / 2));
  return { idle, busy, rate: (uploaded / MB / seconds).toFixed(0) };
}
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
    const burrow = await underUploads(
      {
        zip: () => ms(`${s.url}/api/download`, JSON.stringify({ path: `Files/${album}` })),
        listing: () => ms(`${s.url}/api/browse/Files/${encodeURIComponent(docs)}`),
        download: () => ms(`${s.url}/api/download/Files/${encodeURIComponent('Home video 2019.mp4')}`),
      },
      (agent, name) =>
        tusUpload(agent, s.url, UPLOAD_BYTES, { filename: name, uploadTo: `Files/${incoming}`, first: 8 * MB }),
      (name) => fs.rmSync(path.join(root, incoming, name), { force: true }),
      rounds,
    );
    // The fair ceiling: a bare Node server (support/plain-server.ts) over the same files, the same
    // requests' work (a stored zip's reads and CRCs, readdir + stat, pooled reads) under the same
    // four uploads (8 MiB PUTs written with Burrow's body writer, flushed at the end), same run.
    const plain = await startPlainServer(root);
    let bare: Awaited<ReturnType<typeof underUploads>>;
    try {
      const at = (name: string) => `${plain.url}/write/${encodeURIComponent(incoming)}/${encodeURIComponent(name)}`;
      bare = await underUploads(
        {
          zip: () => ms(`${plain.url}/zipwork/${encodeURIComponent(album)}?store`),
          listing: () => ms(`${plain.url}/list/${encodeURIComponent(docs)}`),
          download: () => ms(`${plain.url}/pooled/${encodeURIComponent('Home video 2019.mp4')}`),
        },
        async (agent, name) => {
          for (let offset = 0; offset < UPLOAD_BYTES; offset += CHUNK) {
            const n = Math.min(CHUNK, UPLOAD_BYTES - offset);
            const last = offset + n === UPLOAD_BYTES ? '&last' : '';
            const answer = await request(
              agent,
              'PUT',
              `${at(name)}?at=${offset}${last}`,
              { 'content-length': n },
              (req) => pump(req, n),
            );
            expect(answer, 201);
          }
        },
        () => {},
        rounds,
      );
    } finally {
      plain.close();
    }

    const p90 = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!);
    const note = (k: Op) =>
      `the same request idle, same run (medians: idle ${burrow.idle[k].length}, during ${burrow.busy[k].length}; ` +
      `during p90 ${p90(burrow.busy[k])} ms); ${UPLOADS} TUS uploads of ${UPLOAD_BYTES / MB} MiB in 8 MiB PATCHes ` +
      `back to back, ${burrow.rate} MB/s in all; a bare Node server under the same load (8 MiB PUTs, ${bare.rate} MB/s): ` +
      `${median(bare.busy[k]).toFixed(0)} vs ${median(bare.idle[k]).toFixed(0)} ms idle, ` +
      `${(median(bare.idle[k]) / median(bare.busy[k])).toFixed(2)}×; libuv pool ${pool ?? 'default'}; ` +
      `load ${os.loadavg()[0]!.toFixed(1)}`;
    const row = (operation: string, k: Op) =>
      costRow(operation, median(burrow.busy[k]), median(burrow.idle[k]), 'ms', '≥ 0.5', note(k));
    return [
      row('zip a 28-file folder (9 MB) during uploads', 'zip'),
      row('list a 1,000-file folder during uploads', 'listing'),
      row('download 64 MiB during uploads', 'download'),
    ];
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
}

await runAlone(import.meta.main, rows);
