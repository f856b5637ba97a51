// The single executable, run the way a user runs it: copied alone into an empty folder,
// no node_modules anywhere above it, a bare environment.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import http from 'node:http';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { bareEnv, ensureBinary, runToEnd, sandbox, slowdown, start, type Running, type Sandbox } from './harness.ts';
import { waitFor } from '../support/wait.ts';
import { mountTmpfs } from '../support/mount.ts';

let box: Sandbox;
let run: Running;

test.before(async () => {
  ensureBinary();
  box = sandbox();
  run = await start(box);
});

test.after(async () => {
  if (run) await run.stop('SIGKILL');
  box?.remove();
});

test('it stands alone: the folder holds only the executable and no node_modules is reachable', () => {
  const entries = fs.readdirSync(box.dir).filter((e) => !['config', 'cache', 'volumes', '.cache'].includes(e));
  assert.equal(entries, [path.basename(box.binary)]);
  for (let dir = box.dir; ; dir = path.dirname(dir)) {
    assert.not.ok(fs.existsSync(path.join(dir, 'node_modules')), `node_modules above the executable: ${dir}`);
    if (path.dirname(dir) === dir) break;
  }
  // It runs as Burrow, not as a bare Node (the SEA blob is really inside).
  const version = runToEnd(box, bareEnv(box), ['--version']);
  assert.is(version.status, 0, version.stderr);
  assert.match(version.stdout, /^\d+\.\d+\.\d+/);
});

// Every third-party package that travels inside, with its licence: the LGPL ones (libheif-js,
// 7-Zip) with how to replace them, the add-ons, SQLite, pdf.js and Node itself.
const NOTICED: [string, RegExp][] = [
  ['libheif-js', /^libheif-js \S+: LGPL-3\.0/m],
  ['7z-wasm', /^7z-wasm \S+: LGPL-2\.1-or-later with the unRAR licence restriction/m],
  ['node-sqlite3-wasm', /^node-sqlite3-wasm \S+: MIT/m],
  ['@napi-rs/image', /^@napi-rs\/image \S+: MIT/m],
  ['pdfjs-dist', /^pdfjs-dist \S+: Apache-2\.0/m],
  ['Node.js', /^Node\.js \d+\.\d+\.\d+: MIT/m],
];

function assertNotices(text: string): void {
  for (const [name, line] of NOTICED) assert.match(text, line, `${name} and its licence are named`);
  // The platform package of the image add-on this executable carries, and the UI's own packages.
  assert.match(text, /^@napi-rs\/image-[a-z0-9-]+ \S+: MIT/m);
  assert.match(text, /^preact \S+: MIT/m);
  assert.match(text, /^@xterm\/xterm \S+: MIT/m);
  // The licence texts themselves, and how to replace the LGPL components.
  assert.match(text, /GNU LESSER GENERAL PUBLIC LICENSE/);
  assert.match(text, /unRAR restriction/);
  assert.match(text, /Apache License/);
  assert.match(text, /Node\.js is licensed for use as follows/);
  assert.match(text, /LGPL components: 7z-wasm, libheif-js\n[^]*npm run build/);
}

test('burrow --licenses prints the third-party notices; dist/ has the same file beside the executables', () => {
  const r = runToEnd(box, bareEnv(box), ['--licenses']);
  assert.is(r.status, 0, r.stderr);
  assertNotices(r.stdout);
  const beside = fs.readFileSync(path.join(path.dirname(ensureBinary().file), 'THIRD-PARTY-NOTICES.txt'), 'utf8');
  assertNotices(beside);
});

test('GET /licenses.txt serves the notices as text/plain, nosniff, to anyone; it changes nothing', async () => {
  const res = await fetch(`${run.url}/licenses.txt`);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.is(res.headers.get('x-content-type-options'), 'nosniff');
  assertNotices(await res.text());
  const post = await fetch(`${run.url}/licenses.txt`, { method: 'POST', body: 'x' });
  assert.ok(post.status === 404 || post.status === 405, `POST answered ${post.status}`);
});

test('/healthz and /readyz answer', async () => {
  const health = await fetch(`${run.url}/healthz`);
  assert.is(health.status, 200);
  const ready = await fetch(`${run.url}/readyz`);
  assert.is(ready.status, 200);
});

