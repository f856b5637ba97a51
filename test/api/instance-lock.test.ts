// One Burrow per CONFIG_DIR, with a lock the kernel drops when the process ends however it ends.
// After a kill -9 (a power cut) the leftover burrow.pid may name a pid that now belongs to some
// other live process: that must never keep Burrow from starting, and `burrow doctor` says the lock
// is free and whose the pid now is. A live Burrow's lock is refused to a second one, which names
// the holder. Real processes only: the server (source or executable), `burrow doctor`, `sleep`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import { makeDirs, removeDirs, serverCommand, type TestDirs } from '../support/server.ts';

const admin = { email: 'zoe.martin@example.org', username: 'zoe.martin', password: 'a long passphrase, 2024!' };

const envOf = (dirs: TestDirs) => ({
  CONFIG_DIR: dirs.config,
  CACHE_DIR: dirs.cache,
  VOLUME_ROOT: dirs.volumes,
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'info',
});

interface Running {
  child: ChildProcess;
  url: string;
}

/** Starts a server and waits for its listening line; rejects with its output when it exits first. */
function start(dirs: TestDirs): Promise<Running> {
  return new Promise((resolve, reject) => {
    const c = serverCommand();
    const child = spawn(c.file, c.args, { env: { ...c.env, ...envOf(dirs) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    // A deadline, not a pause: the child's output is waited for as it comes.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no listening line within 60 s: ${out}`));
    }, 60_000);
    const seen = (d: Buffer) => {
      out += d;
      const m = /"msg":"Burrow is listening".*?"port":(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', seen).resume();
        child.off('exit', early);
        resolve({ child, url: `http://127.0.0.1:${m[1]}` });
      }
    };
    const early = (code: number | null) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`the server exited (${code}) before listening: ${out}`), { code, out }));
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', (d) => (out += d));
    child.once('exit', early);
  });
}

const killHard = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

function doctor(dirs: TestDirs): { status: number | null; lock: string; database: string | undefined } {
  const c = serverCommand();
  const r = spawnSync(c.file, [...c.args, 'doctor'], {
    env: { ...c.env, ...envOf(dirs), PORT: '0' },
    encoding: 'utf8',
    timeout: 90_000,
  });
  const lock = r.stdout.split('\n').find((l) => /^ {2}(ok {2}|warn|FAIL) {2}instance lock /.test(l));
  assert.ok(lock, `doctor printed no lock line:\n${r.stdout}${r.stderr}`);
  const database = r.stdout.split('\n').find((l) => /^ {2}(ok {2}|warn|FAIL) {2}database /.test(l));
  return { status: r.status, lock: lock!, database };
}

const pidFile = (dirs: TestDirs) => path.join(dirs.config, 'burrow.pid');

test('after a kill -9, a burrow.pid naming a live unrelated process (pid reuse) neither blocks the start nor looks healthy', async () => {
  const dirs = makeDirs();
  const unrelated = spawn('sleep', ['600'], { stdio: 'ignore' });
  let server: Running | undefined;
  try {
    server = await start(dirs);
    assert.is((await new Client(server.url).post('/api/auth/setup', admin)).status, 201);
    await killHard(server.child);
    server = undefined;
    // The power cut: the pid file stays, and so does the SQLite lock directory a crash can
    // leave; meanwhile the pid it names went to another program.
    assert.ok(fs.existsSync(pidFile(dirs)), 'a kill -9 leaves burrow.pid behind');
    const [, ...rest] = fs.readFileSync(pidFile(dirs), 'utf8').split('\n');
    fs.writeFileSync(pidFile(dirs), [String(unrelated.pid), ...rest].join('\n'));
    fs.mkdirSync(path.join(dirs.config, 'burrow.db.lock'), { recursive: true });

    const d = doctor(dirs);
    assert.is(d.status, 0, `${d.lock}\n${d.database}`);
    assert.match(d.database!, /lock directory left by an unclean stop was removed/);
    // The database is in WAL: the kill left the last commits in burrow.db-wal, doctor wrote them back.
    assert.match(d.database!, /the commits an unclean stop left in burrow.db-wal were written back/);
    assert.not.ok(fs.existsSync(path.join(dirs.config, 'burrow.db-wal')));
    assert.match(d.lock, /^ {2}ok +instance lock +free: no Burrow is running/);
    assert.match(
      d.lock,
      new RegExp(`burrow.pid .*names pid ${unrelated.pid}, now a process that is not Burrow's \\(sleep 600\\)`),
    );

    // The start finds them again (doctor cleared the lock directory; a crash leaves it anew).
    fs.mkdirSync(path.join(dirs.config, 'burrow.db.lock'));
    server = await start(dirs);
    assert.is(fs.readFileSync(pidFile(dirs), 'utf8').split('\n')[0], String(server.child.pid));
    // Behind the leftover lock directory every query would answer "database is locked".
    const signIn = await new Client(server.url).post('/api/auth/login', {
      identifier: admin.username,
      password: admin.password,
    });
    assert.is(signIn.status, 200, 'the data from before the kill is there');
  } finally {
    unrelated.kill('SIGKILL');
    if (server) await killHard(server.child);
    removeDirs(dirs);
  }
});

test('a second Burrow on the same folder is refused and told whose the lock is; doctor names the holder; a kill -9 frees it at once', async () => {
  const dirs = makeDirs();
  let first: Running | undefined;
  let second: Running | undefined;
  try {
    first = await start(dirs);
    const refused = (await start(dirs).then(
      () => assert.unreachable('a second server started on the same config folder'),
      (err) => err,
    )) as { code: number; out: string };
    assert.ok(refused.code !== 0);
    assert.match(
      refused.out,
      new RegExp(
        `Another Burrow \\(pid ${first.child.pid}, started \\d{4}-\\d\\d-\\d\\dT[^,]+, release [^)]+\\) is already running`,
      ),
    );
    const d = doctor(dirs);
    assert.is(d.status, 0);
    assert.match(d.lock, new RegExp(`held by a running Burrow \\(pid ${first.child.pid}, started `));

    await killHard(first.child);
    first = undefined;
    second = await start(dirs);
    assert.is(fs.readFileSync(pidFile(dirs), 'utf8').split('\n')[0], String(second.child.pid));
    // A clean stop leaves nothing behind.
    const exited = new Promise((resolve) => second!.child.once('exit', resolve));
    second.child.kill('SIGTERM');
    assert.is(await exited, 0);
    second = undefined;
    assert.not.ok(fs.existsSync(pidFile(dirs)));
    assert.match(doctor(dirs).lock, /free: no Burrow is running with this config folder$/);
  } finally {
    if (first) await killHard(first.child);
    if (second) await killHard(second.child);
    removeDirs(dirs);
  }
});

test.run();
