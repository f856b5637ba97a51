// A memory-reducing garbage collection once the server has been quiet for a moment after a
// burst of work (and after the start). What a burst leaves — buffers of downloads and uploads,
// a listing's JSON, a zip's state — is garbage in V8 pages that V8 keeps for the next burst:
// measured after browse, search, upload, download and zip, the executable held 244 MB at rest,
// 153 MB with this collection (test/bench/startup.ts). V8's own `--optimize-for-size` gives the
// memory back too, but makes every listing 1.2-1.5x slower (build/README.md); this costs one
// collection of an idle heap, off any request. Background work (the first index walk) is not a
// request: a slow check collects after it too, when it left enough behind.
import fs from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';

type Collect = (options: { type: 'major'; flavor: 'last-resort' }) => void;

/** Growth (bytes) since the last collection after which a quiet period collects. */
const GROWTH = 4 * 1024 * 1024;
/** Without requests, background work must have left this much before it is worth a collection. */
const BACKGROUND_GROWTH = 16 * 1024 * 1024;
const BACKGROUND_CHECK_MS = 10_000;
/**
 * After the trim that follows a collection, the quiet checks trim again at most this many times
 * (a minute at 10 s), each only while the last one gave back at least TRIM_WORTH of RSS.
 * `malloc_trim` answers "gave something back" for any page, which on a server that keeps working
 * it nearly always has: repeated on that answer alone, every quiet check walked the arenas under
 * their locks and returned pages the next burst faulted back.
 */
const TRIM_REPEATS = 5;
const TRIM_WORTH = 1024 * 1024;
/**
 * Growth of the file pages in memory (the executable's code and data touched again) after which a
 * quiet check gives them back (`release`) without a collection. Measured through the executable
 * on a 300-file volume: released after the start's collection, its code pages went from 43 to
 * 23 MB, and came back to 34 within 30 s of background work alone (the first walk, the
 * optimising compilers) — work too small to call for a collection.
 */
const RELEASE_GROWTH = 4 * 1024 * 1024;

/**
 * What the process holds: all of it (RSS), V8's part (the main heap's pages and the buffers its
 * objects hold), and the pages of files it maps that are in memory (0 where unknown).
 */
export interface MemoryReading {
  rss: number;
  heap: number;
  file?: number;
}

export interface IdleCollectorOptions {
  quietMs?: number;
  backgroundMs?: number;
  /** Tests: the readings and the collection (by default the process's and V8's). */
  read?: () => MemoryReading;
  collect?: Collect | null;
  /**
   * Run after each collection: hands what the collection freed inside glibc's arenas back to the
   * system (core/malloc-trim.c; null where there is none). True when memory went back.
   */
  trim?: (() => boolean) | null;
  /**
   * Run before the trim that follows a collection (not before its repeats), and at a quiet check
   * once the file pages grew by RELEASE_GROWTH since: the executable's own pages
   * (core/malloc-trim.c), touched by work and not needed again until the next.
   */
  release?: (() => void) | null;
  /** How long after a collection the trim runs (ms). */
  trimDelayMs?: number;
  /** Told after each collection (and its trim) what the process held before and after. */
  collected?: (before: MemoryReading, after: MemoryReading, trimmed: boolean) => void;
}

function processReading(): MemoryReading {
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapTotal + m.external, file: filePages() };
}

