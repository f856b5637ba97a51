// The quiet-time collection (src/core/idle-gc.ts) gives memory back after work even when memory
// went back meanwhile by other means: the first walk's thread leaving (~20 MB of RSS) used to
// leave a mark that the server at rest never reached again, so the main heap's garbage of the
// rest of the walk, and of every workload after it, stayed (issue 33: idle 155 MB and 157 MB
// 60 s after the bench workload through the executable, against ~122 and ~129).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createIdleCollector, type MemoryReading } from '../../src/core/idle-gc.ts';
import { waitFor } from '../support/wait.ts';

const MB = 1024 * 1024;

/** A process whose readings the test sets; a collection empties the heap's garbage. */
function fakeProcess(start: MemoryReading) {
  const now = { ...start };
  let garbage = 0;
  let collections = 0;
  let reads = 0;
  return {
    now,
    /** Work that leaves `mb` of garbage on the main heap (its pages count in RSS too). */
    work(mb: number) {
      garbage += mb * MB;
      now.heap += mb * MB;
      now.rss += mb * MB;
    },
    get collections() {
      return collections;
    },
    get reads() {
      return reads;
    },
    read: () => (reads++, { ...now }),
    collect: () => {
      collections++;
      now.heap -= garbage;
      now.rss -= garbage;
      garbage = 0;
    },
  };
}

test('background work after a worker thread left is collected once quiet', async () => {
  // At the first collection the walker's thread is up: 150 MB, 20 of them its isolate.
  const p = fakeProcess({ rss: 150 * MB, heap: 30 * MB });
  p.work(2);
  const idle = createIdleCollector({ quietMs: 20, backgroundMs: 20, read: p.read, collect: p.collect });
  try {
    await waitFor(() => p.collections === 1, { what: 'the collection after the start' });
    // The thread leaves; the main thread's share of the walk leaves 17 MB of garbage behind.
    p.now.rss -= 20 * MB;
    p.work(17);
    await waitFor(() => p.collections === 2, { what: 'the background work to be collected' });
    assert.equal(p.now.rss, 130 * MB);
  } finally {
    idle.stop();
  }
});

test('a burst of requests after the thread left is collected once quiet', async () => {
  const p = fakeProcess({ rss: 150 * MB, heap: 30 * MB });
  p.work(2);
  const idle = createIdleCollector({ quietMs: 20, backgroundMs: 60_000, read: p.read, collect: p.collect });
  try {
    await waitFor(() => p.collections === 1, { what: 'the collection after the start' });
    p.now.rss -= 20 * MB;
    // Only the quiet timer runs here (no background check between): the burst follows at once.
    p.work(6);
    idle.touch();
    await waitFor(() => p.collections === 2, { what: 'the burst to be collected' });
    assert.equal(p.now.heap, 30 * MB);
  } finally {
    idle.stop();
  }
});

test('nothing is collected while nothing grew', async () => {
  const p = fakeProcess({ rss: 120 * MB, heap: 30 * MB });
  p.work(1);
  const idle = createIdleCollector({ quietMs: 20, backgroundMs: 20, read: p.read, collect: p.collect });
  try {
    await waitFor(() => p.collections === 1, { what: 'the collection after the start' });
    p.work(1);
    idle.touch();
    // A growth of 1 MB is below both thresholds: the checks read and leave it.
    const reads = p.reads;
    await waitFor(() => p.reads >= reads + 3, { what: 'three more checks' });
    assert.equal(p.collections, 1);
  } finally {
    idle.stop();
  }
});

test('each collection is followed by a trim of what it freed, and the next growth is measured from after it', async () => {
  // What a collection frees outside V8's pages stays free inside glibc's arenas (RSS) until a
  // trim: 12 MB of the 20 MB of garbage here.
  const p = fakeProcess({ rss: 120 * MB, heap: 30 * MB });
  const order: string[] = [];
  const told: { before: number; after: number; trimmed: boolean }[] = [];
  let kept = 0;
  const collect = () => {
    order.push('collect');
    p.collect();
    kept = 12 * MB;
    p.now.rss += kept;
  };
  const trim = () => {
    order.push('trim');
    p.now.rss -= kept;
    kept = 0;
    return true;
  };
  p.work(20);
  const idle = createIdleCollector({
    quietMs: 20,
    backgroundMs: 60_000,
    read: p.read,
    collect,
    trim,
    trimDelayMs: 10,
    collected: (before, after, trimmed) => told.push({ before: before.rss, after: after.rss, trimmed }),
  });
  try {
    await waitFor(() => told.length === 1, { what: 'the collection after the start' });
    assert.equal(order, ['collect', 'trim']);
    assert.equal(told[0], { before: 140 * MB, after: 120 * MB, trimmed: true });
    // 5 MB more is a growth from 120 MB (what the trim left), not from 132.
    p.work(5);
    idle.touch();
    await waitFor(() => told.length === 2, { what: 'the burst to be collected' });
    assert.equal(order, ['collect', 'trim', 'collect', 'trim']);
    assert.equal(p.now.rss, 120 * MB);
  } finally {
    idle.stop();
  }
});

