// One stat per entry of a listing, in the order given: sizes, times and kinds. Large folders go
// to the stat worker (stat.worker.ts: synchronous calls in a thread of their own); small ones,
// and any listing while the worker starts or after it failed, use callbacks through libuv's
// pool. The worker starts at the first large listing and leaves after 10 quiet seconds (it is
// a whole V8 isolate, ~10 MB).
import fs, { type Stats } from 'node:fs';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../workers.ts';
import type { StatJob, StatResult } from './stat-protocol.ts';

export type EntryStats = Omit<StatResult, 'id'>;

/** From this many names a listing's stats go to the worker (below, a hand-over costs more than it saves). */
const WORKER_FROM = 256;
const IDLE_MS = 10_000;
/** A worker silent this long (plus 1 ms an entry) is stuck in a call (a disk that stopped answering): abandoned. */
const STUCK_MS = 5_000;
/**
 * The worker's young generation: a listing's garbage is its Stats objects and the names, gone
 * by the next listing. With V8's default the thread held ~6 MB more, alive and (in malloc's
 * arenas) after it left; 2 MB measured as fast (10,000 entries ×5, three interleaved rounds:
 * 22-34 ms a listing against 23-52 ms).
 */
const YOUNG_GENERATION_MB = 2;

/** Callbacks, not fs/promises: a promise and a closure per entry were a fifth of a large listing. */
function statByCallbacks(dir: string, names: string[]): Promise<EntryStats> {
  const n = names.length;
  const out: EntryStats = { sizes: new Float64Array(n), mtimes: new Float64Array(n), kinds: new Uint8Array(n) };
  if (n === 0) return Promise.resolve(out);
  const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
  return new Promise((resolve) => {
    let pending = n;
    const settle = (i: number, st: Stats | null) => {
      if (st) {
        out.sizes[i] = st.size;
        out.mtimes[i] = st.mtimeMs;
        out.kinds[i] = st.isDirectory() ? 2 : 1;
      }
      if (--pending === 0) resolve(out);
    };
    for (let i = 0; i < n; i++) {
      const full = prefix + names[i];
      // A broken link is described by its own lstat.
      fs.stat(full, (err, st) => (err ? fs.lstat(full, (e, l) => settle(i, e ? null : l)) : settle(i, st)));
    }
  });
}

interface Pending {
  resolve: (r: EntryStats) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

let worker: Worker | undefined;
let online = false;
let idleTimer: NodeJS.Timeout | undefined;
let nextId = 1;
/** After a stuck worker, callbacks only for a while: a thread inside a hung call cannot be ended, so none is piled on it. */
let noWorkerUntil = 0;
const AFTER_STUCK_MS = 60_000;
const pending = new Map<number, Pending>();

function abandon(err: Error): void {
  const w = worker;
  worker = undefined;
  online = false;
  clearTimeout(idleTimer);
  for (const p of pending.values()) {
    clearTimeout(p.timer);
    p.reject(err);
  }
  pending.clear();
  // Not awaited: a thread inside a hung call ends only when the call returns.
  w?.terminate().catch(() => {});
}

function start(): void {
  const w = startWorker('browse/stat.worker.ts', { resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
  w.unref();
  worker = w;
  w.once('online', () => {
    if (worker === w) online = true;
  });
  w.on('message', (r: StatResult) => {
    const p = pending.get(r.id);
    if (!p || worker !== w) return;
    pending.delete(r.id);
    clearTimeout(p.timer);
    p.resolve({ sizes: r.sizes, mtimes: r.mtimes, kinds: r.kinds });
    if (pending.size === 0) retireWhenIdle();
  });
  w.on('error', (err) => worker === w && abandon(err));
  w.on('exit', (code) => worker === w && abandon(new Error(`the stat worker stopped (exit ${code})`)));
  retireWhenIdle();
}

function retireWhenIdle(): void {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    if (pending.size === 0 && worker) abandon(new Error('idle'));
  }, IDLE_MS);
  idleTimer.unref();
}

function statInWorker(w: Worker, dir: string, names: string[]): Promise<EntryStats> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (worker !== w) return;
      noWorkerUntil = Date.now() + AFTER_STUCK_MS;
      abandon(new Error('the stat worker stopped answering'));
    }, STUCK_MS + names.length);
    timer.unref();
    pending.set(id, { resolve, reject, timer });
    clearTimeout(idleTimer);
    w.postMessage({ id, dir, names } satisfies StatJob);
  });
}

/** Stats of `names` in `dir` (by path; the caller checks the folder around the call). */
export async function statEntries(dir: string, names: string[]): Promise<EntryStats> {
  if (names.length < WORKER_FROM || Date.now() < noWorkerUntil) return statByCallbacks(dir, names);
  if (!worker) {
    try {
      start();
    } catch {
      return statByCallbacks(dir, names);
    }
  }
  if (!online) return statByCallbacks(dir, names);
  try {
    return await statInWorker(worker!, dir, names);
  } catch {
    return statByCallbacks(dir, names);
  }
}
