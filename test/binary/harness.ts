// The executable under test: built once per test process (when missing or older than the
// sources), then copied ALONE into a fresh temp folder and started there with a bare
// environment, far from any node_modules.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILD_INFO, inputHash, type BuildInfo } from '../../build/inputs.ts';
import { hostTargetId } from '../../build/targets.ts';

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const dist = path.join(root, 'dist');

/**
 * The target under test: this machine's, or BURROW_TEST_TARGET (linux-arm64 runs here under
 * qemu-aarch64-static through binfmt_misc, with the arm64 C libraries of Debian's
 * libc6-arm64-cross / libstdc++6-arm64-cross: see .ci/run).
 */
export const testTarget: string = process.env.BURROW_TEST_TARGET || hostTargetId();
export const emulated = testTarget !== hostTargetId();
/** Emulation is ~5-10x slower: waits grow with it. */
export const slowdown = emulated ? 8 : 1;

function checkEmulation(target: string): void {
  if (target === hostTargetId()) return;
  if (target !== 'linux-arm64' || process.platform !== 'linux') throw new Error(`cannot run ${target} on this machine`);
  if (!fs.existsSync('/proc/sys/fs/binfmt_misc/qemu-aarch64')) {
    throw new Error(
      'linux-arm64 runs under qemu-aarch64-static through binfmt_misc: register it (as root: cat /usr/lib/binfmt.d/qemu-aarch64.conf > /proc/sys/fs/binfmt_misc/register; .ci/run does)',
    );
  }
}

function buildInfo(): BuildInfo | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dist, BUILD_INFO), 'utf8')) as BuildInfo;
  } catch {
    return null;
  }
}

/** The host's executable in dist/, when its inputs are those of this tree (`anyInputs`: whatever they were). */
function current(anyInputs = false, target = testTarget): { file: string; info: BuildInfo } | null {
  const info = buildInfo();
  const entry = info?.targets[target];
  if (!info || !entry || (!anyInputs && info.inputs !== inputHash(root))) return null;
  const file = path.join(dist, entry.file);
  return fs.existsSync(file) ? { file, info } : null;
}

/** One build at a time in this tree (other test runs may want it too). */
function withBuildLock<T>(fn: () => T): T {
  const lock = path.join(root, '.tmp', 'build.lock');
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch {
      // A holder that died (killed mid-build) leaves the lock behind: clear it at once.
      let holder = NaN;
      try {
        holder = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
      } catch {
        /* being made, or gone */
      }
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 15 * 60_000 || (holder > 0 && !alive(holder) && age > 1000))
        fs.rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error('waited 15 minutes for another build to finish');
      // Asked again each second: the lock is taken synchronously (ensureBinary is), so no waitFor here.
      spawnSync('sleep', ['1']);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const cached = new Map<string, { file: string; info: BuildInfo }>();

/** The executable of the target under test (the host's unless BURROW_TEST_TARGET), built now if it is missing or stale. */
export function ensureBinary(target = testTarget): { file: string; info: BuildInfo } {
  const known = cached.get(target);
  if (known) return known;
  checkEmulation(target);
  const result =
    current(false, target) ??
    withBuildLock(() => {
      const again = current(false, target);
      if (again) return again;
      const r = spawnSync(process.execPath, [path.join(root, 'build', 'build.ts'), '--target', target], {
        cwd: root,
        stdio: 'inherit',
        timeout: 20 * 60_000,
      });
      if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status ?? r.signal})`);
      // The sources as they were when this build started: in a tree being edited meanwhile the
      // hash has moved on, and building again would chase it.
      const built = current(true, target);
      if (!built) throw new Error(`the build finished but left no current executable for ${target}`);
      return built;
    });
  cached.set(target, result);
  return result;
}

export interface Sandbox {
  readonly dir: string;
  readonly binary: string;
  readonly configDir: string;
  readonly cacheDir: string;
  readonly volumeRoot: string;
  remove(): void;
}

/** A fresh temp folder holding only a copy of the executable. */
export function sandbox(): Sandbox {
  const { file } = ensureBinary();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-bin-'));
  const binary = path.join(dir, path.basename(file));
  fs.copyFileSync(file, binary);
  fs.chmodSync(binary, 0o755);
  return {
    dir,
    binary,
    configDir: path.join(dir, 'config'),
    cacheDir: path.join(dir, 'cache'),
    volumeRoot: path.join(dir, 'volumes'),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

export interface Running {
  readonly child: ChildProcess;
  readonly url: string;
  /** Everything it printed so far (stdout + stderr). */
  output(): string;
  /** Resolves with its exit code (or signal name). */
  readonly exited: Promise<number | string>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** The bare environment a service manager would give it, plus our folders. */
export function bareEnv(box: Sandbox, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: '/usr/bin:/bin',
    HOME: box.dir,
    CONFIG_DIR: box.configDir,
    CACHE_DIR: box.cacheDir,
    VOLUME_ROOT: box.volumeRoot,
    HOST: '127.0.0.1',
    PORT: '0',
    MDNS_ENABLED: 'false',
    ...(emulated ? { QEMU_LD_PREFIX: '/usr/aarch64-linux-gnu' } : {}),
    ...extra,
  };
}

/** Runs the executable to completion (e.g. a refused second start). */
export function runToEnd(box: Sandbox, env: Record<string, string>, args: string[] = [], timeoutMs = 20_000) {
  return spawnSync(box.binary, args, { cwd: box.dir, env, encoding: 'utf8', timeout: timeoutMs * slowdown });
}

/** Starts it and waits for its "listening" line (which carries the port). */
export function start(
  box: Sandbox,
  env: Record<string, string> = bareEnv(box),
  timeoutMs = 20_000 * slowdown,
): Promise<Running> {
  const child = spawn(box.binary, [], { cwd: box.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return new Promise((resolve, reject) => {
    // A deadline, not a pause: the output is waited for as it comes.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no "listening" line within ${timeoutMs} ms; output:\n${out}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const m = /"msg":"Burrow is listening".*?"port":(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          child,
          exited,
          url: `http://127.0.0.1:${m[1]}`,
          output: () => out,
          stop(signal = 'SIGTERM') {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before listening; output:\n${out}`));
    });
  });
}
