// How busy people keep the server, so background work (indexing, the paced sweep) yields to
// them. The HTTP layer reports each request in and out. A request younger than FRESH_MS means
// someone is waiting now; an older one (a long download, a slow phone streaming a video) counts
// only while it actually keeps the main thread busy, which a probe measures (event-loop lag and
// the share of the loop spent on anything but background work). The probe runs only while
// background work is under way, so an idle server has no timer.
//
// Background work never stops altogether: however busy, it gets a slice at least every
// MAX_DEFER_MS, so a server under constant load still finishes its indexes, only slower.
// Worker threads read the same verdict from a shared word (`flag`), without messages.
//
// Bulk request bodies (uploads: a body over BULK_BODY_BYTES or of unknown length) yield the
// same way to people's other requests (issue 33: a zip, a listing or a download took 7-40x its
// idle time while four uploads ran). The main thread reads every upload's socket 64 KiB at a
// time and hands each batch to the disk; on a busy machine it gets a fraction of a core, and
// what it spends on upload bytes a listing waits for. So while a request that is not a bulk
// body is younger than FRESH_MS, upload bodies stop reading their sockets (TCP holds the
// senders back) at their next batch, and go on once those requests are answered — however busy,
// each takes YIELD_SLICE_BYTES at least every MAX_YIELD_MS, so no upload stalls for good.
import { performance } from 'node:perf_hooks';

const FRESH_MS = 2000;
const PROBE_MS = 20;
/** A probe tick this late: the loop is overloaded. */
const LAG_MS = 15;
/** Share of the loop taken by requests (background excluded) that counts as busy. */
const BUSY_SHARE = 0.3;
/** However busy, background work gets a slice at least this often. */
export const MAX_DEFER_MS = 200;
/** How often a deferred background task looks again. */
const RECHECK_MS = 5;

/** A request body larger than this (or of unknown length) is a bulk transfer: it yields (see the top). */
export const BULK_BODY_BYTES = 1024 * 1024;
/**
 * People's requests come in runs (a folder's listing, then its thumbnails and sizes; the next
 * folder a moment later): bulk bodies hold back this long after the last one is answered, so
 * the next request of the run does not find the loop full of upload bytes again.
 */
export const LINGER_MS = 100;
/** However busy, a bulk body reads on at least this often... */
export const MAX_YIELD_MS = 200;
/** ...at least this many bytes each time. */
export const YIELD_SLICE_BYTES = 4 * 1024 * 1024;

/**
 * Whether a request is part of a bulk transfer, from its headers: a body over BULK_BODY_BYTES or
 * of unknown length, or any request of the resumable-upload protocol (Tus-Resumable: an upload's
 * creation, HEAD and small last PATCH are its own machinery — were they people waiting, an
 * upload's first PATCH would yield, and linger, behind its own creation).
 */
export function isBulkBody(headers: {
  'content-length'?: string;
  'transfer-encoding'?: string;
  'tus-resumable'?: string;
}): boolean {
  if (headers['tus-resumable'] !== undefined) return true;
  const declared = headers['content-length'];
  if (declared !== undefined) return Number(declared) > BULK_BODY_BYTES;
  return headers['transfer-encoding'] !== undefined;
}

/**
 * The pace a request body is written at (uploads/body-writer.ts `pace`): only a bulk body's. A
 * small body is a request people wait on like any other — paced, it would hold back behind
 * itself (`waiting()` counts it) until MAX_YIELD_MS.
 */
export function paceFor(pace: BodyPace | undefined, headers: Parameters<typeof isBulkBody>[0]): { pace?: BodyPace } {
  return pace && isBulkBody(headers) ? { pace } : {};
}

/**
 * What a bulk body's writer (uploads/body-writer.ts) asks: whether someone's request waits now,
 * and to be called back once nobody does (or MAX_YIELD_MS passed).
 */
export interface BodyPace {
  waiting(): boolean;
  /** Calls `go` once no request waits or MAX_YIELD_MS passed, whichever is first; returns a cancel. */
  whenServed(go: () => void): () => void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Worker side: waits while the main thread says people are being served (bounded by MAX_DEFER_MS). */
export function workerPace(buffer: SharedArrayBuffer | undefined): () => Promise<void> {
  if (!buffer) return () => Promise.resolve();
  const flag = new Int32Array(buffer);
  let last = performance.now();
  return async () => {
    while (Atomics.load(flag, 0) !== 0 && performance.now() - last < MAX_DEFER_MS) await sleep(RECHECK_MS);
    last = performance.now();
  };
}

/** Worker side: whether the main thread says people are being served now (no waiting). */
export function workerHold(buffer: SharedArrayBuffer | undefined): () => boolean {
  if (!buffer) return () => false;
  const flag = new Int32Array(buffer);
  return () => Atomics.load(flag, 0) !== 0;
}

export class RequestLoad implements BodyPace {
  /** Shared with worker threads: [0] is 1 while background work should hold back. */
  readonly buffer = new SharedArrayBuffer(4);
  private readonly flag = new Int32Array(this.buffer);
  private readonly started = new Map<number, number>();
  /** The tickets of bulk bodies (uploads): never "someone waiting" for another bulk body. */
  private readonly bulk = new Set<number>();
  /** Bulk bodies holding back until people are served (whenServed). */
  private readonly yielding = new Set<() => void>();
  private nextId = 0;
  private watchers = 0;
  private probe: NodeJS.Timeout | undefined;
  private lastTick = 0;
  private elu = performance.eventLoopUtilization();
  private backgroundMs = 0;
  private loaded = false;
  private lastSlice = 0;
  /** When the last request that is not a bulk body was answered (bulk bodies linger after it). */
  private lastServed = -Infinity;
  private lingering: NodeJS.Timeout | undefined;
  private readonly lingerMs: number;
  private readonly maxYieldMs: number;

