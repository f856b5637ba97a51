// Bounds every read-directory / stat call by FOLDER_SIZE_IO_TIMEOUT_MS. A call past its limit is
// answered with ETIMEDOUT at once (its folder is marked incomplete), but it still holds a thread
// of the shared I/O pool until the disk answers; with FOLDER_SIZE_MAX_STALLED_IO such calls in
// flight, new work waits, so a dead mount cannot starve the requests the server is answering.
import type { Done } from './fs-layer.ts';

interface InFlight {
  started: number;
  timedOut: boolean;
  finish: (err: NodeJS.ErrnoException | null, value?: unknown) => void;
}

export class IoGuard {
  private readonly timeoutMs: number;
  private readonly maxStalled: number;
  private readonly inFlight = new Set<InFlight>();
  private stalled = 0;
  private waiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly onChange: (stalled: number, paused: boolean) => void;

  constructor(timeoutMs: number, maxStalled: number, onChange: (stalled: number, paused: boolean) => void = () => {}) {
    this.timeoutMs = timeoutMs;
    this.maxStalled = Math.max(1, maxStalled);
    this.onChange = onChange;
    if (timeoutMs > 0) {
      // One clock for every call instead of a timer per stat.
      this.timer = setInterval(() => this.sweep(), Math.min(1000, Math.max(5, Math.floor(timeoutMs / 4))));
      this.timer.unref();
    }
  }

  get paused(): boolean {
    return this.stalled >= this.maxStalled;
  }

  get stalledCalls(): number {
    return this.stalled;
  }

  /** Resolves once fewer than FOLDER_SIZE_MAX_STALLED_IO calls are stuck. */
  clear(): Promise<void> {
    if (!this.paused) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Runs one call under the limit. */
  run<T>(call: (done: Done<T>) => void, done: Done<T>): void {
    const entry: InFlight = { started: Date.now(), timedOut: false, finish: done as InFlight['finish'] };
    this.inFlight.add(entry);
    call((err, value) => {
      this.inFlight.delete(entry);
      if (entry.timedOut) {
        this.stalled--;
        this.changed();
        return;
      }
      done(err, value);
    });
  }

  private sweep(): void {
    const now = Date.now();
    let changed = false;
    for (const entry of this.inFlight) {
      if (entry.timedOut || now - entry.started < this.timeoutMs) continue;
      entry.timedOut = true;
      this.stalled++;
      changed = true;
      const err = Object.assign(new Error('file system call timed out'), {
        code: 'ETIMEDOUT',
      }) as NodeJS.ErrnoException;
      entry.finish(err);
    }
    if (changed) this.changed();
  }

  private changed(): void {
    this.onChange(this.stalled, this.paused);
    if (!this.paused && this.waiters.length) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
