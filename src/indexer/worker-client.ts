// The main thread's handle on the walker worker: numbered jobs, results routed back to the job
// that asked. A crashed worker fails the jobs it held and is started again on the next job; a
// worker stuck in a synchronous call past FOLDER_SIZE_IO_TIMEOUT_MS is abandoned the same way
// (watchdog.ts).
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../workers.ts';
import type { Logger } from '../core/log.ts';
import type {
  DocRecord,
  EntryRecord,
  FromWorker,
  Listing,
  ToWorker,
  WalkJob,
  WalkSummary,
  WorkerOptions,
} from './protocol.ts';
import { syncBeatBuffer, SyncWatchdog, WalkerStalledError, type Stall } from './watchdog.ts';

interface Pending {
  onOut?: (entries: EntryRecord[], docs: DocRecord[]) => void;
  /** Walks: the root, for the log line of a stall. */
  root?: string;
  resolve: (value: any) => void;
  reject: (err: Error) => void;
}

const WORKER_IDLE_MS = 10_000;

/** A walk posted before anyone asked for it (prewalk): its batches wait until walk() asks for the same job. */
interface Prewalk {
  id: number;
  key: string;
  batches: [EntryRecord[], DocRecord[]][];
  done: Promise<WalkSummary>;
  /** Lost with its worker: the one who asks walks afresh. */
  failed?: boolean;
}

/** The same job whatever the order its fields were given in. */
function jobKey(job: Omit<WalkJob, 'id'>): string {
  return JSON.stringify(
    Object.keys(job)
      .sort()
      .map((k) => [k, job[k as keyof typeof job]]),
  );
}

export class WalkerClient {
  private worker: Worker | undefined;
  private watchdog: SyncWatchdog | undefined;
  private readonly pending = new Map<number, Pending>();
  private prewalks: Prewalk[] = [];
  private nextId = 1;
  private readonly options: WorkerOptions;
  /** Replaced by the server's logger when a thread started early is taken over (early.ts). */
  log: Logger;
  /** Timed-out file-system calls still stuck in the worker, and whether work is paused. */
  io = { stalled: 0, paused: false };
  onIo: (stalled: number, paused: boolean) => void = () => {};
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  private readonly idleMs: number;

  constructor(options: WorkerOptions, log: Logger, idleMs = WORKER_IDLE_MS) {
    this.options = options;
    this.log = log;
    this.idleMs = idleMs;
  }

  /** Whether a worker thread is up (it retires when idle). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  private ensure(): Worker {
    clearTimeout(this.idleTimer);
    if (this.worker) return this.worker;
    const beat = this.options.ioTimeoutMs > 0 ? syncBeatBuffer() : undefined;
    const worker = startWorker('indexer/walker.worker.ts', {
      workerData: { ...this.options, ...(beat ? { beat } : {}) },
    });
    worker.unref();
    // An abandoned worker's late messages are not for the jobs of its successor.
    worker.on('message', (m: FromWorker) => {
      if (this.worker === worker) this.receive(m);
    });
    const fail = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.watchdog?.stop();
      this.watchdog = undefined;
      const jobs = [...this.pending.values()];
      this.pending.clear();
      for (const p of jobs) p.reject(err);
    };
    worker.on('error', (err) => {
      this.log.error('the indexer worker failed', { err });
      fail(err);
    });
    worker.on('exit', (code) => fail(new Error(`the indexer worker stopped (exit ${code})`)));
    this.worker = worker;
    if (beat) this.watchdog = new SyncWatchdog(beat, this.options.ioTimeoutMs, (stall) => this.stalled(worker, stall));
    return worker;
  }

  /** The worker sits in one synchronous call past the I/O timeout: give it up (watchdog.ts). */
  private stalled(worker: Worker, stall: Stall): void {
    if (this.worker !== worker) return;
    this.watchdog?.stop();
    this.watchdog = undefined;
    this.worker = undefined;
    const jobs = [...this.pending.entries()];
    this.pending.clear();
    const hung = jobs.find(([id]) => id === stall.jobId)?.[1];
    this.log.warn('a disk stopped answering the indexer; its worker is replaced and the folder is marked incomplete', {
      root: hung?.root,
      folder: stall.folder,
      stuckMs: stall.stuckMs,
      timeoutMs: this.options.ioTimeoutMs,
    });
    // Not awaited: a thread inside a hung system call ends only when the call returns.
    worker.terminate().catch(() => {});
    for (const [id, p] of jobs)
      p.reject(new WalkerStalledError(id === stall.jobId, id === stall.jobId ? stall.folder : null));
  }

  private receive(m: FromWorker): void {
    if (m.type === 'io') {
      this.io = { stalled: m.stalled, paused: m.paused };
      this.onIo(m.stalled, m.paused);
      return;
    }
    if (m.type === 'skipped') {
      this.log.warn('the indexer skipped a file that is no longer a regular file inside its folder', {
        root: this.pending.get(m.id)?.root,
        file: m.file,
        reason: m.reason,
      });
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.type === 'out') p.onOut?.(m.entries, m.docs);
    else {
      this.pending.delete(m.id);
      if (m.type === 'done') p.resolve(m.summary);
      else if (m.type === 'listed') p.resolve(m.listing);
      else p.reject(new Error(m.message));
      this.retireWhenIdle();
    }
  }

