// Live folders under a crowd (issue 30, item 4: "under 100 clients the streams do not move the
// API's latency"), through the executable, in one run:
//   - listing: GET /api/browse of a 2,000-file folder, timed by curl in its own process, with 100
//     WebSocket subscribers (test/bench/support/live-crowd.ts, a process of their own) watching
//     that folder against one; in both a writer makes a change
//     there every 100 ms (a file created on the disk, deleted 3 s later), so the hub has
//     something to send to everyone while the listing runs;
//   - heard: from a file's creation on the disk to the moment the last of the 100 subscribers
//     has its `created` event (p95), against one subscriber (the watcher and the hub's 100 ms
//     coalescing alone); the bound is a second.
//   - the server's CPU per second of a round, 100 subscribers against one.
// Rounds interleave the two cases so a neighbour's burst falls on both alike. The crowd shares
// this machine's two cores with the server (on a LAN it would not).
//
// Measured (2026-11-29, --quick, the executable, load 24-30): the hub checked each subscriber's
// access to the folder with a resolve of its own at every flush (100 tabs × 10 changes/s = 1,000
// resolves/s, a few disk trips each): server CPU 220 ms/s against 112 with one subscriber, the
// listing 0.75×, heard p95 660 ms; with one resolve per person and folder per turn of the event
// loop: 111 against 120 ms/s, the listing 0.99×, heard p95 514 ms (one subscriber: 344).
//
// Run: npm run bench -- live [--quick]     (the source: BURROW_TEST_SERVER=source)
import './support/executable.ts';
import fs from 'node:fs';
import path from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { childPid, cpuMs, drain, median, quiet } from './support/measure.ts';
import { costRow, runAlone, type BenchOptions, type BenchRow } from './support/table.ts';

const CROWD = 100;
const FOLDER = 'Files/Family photos 2026 — Zoë & Bob #3';

/** `count` subscribers in a process of their own (support/live-crowd.ts); `heard`: name → when the last heard it. */
async function crowdOf(s: TestServer, count: number) {
  const child = fork(
    fileURLToPath(new URL('./support/live-crowd.ts', import.meta.url)),
    [s.url, FOLDER, String(count)],
    {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const heard = new Map<string, number>();
  let ready = false;
  child.on('message', (m: any) => {
    if (m.ready) ready = true;
    else heard.set(m.name, m.at);
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await waitFor(() => ready || child.exitCode !== null, { what: `${count} subscribers watching`, timeoutMs: 60_000 });
  if (!ready) throw new Error(`the crowd of ${count} exited (${child.exitCode}) before watching`);
  return {
    heard,
    async close() {
      child.disconnect();
      await exited;
    },
  };
}

function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)]!;
}

export async function rows(opts: BenchOptions = {}): Promise<BenchRow[]> {
  const rounds = opts.quick ? 3 : 7;
  const listingsPerRound = opts.quick ? 5 : 9;
  const s = await startServer({ env: { AUTH_MODE: 'disabled', LOG_LEVEL: 'error' } });
  const dir = path.join(s.dirs.volumes, FOLDER);
  let crowd: Awaited<ReturnType<typeof crowdOf>> | undefined;
  let writer: NodeJS.Timeout | undefined;
  try {
    fs.mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 2000; i++) fs.writeFileSync(path.join(dir, `IMG_${5000 + i} Zoë's café.jpg`), `photo ${i}\n`);
    if (s.mode === 'executable') await quiet(childPid(/\/burrow-\w+-\w+( |$)/));
    const listing = `${s.url}/api/browse/${FOLDER.split('/').map(encodeURIComponent).join('/')}`;

    // The writer: one change every 100 ms; `made` holds each name's creation time.
    const made = new Map<string, number>();
    const now = () => performance.timeOrigin + performance.now();
    let n = 0;
    const startWriter = () => {
      writer = setInterval(() => {
        const name = `Nouveau scan ${++n} — reçu & facture #${n}.pdf`;
        const file = path.join(dir, name);
        made.set(name, now());
        fs.writeFileSync(file, `scan ${n}\n`);
        setTimeout(() => fs.rmSync(file, { force: true }), 3000).unref();
      }, 100);
    };
    const stopWriter = () => clearInterval(writer);

    /** Listing times (ms) and per-change "heard by every subscriber" times (ms) for one round. */
    const round = async (count: number) => {
      const c = (crowd = await crowdOf(s, count));
      const from = n;
      const cpuFrom = cpuMs(s.pid());
      const t0 = performance.now();
      startWriter();
      const listings: number[] = [];
      try {
        for (let i = 0; i < listingsPerRound; i++) {
          const r = await drain(listing);
          if (r.status !== 200) throw new Error(`listing answered ${r.status}`);
          listings.push(r.seconds * 1000);
        }
      } finally {
        stopWriter();
      }
      // The server's CPU per second of the round (in source mode the bench's own too).
      const cpu = ((cpuMs(s.pid()) - cpuFrom) * 1000) / (performance.now() - t0);
      const names = [...made.keys()].slice(from);
      // Every subscriber hears every change (or the bench says which it missed).
      await waitFor(() => names.every((name) => c.heard.has(name)), {
        what: `${names.length} changes heard by ${count} subscribers`,
        timeoutMs: 30_000,
        seen: () => names.filter((name) => !c.heard.has(name)),
      });
      await c.close();
      crowd = undefined;
      return { listings, cpu, heard: names.map((name) => c.heard.get(name)! - made.get(name)!) };
    };

    const alone = { listings: [] as number[], heard: [] as number[], cpu: [] as number[] };
    const many = { listings: [] as number[], heard: [] as number[], cpu: [] as number[] };
    await round(1); // warm-up
    for (let i = 0; i < rounds; i++) {
      const a = await round(1);
      alone.listings.push(...a.listings);
      alone.heard.push(...a.heard);
      alone.cpu.push(a.cpu);
      const c = await round(CROWD);
      many.listings.push(...c.listings);
      many.heard.push(...c.heard);
      many.cpu.push(c.cpu);
    }
    const note = `${s.mode}; 2,000 files; a change every 100 ms; medians of ${alone.listings.length} listings each`;
    return [
      costRow(
        `listing 2,000 files, ${CROWD} live subscribers`,
        median(many.listings),
        median(alone.listings),
        'ms',
        '≥ 0.9',
        `${note}; ceiling: the same listing with one subscriber`,
      ),
      costRow(
        `a change heard by all ${CROWD} subscribers (p95)`,
        p95(many.heard),
        p95(alone.heard),
        'ms',
        '≤ 1000 ms',
        `${many.heard.length} changes; ceiling: one subscriber (watcher + the hub's 100 ms coalescing)`,
      ),
      costRow(
        `server CPU, ${CROWD} live subscribers`,
        median(many.cpu),
        median(alone.cpu),
        'ms/s',
        '≥ 0.5',
        `CPU milliseconds per second of a round (listings + changes); ceiling: one subscriber`,
      ),
    ];
  } finally {
    clearInterval(writer);
    await crowd?.close();
    await s.close();
    removeDirs(s.dirs);
  }
}

await runAlone(import.meta.main, rows);
