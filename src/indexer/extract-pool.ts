// The extractor thread as the walker's thread sees it: one document at a time, each bounded by
// time (SEARCH_EXTRACT_TIMEOUT_MS) and by memory (the thread's V8 heap, and the process's
// growth while it reads: pdf.js's decoded streams are outside the heap). Past either limit the
// thread is stopped — its document is `timed-out` or `too-large` — and the next document starts
// a fresh one. A thread that dies on its own costs its document (`broken`). It retires when
// idle, like the walker (pdf.js alone is ~40 MB).
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../workers.ts';
import { documentKind, hasSearchFacts, type ExtractLimits, type Extracted, type ExtractedKind } from './extract.ts';

export interface ExtractRequest {
  id: number;
  file: string;
  name: string;
  size: number;
  limits: ExtractLimits;
}
export interface ExtractReply {
  id: number;
  result: Extracted;
}

/** The extractor thread's name as the system shows it (at most 15 bytes). */
export const READER_THREAD = 'doc-reader';
/** The extractor's V8 heap. */
const HEAP_MB = 256;
/** Growth of the whole process while one document is read, past which the reader is stopped. */
const GROWTH_BYTES = 256 * 1024 * 1024;
const WATCH_MS = 25;
const IDLE_MS = 10_000;

interface Job {
  request: ExtractRequest;
  /** 'media': a photo's or a song's facts for search. */
  kind: ExtractedKind | 'media';
  resolve: (r: Extracted) => void;
}

export class DocumentReader {
  private worker: Worker | null = null;
  private readonly queue: Job[] = [];
  private current: Job | null = null;
  private nextId = 1;
  private idle: NodeJS.Timeout | undefined;
  private watch: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly limits: ExtractLimits;

  constructor(limits: ExtractLimits) {
    this.limits = limits;
  }

  /** The document's text and state, or a photo's or song's facts (never rejects). */
  read(file: string, name: string, size: number): Promise<Extracted> {
    const kind = documentKind(name) ?? (hasSearchFacts(name) ? 'media' : null);
    if (kind === null || kind === 'text') return Promise.resolve({ text: null });
    return new Promise((resolve) => {
      this.queue.push({ request: { id: this.nextId++, file, name, size, limits: this.limits }, kind, resolve });
      this.pump();
    });
  }

  private start(): Worker {
    const worker = startWorker('indexer/extract.worker.ts', {
      // Its thread's name (`top -H`, /proc/<pid>/task/*/comm): one stopped at a limit is gone.
      name: READER_THREAD,
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: 16 },
      stdout: true,
      stderr: true,
    });
    // pdf.js warns on the console: read and dropped, never the server's log.
    worker.stdout.resume();
    worker.stderr.resume();
    worker.on('message', (m: ExtractReply) => {
      if (this.current?.request.id === m.id) this.finish(m.result);
    });
    // Out of heap (ERR_WORKER_OUT_OF_MEMORY) or a crash: the document is the cause.
    worker.on('error', (err: NodeJS.ErrnoException) => {
      if (this.worker !== worker) return;
      this.stop(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'too-large' : 'broken');
    });
    worker.on('exit', () => {
      if (this.worker === worker) this.stop('broken');
    });
    return worker;
  }

  private pump(): void {
    if (this.current || !this.queue.length) return;
    clearTimeout(this.idle);
    const job = (this.current = this.queue.shift()!);
    this.worker ??= this.start();
    this.worker.postMessage(job.request);
    this.timer = setTimeout(() => this.stop('timed-out'), this.limits.timeoutMs);
    const base = process.memoryUsage.rss();
    this.watch = setInterval(() => {
      if (process.memoryUsage.rss() - base > GROWTH_BYTES) this.stop('too-large');
    }, WATCH_MS);
  }

  private finish(result: Extracted): void {
    const job = this.current;
    if (!job) return;
    clearTimeout(this.timer);
    clearInterval(this.watch);
    this.current = null;
    job.resolve(result);
    if (this.queue.length) this.pump();
    else {
      this.idle = setTimeout(() => this.close(), IDLE_MS);
      this.idle.unref();
    }
  }

  /** The document in hand went past a limit (or killed its thread): the thread goes, the document is skipped. */
  private stop(status: 'timed-out' | 'too-large' | 'broken'): void {
    const job = this.current;
    const worker = this.worker;
    this.worker = null;
    void worker?.terminate();
    // A photo or song past a limit is known to say nothing (not read again until it changes).
    if (job)
      this.finish(
        job.kind === 'media'
          ? { text: null, media: { taken: null, camera: null, artist: null, album: null } }
          : { text: null, state: { kind: job.kind, status } },
      );
  }

  /** Stops the thread; documents still waiting are deferred (their old text stays). */
  close(): void {
    clearTimeout(this.idle);
    clearTimeout(this.timer);
    clearInterval(this.watch);
    const worker = this.worker;
    this.worker = null;
    void worker?.terminate();
    for (const job of [this.current, ...this.queue.splice(0)])
      job?.resolve(
        job.kind === 'media' ? { text: null } : { text: null, state: { kind: job.kind, status: 'deferred' } },
      );
    this.current = null;
  }
}
