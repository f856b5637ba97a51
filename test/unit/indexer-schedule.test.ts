// The paced sweep's schedule: fixed interval, or adaptive (fastest after changes, doubling up
// to the slowest while idle).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nextSweepInterval } from '../../src/indexer/maintenance.ts';

const adaptive = { reconcileMs: 0, reconcileMinMs: 1000, reconcileMaxMs: 10_000 };

test('adaptive: doubles while idle, capped at the slowest', () => {
  let i = adaptive.reconcileMinMs;
  const seen: number[] = [];
  for (let n = 0; n < 6; n++) seen.push((i = nextSweepInterval(i, 0, adaptive)));
  assert.equal(seen, [2000, 4000, 8000, 10_000, 10_000, 10_000]);
});

test('adaptive: any change goes back to the fastest interval', () => {
  assert.is(nextSweepInterval(8000, 1, adaptive), 1000);
  assert.is(nextSweepInterval(10_000, 42, adaptive), 1000);
});

test('adaptive: never below the fastest interval', () => {
  assert.is(nextSweepInterval(10, 0, adaptive), 1000);
});

test('fixed: FOLDER_SIZE_RECONCILE_MS wins whatever happened', () => {
  const fixed = { ...adaptive, reconcileMs: 5000 };
  assert.is(nextSweepInterval(1000, 0, fixed), 5000);
  assert.is(nextSweepInterval(1000, 9, fixed), 5000);
});

test.run();
