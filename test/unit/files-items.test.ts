import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isoTime, itemOf } from '../../src/files/items.ts';

test('isoTime is the Date text for every time, the second kept between calls or not', () => {
  const times = [0, 1, 999, 1000, 1700000000123.4567, 1700000000999.999, 1700000001000, 253402300799999];
  for (let i = 0; i < 20_000; i++) times.push(Math.random() * 253402300800000, 1700000000000 + Math.random() * 3000);
  for (const t of times) assert.is(isoTime(t), new Date(t).toISOString(), String(t));
  // Outside years 0000-9999 and before 1970: the Date's own text; NaN throws as the Date does.
  for (const t of [-1, -1000.5, 253402300800000, 8.64e15]) assert.is(isoTime(t), new Date(t).toISOString());
  assert.throws(() => isoTime(Number.NaN), RangeError);
});

test('an item from a time in ms is the item from its Date', () => {
  const ms = 1700000000123.75;
  const facts = { size: 5, isDirectory: false };
  assert.equal(
    itemOf('Files', 'a.png', { ...facts, modified: ms }),
    itemOf('Files', 'a.png', { ...facts, modified: new Date(ms) }),
  );
});

test.run();
