// A memory-reducing garbage collection once the server has been quiet for a moment after a
// burst of work (and after the start). What a burst leaves — buffers of downloads and uploads,
// a listing's JSON, a zip's state — is garbage in V8 pages that V8 keeps for the next burst:
// measured after browse, search, upload, download and zip, the executable held 244 MB at rest,
// 153 MB with this collection (test/bench/startup.ts). V8's own `--optimize-for-size` gives the
// memory back too, but makes every listing 1.2-1.5x slower (build/README.md); this costs one
// collection of an idle heap, off any request. Background work (the first index walk) is not a
// request: a slow check collects after it too, when it left enough behind.
import v8 from 'node:v8';
import vm from 'node:vm';

type Collect = (options: { type: 'major'; flavor: 'last-resort' }) => void;

/** RSS grown by this much (bytes) since the last collection before a quiet period collects. */
const GROWTH = 4 * 1024 * 1024;
/** Without requests, background work must have left this much before it is worth a collection. */
const BACKGROUND_GROWTH = 16 * 1024 * 1024;
const BACKGROUND_CHECK_MS = 10_000;

export interface IdleCollector {
  /** Work happened: collect once things are quiet again. */
  touch(): void;
  stop(): void;
}

export function createIdleCollector(quietMs = 1000): IdleCollector {
  let collect: Collect | null = null;
  try {
    // The collector V8 offers embedders, without exposing `gc` to the program's global scope.
    v8.setFlagsFromString('--expose-gc');
    collect = vm.runInNewContext('gc') as Collect;
  } catch {
    collect = null;
  }
  let after = 0;
  let lastTouch = 0;
  let stopped = false;
  const collectIfGrown = (growth: number) => {
    if (!collect || process.memoryUsage.rss() < after + growth) return;
    // 'last-resort': the collection that also releases the pages it emptied (a plain major
    // collection keeps them for the next allocation, so RSS does not move).
    collect({ type: 'major', flavor: 'last-resort' });
    after = process.memoryUsage.rss();
  };
  const timer = setTimeout(() => collectIfGrown(GROWTH), quietMs);
  timer.unref();
  const background = setInterval(() => {
    if (performance.now() - lastTouch >= quietMs) collectIfGrown(BACKGROUND_GROWTH);
  }, BACKGROUND_CHECK_MS);
  background.unref();
  return {
    touch: () => {
      if (stopped) return;
      lastTouch = performance.now();
      timer.refresh();
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      clearInterval(background);
    },
  };
}