  constructor(options: { lingerMs?: number; maxYieldMs?: number } = {}) {
    this.lingerMs = options.lingerMs ?? LINGER_MS;
    this.maxYieldMs = options.maxYieldMs ?? MAX_YIELD_MS;
  }

  /** A request came in; returns its ticket for `end`. */
  begin(bulk = false): number {
    const id = ++this.nextId;
    this.started.set(id, performance.now());
    if (bulk) this.bulk.add(id);
    Atomics.store(this.flag, 0, 1);
    return id;
  }

  end(id: number): void {
    if (this.started.delete(id) && !this.bulk.delete(id)) this.lastServed = performance.now();
    this.publish();
    this.callBack();
  }

  /** Calls the yielding bulk bodies back once nobody waits (after the linger: a timer then). */
  private callBack(): void {
    if (this.yielding.size === 0 || this.lingering) return;
    if (this.armLinger()) return;
    if (!this.waiting()) for (const go of [...this.yielding]) go();
  }

  /** Inside the linger: a timer calls the yielding bodies back at its end (true); past it, false. */
  private armLinger(): boolean {
    if (this.lingering) return true;
    const left = this.lastServed + this.lingerMs - performance.now();
    if (left <= 0) return false;
    this.lingering = setTimeout(() => {
      this.lingering = undefined;
      this.callBack();
    }, left);
    this.lingering.unref();
    return true;
  }

  /**
   * A request that is not a bulk body is younger than FRESH_MS, or one was answered less than
   * the linger ago: bulk bodies hold back.
   */
  waiting(): boolean {
    const now = performance.now();
    if (now - this.lastServed < this.lingerMs) return true;
    if (this.started.size <= this.bulk.size) return false;
    for (const [id, t] of this.started) if (now - t < FRESH_MS && !this.bulk.has(id)) return true;
    return false;
  }

  whenServed(go: () => void): () => void {
    let done = false;
    const fire = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      this.yielding.delete(fire);
      go();
    };
    const timer = setTimeout(fire, this.maxYieldMs);
    this.yielding.add(fire);
    // A body that yields inside the linger (the answer it yields to is already out, so no end()
    // will call it back) goes on at the linger's end, not at MAX_YIELD_MS. Never at once: the
    // caller holds the cancel only once this returns.
    this.armLinger();
    return () => {
      done = true;
      clearTimeout(timer);
      this.yielding.delete(fire);
    };
  }

  get inFlight(): number {
    return this.started.size;
  }

  /** People are being served: background work should hold back. */
  busy(): boolean {
    if (this.loaded) return true;
    const now = performance.now();
    for (const t of this.started.values()) if (now - t < FRESH_MS) return true;
    return false;
  }

  private publish(): void {
    Atomics.store(this.flag, 0, this.busy() ? 1 : 0);
  }

  /** Background work starts: watch the loop until the returned stop is called. */
  watch(): () => void {
    if (this.watchers++ === 0) {
      this.lastTick = performance.now();
      this.elu = performance.eventLoopUtilization();
      this.backgroundMs = 0;
      this.probe = setInterval(() => this.tick(), PROBE_MS);
      this.probe.unref();
    }
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      if (--this.watchers === 0) {
        clearInterval(this.probe);
        this.probe = undefined;
        this.loaded = false;
        this.publish();
      }
    };
  }

  private tick(): void {
    const now = performance.now();
    const lag = now - this.lastTick - PROBE_MS;
    this.lastTick = now;
    const used = performance.eventLoopUtilization(this.elu);
    this.elu = performance.eventLoopUtilization();
    const window = used.active + used.idle;
    const share = window > 0 ? Math.max(0, used.active - this.backgroundMs) / window : 0;
    this.backgroundMs = 0;
    // Only requests make the loop "loaded": background alone (no request in flight) never defers itself.
    this.loaded = this.started.size > 0 && (lag > LAG_MS || share > BUSY_SHARE);
    this.publish();
  }

  /** Background work ran this long on the main thread (not counted as people's load). */
  spent(ms: number): void {
    this.backgroundMs += ms;
  }

  /**
   * Resolves when main-thread background work may take its next slice: after one turn of the
   * event loop when nobody waits, else once they are served or MAX_DEFER_MS after the last slice.
   */
  async turn(): Promise<void> {
    if (!this.busy()) {
      await new Promise<void>((r) => setImmediate(r));
    } else {
      while (this.busy() && performance.now() - this.lastSlice < MAX_DEFER_MS) await sleep(RECHECK_MS);
    }
    this.lastSlice = performance.now();
  }
}

/** No load reported (tests of the indexer alone, tools): background work never waits. */
export const noLoad = new RequestLoad();
