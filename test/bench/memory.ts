// Memory given back (issue 33): the executable's resident memory idle, right after the bench
// workload, 60 s after it, and 60 s after a crowd of clients — each beside the stack's floor
// (startup.ts's FLOOR_SERVER: a bare Node HTTP server with node-sqlite3-wasm compiled as Burrow
// compiles it and node:crypto in use, no Burrow code) doing the same bytes in the same round.
// Printed, not asserted. Goals: idle ≤ 70 MB; ≤ 110 MB within 60 s after the workload; ≤ 150 MB
// within 60 s after 100 clients.
//
//   npm run bench -- memory [--quick]
//
// The workload is startup.ts's (browse a 10,000-file folder, search, a 32 MiB upload, 20 × 1 MiB
// downloads and their zip) plus the thumbnail and a 1920 px rendition of 8 camera JPEGs of
// 3000 × 2000 (what a photo folder's first visit does). The crowd: 100 clients at once for 60 s
// (--quick: 20 s), each looping over a listing of a 1,000-file folder, a search, a 1 MiB download,
// a thumbnail and a 256 KiB upload; the floor's crowd downloads and uploads the same files. The
// peak during the crowd is sampled every 250 ms. Each reading says where the memory is
// (support/memory-probe.ts: the executable's pages, glibc's main arena, WebAssembly memories,
// the rest of the anonymous memory).
//
// BURROW_BENCH_BASELINE=<executable> also runs that executable (an earlier build kept aside) in
// every round on fresh folders of its own: a change weighed against what it replaces.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bareEnv, ensureBinary, sandbox, type Sandbox } from '../binary/harness.ts';
import { cameraJpeg } from '../support/media.ts';
import {
  bareWorkload,
  baselineBox,
  FLOOR_SERVER,
  freePort,
  launch,
  makeTree,
  SQLITE_MODULE,
  workload,
} from './startup.ts';
import { median } from './support/measure.ts';
import { describeParts, memoryParts, type MemoryParts } from './support/memory-probe.ts';
import { costRow, runAlone, type BenchOptions, type BenchRow } from './support/table.ts';

const MiB = 1024 * 1024;
/** Idle: the first walk is done and the walker thread has left (startup.ts: LATE_MS). */
const IDLE_MS = 25_000;
const RIGHT_AFTER_MS = 3_000;
const GIVEN_BACK_MS = 60_000;
const CLIENTS = 100;
const PHOTOS = 8;

/** The readings are taken at fixed times (the time is what is measured, not a condition). */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function drain(res: Response, what: string): Promise<void> {
  const body = await res.arrayBuffer();
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${Buffer.from(body).toString('utf8').slice(0, 200)}`);
}

/** The photo folder and a 1,000-file folder for the crowd, beside makeTree's files. */
async function makeMore(volume: string): Promise<void> {
  fs.mkdirSync(path.join(volume, 'Fotos Sommer 2026'), { recursive: true });
  for (let i = 0; i < PHOTOS; i++) {
    const jpeg = await cameraJpeg(3000, 2000, {
      make: 'FUJIFILM',
      model: 'X-T30',
      exposure: 1 / 250,
      fNumber: 5.6,
      iso: 400,
      taken: `2026:07:${String(10 + i).padStart(2, '0')} 18:03:22`,
      focalLength: 23,
      lens: 'XF23mmF2 R WR',
    });
    fs.writeFileSync(path.join(volume, 'Fotos Sommer 2026', `DSCF${4100 + i}.JPG`), jpeg);
  }
  const small = path.join(volume, 'Briefe & Rechnungen');
  fs.mkdirSync(small, { recursive: true });
  for (let i = 0; i < 1000; i++) fs.writeFileSync(path.join(small, `Rechnung #${i} (Kopie).txt`), `Rechnung ${i}\n`);
}

function photoPath(i: number): string {
  return `Files/${encodeURIComponent('Fotos Sommer 2026')}/DSCF${4100 + i}.JPG`;
}

async function thumbnails(base: string): Promise<void> {
  for (let i = 0; i < PHOTOS; i++)
    for (const size of ['', '?size=1920']) {
      const res = await fetch(`${base}/api/thumbnails/${photoPath(i)}${size}`);
      if (!res.ok) throw new Error(`thumbnail: HTTP ${res.status}`);
      const { thumbnail } = (await res.json()) as { thumbnail: string };
      if (!thumbnail) throw new Error(`no thumbnail for photo ${i}`);
      await drain(await fetch(base + thumbnail), 'thumbnail picture');
    }
}

/** Failed crowd requests by server and reason, printed under the table. */
const failures = new Map<string, number>();

