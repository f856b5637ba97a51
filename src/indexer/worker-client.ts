// The main thread's handle on the walker worker: numbered jobs, results routed back to the job
// that asked. A crashed worker fails the jobs it held and is started again on the next job.
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../workers.ts';
import type { Logger } from '../http/log.ts';
import type { DocRecord, EntryRecord, FromWorker, Listing, ToWorker, WalkJob, WalkSummary, WorkerOptions } from './protocol.ts';

interface Pending {
  onOut?: (entries: EntryRecord[], docs: DocRecord[]) => void;
  resolve: (value: any) => void;
  reject: (err: Error) => void;
}

export class WalkerClient {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly options: WorkerOptions;
  private readonly log: Logger;
  /** Timed-out file-system calls still stuck in the worker, and whether work is paused. */
  io = { stalled: 0, paused: false };
  onIo: (stalled: number, paused: boolean) => void = () => {};

  constructor(options: WorkerOptions, log: Logger) {
    this.options = options;
    this.log = log;
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker('indexer/walker.worker.ts', { workerData: this.options });
    worker.unref();
    worker.on('message', (m: FromWorker) => this.receive(m));
    const fail = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      const jobs = [...this.pending.values()];
      this.pending.clear();
      for (const p of jobs) p.reject(err);
    };
    worker.on('error', (err) => { this.log.error('the indexer worker failed', { err }); fail(err); });
    worker.on('exit', (code) => fail(new Error(`the indexer worker stopped (exit ${code})`)));
    this.worker = worker;
    return worker;
  }

  private receive(m: FromWorker): void {
    if (m.type === 'io') {
      this.io = { stalled: m.stalled, paused: m.paused };
      this.onIo(m.stalled, m.paused);
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
    }
  }

  private post(message: ToWorker): void {
    this.ensure().postMessage(message);
  }

  walk(job: Omit<WalkJob, 'id'>, onOut: (entries: EntryRecord[], docs: DocRecord[]) => void): { id: number; done: Promise<WalkSummary> } {
    const id = this.nextId++;
    const done = new Promise<WalkSummary>((resolve, reject) => {
      this.pending.set(id, { onOut, resolve, reject });
      this.post({ type: 'walk', job: { ...job, id } });
    });
    return { id, done };
  }

  list(root: string, rel: string, excludes: string[]): Promise<Listing> {
    const id = this.nextId++;
    return new Promise<Listing>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ type: 'list', job: { id, root, rel, excludes } });
    });
  }

  /** Starts the worker ahead of its first job (its start overlaps other work). */
  warm(): void {
    this.ensure();
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
    const worker = this.worker;
    this.worker = undefined;
    const jobs = [...this.pending.values()];
    this.pending.clear();
    for (const p of jobs) p.reject(new Error('the indexer stopped'));
    if (worker) await worker.terminate();
  }
}
