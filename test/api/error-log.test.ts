// Every error answer reaches the log at info (status, code, requestId, method, path — never the
// query string); 5xx stay at warn/error; a client that leaves mid-request is one debug line,
// never an "unhandled error" with a stack.
import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setupAdmin } from '../support/auth.ts';
import { envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const LEVELS: Record<string, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Log lines of an executable server arrive through a pipe: wait for them. */
const settle = (s: TestServer) => (s as TestServer & { settleLogs?: () => Promise<void> }).settleLogs?.();

test('a 404 and a 400 put a line with their requestId in the log at the default level (info), without the query string', async () => {
  const s = await startServer();
  try {
    const admin = await setupAdmin(s);
    const missing = await admin.get('/api/no/such/route?token=SECRET-IN-QUERY');
    assert.is(missing.status, 404);
    const bad = await admin.post('/api/files/folder', { path: 'Files', name: 'a/b' });
    assert.is(bad.status, 400);
    await settle(s);
    for (const [answer, method, path] of [
      [missing, 'GET', '/api/no/such/route'],
      [bad, 'POST', '/api/files/folder'],
    ] as const) {
      const e = envelope(answer);
      const line = s.logs.find((l) => l.requestId === e.requestId && LEVELS[l.level]! >= LEVELS.info!);
      assert.ok(line, `a line at info or above for ${e.requestId}`);
      assert.is(line.level, 'info');
      assert.is(line.status, answer.status);
      assert.is(line.code, e.code);
      assert.is(line.method, method);
      assert.is(line.path, path);
    }
    assert.not.ok(
      s.logs.some((l) => JSON.stringify(l).includes('SECRET-IN-QUERY')),
      'the query string is never logged',
    );
    // A refused sign-in: logged, but not the password.
    const wrong = await admin.post('/api/auth/login', { identifier: 'admin', password: 'not-the-password-123' });
    assert.is(wrong.status, 401);
    await settle(s);
    assert.ok(s.logs.some((l) => l.requestId === envelope(wrong).requestId && l.level === 'info'));
    assert.not.ok(s.logs.some((l) => JSON.stringify(l).includes('not-the-password-123')));
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('a client that aborts an upload and a JSON body mid-way is one debug line, no error or stack', async () => {
  const s = await startServer();
  try {
    const admin = await setupAdmin(s);
    const host = new URL(s.url);
    const cut = async (head: string, bytes: number) => {
      const before = s.logs.length;
      const socket = net.connect(Number(host.port), host.hostname);
      await new Promise((r) => socket.once('connect', r));
      socket.write(head);
      // Cut once the head and part of the body are with the server's socket (flushed by this side).
      await new Promise((r) => socket.write(Buffer.alloc(bytes, 0x61), r));
      socket.destroy();
      await settle(s);
      await waitFor(() => s.logs.slice(before).some((l) => /went away/.test(l.msg)), {
        what: 'the cut request to be logged',
        seen: () => s.logs.slice(before).map((l) => l.msg),
      });
      // A quiet while on purpose: an error line of the cut request would come after its "went
      // away" line, and nothing marks the end of a request whose client left.
      await new Promise((r) => setTimeout(r, 200));
      const lines = s.logs.slice(before);
      assert.equal(
        lines.filter((l) => l.level === 'error' || l.level === 'warn'),
        [],
        'no error or warning',
      );
      assert.not.ok(
        lines.some((l) => /unhandled/.test(l.msg) || l.err?.stack),
        'no stack',
      );
      assert.is(lines.filter((l) => /went away/.test(l.msg)).length, 1, 'one line');
      assert.is(lines.find((l) => /went away/.test(l.msg))?.level, 'debug');
    };
    const boundary = 'b0undary';
    const preamble = `--${boundary}\r\nContent-Disposition: form-data; name="uploadTo"\r\n\r\nFiles\r\n--${boundary}\r\nContent-Disposition: form-data; name="filedata"; filename="x.bin"\r\n\r\n`;
    await cut(
      `POST /api/upload HTTP/1.1\r\nHost: ${host.host}\r\nCookie: ${admin.cookieHeader}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 10000000\r\n\r\n${preamble}`,
      300_000,
    );
    await cut(
      `POST /api/files/folder HTTP/1.1\r\nHost: ${host.host}\r\nCookie: ${admin.cookieHeader}\r\nContent-Type: application/json\r\nContent-Length: 500000\r\n\r\n{"path":"Files","name":"`,
      1000,
    );
    assert.is((await admin.get('/api/volumes')).status, 200, 'the server carries on');
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test.run();
