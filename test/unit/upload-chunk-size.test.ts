// The UI's PATCH size for resumable uploads (ui/src/upload/chunk-size.ts): about PATCH_SECONDS
// at the speed the last PATCH went, in whole MiB, never under the first chunk nor over the
// largest (or over a lower largest once a proxy refused long bodies).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FIRST_CHUNK, LARGEST_CHUNK, PATCH_SECONDS, nextChunkSize } from '../../ui/src/upload/chunk-size.ts';

const MiB = 1024 * 1024;

test('a slow link keeps the first chunk; a fast one grows to the largest', () => {
  // 1 MB/s: 8 MiB took 8 s.
  assert.is(nextChunkSize(8 * MiB, 8000), FIRST_CHUNK);
  // Loopback speed: 8 MiB in 13 ms.
  assert.is(nextChunkSize(8 * MiB, 13), LARGEST_CHUNK);
});

test('in between, a PATCH lasts about PATCH_SECONDS, in whole MiB', () => {
  // 40 MiB/s.
  const size = nextChunkSize(8 * MiB, 200);
  assert.is(size % MiB, 0);
  assert.is(size, Math.floor(40 * PATCH_SECONDS) * MiB);
  assert.ok(size > FIRST_CHUNK && size < LARGEST_CHUNK, String(size));
});

test('a lowered largest (a proxy refused a long body) wins; nothing measured gives the first chunk', () => {
  assert.is(nextChunkSize(8 * MiB, 13, FIRST_CHUNK), FIRST_CHUNK);
  assert.is(nextChunkSize(0, 0), FIRST_CHUNK);
  assert.is(nextChunkSize(8 * MiB, 0), FIRST_CHUNK);
});

test.run();
