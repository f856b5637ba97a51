// A second machine for tests: a network namespace the test makes (root), joined to this one by a
// veth pair on a /30 of its own (10.231.N.0/30: this side .1, the namespace .2). Commands run in it
// with `ip netns exec` (argument arrays, no shell). remove() takes both away.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

export interface Netns {
  name: string;
  /** This side's address on the pair, where the namespace reaches this machine. */
  hostAddress: string;
  /** The namespace's own address. */
  address: string;
  /** Runs a command there to its end (asynchronously: a server in this process must go on answering). */
  run(argv: readonly string[]): Promise<{ status: number | null; stdout: string; stderr: string }>;
  spawn(argv: readonly string[], env?: NodeJS.ProcessEnv): ChildProcess;
  remove(): void;
}

function ip(...args: string[]): void {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr || r.error?.message}`);
}

let made = 0;

/**
 * The first N from `from` whose 10.231.N.0/30 no interface of this machine has: the test groups
 * run two at once (test/run.ts), and two processes' pids can lead to the same N — the second
 * pair's side would then share the first's subnet and its packets take either link.
 */
function freeSubnet(from: number): number {
  const listed = spawnSync('ip', ['-4', '-o', 'addr', 'show'], { encoding: 'utf8' }).stdout ?? '';
  const taken = new Set([...listed.matchAll(/\binet 10\.231\.(\d+)\./g)].map((m) => Number(m[1])));
  for (let i = 0; i < 250; i++) if (!taken.has((from + i) % 250)) return (from + i) % 250;
  throw new Error('every 10.231.N.0/30 of the test namespaces is taken');
}

export function makeNetns(tag: string): Netns {
  if (process.getuid?.() !== 0) throw new Error('network namespaces need root (as CI runs)');
  const n = freeSubnet((process.pid * 7 + made++) % 250);
  const name = `burrow-${tag}-${process.pid}-${n}`;
  const outside = `bh${process.pid % 100000}x${n}`.slice(0, 15);
  const inside = `bn${process.pid % 100000}x${n}`.slice(0, 15);
  const hostAddress = `10.231.${n}.1`;
  const address = `10.231.${n}.2`;
  ip('netns', 'add', name);
  try {
    ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
    ip('link', 'set', inside, 'netns', name);
    ip('addr', 'add', `${hostAddress}/30`, 'dev', outside);
    ip('link', 'set', outside, 'up');
    ip('-n', name, 'addr', 'add', `${address}/30`, 'dev', inside);
    ip('-n', name, 'link', 'set', inside, 'up');
    ip('-n', name, 'link', 'set', 'lo', 'up');
  } catch (err) {
    spawnSync('ip', ['link', 'del', outside]);
    spawnSync('ip', ['netns', 'del', name]);
    throw err;
  }
  return {
    name,
    hostAddress,
    address,
    run: (argv) =>
      new Promise((resolve, reject) => {
        const child = spawn('ip', ['netns', 'exec', name, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
        child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
        const timer = setTimeout(() => child.kill(), 30_000);
        child.on('error', reject);
        child.on('close', (status) => {
          clearTimeout(timer);
          resolve({ status, stdout, stderr });
        });
      }),
    spawn: (argv, env) => spawn('ip', ['netns', 'exec', name, ...argv], { env: env ?? process.env, stdio: 'pipe' }),
    remove() {
      spawnSync('ip', ['link', 'del', outside]);
      spawnSync('ip', ['netns', 'del', name]);
    },
  };
}

/**
 * Two machines on a link of their own, neither of them this one: namespaces `a` and `b` joined
 * by a veth pair (10.232.N.1 and .2/30), each with its default route on the link (so multicast,
 * mDNS, goes out there and nowhere else).
 */
export function makeNetnsPair(tag: string): { a: Netns; b: Netns; remove(): void } {
  if (process.getuid?.() !== 0) throw new Error('network namespaces need root (as CI runs)');
  const n = (process.pid * 7 + made++) % 250;
  const names = [`burrow-${tag}-a-${process.pid}-${n}`, `burrow-${tag}-b-${process.pid}-${n}`] as const;
  const links = [`ma${process.pid % 100000}x${n}`.slice(0, 15), `mb${process.pid % 100000}x${n}`.slice(0, 15)];
  const addresses = [`10.232.${n}.1`, `10.232.${n}.2`];
  const removeAll = () => {
    for (const ns of names) spawnSync('ip', ['netns', 'del', ns]);
  };
  try {
    for (const ns of names) ip('netns', 'add', ns);
    ip('link', 'add', links[0]!, 'type', 'veth', 'peer', 'name', links[1]!);
    for (let i = 0; i < 2; i++) {
      ip('link', 'set', links[i]!, 'netns', names[i]!);
      ip('-n', names[i]!, 'addr', 'add', `${addresses[i]}/30`, 'dev', links[i]!);
      ip('-n', names[i]!, 'link', 'set', links[i]!, 'multicast', 'on');
      ip('-n', names[i]!, 'link', 'set', links[i]!, 'up');
      ip('-n', names[i]!, 'link', 'set', 'lo', 'up');
      ip('-n', names[i]!, 'route', 'add', 'default', 'dev', links[i]!);
    }
  } catch (err) {
    removeAll();
    throw err;
  }
  const one = (i: 0 | 1): Netns => ({
    name: names[i],
    hostAddress: addresses[1 - i]!,
    address: addresses[i]!,
    run: (argv) =>
      new Promise((resolve, reject) => {
        const child = spawn('ip', ['netns', 'exec', names[i], ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
        child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
        const timer = setTimeout(() => child.kill(), 30_000);
        child.on('error', reject);
        child.on('close', (status) => {
          clearTimeout(timer);
          resolve({ status, stdout, stderr });
        });
      }),
    spawn: (argv, env) => spawn('ip', ['netns', 'exec', names[i], ...argv], { env: env ?? process.env, stdio: 'pipe' }),
    remove: removeAll,
  });
  return { a: one(0), b: one(1), remove: removeAll };
}
