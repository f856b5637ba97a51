// One request at a time per upload. A newer request takes over from a PATCH still writing
// (the usual case: the sender lost its connection, the server has not noticed yet, and the
// sender is already asking HEAD to resume); the older PATCH stops, records the bytes it wrote,
// and lets go. A placement in progress is never interrupted: the newcomer waits for it.
//
// Across the instances of a cluster (PostgreSQL) the upload's lock is also PostgreSQL's
// (lease-store.ts), taken after this process's own: a request on another instance cannot take
// over a PATCH here, so it is answered 409 TUS_BUSY at once (tus clients retry it) and a HEAD
// there answers the offset last recorded. An instance that dies lets go of its uploads with its
// connection; one whose connection was lost and made again has lost its locks, which a PATCH
// finds out at its next record (`stillHeld`) and stops without touching the upload again.
import { AppError } from '../../core/errors.ts';
import { tusError, TUS_HEADERS } from './protocol.ts';
import type { UploadLeaseStore } from './lease-store.ts';

export interface LockHandle {
  /** Aborted when a newer request takes over, or when the cluster's lock was lost. */
  readonly signal: AbortSignal;
  /** Marks the holder as placing the file (no longer interruptible). */
  placing(): void;
  /**
   * Whether the upload is still this request's (always, on one instance). On a cluster, asks
   * PostgreSQL; when the lock is gone, aborts `signal` and marks the handle `lost`.
   */
  stillHeld(): boolean;
  /** The cluster's lock was lost: another instance may be writing; touch nothing of the upload. */
  readonly lost: boolean;
  release(): void;
}

/** Another instance holds the upload (a cluster): answered 409 TUS_BUSY. */
export class HeldElsewhere extends AppError {
  constructor() {
    super('TUS_BUSY', 'Another Burrow instance is working on this upload; try again shortly.', {
      headers: { ...TUS_HEADERS },
    });
  }
}

interface Holder {
  controller: AbortController;
  placing: boolean;
  done: Promise<void>;
}

/** How long a newcomer waits for the holder to let go before answering 409 (tus clients retry it). */
const WAIT_MS = 15_000;

/** The upload's key among PostgreSQL's advisory locks: 64 bits of its random id. */
export const leaseKey = (id: string) => BigInt.asIntN(64, BigInt('0x' + id.slice(0, 16))).toString();

export function createUploadLocks(across?: UploadLeaseStore) {
  const holders = new Map<string, Holder>();

  return {
    held: (id: string) => holders.has(id),

    /** This process's lock, then the cluster's; HeldElsewhere when another instance has it. */
    async acquire(id: string): Promise<LockHandle> {
      const deadline = Date.now() + WAIT_MS;
      for (let h = holders.get(id); h; h = holders.get(id)) {
        if (!h.placing) h.controller.abort();
        const left = deadline - Date.now();
        if (left <= 0) throw tusError('TUS_BUSY');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          h.done,
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, left);
          }),
        ]);
        clearTimeout(timer);
      }
      const key = across ? leaseKey(id) : '';
      if (across && !across.tryHold(key)) throw new HeldElsewhere();
      let resolveDone!: () => void;
      const holder: Holder = {
        controller: new AbortController(),
        placing: false,
        done: new Promise<void>((r) => {
          resolveDone = r;
        }),
      };
      holders.set(id, holder);
      let released = false;
      let lost = false;
      return {
        signal: holder.controller.signal,
        placing() {
          holder.placing = true;
        },
        stillHeld() {
          if (!across || lost) return !lost;
          try {
            lost = !across.holds(key);
          } catch {
            lost = true; // PostgreSQL cannot be asked: the lock may be gone with the connection
          }
          if (lost) holder.controller.abort();
          return !lost;
        },
        get lost() {
          return lost;
        },
        release() {
          if (released) return;
          released = true;
          if (across && !lost)
            try {
              across.release(key);
            } catch {
              /* the connection is gone, and the lock with it */
            }
          if (holders.get(id) === holder) holders.delete(id);
          resolveDone();
        },
      };
    },
  };
}