/** `CLIENTS` loops for `ms`, each going round `ops` from a different starting point. */
async function crowd(who: string, ms: number, ops: ((n: number) => Promise<void>)[]): Promise<number> {
  const end = performance.now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let n = c; performance.now() < end; n++) {
        try {
          await ops[n % ops.length]!(n);
          done++;
        } catch (err) {
          // Counted, not fatal: a refused or dropped request is part of what a crowd meets.
          // fetch's own error is "fetch failed"; what happened (EPIPE, ECONNRESET) is its cause.
          const why = `${who}: ${String((err as Error & { cause?: Error }).cause?.message ?? (err as Error).message).slice(0, 60)}`;
          failures.set(why, (failures.get(why) ?? 0) + 1);
        }
      }
    }),
  );
  return done;
}

const burrowCrowd = (base: string, tree: { zipped: string[] }) => [
  async () => drain(await fetch(`${base}/api/browse/Files/${encodeURIComponent('Briefe & Rechnungen')}`), 'browse'),
  async (n: number) => drain(await fetch(`${base}/api/search?q=Rechnung+%23${n % 1000}&path=Files`), 'search'),
  async (n: number) =>
    drain(await fetch(`${base}/api/download/Files/mix/${tree.zipped[n % tree.zipped.length]}`), 'download'),
  async (n: number) => drain(await fetch(`${base}/api/thumbnails/${photoPath(n % PHOTOS)}`), 'thumbnail'),
  async (n: number) => {
    const form = new FormData();
    form.append('uploadTo', 'Files');
    form.append('filedata', new Blob([crypto.randomBytes(256 * 1024)]), `Scan ${n} (crowd).pdf`);
    await drain(await fetch(`${base}/api/upload`, { method: 'POST', body: form }), 'upload');
  },
];

const floorCrowd = (base: string, tree: { zipped: string[] }) => [
  async (n: number) => drain(await fetch(`${base}/mix/${tree.zipped[n % tree.zipped.length]}`), 'floor download'),
  async (n: number) =>
    drain(
      await fetch(`${base}/crowd-${n % 50}.bin`, { method: 'PUT', body: new Blob([crypto.randomBytes(256 * 1024)]) }),
      'floor upload',
    ),
];

interface Sample {
  idle: MemoryParts;
  rightAfter: MemoryParts;
  givenBack: MemoryParts;
  crowdPeakMb: number;
  crowdOps: number;
  afterCrowd: MemoryParts;
  /** The machine's 1-minute load average at the readings (it is shared: the figures move with it). */
  load: number[];
}

/** One server's readings: idle, after `work` (3 s and 60 s later), the crowd's peak and 60 s after it. */
async function sample(pid: number, work: () => Promise<unknown>, crowdOps: () => Promise<number>): Promise<Sample> {
  const load: number[] = [];
  const read = () => (load.push(os.loadavg()[0]!), memoryParts(pid));
  await sleep(IDLE_MS);
  const idle = read();
  await work();
  let t = performance.now();
  await sleep(RIGHT_AFTER_MS);
  const rightAfter = read();
  await sleep(GIVEN_BACK_MS - (performance.now() - t));
  const givenBack = read();
  let peak = 0;
  const probe = setInterval(() => (peak = Math.max(peak, memoryParts(pid).rssMb)), 250);
  let ops: number;
  try {
    ops = await crowdOps();
  } finally {
    clearInterval(probe);
  }
  t = performance.now();
  await sleep(GIVEN_BACK_MS);
  const afterCrowd = read();
  return { idle, rightAfter, givenBack, crowdPeakMb: peak, crowdOps: ops, afterCrowd, load };
}

