// The one helper every background sweep runs through (src/core/periodic.ts): the first run as
// asked, never two runs at once, a failing run logged and the next one tried, stop() waiting for
// the run in progress.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../src/core/log.ts';
import { periodicJob } from '../../src/core/periodic.ts';
import { waitFor } from '../support/wait.ts';

function recordingLog() {
  const lines: Record<string, any>[] = [];
  return { lines, log: createLogger('debug', {}, (line) => lines.push(JSON.parse(line))) };
}

test('a run that outlasts the interval is never joined by a second one; stop() waits for it', async () => {
  const { log } = recordingLog();
  let running = 0;
  let most = 0;
  let runs = 0;
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const job = periodicJob({
    everyMs: 5,
    first: 'now',
    log,
    failed: 'the sweep of Été 2025 failed',
    run: async () => {
      running++;
      most = Math.max(most, running);
      runs++;
      if (runs === 1) await held;
      running--;
    },
  });
  job.start();
  await waitFor(() => runs === 1, { what: 'the first run' });
  // Ticks fall due while the first run is held: they wait for it.
  await new Promise((r) => setTimeout(r, 50)); // a quiet window: ticks due meanwhile must not start a run
  assert.is(runs, 1, 'no second run while the first is held');
  release();
  await waitFor(() => runs >= 3, { what: 'the ticks that were due to run, one after the other' });
  let stopped = false;
  const stopping = job.stop().then(() => (stopped = true));
  await stopping;
  assert.ok(stopped);
  assert.is(most, 1, 'never two runs at once');
  assert.is(running, 0, 'stop() returned after the run in progress ended');
});

test('a failing run is logged and the next tick runs again', async () => {
  const { lines, log } = recordingLog();
  let runs = 0;
  const job = periodicJob({
    everyMs: 5,
    first: 'soon',
    log,
    failed: 'link sweep failed',
    run: () => {
      runs++;
      if (runs === 1) throw new Error('disk said no');
    },
  });
  job.start();
  await waitFor(() => runs >= 2, { what: 'a run after the failing one' });
  await job.stop();
  const failed = lines.filter((l) => l.msg === 'link sweep failed');
  assert.is(failed.length, 1);
  assert.match(JSON.stringify(failed[0]), /disk said no/);
});

test("'later' waits a whole interval before the first run; start() twice starts one timer", async () => {
  const { log } = recordingLog();
  let runs = 0;
  const job = periodicJob({ everyMs: 60_000, first: 'later', log, failed: 'x', run: () => void runs++ });
  job.start();
  job.start();
  await new Promise((r) => setImmediate(r));
  assert.is(runs, 0, 'nothing ran at start');
  await job.stop();
  const soon = periodicJob({ everyMs: 60_000, first: 'soon', log, failed: 'x', run: () => void runs++ });
  soon.start();
  await waitFor(() => runs === 1, { what: "the 'soon' run" });
  await soon.stop();
});

test.run();