test('/api/openapi.json describes the API (OpenAPI 3.1, unversioned)', async () => {
  const res = await fetch(`${run.url}/api/openapi.json`);
  assert.is(res.status, 200);
  const doc = (await res.json()) as { openapi: string; info: { version: string }; paths: Record<string, unknown> };
  assert.match(doc.openapi, /^3\.1/);
  assert.is(doc.info.version, 'unversioned');
  assert.ok(doc.paths['/api/features'], 'features route described');
  assert.ok(Object.keys(doc.paths).length >= 4);
});

test('/api/features answers JSON', async () => {
  const res = await fetch(`${run.url}/api/features`);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  assert.type(await res.json(), 'object');
});

test('the embedded migrations ran: the database exists in CONFIG_DIR', () => {
  assert.ok(fs.existsSync(path.join(box.configDir, 'burrow.db')));
  assert.match(run.output(), /"msg":"database migrated"/);
});

test('the UI index is served from the embedded UI', async () => {
  const { info } = ensureBinary();
  const unpacked = () => fs.readdirSync(box.cacheDir).some((e) => /^ui-[0-9a-f]{16}$/.test(e));
  // Not unpacked at the start: the API answered the tests above without it.
  assert.not.ok(unpacked(), 'the UI was unpacked before any page was asked');
  const res = await fetch(`${run.url}/`);
  const body = await res.text();
  if (!info.ui) {
    // Built from a tree without a UI: the server says so instead of failing.
    assert.is(res.status, 503);
    assert.match(body, /web interface is not built/);
    return;
  }
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  assert.match(body, /<html/i);
  assert.is(res.headers.get('cache-control'), 'no-cache');
  // Client-side routes fall back to the same index.
  const deep = await fetch(`${run.url}/browse/some/folder`);
  assert.is(deep.status, 200);
  assert.is(await deep.text(), body);
  // A hashed asset referenced by the index is served, immutable.
  const asset = /(?:src|href)="(\/assets\/[^"]+)"/.exec(body)?.[1];
  if (asset) {
    const a = await fetch(`${run.url}${asset}`);
    assert.is(a.status, 200);
    assert.match(a.headers.get('cache-control') ?? '', /immutable/);
  }
  // Extracted once into the cache, by content hash, at the first page asked.
  assert.ok(unpacked());
});

test('an unknown API path answers the 404 envelope with its requestId', async () => {
  const res = await fetch(`${run.url}/api/no-such-thing`);
  assert.is(res.status, 404);
  const body = (await res.json()) as {
    success: boolean;
    error: { statusCode: number; requestId: string; message: string };
  };
  assert.is(body.success, false);
  assert.is(body.error.statusCode, 404);
  assert.ok(body.error.requestId);
  assert.is(body.error.requestId, res.headers.get('x-request-id'));
});

test('the startup self-check reports the native add-ons, which load from inside the executable', async () => {
  const out = await waitFor(run.output, {
    what: 'the optional parts line',
    timeoutMs: 10_000 * slowdown,
    until: (o) => o.includes('"msg":"optional parts"'),
  });
  const line = JSON.parse(out.split('\n').find((l) => l.includes('"msg":"optional parts"'))!) as Record<
    string,
    { available: boolean; reason?: string }
  >;
  assert.ok(line.image?.available, `image add-on: ${line.image?.reason}`);
  assert.ok(line.pty?.available, `pty add-on: ${line.pty?.reason}`);
  const native = fs.readdirSync(path.join(box.cacheDir, 'native'));
  assert.ok(
    native.some((e) => /^addon-image-[0-9a-f]{16}$/.test(e)),
    native.join(','),
  );
  assert.not.ok(
    native.some((e) => e.includes('.tmp-')),
    'no half-extracted folder left',
  );
});

