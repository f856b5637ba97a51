// Upload throughput against this machine's own ceilings, measured in the same run:
//   disk      — the same bytes written with fs.createWriteStream and flushed (no HTTP): printed,
//               no ceiling here (this virtual disk's flush has two speeds; Burrow beat it in most
//               rounds)
//   receive   — a bare Node server in its own process receiving the same PUT and dropping it (no
//               disk): printed
//   bare PUT  — a bare Node HTTP server piping a PUT body to a file (printed; Burrow beats it)
//   bare writer — a bare Node HTTP server in its own process writing each body with Burrow's
//               body writer into one open file, fdatasync after the last
//               (test/bench/support/plain-server.ts): the same client's one PUT of all the bytes
//               (the ceiling of every Burrow row: Burrow without Burrow) and its 8 MiB PUTs one
//               after the other. Their ratio is the floor of chunking: what the client, HTTP and
//               the round trips cost, which no server can remove
//   Burrow    — the bytes by multipart POST /api/upload, by TUS in one PATCH, by TUS in 8 MiB
//               PATCHes and in the PATCHes the UI sends (8 MiB, then sized from the last one's
//               speed: ui/src/upload/chunk-size.ts); then 1,000 files of 10 KB by multipart (files
//               per second)
// The client runs in a worker thread (its own event loop), sending from memory, so the
// server's work is what is measured. Printed, not asserted.
//
// Where an upload's time goes (256 MiB TUS PATCH from curl, server traced; source, 2 cores):
// the socket is read 64 KiB at a time (~20 reads a MiB; Node's HTTP parser copies each body
// piece into a fresh Buffer), written with ~3 pwritev a MiB (src/uploads/body-writer.ts), one
// fdatasync at the end (0.02-0.11 s: the kernel has written most back by then). The page-cache
// copy of the writes is a third of the samples, on a libuv thread; V8's collector another
// fifth: the parser's fresh buffers are external memory, and the server runs 10-16 full
// collections during one such upload (a bare Node server on the same client: 2-4).
//
// What a PATCH costs beyond its bytes (256 MiB in 8 MiB PATCHes, this bench's client, server
// from source with its request, body and answer events timed; medians of 32 PATCHes a round,
// shared machine): the client's request reaches the server's 'request' event after 0.5-2.0 ms
// (as much against a bare Node server: the client writing 8 MiB into the socket, and a CPU for
// the server), the server reads the body 0.6-0.8 ms after that (HTTP layer 0.3, TUS checks and
// two row reads 0.25; it was 1.6-1.8 ms while each PATCH stat'ed, statfs'ed, opened and closed
// the part one after the other: now the part stays open between PATCHes), the body takes 5-9
// ms, and the answer leaves 1.6-3.7 ms after the body's end: the writes still queued then, 2
// MiB in flight and up to 2 MiB gathered (the disk is the slower side). So the disk idles from
// one PATCH's last write to the next one's first: an answer, the client's next request and the
// checks, ~2-3 ms a PATCH; one PATCH never idles. No fsync per PATCH (service.ts says why).
// Runs on the shared machine vary 2x, so the rounds are interleaved and the medians reported.
//
// Where 8 MiB PATCHes lose against one PATCH (measured 2026-11: server from source with a
// diagnostics_channel/fs.writev trace and --trace-gc, 256 MiB, 2-4 interleaved runs each):
// - not the client or HTTP: the bare writer's 8 MiB PUTs run at 0.93-1.17 of its one PUT;
// - not the write queue: 4-5 pwritev a PATCH (~2 MiB each), the writes still running at the
//   body's end take 0.65-5 ms and keep the disk busy; request seen -> first write 0.55-0.75 ms,
//   last write -> answer 0.3-1.8 ms, answer -> next request seen 0.7-2.0 ms (medians a run);
// - V8's full collections: Burrow ran 6-8 Mark-Compacts per upload in one PATCH and 12-14 in
//   8 MiB PATCHes, the bare writer in its own process 4 either way; the server's CPU per upload
//   went 520 -> 740 ms, its V8 helper threads' part 180 -> 340 ms. Every 64 KiB body piece is a
//   fresh Buffer of Node's HTTP parser (8.4 MB of external memory a PATCH, freed only by a full
//   collection), and V8 starts marking against heap + external memory, so Burrow's heap (~19 MB
//   live, a bare server's is a few) reaches the limit sooner and collects more each time; the
//   request path adds 0.26 MB of JS heap a PATCH (sampled: HTTP layer, SQLite row reads, stream
//   ticks). Forcing a minor collection every 16 MiB written made it worse (34 -> 54
//   Mark-Compacts over 3 uploads: buffers still gathered at the scavenge were promoted);
//   pausing the body at 1 or 16 MiB instead of 4 changed nothing beyond the noise. A forced
//   young collection after each body of 4 MiB or more (13c0d73, taken back) ended the full
//   collections from source (one scavenge a PATCH, none full once the upload ran), but through
//   the executable, A/B interleaved with the servers' places swapped (6 rounds each), it cost
//   more than it saved: the server's CPU per 8 MiB-PATCH upload 620 -> 810 and 590 -> 760 ms
//   (V8 helper threads 240 -> 400 and 240 -> 360), 8 MiB / one PATCH 0.79 -> 0.79, 0.85 -> 0.74.
// - the server's own path a PATCH (source, medians of 32 PATCHes, 3 runs): request seen ->
//   TUS handler 0.40-0.46 ms (the HTTP layer), ownership check (a row read) 0.16-0.18, lock
//   0.05-0.07, row read under it 0.035-0.05, held part and free space 0.02-0.03, writer set up
//   0.08, first write issued 0.02; last write done -> answer's head 0.2, head -> sent 0.2.
// - The full collections are gone since a body's chunks are freed as soon as they are written
//   (src/uploads/body-writer.ts, `freeWritten`): six 256 MiB uploads, 70 -> 14 Mark-Compacts.
//   What is left is the path above, ~1.3 ms a PATCH: with the volume and the scratch folder in
//   memory (TMPDIR on a tmpfs: no disk noise; 2026-11-24, 256 MiB, 3-5 rounds, executable) the
//   bare writer's 8 MiB PUTs ran at 0.87-0.91 of its one PUT, Burrow's 8 MiB PATCHes at 0.69
//   (0.62-0.72 a round) of its one PATCH (1146-1202 MB/s, level with the bare writer's one
//   PUT); on this virtual disk the same runs move 0.58-1.59 a round.
//
//   npm run bench -- upload [--quick] [sizeMiB=256] [rounds=9]   (through the executable;
//   the source: BURROW_TEST_SERVER=source)
import './support/executable.ts';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { rateRow, runAlone, type BenchOptions, type BenchRow } from './support/table.ts';
import { FIRST_CHUNK, nextChunkSize } from '../../ui/src/upload/chunk-size.ts';
import { block, CHUNK, expect, pump, request, tusUpload } from './support/upload-client.ts';

