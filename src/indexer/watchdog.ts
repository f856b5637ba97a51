// FOLDER_SIZE_IO_TIMEOUT_MS for the synchronous walk of local disks.
//
// A synchronous readdir/lstat cannot be given a time limit: on a disk that hangs (a dying USB
// disk, a stale FUSE mount taken for a local disk) the worker's thread sits in the kernel and
// answers nothing. So the limit is kept from outside, by the main thread:
//
// - The worker counts every synchronous call into a SharedArrayBuffer (`SyncBeat`): the counter
//   is odd while a call is in progress. Before listing a folder it also writes the job's id and
//   the folder's relative path there. No message per call, and nothing for the main thread to
//   wait on: two atomic additions per file.
// - The main thread (`SyncWatchdog`) looks at the counter a few times per timeout. When it stays
//   odd and unchanged for longer than the I/O timeout, the worker is stuck in one call: the
//   watchdog reports the job and the folder it was in.
// - The client (worker-client.ts) then gives up on that worker: it is terminated without being
//   waited for (a thread inside a hung system call only ends when the call returns; a new worker
//   serves the next jobs meanwhile), its jobs fail with `WalkerStalledError`, and one log line
//   says so.
// - The indexer (Indexer.runWalk) walks that root again from its start with the guarded
//   asynchronous walk, which bounds every call by the I/O timeout on its own, with the hung
//   folder in the job's `skip` list: it is not read again but recorded as incomplete, so the
//   paced sweep retries it later (still with the guarded walk: the root stays marked as
//   suspect for the life of the process). Restarting from the start rather than from where the
//   walk stood keeps the worker free of resumable state; the folders already walked are in the
//   kernel's cache, and the guarded walk costs about 2.5x the synchronous one.
// Other jobs of the abandoned worker are simply run again on the new one.

const HEADER = 3; // Int32 slots: call counter, job id, folder byte length
const FOLDER_BYTES = 16 * 1024; // longer than any path the kernel accepts

export function syncBeatBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER * 4 + FOLDER_BYTES);
}

/** Worker side: marks the synchronous calls and the folder they are about. */
export class SyncBeat {
  private readonly head: Int32Array;
  private readonly folderBytes: Uint8Array;
  private readonly encoder = new TextEncoder();

  constructor(buffer: SharedArrayBuffer) {
    this.head = new Int32Array(buffer, 0, HEADER);
    this.folderBytes = new Uint8Array(buffer, HEADER * 4, FOLDER_BYTES);
  }

  /** The folder the next calls read (job `jobId`, path relative to its root). */
  folder(jobId: number, rel: string): void {
    const { written } = this.encoder.encodeInto(rel, this.folderBytes);
    this.head[1] = jobId;
    Atomics.store(this.head, 2, written);
  }

  enter(): void {
    Atomics.add(this.head, 0, 1);
  }

  leave(): void {
    Atomics.add(this.head, 0, 1);
  }
}

/** A beat that records nothing (unit tests, walks without a watchdog). */
export const noBeat = { folder() {}, enter() {}, leave() {} } satisfies Pick<SyncBeat, 'folder' | 'enter' | 'leave'>;
export type Beat = typeof noBeat | SyncBeat;

export interface Stall {
  jobId: number;
  folder: string;
  stuckMs: number;
}

/** Main-thread side: notices a synchronous call that outlives the I/O timeout. */
export class SyncWatchdog {
  private readonly head: Int32Array;
  private readonly folderBytes: Uint8Array;
  private readonly timer: NodeJS.Timeout;
  private lastSeq = 0;
  private lastChange = Date.now();
  private fired = false;

  constructor(buffer: SharedArrayBuffer, timeoutMs: number, onStall: (stall: Stall) => void) {
    this.head = new Int32Array(buffer, 0, HEADER);
    this.folderBytes = new Uint8Array(buffer, HEADER * 4, FOLDER_BYTES);
    // A few looks per timeout: a stall is reported between 1x and 1.25x the limit.
    this.timer = setInterval(
      () => {
        const stall = this.check(Date.now(), timeoutMs);
        if (stall) onStall(stall);
      },
      Math.min(1000, Math.max(5, Math.floor(timeoutMs / 4))),
    );
    this.timer.unref();
  }

  /** One look at the counter; a stall is reported once. */
  check(now: number, timeoutMs: number): Stall | null {
    const seq = Atomics.load(this.head, 0);
    if (seq !== this.lastSeq) {
      this.lastSeq = seq;
      this.lastChange = now;
      return null;
    }
    if (this.fired || (seq & 1) === 0 || now - this.lastChange < timeoutMs) return null;
    this.fired = true;
    const length = Atomics.load(this.head, 2);
    const folder = new TextDecoder().decode(this.folderBytes.slice(0, length));
    return { jobId: this.head[1]!, folder, stuckMs: now - this.lastChange };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** A walker job lost to a worker stuck in a synchronous call. */
export class WalkerStalledError extends Error {
  /** This job was the one in the hung call; `folder` is where (relative to its root). */
  readonly hung: boolean;
  readonly folder: string | null;

  constructor(hung: boolean, folder: string | null) {
    super(
      hung
        ? 'a synchronous file-system call of the indexer outlived FOLDER_SIZE_IO_TIMEOUT_MS'
        : 'the indexer worker was replaced after a hung file-system call',
    );
    this.name = 'WalkerStalledError';
    this.hung = hung;
    this.folder = folder;
  }
}
