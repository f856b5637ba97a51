// The walker thread leaves when it has had no job for a while (its isolate is ~14 MB of an
// idle server) and the next job starts a fresh one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WalkerClient } from '../../src/indexer/worker-client.ts';
import type { Logger } from '../../src/core/log.ts';
import { waitFor } from '../support/wait.ts';

const quiet = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return quiet;
  },
} as unknown as Logger;

test('an idle walker thread retires and the next listing starts a new one', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-walker-idle-'));
  fs.writeFileSync(path.join(dir, 'a.txt'), 'hello');
  const client = new WalkerClient({ ioTimeoutMs: 0, maxStalledIo: 2 }, quiet, 150);
  try {
    client.warm();
    assert.ok(client.running);
    await waitFor(() => !client.running, { what: 'the idle worker to retire' });
    const listing = await client.list(dir, '', []);
    assert.ok(listing.ok);
    assert.equal(
      listing.entries.map((e) => e.name),
      ['a.txt'],
    );
    assert.ok(client.running, 'a job starts a worker');
    await waitFor(() => !client.running, { what: 'the worker to retire after its job' });
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
