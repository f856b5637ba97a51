// Startup of the executable: cold start to a 200 from /readyz, idle RSS, binary size.
// Medians of 5 runs, each on a fresh config folder (first run: database created and migrated).
// Printed, not asserted. Targets: < 300 ms, < 60 MB, < 130 MB (linux-x64).
//
// The ceiling it is compared with is this machine's own: a bare `node -e` of the same Node
// version, started and answering an HTTP request the same way.
//
//   node test/bench/startup.ts
//
// Measured (linux-x64, 2 cores, quiet machine, same run for both; medians of 5 [min-max]):
//
//                                   before (8bc1958)            after
//   bare node (ceiling)             50 ms / 48.1 MB             60 ms / 48.1 MB
//   first start: start              285 [244-303] ms            311 [218-318] ms
//                idle RSS at 3 s    121.1 [120.9-127.2] MB      94.2 [94.1-99.2] MB
//                idle RSS at 13 s   118.9 [118.8-125.0] MB      88.0 [87.9-92.8] MB
//   later start: start              220 [214-273] ms            248 [215-278] ms
//                idle RSS at 3 s    116.4 [114.3-118.1] MB      93.2 [93.0-93.3] MB
//                idle RSS at 13 s   114.2 [112.1-116.7] MB      86.9 [86.8-87.1] MB
//   binary                          118.3 MB                    117.8 MB
//
// What changed: SQLite's wasm on V8's baseline compiler only (`--liftoff-only` in the SEA
// execArgv, -26 MB), no rejected code cache, the indexer's walker thread retired after 10 s
// idle (-6 MB). Start times did not move beyond the noise. Where the rest goes (first start,
// RSS at each step): Node itself 47 MB; evaluating the bundle (1.3 MB of JS) +16 MB and ~50 ms;
// SQLite compiled and opened +9 MB, ~35 ms; migrations +4 MB; the walker thread and libuv's
// pool ~+10 MB, of which ~6 MB leave with the thread.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { bareEnv, ensureBinary, sandbox } from '../binary/harness.ts';

const RUNS = 5;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

async function pollUntilOk(url: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer in time`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

interface Sample {
  startMs: number;
  rssMb: number;
  lateRssMb: number;
}

// The indexer's walker thread leaves after 10 s without jobs (src/indexer/worker-client.ts):
// the late reading is the server as it idles for hours.
const LATE_MS = 13_000;

async function measure(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  url: string,
  idleMs: number,
  lateMs = 0,
): Promise<Sample> {
  const t0 = performance.now();
  const child = spawn(command, args, { cwd, env, stdio: 'ignore' });
  try {
    await pollUntilOk(url, Date.now() + 20_000);
    const startMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, idleMs));
    const early = rssMb(child.pid!);
    if (lateMs > idleMs) await new Promise((r) => setTimeout(r, lateMs - idleMs));
    return { startMs, rssMb: early, lateRssMb: lateMs > idleMs ? rssMb(child.pid!) : early };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const { file, info } = ensureBinary();
  const bytes = fs.statSync(file).size;
  // The ceiling: the same Node, bare, answering HTTP.
  const ceiling: Sample[] = [];
  const nodeScript = "require('http').createServer((q,s)=>s.end('ok')).listen(+process.env.PORT,'127.0.0.1')";
  for (let i = 0; i < RUNS; i++) {
    const port = await freePort();
    ceiling.push(
      await measure(
        process.execPath,
        ['-e', nodeScript],
        process.cwd(),
        { PATH: '/usr/bin:/bin', PORT: String(port) },
        `http://127.0.0.1:${port}/`,
        3000,
      ),
    );
  }
  const cold: Sample[] = [];
  const warm: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    const box = sandbox();
    try {
      const port = await freePort();
      const env = bareEnv(box, { PORT: String(port), LOG_LEVEL: 'warn' });
      // Cold: fresh folders (database created and migrated, add-ons extracted by the self-check).
      cold.push(await measure(box.binary, [], box.dir, env, `http://127.0.0.1:${port}/readyz`, 3000, LATE_MS));
      // Warm: the same folders again, as on every later start.
      warm.push(await measure(box.binary, [], box.dir, env, `http://127.0.0.1:${port}/readyz`, 3000, LATE_MS));
    } finally {
      box.remove();
    }
  }
  const spread = (xs: number[], digits: number) =>
    `[${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}]`;
  const stat = (xs: number[], digits: number, width: number) =>
    `${median(xs).toFixed(digits).padStart(width)} ${spread(xs, digits).padEnd(13)}`;
  const line = (name: string, xs: Sample[]) =>
    `${name.padEnd(36)} start ${stat(
      xs.map((s) => s.startMs),
      0,
      5,
    )} ms   idle RSS ${stat(
      xs.map((s) => s.rssMb),
      1,
      6,
    )} MB   after ${LATE_MS / 1000} s ${stat(
      xs.map((s) => s.lateRssMb),
      1,
      6,
    )} MB`;
  console.log(
    `startup bench (${RUNS} runs each, medians [min-max]; idle RSS read 3 s after ready, and ${LATE_MS / 1000} s after for Burrow)`,
  );
  console.log(line('bare node -e http server (ceiling)', ceiling));
  console.log(line('burrow, first start (fresh folders)', cold));
  console.log(line('burrow, later start', warm));
  const ratio = median(cold.map((s) => s.startMs)) / median(ceiling.map((s) => s.startMs));
  console.log(
    `start ratio vs ceiling: ${ratio.toFixed(2)}x   RSS over ceiling: ${(median(cold.map((s) => s.rssMb)) - median(ceiling.map((s) => s.rssMb))).toFixed(1)} MB`,
  );
  console.log(
    `binary ${path.basename(file)}: ${(bytes / 1e6).toFixed(1)} MB (${(bytes / 2 ** 20).toFixed(1)} MiB)${info.ui ? '' : ' (built without a UI)'}`,
  );
  for (const t of Object.values(info.targets))
    if (t.file !== path.basename(file)) console.log(`binary ${t.file}: ${(t.bytes / 1e6).toFixed(1)} MB`);
  console.log('targets: start < 300 ms, idle RSS < 60 MB, linux-x64 binary < 130 MB');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