const MiB = 1024 * 1024;

interface Job {
  kind: 'put' | 'put-chunks' | 'discard' | 'multipart' | 'tus-one' | 'tus-chunks' | 'tus-ui' | 'small-files';
  base: string;
  bytes: number;
  files?: number;
  concurrency?: number;
}

// ---- client (worker thread) ----------------------------------------------------------------

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 8 });
async function multipart(base: string, name: string, bytes: number): Promise<void> {
  // A boundary as long as the ones clients send (Chrome's `----WebKitFormBoundary` + 16, curl's 24
  // dashes + 16 hex): busboy looks for it with Boyer-Moore-Horspool in JavaScript, whose steps are
  // as long as the boundary, so a 14-character one cost the parser ~1.7x the CPU of a real one
  // (256 MiB: ~200 vs ~120 ms).
  const boundary = '----WebKitFormBoundary7MA4YWxkTrZu0gW';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="uploadTo"\r\n\r\nBench\r\n--${boundary}\r\nContent-Disposition: form-data; name="relativePath"\r\n\r\n${name}\r\n--${boundary}\r\nContent-Disposition: form-data; name="filedata"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  expect(
    await request(
      keepAlive,
      'POST',
      `${base}/api/upload`,
      {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + bytes + tail.length,
      },
      async (req) => {
        req.write(head);
        await pump(req, bytes);
        req.write(tail);
      },
    ),
    201,
  );
}

/** A TUS upload in PATCHes of `chunk` bytes, or sized as the UI sizes them (each from the last one's speed). */
function tus(base: string, bytes: number, chunk: number | 'ui'): Promise<void> {
  return tusUpload(keepAlive, base, bytes, {
    filename: 'tus.bin',
    uploadTo: 'Bench',
    first: chunk === 'ui' ? FIRST_CHUNK : chunk,
    ...(chunk === 'ui' ? { next: nextChunkSize } : {}),
  });
}

