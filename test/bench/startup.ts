// Startup of the executable: cold start to a 200 from /readyz, idle RSS, binary size.
// Medians of 5 runs, each on a fresh config folder (first run: database created and migrated).
// Printed, not asserted. Targets: < 300 ms, < 60 MB, < 130 MB (linux-x64).
//
// The ceiling it is compared with is this machine's own: a bare `node -e` of the same Node
// version, started and answering an HTTP request the same way.
//
//   node test/bench/startup.ts
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
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error(`${url} did not answer in time`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

interface Sample { startMs: number; rssMb: number }

async function measure(command: string, args: string[], cwd: string, env: Record<string, string>, url: string, idleMs: number): Promise<Sample> {
  const t0 = performance.now();
  const child = spawn(command, args, { cwd, env, stdio: 'ignore' });
  try {
    await pollUntilOk(url, Date.now() + 20_000);
    const startMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, idleMs));
    return { startMs, rssMb: rssMb(child.pid!) };
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
    ceiling.push(await measure(process.execPath, ['-e', nodeScript], process.cwd(), { PATH: '/usr/bin:/bin', PORT: String(port) }, `http://127.0.0.1:${port}/`, 3000));
  }
  const cold: Sample[] = [];
  const warm: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    const box = sandbox();
    try {
      const port = await freePort();
      const env = bareEnv(box, { PORT: String(port), LOG_LEVEL: 'warn' });
      // Cold: fresh folders (database created and migrated, add-ons extracted by the self-check).
      cold.push(await measure(box.binary, [], box.dir, env, `http://127.0.0.1:${port}/readyz`, 3000));
      // Warm: the same folders again, as on every later start.
      warm.push(await measure(box.binary, [], box.dir, env, `http://127.0.0.1:${port}/readyz`, 3000));
    } finally {
      box.remove();
    }
  }
  const line = (name: string, xs: Sample[]) => `${name.padEnd(34)} start ${median(xs.map((s) => s.startMs)).toFixed(0).padStart(5)} ms   idle RSS ${median(xs.map((s) => s.rssMb)).toFixed(1).padStart(6)} MB`;
  console.log(`startup bench (${RUNS} runs each, medians; idle RSS read 3 s after ready)`);
  console.log(line('bare node -e http server (ceiling)', ceiling));
  console.log(line('burrow, first start (fresh folders)', cold));
  console.log(line('burrow, later start', warm));
  const ratio = median(cold.map((s) => s.startMs)) / median(ceiling.map((s) => s.startMs));
  console.log(`start ratio vs ceiling: ${ratio.toFixed(2)}x   RSS over ceiling: ${(median(cold.map((s) => s.rssMb)) - median(ceiling.map((s) => s.rssMb))).toFixed(1)} MB`);
  console.log(`binary ${path.basename(file)}: ${(bytes / 1e6).toFixed(1)} MB (${(bytes / 2 ** 20).toFixed(1)} MiB)${info.ui ? '' : ' (built without a UI)'}`);
  for (const t of Object.values(info.targets)) if (t.file !== path.basename(file)) console.log(`binary ${t.file}: ${(t.bytes / 1e6).toFixed(1)} MB`);
  console.log('targets: start < 300 ms, idle RSS < 60 MB, linux-x64 binary < 130 MB');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