/**
 * A trim that answers `answers[n]` on its n-th call and gives back `gives[n]` MB of RSS (0
 * past the end); counts its calls, and the blob's releases before them.
 */
function scriptedTrim(p: ReturnType<typeof fakeProcess>, answers: readonly boolean[], gives: readonly number[]) {
  const calls = { trims: 0, releases: 0 };
  return {
    calls,
    trim: () => {
      p.now.rss -= (gives[calls.trims] ?? 0) * MB;
      return answers[calls.trims++] ?? answers.at(-1) ?? false;
    },
    release: () => void calls.releases++,
  };
}

/** The collector on the fake process, checking every 20 ms, trimming with `t`. */
const trimmingCollector = (p: ReturnType<typeof fakeProcess>, t: ReturnType<typeof scriptedTrim>) =>
  createIdleCollector({ quietMs: 20, backgroundMs: 20, read: p.read, collect: p.collect, ...t, trimDelayMs: 10 });

async function quietChecks(p: ReturnType<typeof fakeProcess>, n: number) {
  const reads = p.reads;
  await waitFor(() => p.reads >= reads + n, { what: `${n} more quiet checks` });
}

test('the quiet checks trim again while a trim gives a megabyte back', async () => {
  // Other threads free what they held after the collection: two more trims give memory back,
  // the third nothing, and no check trims after it.
  const p = fakeProcess({ rss: 120 * MB, heap: 30 * MB });
  const t = scriptedTrim(p, [true, true, true, false], [8, 3, 2, 0]);
  p.work(20);
  const idle = trimmingCollector(p, t);
  try {
    await waitFor(() => t.calls.trims === 4, { what: 'the trims after the collection' });
    await quietChecks(p, 3);
    assert.is(t.calls.trims, 4);
    assert.is(p.collections, 1);
    // The blob's pages go back with the collection's trim, not with its repeats.
    assert.is(t.calls.releases, 1);
  } finally {
    idle.stop();
  }
});

test('a trim that answers "gave back" for less than a megabyte is not repeated', async () => {
  // malloc_trim answers 1 for any page: on a server that keeps working it nearly always does.
  const p = fakeProcess({ rss: 120 * MB, heap: 30 * MB });
  const t = scriptedTrim(p, [true], [0.25, 0.25, 0.25, 0.25]);
  p.work(20);
  const idle = trimmingCollector(p, t);
  try {
    await waitFor(() => t.calls.trims === 1, { what: 'the trim after the collection' });
    await quietChecks(p, 4);
    assert.is(t.calls.trims, 1);
  } finally {
    idle.stop();
  }
});

test('the repeats after one collection are bounded, however much each gives back', async () => {
  const p = fakeProcess({ rss: 200 * MB, heap: 30 * MB });
  const t = scriptedTrim(
    p,
    [true],
    Array.from({ length: 20 }, () => 2),
  );
  p.work(20);
  const idle = trimmingCollector(p, t);
  try {
    await waitFor(() => t.calls.trims >= 6, { what: 'the repeats' });
    await quietChecks(p, 6);
    // The collection's trim and five repeats (a minute of quiet checks at 10 s).
    assert.is(t.calls.trims, 6);
    assert.is(p.collections, 1);
  } finally {
    idle.stop();
  }
});

test('file pages touched again while quiet are given back at a quiet check, without a collection', async () => {
  // The executable's code pages, given back after the start's collection, come back as background
  // work runs (the first walk, the optimising compilers): 3 MB is left, 4 MB is given back.
  const p = fakeProcess({ rss: 100 * MB, heap: 30 * MB, file: 40 * MB });
  p.work(5);
  const t = scriptedTrim(p, [false], []);
  const release = () => {
    t.release();
    p.now.rss -= p.now.file! - 20 * MB;
    p.now.file = 20 * MB;
  };
  const idle = createIdleCollector({
    quietMs: 20,
    backgroundMs: 20,
    read: p.read,
    collect: p.collect,
    trim: t.trim,
    release,
    trimDelayMs: 10,
  });
  try {
    await waitFor(() => t.calls.releases === 1, { what: "the release after the start's collection" });
    p.now.file! += 3 * MB;
    p.now.rss += 3 * MB;
    await quietChecks(p, 6);
    assert.is(t.calls.releases, 1);
    p.now.file! += 1 * MB;
    p.now.rss += 1 * MB;
    await waitFor(() => t.calls.releases === 2, { what: 'the file pages to be given back' });
    assert.is(p.now.file, 20 * MB);
    assert.is(p.collections, 1);
  } finally {
    idle.stop();
  }
});

test.run();