async function runJob(job: Job): Promise<number> {
  const started = performance.now();
  if (job.kind === 'put' || job.kind === 'discard') {
    const at = job.kind === 'put' ? '/write/writer.bin?at=0&last' : '/discard';
    expect(
      await request(keepAlive, 'PUT', `${job.base}${at}`, { 'content-length': job.bytes }, (req) =>
        pump(req, job.bytes),
      ),
      201,
    );
  } else if (job.kind === 'put-chunks') {
    // The requests a TUS client sends (8 MiB each, one after the other), without TUS.
    for (let offset = 0, n = 0; offset < job.bytes; offset += n) {
      n = Math.min(CHUNK, job.bytes - offset);
      const last = offset + n >= job.bytes ? '&last' : '';
      expect(
        await request(
          keepAlive,
          'PUT',
          `${job.base}/write/writer.bin?at=${offset}${last}`,
          { 'content-length': n },
          (req) => pump(req, n),
        ),
        201,
      );
    }
  } else if (job.kind === 'multipart') {
    await multipart(job.base, 'multipart.bin', job.bytes);
  } else if (job.kind === 'tus-one') {
    await tus(job.base, job.bytes, job.bytes);
  } else if (job.kind === 'tus-chunks') {
    await tus(job.base, job.bytes, CHUNK);
  } else if (job.kind === 'tus-ui') {
    await tus(job.base, job.bytes, 'ui');
  } else {
    let next = 0;
    await Promise.all(
      Array.from({ length: job.concurrency! }, async () => {
        while (next < job.files!) await multipart(job.base, `small-${next++}.bin`, job.bytes);
      }),
    );
  }
  return (performance.now() - started) / 1000;
}

if (!isMainThread) {
  runJob(workerData as Job)
    .then(
      (s) => parentPort!.postMessage({ seconds: s }),
      (err) => parentPort!.postMessage({ error: String(err) }),
    )
    .finally(() => keepAlive.destroy());
}

// ---- main thread ---------------------------------------------------------------------------

function inWorker(job: Job): Promise<number> {
  flush();
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL(import.meta.url), { workerData: job });
    w.once('message', (m: { seconds?: number; error?: string }) =>
      m.error ? reject(new Error(m.error)) : resolve(m.seconds!),
    );
    w.once('error', reject);
  });
}

/** Writes back dirty pages of the previous run, so no run pays for the one before it. */
function flush(): void {
  try {
    execFileSync('sync');
  } catch {
    /* not available: runs are then a little order-dependent */
  }
}

