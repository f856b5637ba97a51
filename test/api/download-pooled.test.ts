// Single-file downloads read into a few reused buffers: a buffer may only be read into again
// once the socket has taken its bytes. A slow client (backpressure) gets every byte of whole
// files and Ranges that cross buffer boundaries, and a client that leaves mid-file leaves no
// descriptor open (the server's own descriptors, from source and from the executable).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
const MB = 1024 * 1024;
const SIZE = 13 * MB + 12_345;
const data = Buffer.allocUnsafe(SIZE + 4);
for (let j = 0; j < SIZE; j += 4) data.writeUInt32LE(Math.imul(j + 17, 2654435761) >>> 0, j);
const file = data.subarray(0, SIZE);

test.before(async () => {
  s = await startServer({ env: { AUTH_MODE: 'disabled', LOG_LEVEL: 'error' } });
  fs.mkdirSync(path.join(s.dirs.volumes, 'Files', 'Big'));
  fs.writeFileSync(path.join(s.dirs.volumes, 'Files', 'Big', 'data.bin'), file);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

/** GETs slowly (pausing between chunks), optionally leaving after `stopAfter` bytes. */
function slowGet(
  range?: string,
  stopAfter = Infinity,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${s.url}/api/download/Files/Big/data.bin`, { headers: range ? { range } : {} }, (res) => {
      const chunks: Buffer[] = [];
      let got = 0;
      const done = () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) });
      res.on('data', (d: Buffer) => {
        chunks.push(d);
        got += d.length;
        if (got > stopAfter) {
          req.destroy();
          return done();
        }
        res.pause();
        // The slow client under test: a pause now and then.
        setTimeout(() => res.resume(), chunks.length % 32 === 0 ? 5 : 0);
      });
      res.on('end', done);
      res.on('error', reject);
    });
    req.on('error', (e) => (stopAfter < Infinity ? undefined : reject(e)));
  });
}

/** The server's open descriptors on the file(s) (its own process, from source or the executable). */
const openOnFile = () => s.openFiles().filter((l) => l.endsWith(`${path.sep}Big${path.sep}data.bin`));

test('a slow client gets every byte of a multi-MiB file and of Ranges across buffer boundaries', async () => {
  const whole = await slowGet();
  assert.is(whole.status, 200);
  assert.is(whole.headers['content-length'], String(SIZE));
  assert.ok(whole.body.equals(file), 'whole file');
  for (const [start, end] of [
    [MB - 1, 3 * MB + 1],
    [5 * MB + 7, SIZE - 1],
    [0, 0],
    [SIZE - 1, SIZE - 1],
  ] as const) {
    const part = await slowGet(`bytes=${start}-${end}`);
    assert.is(part.status, 206);
    assert.is(part.headers['content-range'], `bytes ${start}-${end}/${SIZE}`);
    assert.ok(part.body.equals(file.subarray(start, end + 1)), `bytes ${start}-${end}`);
  }
  const suffix = await slowGet(`bytes=-${2 * MB + 5}`);
  assert.ok(suffix.body.equals(file.subarray(SIZE - 2 * MB - 5)), 'suffix range');
});

test('a client leaving mid-file leaves no descriptor open and the server keeps answering', async () => {
  for (const range of [undefined, `bytes=${MB}-`]) {
    const part = await slowGet(range, 3 * MB);
    assert.ok(part.body.length > 3 * MB && part.body.length < SIZE);
  }
  await waitFor(() => openOnFile().length === 0, { what: 'the server to close data.bin', seen: openOnFile });
  assert.equal(openOnFile(), [], 'no descriptors left open');
  const again = await fetch(`${s.url}/api/download/Files/Big/data.bin`, { headers: { range: 'bytes=100-199' } });
  assert.is(again.status, 206);
  assert.ok(Buffer.from(await again.arrayBuffer()).equals(file.subarray(100, 200)));
});

test.run();