/** The file pages this process has in memory (Linux's RssFile), 0 where unknown. */
function filePages(): number {
  if (process.platform !== 'linux') return 0;
  try {
    return Number(/^RssFile:\s+(\d+) kB/m.exec(fs.readFileSync('/proc/self/status', 'latin1'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function v8Collector(): Collect | null {
  try {
    // The collector V8 offers embedders, without exposing `gc` to the program's global scope.
    v8.setFlagsFromString('--expose-gc');
    return vm.runInNewContext('gc') as Collect;
  } catch {
    return null;
  }
}

export interface IdleCollector {
  /** Work happened: collect once things are quiet again. */
  touch(): void;
  stop(): void;
}

export function createIdleCollector(options: IdleCollectorOptions = {}): IdleCollector {
  const quietMs = options.quietMs ?? 1000;
  const read = options.read ?? processReading;
  const collect = options.collect === undefined ? v8Collector() : options.collect;
  const trim = options.trim ?? null;
  const trimDelayMs = options.trimDelayMs ?? 1000;
  let trimTimer: NodeJS.Timeout | undefined;
  // The readings after the last collection. Each check lowers them to what the process holds
  // now: memory given back meanwhile by other means (a worker thread that left, freed buffers)
  // must not hide the growth that follows. Without that, a collection taken while the first
  // walk's thread was up (~20 MB) set a mark the server at rest never reached again, and the
  // main heap's garbage of the rest of the walk and of every later workload stayed: measured
  // through the executable, idle 155 MB and 157 MB 60 s after the bench workload (other
  // anonymous 55 MB, against 27 when it collects).
  let base: MemoryReading = { rss: 0, heap: 0 };
  let lastTouch = 0;
  let stopped = false;
  const collectIfGrown = (growth: number) => {
    if (!collect) return;
    const now = read();
    base = { rss: Math.min(base.rss, now.rss), heap: Math.min(base.heap, now.heap) };
    if (now.rss < base.rss + growth && now.heap < base.heap + growth) return;
    // 'last-resort': the collection that also releases the pages it emptied (a plain major
    // collection keeps them for the next allocation, so RSS does not move).
    collect({ type: 'major', flavor: 'last-resort' });
    base = read();
    if (!trim) return options.collected?.(now, base, false);
    // What it freed outside V8's pages (buffers' memory, the objects of Node and of the
    // add-ons) is free inside glibc's arenas, where only a trim gives the middle of an arena
    // back — a moment later: V8 frees the memory of dead ArrayBuffers on a thread of its own
    // after the collection, and other threads free theirs later still. Trimmed at once, 60 s
    // after 100 clients [heap] and the thread arenas still held 28 MB (29 without a trim);
    // trimmed every 5 s, 11.5. So: a second after the collection, then at the quiet checks
    // while a trim still gives a megabyte back (TRIM_REPEATS).
    const before = now;
    clearTimeout(trimTimer);
    trimTimer = setTimeout(() => {
      trimTimer = undefined;
      releaseNow();
      repeatsLeft = trimNow(trim, before) ? TRIM_REPEATS : 0;
    }, trimDelayMs);
    trimTimer.unref();
  };
  let repeatsLeft = 0;
  /** The file pages in memory after the last release. */
  let released = 0;
  const releaseNow = () => {
    if (!options.release) return;
    options.release();
    released = read().file ?? 0;
  };
  /** Trims and tells (from `before`); true when the trim itself gave back TRIM_WORTH or more. */
  const trimNow = (trim: () => boolean, before: MemoryReading) => {
    const untrimmed = read().rss;
    const trimmed = trim();
    const after = read();
    base = { rss: Math.min(base.rss, after.rss), heap: Math.min(base.heap, after.heap) };
    options.collected?.(before, after, trimmed);
    return trimmed && untrimmed - after.rss >= TRIM_WORTH;
  };
  const timer = setTimeout(() => collectIfGrown(GROWTH), quietMs);
  timer.unref();
  const background = setInterval(() => {
    if (performance.now() - lastTouch < quietMs) return;
    collectIfGrown(BACKGROUND_GROWTH);
    if (trimTimer) return;
    if (trim && repeatsLeft > 0) repeatsLeft = trimNow(trim, read()) ? repeatsLeft - 1 : 0;
    if ((read().file ?? 0) >= released + RELEASE_GROWTH) releaseNow();
  }, options.backgroundMs ?? BACKGROUND_CHECK_MS);
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
      clearTimeout(trimTimer);
      clearInterval(background);
    },
  };
}
