// A download racing a replacement takes its length and its bytes from one open descriptor:
// every answer is whole and one version. A file cut short while it streams (single or zip)
// fails that answer only — the client sees a broken answer, never a hang — and the server
// stays up. HTTP and the file system only.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const MB = 1024 * 1024;

test.before(async () => {
  s = await startServer({ env: { AUTH_MODE: 'disabled' } });
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('downloads racing a replacement: every answer is whole and holds one version', async () => {
  const versions = [Buffer.alloc(3 * MB, 0x41), Buffer.alloc(1 * MB, 0x42)];
  fs.writeFileSync(vol('swap.bin'), versions[0]!);
  let running = true;
  const replacer = (async () => {
    let i = 0;
    while (running) {
      fs.writeFileSync(vol('.next'), versions[++i % 2]!);
      fs.renameSync(vol('.next'), vol('swap.bin'));
      // The pace of the replacements on purpose: one every few ms while the downloads run.
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  let answers = 0;
  try {
    for (let n = 0; n < 40; n++) {
      const res = await fetch(`${s.url}/api/download/Files/swap.bin`, { signal: AbortSignal.timeout(10_000) });
      assert.is(res.status, 200);
      const body = Buffer.from(await res.arrayBuffer());
      assert.is(body.length, Number(res.headers.get('content-length')), 'length and bytes from one file');
      assert.ok(body.length > 0 && body.every((b) => b === body[0]), 'one version, not a mix');
      answers++;
    }
  } finally {
    running = false;
    await replacer;
  }
  assert.is(answers, 40);
});

// The zip names its files at the top of the selection: they are opened (and sized) before the answer starts.
const zipOf = {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ paths: ['Files/cut/big.zip', 'Files/cut/small.txt'] }),
};
for (const [label, url, init] of [
  ['a single download', '/api/download/Files/cut/big.zip', {}],
  ['a zip', '/api/download', zipOf],
] as const) {
  test(`${label} of a file cut short while it streams fails that answer and the server stays up`, async () => {
    fs.rmSync(vol('cut'), { recursive: true, force: true });
    fs.mkdirSync(vol('cut'));
    // A stored kind (.zip) so the zip streams the bytes as they are.
    fs.writeFileSync(vol('cut', 'big.zip'), Buffer.alloc(64 * MB, 0x43));
    fs.writeFileSync(vol('cut', 'small.txt'), 'small');
    const res = await fetch(s.url + url, { ...init, signal: AbortSignal.timeout(20_000) });
    assert.is(res.status, 200);
    const reader = res.body!.getReader();
    await reader.read();
    fs.truncateSync(vol('cut', 'big.zip'), 0);
    let failed = false;
    try {
      for (;;) if ((await reader.read()).done) break;
    } catch (err) {
      failed = (err as Error).name !== 'TimeoutError';
    }
    assert.ok(failed, 'the answer is broken off, not finished and not hanging');
    const again = await fetch(`${s.url}/api/browse/Files`);
    assert.is(again.status, 200, 'the server is still up');
    const logged = () =>
      s.logs.some(
        (l) =>
          (l.level === 'warn' || l.level === 'error') &&
          /fail|error/i.test(String(l.msg)) &&
          String(l.path ?? l.url ?? '').startsWith('/api/download'),
      );
    await waitFor(logged, { what: 'the failure to be logged', seen: () => s.logs.slice(-5) });
    assert.ok(logged(), 'the failure is logged');
    s.logs.length = 0;
  });
}

test.run();