  /**
   * An idle worker is a whole V8 isolate (~14 MB of RSS): it leaves once no job has come for
   * WORKER_IDLE_MS, and the next job starts a fresh one (~100 ms, off the request path). Not
   * while a timed-out call may still be stuck in it (the watchdog's business).
   */
  private retireWhenIdle(): void {
    clearTimeout(this.idleTimer);
    if (!this.worker || this.pending.size > 0) return;
    this.idleTimer = setTimeout(() => {
      const worker = this.worker;
      if (!worker || this.pending.size > 0 || this.io.stalled > 0) return;
      this.worker = undefined;
      this.watchdog?.stop();
      this.watchdog = undefined;
      worker.terminate().catch(() => {});
    }, this.idleMs);
    this.idleTimer.unref();
  }

  private post(message: ToWorker): void {
    this.ensure().postMessage(message);
  }

  walk(
    job: Omit<WalkJob, 'id'>,
    onOut: (entries: EntryRecord[], docs: DocRecord[]) => void,
  ): { id: number; done: Promise<WalkSummary> } {
    const key = jobKey(job);
    this.prewalks = this.prewalks.filter((p) => !p.failed);
    const ahead = this.prewalks.findIndex((p) => p.key === key);
    if (ahead >= 0) {
      // The same walk, posted before the database could say it was owed: taken over as it
      // stands (the batches it sent so far first, unacknowledged, as if they had just come).
      const p = this.prewalks.splice(ahead, 1)[0]!;
      const running = this.pending.get(p.id);
      if (running) running.onOut = onOut;
      // After the taker has the job's id (its batches are acknowledged by it); before any
      // batch still to come, which arrives as a message, later.
      const sent = p.batches.splice(0);
      queueMicrotask(() => {
        for (const [entries, docs] of sent) onOut(entries, docs);
      });
      return { id: p.id, done: p.done };
    }
    return this.postWalk(job, onOut);
  }

  /**
   * Posts a walk nobody has asked for yet (early.ts: the first volume's baseline while the
   * database opens). Its batches are kept, unacknowledged, so the worker stops after a few
   * (memory stays flat); walk() with the same job takes it over, dropPrewalks() cancels it.
   */
  prewalk(job: Omit<WalkJob, 'id'>): void {
    const batches: Prewalk['batches'] = [];
    const run = this.postWalk(job, (entries, docs) => batches.push([entries, docs]));
    const p: Prewalk = { id: run.id, key: jobKey(job), batches, done: run.done };
    // Taken over once failed, it would fail its taker: the taker walks afresh instead.
    run.done.catch(() => {
      p.failed = true;
    });
    this.prewalks.push(p);
  }

  /** Cancels the walks posted ahead that nobody took over (not owed after all). */
  dropPrewalks(): void {
    for (const p of this.prewalks.splice(0)) this.cancel(p.id);
  }

  private postWalk(
    job: Omit<WalkJob, 'id'>,
    onOut: (entries: EntryRecord[], docs: DocRecord[]) => void,
  ): { id: number; done: Promise<WalkSummary> } {
    const id = this.nextId++;
    const done = new Promise<WalkSummary>((resolve, reject) => {
      this.pending.set(id, { onOut, resolve, reject, root: job.root });
      this.post({ type: 'walk', job: { ...job, id } });
    });
    return { id, done };
  }

  /** A listing lost with a replaced worker is asked again of the next one (listings hold no state). */
  async list(root: string, rel: string, excludes: string[]): Promise<Listing> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.listOnce(root, rel, excludes);
      } catch (err) {
        if (!(err instanceof WalkerStalledError) || attempt >= 2) throw err;
      }
    }
  }

  private listOnce(root: string, rel: string, excludes: string[]): Promise<Listing> {
    const id = this.nextId++;
    return new Promise<Listing>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ type: 'list', job: { id, root, rel, excludes } });
    });
  }

  /** Starts the worker ahead of its first job (its start overlaps other work). */
  warm(): void {
    this.ensure();
    this.retireWhenIdle();
  }

  /** One 'out' batch of job `id` is written: the worker may send the next. */
  ack(id: number): void {
    if (this.worker && this.pending.has(id)) this.worker.postMessage({ type: 'ack', id } satisfies ToWorker);
  }

  cancel(id: number): void {
    if (this.worker && this.pending.has(id)) this.worker.postMessage({ type: 'cancel', id } satisfies ToWorker);
  }

  get busy(): number {
    return this.pending.size;
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    this.watchdog?.stop();
    this.watchdog = undefined;
    const jobs = [...this.pending.values()];
    this.pending.clear();
    for (const p of jobs) p.reject(new Error('the indexer stopped'));
    if (worker) await worker.terminate();
  }
}
