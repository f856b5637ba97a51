// `burrow service install | status | uninstall` carried out for real, under a real systemd as
// PID 1: a container booted (systemd-nspawn) from this machine's own root file system seen through
// an overlay, so every file the install writes, the account it makes and every unit the boot
// starts land in a throw-away layer and the host is not touched. Private network: the service's
// port is reached from inside. Needs root (as CI runs) and Debian's systemd-container.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emulated, ensureBinary, slowdown } from './harness.ts';
import { waitFor } from '../support/wait.ts';

const BINARY_INSIDE = '/opt/burrow-under-test/burrow';
const PORT = 3000;
// Under qemu the arm64 C libraries are found through QEMU_LD_PREFIX: the service gets it from
// its settings file, which install keeps when it exists.
const EMULATION_ENV: Record<string, string> = emulated ? { QEMU_LD_PREFIX: '/usr/aarch64-linux-gnu' } : {};

interface Container {
  /** Runs a program inside (argv, no shell); never throws. */
  run(argv: string[], env?: Record<string, string>): { status: number | null; out: string };
  stop(): void;
}

let container: Container | undefined;

async function boot(): Promise<Container> {
  const binary = ensureBinary().file;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-systemd-'));
  const [upper, work, root] = ['upper', 'work', 'root'].map((d) => path.join(dir, d)) as [string, string, string];
  for (const d of [upper, work, root]) fs.mkdirSync(d);
  const mount = spawnSync(
    'mount',
    ['-t', 'overlay', 'overlay', '-o', `lowerdir=/,upperdir=${upper},workdir=${work}`, root],
    {
      encoding: 'utf8',
    },
  );
  if (mount.status !== 0) throw new Error(`overlay mount failed (root is needed): ${mount.stderr}`);
  if (emulated) {
    fs.mkdirSync(path.join(root, 'etc', 'burrow'), { recursive: true });
    fs.writeFileSync(path.join(root, 'etc', 'burrow', 'burrow.env'), 'QEMU_LD_PREFIX=/usr/aarch64-linux-gnu\n');
  }
  let output = '';
  const nspawn: ChildProcess = spawn(
    'systemd-nspawn',
    [
      '--quiet',
      '--directory',
      root,
      '--boot',
      '--register=no',
      '--keep-unit',
      '--private-network',
      `--machine=burrow-test-${process.pid}`,
      `--bind-ro=${binary}:${BINARY_INSIDE}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  nspawn.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  nspawn.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const stop = () => {
    const init = initOf(nspawn.pid!);
    if (init) spawnSync('kill', ['-KILL', String(init)]);
    nspawn.kill('SIGKILL');
    spawnSync('umount', ['-l', root]);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const runIn =
    (init: number): Container['run'] =>
    (argv, env = {}) => {
      const r = spawnSync('nsenter', ['--target', String(init), '--all', 'env', ...envArgs(env), ...argv], {
        encoding: 'utf8',
        timeout: 120_000 * slowdown,
      });
      return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
    };
  try {
    const init = await waitFor(
      () => {
        if (nspawn.exitCode !== null || nspawn.signalCode !== null)
          throw new Error(`systemd-nspawn ended (${nspawn.exitCode ?? nspawn.signalCode}):\n${output}`);
        const init = nspawn.pid !== undefined ? initOf(nspawn.pid) : null;
        if (!init) return null;
        // "degraded": some unit of this machine's own boot failed in a container; the manager runs.
        const state = runIn(init)(['systemctl', 'is-system-running', '--wait']).out.trim();
        return state === 'running' || state === 'degraded' ? init : null;
      },
      { what: "the container's systemd to come up", timeoutMs: 60_000 * slowdown, everyMs: 200, seen: () => output },
    );
    return { run: runIn(init), stop };
  } catch (err) {
    stop();
    throw err;
  }
}

const envArgs = (env: Record<string, string>) => Object.entries(env).map(([k, v]) => `${k}=${v}`);

/** The container's init: systemd-nspawn's child process. */
function initOf(nspawnPid: number): number | null {
  try {
    const children = fs.readFileSync(`/proc/${nspawnPid}/task/${nspawnPid}/children`, 'utf8').trim();
    return children ? Number(children.split(' ')[0]) : null;
  } catch {
    return null;
  }
}

/** systemd's pace: a service (re)starts within a minute (more under emulation). */
const SERVICE_WAIT = { timeoutMs: 60_000 * slowdown, everyMs: 200 };

const c = () => container!;
const burrow = (...args: string[]) => c().run([BINARY_INSIDE, ...args], EMULATION_ENV);
const ready = () => c().run(['curl', '-sf', '--max-time', '5', `http://127.0.0.1:${PORT}/readyz`]).status === 0;
const mainPid = () =>
  Number(c().run(['systemctl', 'show', '--property=MainPID', '--value', 'burrow.service']).out.trim());

test.before(async () => {
  container = await boot();
});

test.after(() => {
  container?.stop();
});

test('install: a running, enabled service under its own account, its data where systemd made it', async () => {
  const r = burrow('service', 'install', '--port', String(PORT));
  assert.is(r.status, 0, r.out);
  await waitFor(ready, { what: 'the service to answer /readyz', ...SERVICE_WAIT });
  assert.is(c().run(['systemctl', 'is-active', 'burrow.service']).out.trim(), 'active');
  assert.is(c().run(['systemctl', 'is-enabled', 'burrow.service']).out.trim(), 'enabled');
  const uid = c().run(['id', '-u', 'burrow']).out.trim();
  assert.match(uid, /^\d+$/);
  assert.is.not(uid, '0');
  const status = c().run(['cat', `/proc/${mainPid()}/status`]).out;
  assert.match(status, new RegExp(`\\nUid:\\t${uid}\\t`), 'the process runs as the burrow account');
  assert.match(status, /\nNoNewPrivs:\t1\n/);
  const db = c().run(['stat', '--format', '%U %a', '/var/lib/burrow/burrow.db']).out.trim();
  assert.is(db, 'burrow 600');
  assert.ok(
    c()
      .run(['journalctl', '--unit', 'burrow.service', '--output', 'cat', '--no-pager'])
      .out.includes('"Burrow is listening"'),
    'its log is in the journal',
  );
});

test('the hardening holds for the running process: the system read-only, the volumes writable', () => {
  const inService = (...argv: string[]) => c().run(['nsenter', '--target', String(mainPid()), '--mount', ...argv]);
  assert.is.not(inService('touch', '/etc/burrow-was-here').status, 0, '/etc is read-only for the service');
  assert.is.not(inService('touch', '/usr/local/bin/burrow-was-here').status, 0, '/usr is read-only for the service');
  const probe = inService('touch', '/srv/burrow/.write-probe');
  assert.is(probe.status, 0, probe.out);
  assert.is(inService('rm', '/srv/burrow/.write-probe').status, 0);
});

test('status answers; a crash is restarted by systemd', async () => {
  assert.is(burrow('service', 'status').status, 0);
  const before = mainPid();
  assert.is(c().run(['kill', '-KILL', String(before)]).status, 0);
  await waitFor(
    () => {
      const now = mainPid();
      return now > 0 && now !== before;
    },
    { what: 'a new main process', ...SERVICE_WAIT },
  );
  await waitFor(ready, { what: 'the restarted service to answer', ...SERVICE_WAIT });
});

test('installing again (an upgrade) keeps the accounts and the settings file', async () => {
  const api = (method: string, route: string, body?: object) =>
    c().run([
      'curl',
      '-s',
      '--max-time',
      '10',
      '-X',
      method,
      '-H',
      'Content-Type: application/json',
      ...(body ? ['--data', JSON.stringify(body)] : []),
      `http://127.0.0.1:${PORT}${route}`,
    ]).out;
  const account = { email: 'owner@example.test', username: 'owner', password: 'a long enough passphrase 7' };
  assert.match(api('POST', '/api/auth/setup', account), /"username":"owner"/);
  c().run(['sh', '-c', 'echo "# kept by the test" >> /etc/burrow/burrow.env']);
  const r = burrow('service', 'install', '--port', String(PORT));
  assert.is(r.status, 0, r.out);
  await waitFor(ready, { what: 'the upgraded service to answer', ...SERVICE_WAIT });
  assert.match(api('GET', '/api/auth/status'), /"requiresSetup":false/);
  assert.match(api('POST', '/api/auth/login', { username: 'owner', password: account.password }), /"username":"owner"/);
  assert.match(c().run(['cat', '/etc/burrow/burrow.env']).out, /# kept by the test/, 'the settings file is kept');
});

test('uninstall stops it and keeps the data; --purge removes all but the volumes', async () => {
  c().run(['mkdir', '-p', '/srv/burrow/Files']);
  const r = burrow('service', 'uninstall');
  assert.is(r.status, 0, r.out);
  await waitFor(() => !ready(), { what: 'the port to close', ...SERVICE_WAIT });
  assert.is.not(c().run(['test', '-e', '/etc/systemd/system/burrow.service']).status, 0, 'the unit is gone');
  assert.is(c().run(['test', '-f', '/var/lib/burrow/burrow.db']).status, 0, 'the database is kept');
  assert.is(c().run(['id', '-u', 'burrow']).status, 0, 'the account is kept');
  const purge = burrow('service', 'uninstall', '--purge');
  assert.is(purge.status, 0, purge.out);
  assert.is.not(c().run(['test', '-e', '/var/lib/burrow']).status, 0, 'the data is removed');
  assert.is.not(c().run(['id', '-u', 'burrow']).status, 0, 'the account is removed');
  assert.is(c().run(['test', '-d', '/srv/burrow/Files']).status, 0, 'the volumes are never removed');
});

test.run();
