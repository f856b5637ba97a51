// The tests' one way to wait (test/support/wait.ts): it resolves with the condition's value as
// soon as it holds, and fails saying what it waited for and the last value it saw.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { waitFor } from '../support/wait.ts';

test('resolves with the first truthy value, asking again until then', async () => {
  let asked = 0;
  const value = await waitFor(() => (++asked === 4 ? { name: 'Café.jpg' } : undefined), { what: 'the fourth ask' });
  assert.equal(value, { name: 'Café.jpg' });
  assert.is(asked, 4);
});

test('until judges the value, async conditions are awaited', async () => {
  let n = 0;
  const value = await waitFor(async () => n++, { what: 'three', until: (v) => v === 3 });
  assert.is(value, 3);
  assert.is(await waitFor(() => 0, { what: 'zero', until: (v) => v === 0 }), 0, 'a falsy value can be the awaited one');
});

test('a timeout names what was awaited and the last value seen, or what seen makes of it', async () => {
  let n = 0;
  const err = await waitFor(() => ({ bytes: ++n }), {
    what: 'Files/Photos & Music to hold 345 000 bytes',
    timeoutMs: 50,
    until: (v) => v.bytes < 0,
  }).catch((e: Error) => e);
  assert.instance(err, Error);
  assert.match(
    (err as Error).message,
    new RegExp(
      `^timed out after 50 ms waiting for Files/Photos & Music to hold 345 000 bytes; last seen: \\{"bytes":${n}\\}$`,
    ),
  );
  const shown = await waitFor(() => false, { what: 'the shell', timeoutMs: 20, seen: () => 'a\r\n$ ' }).catch(
    (e: Error) => e.message,
  );
  assert.is(shown, 'timed out after 20 ms waiting for the shell; last seen: "a\\r\\n$ "');
});

test('a condition that throws ends the wait with its error at once', async () => {
  const boom = new Error('ECONNREFUSED');
  const err = await waitFor(
    () => {
      throw boom;
    },
    { what: 'never', timeoutMs: 10_000 },
  ).catch((e: unknown) => e);
  assert.is(err, boom, 'its own error, not a timeout');
});

test.run();
