// What the benches share: the client (curl in its own process) and the statistics.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const MB = 1024 * 1024;

/**
 * Downloads `url` to /dev/null with curl. The client runs in its own process: an in-process
 * fetch() spends more CPU reading the bytes than either server spends sending them, and would
 * cap Burrow and its ceiling at the same low rate.
 */
export async function drain(
  url: string,
  opts: { body?: string; range?: string; auth?: string } = {},
): Promise<{ bytes: number; seconds: number; status: number }> {
  const args = ['-s', '-o', '/dev/null', '-w', '%{size_download} %{time_total} %{http_code}'];
  if (opts.body) args.push('-H', 'content-type: application/json', '--data-binary', opts.body);
  if (opts.range) args.push('-H', `range: ${opts.range}`);
  if (opts.auth) args.push('-u', opts.auth);
  const { stdout } = await run('curl', [...args, url]);
  const [bytes, seconds, status] = stdout.trim().split(' ').map(Number);
  return { bytes: bytes!, seconds: seconds!, status: status! };
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * Runs each contender once per round, in turn, `rounds` times after one warm-up round, and
 * gives each one's median: interleaved so a neighbour's burst of load on the shared machine
 * falls on all of them alike.
 */
export async function interleaved<K extends string>(
  rounds: number,
  contenders: Record<K, () => Promise<number>>,
): Promise<Record<K, number>> {
  const keys = Object.keys(contenders) as K[];
  for (const k of keys) await contenders[k]();
  const samples = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as unknown as Record<K, number[]>;
  for (let i = 0; i < rounds; i++) for (const k of keys) samples[k].push(await contenders[k]());
  return Object.fromEntries(keys.map((k) => [k, median(samples[k])])) as Record<K, number>;
}

const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** CPU time (user + system, ms, all threads) a process has used so far (/proc/<pid>/stat). */
export function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

/** This process's child whose program (its first two arguments) matches `what`: a bench's servers. */
export function childPid(what: RegExp): number {
  const kids = execFileSync('pgrep', ['-P', String(process.pid)])
    .toString()
    .trim()
    .split('\n')
    .map(Number);
  const program = (k: number) => fs.readFileSync(`/proc/${k}/cmdline`, 'utf8').split('\0').slice(0, 2).join(' ').trim();
  const pid = kids.find((k) => what.test(program(k)));
  if (!pid) throw new Error(`no child process matching ${what}`);
  return pid;
}

/**
 * Waits until `pid` has used under 5 % of a core for two half-second windows running (at most
 * `timeoutMs`): a fresh server catalogues and extracts the files a bench just wrote, and a
 * measure taken meanwhile is of both (the indexing bench measures that case on purpose).
 */
export async function quiet(pid: number, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let calm = 0;
  while (calm < 2 && Date.now() < deadline) {
    const before = cpuMs(pid);
    // The window is the check itself: a quiet process cannot be told from one between bursts in less.
    await new Promise((r) => setTimeout(r, 500));
    calm = cpuMs(pid) - before < 25 ? calm + 1 : 0;
  }
}
