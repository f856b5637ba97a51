// A server in a child process, for tests that kill it (SIGKILL) and start it again on the same
// folders: from source or the executable, as the run is (serverCommand).
import { spawn, type ChildProcess } from 'node:child_process';
import { serverCommand } from './server.ts';

/** The server from its "listening" line: logged after every capability started, so after the recovery. */
export function startChild(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const command = serverCommand();
    const child = spawn(command.file, command.args, {
      env: { ...command.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    // A deadline, not a pause: the listening line is waited for as it comes.
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 20_000);
    child.stdout!.on('data', (d) => {
      out += d;
      // The HTTP listener's own line: the HTTPS listener logs a port too (HTTPS_PORT is 0 beside PORT 0).
      const m = /"msg":"Burrow is listening"[^\n]*?"port":(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: `http://127.0.0.1:${m[1]}` });
      }
    });
    child.stderr!.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code}: ${out}`));
    });
  });
}

/** SIGKILL, resolved once the process is gone. */
export function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