async function diskCeiling(dir: string, bytes: number): Promise<number> {
  flush();
  const file = path.join(dir, 'disk.bin');
  const started = performance.now();
  // flush: the bytes on disk before close (fdatasync), as an upload's are before it is placed;
  // without it a run that fits the page cache measures memory, not the disk.
  const out = fs.createWriteStream(file, { highWaterMark: 1 * MiB, flush: true });
  for (let left = bytes; left > 0; left -= CHUNK) {
    if (!out.write(left >= CHUNK ? block : block.subarray(0, left)))
      await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  const seconds = (performance.now() - started) / 1000;
  fs.rmSync(file);
  return seconds;
}

async function barePut(dir: string, bytes: number): Promise<number> {
  const server = http.createServer((req, res) => {
    const out = fs.createWriteStream(path.join(dir, `put-${Date.now()}.bin`));
    req.pipe(out);
    out.on('finish', () => {
      res.statusCode = 201;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    return await inWorker({ kind: 'put', base, bytes });
  } finally {
    server.close();
    for (const f of fs.readdirSync(dir)) if (f.startsWith('put-')) fs.rmSync(path.join(dir, f));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

export async function rows(opts: BenchOptions = {}): Promise<BenchRow[]> {
  const args = import.meta.main ? process.argv.slice(2).filter((a) => !a.startsWith('--')) : [];
  const sizeMiB = Number(args[0] ?? (opts.quick ? 128 : 256));
  const rounds = Number(args[1] ?? (opts.quick ? 2 : 9));
  const bytes = sizeMiB * MiB;
  const { startServer, removeDirs } = await import('../support/server.ts');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-bench-upload-'));
  const s = await startServer({
    volumes: ['Bench'],
    env: { AUTH_MODE: 'disabled', UPLOAD_CHUNKED_ENABLED: 'true', LOG_LEVEL: 'warn' },
  });
  const { startPlainServer } = await import('./support/plain-server.ts');
  const plain = await startPlainServer(scratch);
  const bench = path.join(s.dirs.volumes, 'Bench');
  const clear = () => {
    for (const f of fs.readdirSync(bench)) if (!f.startsWith('.')) fs.rmSync(path.join(bench, f), { recursive: true });
  };
  const rate = (seconds: number) => bytes / MiB / seconds;
  const burrowKinds = ['multipart', 'tus-one', 'tus-chunks', 'tus-ui'] as const;
  const kinds = ['disk', 'discard', 'bare', 'writer-one', 'writer-chunks', ...burrowKinds] as const;
  type Kind = (typeof kinds)[number];
  const runs = Object.fromEntries(kinds.map((k) => [k, [] as number[]])) as Record<Kind, number[]>;
  const measure = async (kind: Kind): Promise<number> => {
    if (kind === 'disk') return diskCeiling(scratch, bytes);
    if (kind === 'bare') return barePut(scratch, bytes);
    if (kind === 'discard') return inWorker({ kind: 'discard', base: plain.url, bytes });
    if (kind === 'writer-one') return inWorker({ kind: 'put', base: plain.url, bytes });
    if (kind === 'writer-chunks') return inWorker({ kind: 'put-chunks', base: plain.url, bytes });
    const seconds = await inWorker({ kind, base: s.url, bytes });
    clear();
    return seconds;
  };
  try {
    console.log(
      `upload bench: ${sizeMiB} MiB per run, ${rounds} interleaved rounds (medians), ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}, Node ${process.version}`,
    );
    // Interleaved rounds: a busy neighbour slows every variant alike instead of one of them.
    // Burrow's variants (and the bare writer's two) run in the reverse order every other round:
    // measured (two servers, each first in its rounds and then second), a variant's ratio moved
    // by 0.05-0.25 with its place in the round, so a fixed order would give one variant that
    // advantage every time. Every run starts after a `sync` (inWorker, diskCeiling), so no run
    // writes back the dirty pages of the one before it. The disk ceiling stays first in every
    // round, and nothing waits between runs: this virtual disk's flush has two speeds, and which
    // one a run gets depends on how long ago the last file was written and removed (the same
    // 256 MiB written and flushed, 10 runs each, after a sync and a wait of 0 / 0.5 / 2 s:
    // medians 3082 / 3296 / 645 MB/s, the first two with runs from 403 and 635, the last all
    // 465-745; keeping the device busy with a small fdatasync every 0.1 s changed nothing). A
    // ceiling taken after a wait would sit below Burrow's one PATCH (~690 MB/s on a quiet
    // machine), so no wait; measuring it beside every Burrow variant (tried: 36 samples a run)
    // only moved its median between the two speeds (1236, 2445 MB/s).
    for (let round = 0; round < rounds; round++) {
      const reverse = round % 2 === 1;
      runs.disk.push(rate(await measure('disk')));
      runs.discard.push(rate(await measure('discard')));
      runs.bare.push(rate(await measure('bare')));
      for (const kind of reverse
        ? (['writer-chunks', 'writer-one'] as const)
        : (['writer-one', 'writer-chunks'] as const))
        runs[kind].push(rate(await measure(kind)));
      for (const kind of reverse ? [...burrowKinds].reverse() : burrowKinds) runs[kind].push(rate(await measure(kind)));
    }
    const disk = median(runs.disk);
    const bare = median(runs.bare);
    const spread = (xs: number[]) => `(runs ${xs.map((x) => x.toFixed(0)).join(', ')})`;
    // The ceiling is Burrow without Burrow: the bare writer's one PUT, in the same round. The disk
    // write alone is no ceiling on this virtual disk (its flush has two speeds: 399-4419 MB/s in
    // one run, below Burrow's one PATCH in 6 rounds of 9), and receiving without writing is no
    // reachable one on 2 cores (the client, the socket and the writes share them).
    const ceilings = runs['writer-one'];
    const ceiling = median(ceilings);
    const ratiosTo = (a: Kind, to: number[]) => {
      const r = runs[a].map((x, i) => x / to[i]!);
      const sorted = [...r].sort((x, y) => x - y);
      return `${(median(runs[a]) / median(to)).toFixed(2)} (per round: median ${median(r).toFixed(2)}, ${sorted[0]!.toFixed(2)}-${sorted.at(-1)!.toFixed(2)}: ${r.map((x) => x.toFixed(2)).join(', ')})`;
    };
    const ratios = (a: Kind, b: Kind) => ratiosTo(a, runs[b]);
    console.log(`  disk write (no HTTP)        ${disk.toFixed(0).padStart(6)} MiB/s   ${spread(runs.disk)}`);
    console.log(
      `  HTTP receive (no disk)      ${median(runs.discard).toFixed(0).padStart(6)} MiB/s   ${spread(runs.discard)}`,
    );
    console.log(`  bare Node PUT-to-disk       ${bare.toFixed(0).padStart(6)} MiB/s   ${spread(runs.bare)}`);
    console.log(
      `  bare writer, one PUT        ${median(runs['writer-one']).toFixed(0).padStart(6)} MiB/s   ${spread(runs['writer-one'])}`,
    );
    console.log(
      `  bare writer, 8 MiB PUTs     ${median(runs['writer-chunks']).toFixed(0).padStart(6)} MiB/s   ${spread(runs['writer-chunks'])}`,
    );
    const label = {
      multipart: 'Burrow multipart',
      'tus-one': 'Burrow TUS, one PATCH',
      'tus-chunks': 'Burrow TUS, 8 MiB PATCHes',
      'tus-ui': "Burrow TUS, the UI's PATCHes",
    } as const;
    for (const kind of burrowKinds) {
      const mibs = median(runs[kind]);
      console.log(
        `  ${label[kind].padEnd(27)} ${mibs.toFixed(0).padStart(6)} MiB/s   ${((100 * mibs) / ceiling).toFixed(0).padStart(3)} % of the ceiling ${spread(runs[kind])}`,
      );
    }
    // Issue 19's goal for what browsers send (tus-js-client, the UI): ≥ 0.8 of one PATCH. The
    // bare writer's ratio is the floor: what the same client's 8 MiB requests cost a server
    // that does nothing but write them.
    console.log(`  TUS 8 MiB PATCHes / one PATCH:    ${ratios('tus-chunks', 'tus-one')}`);
    console.log(`  TUS the UI's PATCHes / one PATCH: ${ratios('tus-ui', 'tus-one')}`);
    console.log(`  bare writer 8 MiB PUTs / one PUT: ${ratios('writer-chunks', 'writer-one')}`);
    for (const kind of burrowKinds) console.log(`  ${label[kind]} / ceiling: ${ratiosTo(kind, ceilings)}`);
    const files = 1000;
    const seconds = await inWorker({ kind: 'small-files', base: s.url, bytes: 10 * 1024, files, concurrency: 4 });
    console.log(`  1,000 files of 10 KB (multipart, 4 at a time): ${(files / seconds).toFixed(0)} files/s`);
    clear();
    // The bare PUT server (req.pipe to a WriteStream, small writes) measured below Burrow, so it
    // is no ceiling; its figure stays in the note.
    const ceilingIs = `a bare Node server in its own process writing the same client's one PUT with Burrow's body writer and flushing it (Burrow without Burrow); alone, the disk write ran ${Math.min(...runs.disk).toFixed(0)}-${Math.max(...runs.disk).toFixed(0)} MB/s (no ceiling on this disk) and receiving over HTTP without writing ${median(runs.discard).toFixed(0)} MB/s; bare Node PUT-to-disk server: ${bare.toFixed(0)} MB/s`;
    const floor = `Burrow TUS in one PATCH, same run; the floor, a bare Node server writing the same client's 8 MiB PUTs with Burrow's body writer: ${(median(runs['writer-chunks']) / median(runs['writer-one'])).toFixed(2)} of one PUT`;
    return [
      rateRow(`multipart upload ${sizeMiB} MiB`, median(runs.multipart), ceiling, 'MB/s', '≥ 0.8', ceilingIs),
      rateRow(`TUS, one PATCH of ${sizeMiB} MiB`, median(runs['tus-one']), ceiling, 'MB/s', '≥ 0.8', ceilingIs),
      rateRow('TUS, 8 MiB PATCHes', median(runs['tus-chunks']), ceiling, 'MB/s', '≥ 0.6', ceilingIs),
      rateRow(
        'TUS, 8 MiB PATCHes vs one PATCH',
        median(runs['tus-chunks']),
        median(runs['tus-one']),
        'MB/s',
        '≥ 0.8',
        floor,
      ),
      rateRow(
        "TUS, the UI's PATCHes (8 MiB, then sized from the last one's speed) vs one PATCH",
        median(runs['tus-ui']),
        median(runs['tus-one']),
        'MB/s',
        '≥ 0.9',
        'Burrow TUS in one PATCH, same run',
      ),
    ];
  } finally {
    plain.close();
    await s.close();
    removeDirs(s.dirs);
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (isMainThread) await runAlone(import.meta.main, rows);
