// The next-turn helper (src/core/next-turn.ts): calls in one turn merged into one run on the
// next, and a call during that run asks for another.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { onNextTurn } from '../../src/core/next-turn.ts';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('calls in one turn run once, on the next turn', async () => {
  let runs = 0;
  const ask = onNextTurn(() => runs++);
  ask();
  ask();
  ask();
  assert.is(runs, 0, 'not in the turn that asked');
  await turn();
  assert.is(runs, 1);
  await turn();
  assert.is(runs, 1, 'nothing more without a call');
});

test('a call during the run asks for one more run', async () => {
  let runs = 0;
  const ask: () => void = onNextTurn(() => {
    runs++;
    if (runs === 1) ask();
  });
  ask();
  await turn();
  await turn();
  assert.is(runs, 2);
});

test.run();