export async function rows(opts: BenchOptions = {}): Promise<BenchRow[]> {
  const runs = opts.quick ? 1 : 3;
  const crowdMs = opts.quick ? 20_000 : 60_000;
  ensureBinary();
  const baseline = process.env.BURROW_BENCH_BASELINE;
  const floor: Sample[] = [];
  const burrow: Sample[] = [];
  const before: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    const box = sandbox();
    try {
      const volume = path.join(box.volumeRoot, 'Files');
      fs.mkdirSync(volume, { recursive: true });
      const tree = makeTree(volume, false);
      await makeMore(volume);
      const floorPort = await freePort();
      const env = { PATH: '/usr/bin:/bin', PORT: String(floorPort), ROOT: volume, SQLITE_MODULE };
      const stack = await launch(process.execPath, ['-e', FLOOR_SERVER], box.dir, env, floorPort, '/');
      // Its failure is caught here and thrown after Burrow's run: a rejection nobody awaits yet
      // would stop the whole process (Node's unhandled-rejection rule) in the middle of Burrow's.
      const floorRun = (async () => {
        try {
          const photos = async () => {
            for (let p = 0; p < PHOTOS; p++)
              await drain(await fetch(`${stack.base}/${photoPath(p).slice('Files/'.length)}`), 'floor photo');
          };
          floor.push(
            await sample(
              stack.child.pid!,
              async () => (await bareWorkload(stack.base, tree), await photos()),
              () => crowd('floor', crowdMs, floorCrowd(stack.base, tree)),
            ),
          );
        } finally {
          await stack.stop();
        }
      })().then(
        () => null,
        (err: unknown) => err,
      );
      const burrowRun = async (binary: string, dirs: Sandbox, into: Sample[]) => {
        const port = await freePort();
        // HTTPS off: its default port (3443) may be another server's on this machine.
        const env = bareEnv(dirs, { PORT: String(port), HTTPS_PORT: 'off', LOG_LEVEL: 'warn', AUTH_MODE: 'disabled' });
        // A start on a loaded machine (the 10,000-file volume's first walk): up to a minute.
        const server = await launch(binary, [], box.dir, env, port, '/readyz', 60_000);
        try {
          into.push(
            await sample(
              server.child.pid!,
              async () => (await workload(server.base, tree, 5), await thumbnails(server.base)),
              () => crowd('Burrow', crowdMs, burrowCrowd(server.base, tree)),
            ),
          );
        } finally {
          await server.stop();
        }
      };
      // The floor runs beside Burrow (it does little; its readings are what Node keeps).
      await burrowRun(box.binary, box, burrow);
      if (baseline) {
        await burrowRun(...baselineBox(box, baseline), before);
      }
      const floorFailed = await floorRun;
      if (floorFailed) throw floorFailed;
    } finally {
      box.remove();
    }
  }
  return [...memoryRows('', burrow, floor, runs, crowdMs), ...memoryRows('baseline: ', before, floor, runs, crowdMs)];
}

function memoryRows(label: string, xs: Sample[], floor: Sample[], runs: number, crowdMs: number): BenchRow[] {
  if (!xs.length) return [];
  const m = (s: Sample[], pick: (x: Sample) => number) => Math.round(median(s.map(pick)) * 10) / 10;
  const range = (s: Sample[], pick: (x: Sample) => number) =>
    `${Math.min(...s.map(pick)).toFixed(0)}-${Math.max(...s.map(pick)).toFixed(0)}`;
  const last = (pick: (x: Sample) => MemoryParts) => describeParts(pick(xs[xs.length - 1]));
  const loads = xs.flatMap((x) => x.load);
  const n = `median of ${runs}, load ${Math.min(...loads).toFixed(0)}-${Math.max(...loads).toFixed(0)}`;
  return [
    costRow(
      `${label}idle memory (RSS), against the stack's floor`,
      m(xs, (x) => x.idle.rssMb),
      m(floor, (x) => x.idle.rssMb),
      'MB',
      '≤ 70 MB',
      `${IDLE_MS / 1000} s after ready, a 10,000-file volume walked; Burrow ${range(xs, (x) => x.idle.rssMb)} MB, ${n}; the last: ${last((x) => x.idle)}; floor: a bare Node server with node-sqlite3-wasm and node:crypto in use`,
    ),
    costRow(
      `${label}memory 60 s after the workload (RSS), against the stack's floor`,
      m(xs, (x) => x.givenBack.rssMb),
      m(floor, (x) => x.givenBack.rssMb),
      'MB',
      '≤ 110 MB',
      `browse ×5, search ×5, a 32 MiB upload, 20 × 1 MiB downloads and their zip, ${PHOTOS} thumbnails and 1920 px renditions of 3000×2000 JPEGs; ${RIGHT_AFTER_MS / 1000} s after: ${m(xs, (x) => x.rightAfter.rssMb)} MB (floor ${m(floor, (x) => x.rightAfter.rssMb)}); Burrow at 60 s ${range(xs, (x) => x.givenBack.rssMb)} MB, ${n}; the last: ${last((x) => x.givenBack)}; floor: the same bytes read and written`,
    ),
    costRow(
      `${label}memory 60 s after ${CLIENTS} clients × ${crowdMs / 1000} s (RSS), against the stack's floor`,
      m(xs, (x) => x.afterCrowd.rssMb),
      m(floor, (x) => x.afterCrowd.rssMb),
      'MB',
      '≤ 150 MB',
      `each client lists a 1,000-file folder, searches, downloads 1 MiB, asks a thumbnail, uploads 256 KiB, in turn (${m(xs, (x) => x.crowdOps)} requests; floor ${m(floor, (x) => x.crowdOps)}: downloads and uploads); peak during ${m(xs, (x) => x.crowdPeakMb)} MB (floor ${m(floor, (x) => x.crowdPeakMb)}); Burrow ${range(xs, (x) => x.afterCrowd.rssMb)} MB, ${n}; the last: ${last((x) => x.afterCrowd)}`,
    ),
  ];
}

await runAlone(import.meta.main, rows);
if (import.meta.main && failures.size) console.log('crowd requests that failed:', Object.fromEntries(failures));
