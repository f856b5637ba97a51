// The watchdog of the synchronous walk: a call that stays in progress past the I/O timeout is
// reported once, with the job and the folder it was about; a walker that is merely idle or
// moving on is never reported. The walks leave a folder in `skip` unread and incomplete.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nodeFs, nodeSyncFs } from '../../src/indexer/fs-layer.ts';
import { IoGuard } from '../../src/indexer/io-guard.ts';
import type { EntryRecord, WalkJob } from '../../src/indexer/protocol.ts';
import { walk } from '../../src/indexer/walker.ts';
import { walkSync } from '../../src/indexer/walker-sync.ts';
import { SyncBeat, syncBeatBuffer, SyncWatchdog } from '../../src/indexer/watchdog.ts';

test('a call in progress past the timeout is reported once, with its job and folder', () => {
  const buffer = syncBeatBuffer();
  const beat = new SyncBeat(buffer);
  const dog = new SyncWatchdog(buffer, 1000, () => {});
  try {
    assert.is(dog.check(0, 1000), null);
    assert.is(dog.check(5000, 1000), null, 'idle (no call in progress) is not a stall');
    beat.folder(7, 'Photos/2019/Ünïcode');
    beat.enter();
    assert.is(dog.check(6000, 1000), null, 'the call just began');
    assert.is(dog.check(6900, 1000), null, 'within the limit');
    assert.equal(dog.check(7100, 1000), { jobId: 7, folder: 'Photos/2019/Ünïcode', stuckMs: 1100 });
    assert.is(dog.check(9000, 1000), null, 'reported once');
  } finally {
    dog.stop();
  }
});

test('calls that keep finishing are progress, however long the walk', () => {
  const buffer = syncBeatBuffer();
  const beat = new SyncBeat(buffer);
  const dog = new SyncWatchdog(buffer, 1000, () => {});
  try {
    beat.folder(1, 'a');
    for (let t = 0; t < 10_000; t += 500) {
      beat.enter();
      assert.is(dog.check(t, 1000), null);
      beat.leave();
    }
    beat.enter();
    dog.check(20_000, 1000);
    assert.is(dog.check(20_999, 1000), null);
    assert.ok(dog.check(21_000, 1000));
  } finally {
    dog.stop();
  }
});

function tree(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-idx-dog-'));
  const w = (rel: string, bytes: number) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), Buffer.alloc(bytes));
  };
  w('ok/a.bin', 10);
  w('bad/b.bin', 20);
  w('bad/deeper/c.bin', 40);
  return root;
}

for (const kind of ['sync', 'async'] as const) {
  test(`${kind} walk: a folder in skip is not read and is recorded incomplete, up to the root`, async () => {
    const root = tree();
    const read: string[] = [];
    try {
      const records: EntryRecord[] = [];
      const sink = { entry: (r: EntryRecord) => records.push(r), doc: () => {} };
      const job: WalkJob = {
        id: 3,
        root,
        rel: '',
        concurrency: 2,
        batch: 0,
        pauseMs: 0,
        excludes: [],
        content: false,
        emit: 'dirs',
        sync: kind === 'sync',
        skip: ['bad'],
      };
      const buffer = syncBeatBuffer();
      const guard = new IoGuard(0, 1);
      const summary =
        kind === 'sync'
          ? await walkSync(
              job,
              sink,
              null,
              () => false,
              {
                readdir: (d) => {
                  read.push(d);
                  return nodeSyncFs.readdir(d);
                },
                lstat: nodeSyncFs.lstat,
              },
              new SyncBeat(buffer),
            )
          : await walk(
              job,
              {
                readdir: (d, done) => {
                  read.push(d);
                  nodeFs.readdir(d, done);
                },
                lstat: nodeFs.lstat,
              },
              guard,
              sink,
              null,
              () => false,
            );
      guard.close();
      assert.ok(!read.some((d) => d.endsWith(`${path.sep}bad`)), 'the skipped folder was not read');
      const bad = records.find((r) => r.name === 'bad')!;
      assert.equal([bad.complete, bad.totalSize], [false, 0]);
      assert.is(records.find((r) => r.name === 'ok')!.complete, true);
      assert.equal([summary.complete, summary.totalSize], [false, 10]);
      if (kind === 'sync') assert.is(Atomics.load(new Int32Array(buffer, 0, 1), 0) % 2, 0, 'no call left in progress');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
}

test.run();
