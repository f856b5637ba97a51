// One request at a time per upload. A newer request takes over from a PATCH still writing
// (the usual case: the sender lost its connection, the server has not noticed yet, and the
// sender is already asking HEAD to resume); the older PATCH stops, records the bytes it wrote,
// and lets go. A placement in progress is never interrupted: the newcomer waits for it.
import { tusError } from './protocol.ts';

export interface LockHandle {
  /** Aborted when a newer request takes over. */
  readonly signal: AbortSignal;
  /** Marks the holder as placing the file (no longer interruptible). */
  placing(): void;
  release(): void;
}

interface Holder {
  controller: AbortController;
  placing: boolean;
  done: Promise<void>;
}

/** How long a newcomer waits for the holder to let go before answering 409 (tus clients retry it). */
const WAIT_MS = 15_000;

export function createUploadLocks() {
  const holders = new Map<string, Holder>();

  return {
    held: (id: string) => holders.has(id),

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
      return {
        signal: holder.controller.signal,
        placing() {
          holder.placing = true;
        },
        release() {
          if (released) return;
          released = true;
          if (holders.get(id) === holder) holders.delete(id);
          resolveDone();
        },
      };
    },
  };
}
