// A young-generation collection right after a request body has been written. Every 64 KiB
// piece of a body is a fresh Buffer of Node's HTTP parser: memory outside V8's heap, behind a
// small object in its young generation. Receiving bytes allocates almost nothing else there,
// so no young collection comes, and the pieces pile up until V8 runs a full collection of
// Burrow's whole heap for them. Once a body is written none of its pieces is alive any more:
// a young collection then frees all of them for the price of the few young objects still
// alive. Measured (256 MiB TUS uploads in 8 MiB PATCHes, server from source, --trace-gc):
// 11-12 full collections per upload without it; with it, a young one of ~0.3-1 ms after each
// PATCH and no full one once the upload runs (test/bench/upload.ts has the figures). Not
// during a body: the pieces gathered then are alive, would survive and be promoted to the old
// generation, where only a full collection frees them (measured: more full collections).
import v8 from 'node:v8';
import vm from 'node:vm';

/** Bytes of bodies written before a young collection is worth its cost. */
export const YOUNG_GC_AFTER = 4 * 1024 * 1024;

export interface YoungCollector {
  /** A body of `bytes` has been written (or given up): its buffers are garbage now. */
  bodyDone(bytes: number): void;
}

type Collect = () => void;

/** V8's collector for embedders, asked for a young-generation collection; null where it is not offered. */
function v8YoungCollection(): Collect | null {
  try {
    // As src/core/idle-gc.ts: the collector without exposing `gc` to the program's global scope.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as (options: { type: 'minor' }) => void;
    return () => gc({ type: 'minor' });
  } catch {
    return null;
  }
}

/**
 * Collects once at least `after` bytes of bodies were written since the last collection, on
 * the next turn of the event loop: the answer to the request is on its way by then, and the
 * body's last pieces are no longer referenced by the code that wrote them.
 */
export function createYoungCollector(
  collect: Collect | null,
  after = YOUNG_GC_AFTER,
  later: (fn: () => void) => void = setImmediate,
): YoungCollector {
  let since = 0;
  let pending = false;
  return {
    bodyDone(bytes) {
      if (!collect) return;
      since += bytes;
      if (since < after || pending) return;
      since = 0;
      pending = true;
      later(() => {
        pending = false;
        collect();
      });
    },
  };
}

/** The process's collector (one for all uploads). */
export const youngCollector = createYoungCollector(v8YoungCollection());
