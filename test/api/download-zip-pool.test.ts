// Stored zip entries are read into reused buffers: a buffer may only be read into again once
// the socket has taken its bytes. A slow client (backpressure) and many multi-MiB entries read
// back byte for byte, CRCs checked by the system unzip, and no descriptor left open.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
const MB = 1024 * 1024;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const content = (i: number, size: number) => {
  const b = Buffer.allocUnsafe(size + 4);
  for (let j = 0; j < size; j += 4) b.writeUInt32LE(Math.imul(j + i * 7919, 2654435761) >>> 0, j);
  return b.subarray(0, size);
};
const files = new Map<string, Buffer>();

test.before(async () => {
  s = await startServer({ env: { AUTH_MODE: 'disabled', LOG_LEVEL: 'error' } });
  fs.mkdirSync(vol('Pics'));
  for (let i = 0; i < 12; i++) files.set(`photo-${i}.jpg`, content(i, 2 * MB + 4096 * i + 3));
  files.set('clip.mp4', content(99, 5 * MB + 17));
  files.set('empty.png', Buffer.alloc(0));
  files.set('report.txt', Buffer.from('words '.repeat(20_000)));
  for (const [name, data] of files) fs.writeFileSync(vol('Pics', name), data);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

/** POSTs and reads the answer slowly, pausing between chunks so the server meets backpressure. */
function slowDownload(body: string, stopAfter = Infinity): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${s.url}/api/download`,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        let got = 0;
        res.on('data', (d: Buffer) => {
          chunks.push(d);
          got += d.length;
          if (got > stopAfter) {
            req.destroy();
            resolve(Buffer.concat(chunks));
            return;
          }
          res.pause();
          // The slow client under test: a pause now and then.
          setTimeout(() => res.resume(), chunks.length % 16 === 0 ? 5 : 0);
        });
        res.on('end', () => resolve(Buffer.concat(chunks)));
        res.on('error', reject);
      },
    );
    req.on('error', (e) => (stopAfter < Infinity ? undefined : reject(e)));
    req.end(body);
  });
}

/** The server's open descriptors on the file(s) (its own process, from source or the executable). */
const openInSelection = () => s.openFiles().filter((l) => l.includes(`${path.sep}Pics${path.sep}`));

test('multi-MiB stored entries arrive intact through a slow client (CRC checked by unzip)', async () => {
  const zip = await slowDownload(JSON.stringify({ path: 'Files/Pics' }));
  const file = path.join(s.dirs.root, 'out.zip');
  fs.writeFileSync(file, zip);
  const tested = execFileSync('unzip', ['-t', file]).toString();
  assert.match(tested, /No errors detected/);
  const out = path.join(s.dirs.root, 'out');
  execFileSync('unzip', ['-q', file, '-d', out]);
  for (const [name, data] of files) assert.ok(fs.readFileSync(path.join(out, 'Pics', name)).equals(data), name);
  await waitFor(() => openInSelection().length === 0, {
    what: 'the server to close the pictures',
    seen: openInSelection,
  });
  assert.equal(openInSelection(), [], 'no descriptors left open');
});

test('a client leaving mid-archive leaves no descriptor open and the server keeps answering', async () => {
  const part = await slowDownload(JSON.stringify({ path: 'Files/Pics' }), 6 * MB);
  assert.ok(part.length > 6 * MB);
  await waitFor(() => openInSelection().length === 0, {
    what: 'the server to close the pictures',
    seen: openInSelection,
  });
  assert.equal(openInSelection(), [], 'no descriptors left open');
  const again = await fetch(`${s.url}/api/download`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ paths: ['Files/Pics/clip.mp4', 'Files/Pics/photo-3.jpg'] }),
  });
  const bytes = Buffer.from(await again.arrayBuffer());
  const file = path.join(s.dirs.root, 'again.zip');
  fs.writeFileSync(file, bytes);
  assert.match(execFileSync('unzip', ['-t', file]).toString(), /No errors detected/);
});

test.run();