test('it runs with glibc told to give memory back: GLIBC_TUNABLES set at its start, the same process', () => {
  // core/malloc-env.ts: the executable starts itself again (execve, same pid) with the malloc
  // tunables; the allocator reads them only at a program's start.
  const environ = fs.readFileSync(`/proc/${run.child.pid}/environ`, 'latin1').split('\0');
  assert.ok(
    environ.some((v) => v.startsWith('GLIBC_TUNABLES=glibc.malloc.arena_max=2')),
    environ.filter((v) => v.startsWith('GLIBC')).join(' ') || 'no GLIBC_TUNABLES',
  );
  assert.match(fs.readFileSync(`/proc/${run.child.pid}/cmdline`, 'latin1'), /burrow-linux-(x64|arm64)\0?/);
});

test('a second instance on the same CONFIG_DIR refuses with a clear message', () => {
  const second = runToEnd(box, bareEnv(box));
  assert.is(second.status, 1);
  assert.match(second.stderr, /already running/i);
  assert.match(second.stderr, /config folder/);
  assert.not.match(second.stderr, /\n\s+at /, 'a message, not a stack trace');
});

test('a bad environment value stops startup with one line naming the variable', () => {
  const other = sandbox();
  try {
    const r = runToEnd(other, bareEnv(other, { PORT: 'eighty' }));
    assert.is(r.status, 1);
    assert.match(r.stderr, /PORT/);
    assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  } finally {
    other.remove();
  }
});

/**
 * Sends a request whose body arrives in two parts, `pause` apart; `onFirstPart` runs once the
 * server has the request in hand (its "100 Continue": Node's server sends it as it takes the
 * request). Resolves with the answer.
 */
function slowRequest(
  url: string,
  body: string,
  onFirstPart: () => void,
  pauseMs: number,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/api/auth/login`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          expect: '100-continue',
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    req.flushHeaders();
    req.once('continue', () => {
      onFirstPart();
      // The pause between the parts is the slow request under test.
      setTimeout(() => req.end(body.slice(half)), pauseMs * slowdown);
    });
  });
}

/** Runs `fn` on an executable of its own (its own folder), killed and removed afterwards. */
async function withOwnServer(fn: (started: Running, own: Sandbox) => Promise<void>): Promise<void> {
  const own = sandbox();
  const started = await start(own);
  try {
    await fn(started, own);
  } finally {
    await started.stop('SIGKILL');
    own.remove();
  }
}

test('the log reader going away (a closed pipe, a restarted journald) does not stop it serving', () =>
  withOwnServer(async (reader) => {
    // Its output pipes closed at our end: each line it logs from now on meets EPIPE.
    reader.child.stdout!.destroy();
    reader.child.stderr!.destroy();
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${reader.url}/api/nothing-here-${i}`);
      assert.is(res.status, 404);
      assert.ok(((await res.json()) as { error: { requestId: string } }).error.requestId);
    }
    assert.is((await fetch(`${reader.url}/readyz`)).status, 200);
    assert.is(reader.child.exitCode, null, 'it exited');
    // And it still stops cleanly, its own last lines going nowhere.
    assert.is(await reader.stop('SIGTERM'), 0);
  }));

test('SIGTERM: stops accepting, finishes the request in flight, closes the database, exits 0', async () => {
  const body = JSON.stringify({ username: 'nobody', password: 'not-the-password' });
  const answer = await slowRequest(run.url, body, () => run.child.kill('SIGTERM'), 700);
  // The request that was in flight got a complete, well-formed answer.
  assert.is(answer.status, 401, `status ${answer.status}`);
  assert.not.throws(() => JSON.parse(answer.text));
  const code = await Promise.race([
    run.exited,
    // A deadline, not a pause: the exit is waited for; after 8 s it has not come.
    new Promise((r) => setTimeout(() => r('still running'), 8000 * slowdown)),
  ]);
  assert.is(code, 0, run.output());
  assert.match(run.output(), /"msg":"stopping","signal":"SIGTERM"/);
  // The lock is released: the same folder starts again at once.
  assert.not.ok(fs.existsSync(path.join(box.configDir, 'burrow.pid')));
  assert.not.ok(fs.existsSync(path.join(box.configDir, 'burrow.db.lock')));
  run = await start(box);
  assert.is((await fetch(`${run.url}/readyz`)).status, 200);
});

