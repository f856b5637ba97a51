// The walker thread leaves when it has had no job for a while (its isolate is ~14 MB of an
// idle server) and the next job starts a fresh one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WalkerClient } from '../../src/indexer/worker-client.ts';
import type { Logger } from '../../src/core/log.ts';

const quiet = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return quiet;
  },
} as unknown as Logger;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await sleep(20);
  return check();
}

test('an idle walker thread retires and the next listing starts a new one', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-walker-idle-'));
  fs.writeFileSync(path.join(dir, 'a.txt'), 'hello');
  const client = new WalkerClient({ ioTimeoutMs: 0, maxStalledIo: 2 }, quiet, 150);
  try {
    client.warm();
    assert.ok(client.running);
    assert.ok(await until(() => !client.running, 10_000), 'the idle worker did not retire');
    const listing = await client.list(dir, '', []);
    assert.ok(listing.ok);
    assert.equal(
      listing.entries.map((e) => e.name),
      ['a.txt'],
    );
    assert.ok(client.running, 'a job starts a worker');
    assert.ok(await until(() => !client.running, 10_000), 'the worker did not retire after its job');
  } finally {
    await client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('concurrent listings with a short idle delay both answer', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-walker-idle-'));
  const client = new WalkerClient({ ioTimeoutMs: 0, maxStalledIo: 2 }, quiet, 50);
  try {
    const first = client.list(dir, '', []);
    const second = client.list(dir, '', []);
    const [a, b] = await Promise.all([first, second]);
    assert.ok(a.ok && b.ok);
  } finally {
    await client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
