// A Burrow process for benches: the built executable (the product; built when stale) unless
// BURROW_TEST_SERVER=source, which runs src/main.ts with this Node. A separate process either
// way, so the bench's client never shares the server's event loop. Its JSON log lines are
// kept, each with the time it arrived, so a bench can time "launch → a log line".
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ensureBinary, root } from '../../binary/harness.ts';

export type LogLine = Record<string, any> & { at: number };

export interface BenchServer {
  readonly url: string;
  readonly mode: 'executable' | 'source';
  /** performance.now() when the process was spawned. */
  readonly launchedAt: number;
  readonly logs: LogLine[];
  /** Resolves with the first line (from `from` on) that matches, or rejects after `timeoutMs`. */
  waitFor(match: (line: LogLine) => boolean, timeoutMs?: number, from?: number): Promise<LogLine>;
  stop(): Promise<void>;
}

export const benchMode: 'executable' | 'source' = process.env.BURROW_TEST_SERVER === 'source' ? 'source' : 'executable';

export async function launch(env: Record<string, string>): Promise<BenchServer> {
  const command =
    benchMode === 'executable'
      ? { file: ensureBinary().file, args: [] as string[] }
      : { file: process.execPath, args: [path.join(root, 'src', 'main.ts')] };
  const launchedAt = performance.now();
  const child: ChildProcess = spawn(command.file, command.args, {
    env: { PATH: '/usr/bin:/bin', HOME: env.CONFIG_DIR ?? '/tmp', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  let other = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const at = performance.now();
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      try {
        logs.push({ ...JSON.parse(line), at });
      } catch {
        other += line + '\n';
      }
    }
    for (const w of waiters) w();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    other += chunk;
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const waitFor = (match: (line: LogLine) => boolean, timeoutMs = 600_000, from = 0) =>
    new Promise<LogLine>((resolve, reject) => {
      const look = () => {
        const hit = logs.slice(from).find(match);
        if (!hit) return false;
        waiters.delete(look as () => void);
        clearTimeout(timer);
        resolve(hit);
        return true;
      };
      // A deadline, not a pause: the line is waited for as it comes.
      const timer = setTimeout(() => {
        waiters.delete(look as () => void);
        reject(new Error(`no matching log line within ${timeoutMs} ms; other output:\n${other.slice(-2000)}`));
      }, timeoutMs);
      if (!look()) waiters.add(look as () => void);
    });
  const listening = await Promise.race([
    waitFor((l) => l.msg === 'Burrow is listening', 120_000),
    exited.then(() => {
      throw new Error(`the server exited before listening:\n${other.slice(-2000)}`);
    }),
  ]);
  return {
    url: `http://127.0.0.1:${listening.port}`,
    mode: benchMode,
    launchedAt,
    logs,
    waitFor,
    async stop() {
      child.kill('SIGTERM');
      // A deadline, not a pause: a server that does not stop is killed.
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
