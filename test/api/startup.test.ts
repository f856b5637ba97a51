// Startup: leftovers of interrupted multipart uploads are removed (TUS parts kept for the TUS
// sweep); data folders that cannot be made or written stop the server with one clear line
// and a non-zero exit (CONFIG_DIR=/proc/x used to spin at 100 % CPU); settings that leave the
// server open or sign-in broken are said loudly, and OIDC is not advertised while it has no
// routes.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import * as support from '../support/server.ts';
import { makeDirs, removeDirs, startServer, type TestServer } from '../support/server.ts';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

/** The server the run is about (source, or the executable when the support offers it). */
function command(): { file: string; args: string[]; env: Record<string, string | undefined> } {
  const fromSupport = (
    support as { serverCommand?: () => { file: string; args: string[]; env: Record<string, string> } }
  ).serverCommand;
  return fromSupport
    ? fromSupport()
    : { file: process.execPath, args: [path.join(repo, 'src', 'main.ts')], env: { ...process.env } };
}

/** Runs the server expecting it to stop by itself; resolves with its exit code and output. */
function runToExit(
  env: Record<string, string>,
  ms = 15_000,
): Promise<{ code: number | null; stderr: string; stdout: string; timedOut: boolean }> {
  const c = command();
  return new Promise((resolve) => {
    const child = spawn(c.file, c.args, {
      env: { ...c.env, HOST: '127.0.0.1', PORT: '0', MDNS_ENABLED: 'false', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout!.on('data', (d) => {
      stdout += d;
    });
    child.stderr!.on('data', (d) => {
      stderr += d;
    });
    // A deadline, not a pause: a server that does not stop by itself is killed.
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, ms);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout, timedOut });
    });
  });
}

function assertOneLine(r: { code: number | null; stderr: string; timedOut: boolean }, pattern: RegExp): void {
  assert.not.ok(r.timedOut, 'the server stopped by itself');
  assert.is(r.code, 1, `exit status 1 (${r.code})`);
  const lines = r.stderr.trim().split('\n');
  assert.is(lines.length, 1, `one line: ${r.stderr}`);
  assert.match(lines[0]!, pattern);
  assert.not.match(r.stderr, /\n\s+at |node:internal|\/snapshot\/|\.ts:\d+/, 'no stack and no source paths');
}

/** Log lines of an executable server arrive through a pipe: wait for them. */
const settle = (s: TestServer) => (s as TestServer & { settleLogs?: () => Promise<void> }).settleLogs?.();

test('CONFIG_DIR under /proc (a folder that cannot be created) fails fast with one line', async () => {
  const dirs = makeDirs();
  try {
    const r = await runToExit({ CONFIG_DIR: '/proc/burrow-x', CACHE_DIR: dirs.cache, VOLUME_ROOT: dirs.volumes });
    assertOneLine(r, /^burrow: CONFIG_DIR \(\/proc\/burrow-x\) cannot be used/);
    const r2 = await runToExit({
      CONFIG_DIR: dirs.config,
      CACHE_DIR: '/proc/burrow-y/cache',
      VOLUME_ROOT: dirs.volumes,
    });
    assertOneLine(r2, /^burrow: CACHE_DIR \(\/proc\/burrow-y\/cache\) cannot be used/);
  } finally {
    removeDirs(dirs);
  }
});

test('an unwritable or blocked data folder is one clear line and a non-zero exit', async () => {
  const dirs = makeDirs();
  const blocked = path.join(dirs.root, 'a-file');
  fs.writeFileSync(blocked, 'not a folder');
  const readOnly = path.join(dirs.root, 'ro');
  fs.mkdirSync(readOnly);
  let mounted = false;
  try {
    const r = await runToExit({
      CONFIG_DIR: path.join(blocked, 'config'),
      CACHE_DIR: dirs.cache,
      VOLUME_ROOT: dirs.volumes,
    });
    assertOneLine(r, /^burrow: CONFIG_DIR \(.*a-file\/config\) cannot be used.*a part of the path is a file/);
    if (process.getuid?.() === 0) {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', readOnly]);
      mounted = true;
    } else {
      fs.chmodSync(readOnly, 0o555);
    }
    const r2 = await runToExit({
      CONFIG_DIR: dirs.config,
      CACHE_DIR: path.join(readOnly, 'cache'),
      VOLUME_ROOT: dirs.volumes,
    });
    assertOneLine(r2, /^burrow: CACHE_DIR \(.*ro\/cache\) cannot be used/);
    const r3 = await runToExit({ CONFIG_DIR: readOnly, CACHE_DIR: dirs.cache, VOLUME_ROOT: dirs.volumes });
    assertOneLine(r3, /^burrow: CONFIG_DIR \(.*\/ro\) cannot be used/);
  } finally {
    if (mounted) execFileSync('umount', [readOnly]);
    else fs.chmodSync(readOnly, 0o755);
    removeDirs(dirs);
  }
});