test('SIGHUP (the terminal it was started in closed, a console window on Windows) stops it cleanly too', () =>
  withOwnServer(async (started, own) => {
    assert.is((await fetch(`${started.url}/readyz`)).status, 200);
    // The signal's default ends the process on the spot: no stop, its locks left behind.
    assert.is(await started.stop('SIGHUP'), 0, started.output());
    assert.match(started.output(), /"msg":"stopping","signal":"SIGHUP"/);
    assert.not.ok(fs.existsSync(path.join(own.configDir, 'burrow.pid')));
    assert.not.ok(fs.existsSync(path.join(own.configDir, 'burrow.db.lock')));
  }));

test('--log-file on a disk that fills up: the lines are lost, the server goes on, and they resume once there is room', async () => {
  const own = sandbox();
  const logs = mountTmpfs(path.join(own.dir, 'Logs'), '1m');
  const file = path.join(logs.dir, 'burrow.log');
  const child = spawn(own.binary, ['--log-file', file], {
    cwd: own.dir,
    env: bareEnv(own, { LOG_LEVEL: 'debug' }),
    stdio: 'ignore',
  });
  const exited = new Promise<number | string>((r) => child.once('exit', (code, signal) => r(code ?? signal ?? '?')));
  const logged = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
  try {
    const port = await waitFor(() => /"msg":"Burrow is listening".*?"port":(\d+)/.exec(logged())?.[1], {
      what: 'the listening line in the log file',
      timeoutMs: 20_000 * slowdown,
      seen: () => logged().slice(-1000),
    });
    const url = `http://127.0.0.1:${port}`;
    // The disk fills up (another program's file): each request's line now meets ENOSPC.
    const filler = path.join(logs.dir, 'Backup 2024 (Kopie).tmp');
    const fd = fs.openSync(filler, 'w');
    try {
      for (;;) fs.writeSync(fd, Buffer.alloc(64 * 1024, 1));
    } catch (err) {
      assert.is((err as NodeJS.ErrnoException).code, 'ENOSPC');
    } finally {
      fs.closeSync(fd);
    }
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${url}/api/nothing-here-${i}`);
      assert.is(res.status, 404);
      assert.ok(((await res.json()) as { error: { requestId: string } }).error.requestId);
    }
    assert.is(child.exitCode, null, 'it exited on a full disk');
    // Room again: the lines go on (the file is opened again a second after a failed write).
    fs.rmSync(filler);
    await waitFor(
      async () => {
        await (await fetch(`${url}/api/after-the-disk-had-room`)).arrayBuffer();
        return logged().includes('/api/after-the-disk-had-room');
      },
      { what: 'a line written once there is room', timeoutMs: 20_000 * slowdown, seen: () => logged().slice(-500) },
    );
    child.kill('SIGTERM');
    assert.is(await exited, 0);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    logs.unmount();
    own.remove();
  }
});

test('--log-file that cannot be written stops the start with its reason', () => {
  const own = sandbox();
  try {
    const missing = path.join(own.dir, 'No such folder', 'burrow.log');
    const r = runToEnd(own, bareEnv(own), ['--log-file', missing]);
    assert.is(r.status, 1, r.stderr);
    assert.match(r.stderr, /burrow: cannot write the log file .*No such folder.*ENOENT/);
  } finally {
    own.remove();
  }
});

test('a new connection is refused once SIGTERM arrived, while a slow request still runs', async () => {
  const body = JSON.stringify({ username: 'nobody', password: 'x'.repeat(40) });
  let probe: Promise<boolean> | undefined;
  const answer = await slowRequest(
    run.url,
    body,
    () => {
      run.child.kill('SIGTERM');
      // A new connection once the server says it is stopping: refused (true) or accepted.
      probe = waitFor(() => run.output().includes('"msg":"stopping","signal":"SIGTERM"'), {
        what: 'the stopping line',
        timeoutMs: 10_000 * slowdown,
        seen: () => run.output().slice(-2000),
      }).then(() =>
        fetch(`${run.url}/healthz`).then(
          () => false,
          () => true,
        ),
      );
    },
    700,
  );
  assert.is(answer.status, 401);
  assert.is(await run.exited, 0);
  const refused = await probe;
  assert.is(refused, true, 'a new request after SIGTERM was accepted');
});

test.run();