test('part files of interrupted multipart uploads are removed at startup; TUS parts stay for their uploads', async () => {
  const s = await startServer({ env: { AUTH_MODE: 'disabled' } });
  const staging = path.join(s.dirs.config, 'files', 'uploads');
  try {
    // One upload registers the staging folder.
    const fd = new FormData();
    fd.append('uploadTo', 'Files');
    fd.append('filedata', new Blob(['x']), 'x.txt');
    assert.is((await new Client(s.url).post('/api/upload', fd)).status, 201);
    await s.close();
    fs.mkdirSync(staging, { recursive: true });
    fs.writeFileSync(path.join(staging, 'mp-AbC_12-xyz.part'), Buffer.alloc(4096));
    fs.writeFileSync(path.join(staging, 'mp-second.part'), 'y');
    const tusPart = `tus-${'0123456789abcdef'.repeat(2)}.part`;
    fs.writeFileSync(path.join(staging, tusPart), 'kept');
    fs.writeFileSync(path.join(staging, 'notes.txt'), 'not ours to judge');
    await s.restart();
    assert.equal(fs.readdirSync(staging).sort(), ['notes.txt', tusPart]);
    await settle(s);
    assert.ok(s.logs.some((l) => l.msg === 'removed part files of interrupted multipart uploads' && l.removed === 2));
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('AUTH_MODE=disabled on a non-loopback address warns loudly; on loopback it does not', async () => {
  for (const [env, loud] of [
    [{ AUTH_ENABLED: 'false', HOST: '0.0.0.0' }, true],
    [{ AUTH_MODE: 'disabled', HOST: '0.0.0.0' }, true],
    [{ AUTH_MODE: 'disabled', HOST: '127.0.0.1' }, false],
  ] as const) {
    const s = await startServer({ env: { ...env } });
    try {
      await settle(s);
      const warned = s.logs.some((l) => l.level === 'warn' && /AUTHENTICATION IS OFF/.test(l.msg));
      assert.is(warned, loud, JSON.stringify(env));
    } finally {
      await s.close();
      removeDirs(s.dirs);
    }
  }
});

test('OIDC_ENABLED without OIDC_ISSUER warns and is not advertised; a configured provider is advertised without a warning', async () => {
  const cases: [Record<string, string>, boolean][] = [
    [{ OIDC_ENABLED: 'true' }, false],
    [
      {
        OIDC_ENABLED: 'true',
        OIDC_ISSUER: 'https://id.example.org',
        OIDC_CLIENT_ID: 'burrow',
        OIDC_CLIENT_SECRET: 's3cret',
      },
      true,
    ],
  ];
  for (const [env, advertised] of cases) {
    const s = await startServer({ env });
    try {
      await settle(s);
      const warned = s.logs.some((l) => l.level === 'warn' && /OIDC_ENABLED=true/.test(l.msg));
      assert.is(warned, !advertised, `warned for ${JSON.stringify(env)}`);
      assert.not.ok(
        s.logs.some((l) => JSON.stringify(l).includes('s3cret')),
        'the client secret is never logged',
      );
      const status = await new Client(s.url).get('/api/auth/status');
      assert.is(status.status, 200);
      assert.is(status.json.strategies.oidc, advertised);
      assert.is(status.json.oidc.enabled, advertised);
      assert.is(status.json.oidc.issuer, advertised ? 'https://id.example.org' : null);
    } finally {
      await s.close();
      removeDirs(s.dirs);
    }
  }
});

test.run();
