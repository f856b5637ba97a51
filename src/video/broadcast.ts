// One ffmpeg's output read by several viewers (service.ts): two people opening the same video
// from the same time share one process instead of converting it twice.
//
// The output is fragmented MP4, whose first bytes (the header) every reader needs: a viewer can
// join while the broadcast still holds its whole beginning (`joinBytes`); after that it is a new
// stream. Readers go at their own pace from the chunks held for them: ffmpeg is read while some
// reader wants more and the slowest is less than `lagBytes` behind (then the fastest waits for
// it: memory stays bounded), and chunks nobody can need any more are let go.
import { Readable } from 'node:stream';

interface Reader {
  body: Readable;
  /** Absolute index of the next chunk this reader is sent. */
  next: number;
  /** Its consumer asked for more (push returned true since). */
  wants: boolean;
}

export interface Broadcast {
  /** A new reader from the first byte; null when the beginning is no longer held (or the output ended badly). */
  join(): Readable | null;
  /** A reader leaves; the last one leaving ends the source (`onIdle`). */
  leave(body: Readable): void;
  readonly readers: number;
}

export function broadcast(
  source: Readable,
  opts: { joinBytes: number; lagBytes: number; onIdle: () => void },
): Broadcast {
  const chunks: Buffer[] = [];
  /** Absolute end offset (bytes) of each chunk held. */
  const ends: number[] = [];
  let base = 0; // absolute index of chunks[0]
  let produced = 0;
  let ended = false;
  const readers = new Set<Reader>();

  /** The byte offset where the chunk of absolute index `index` starts (`produced` past the last). */
  const offsetBefore = (index: number) => {
    const i = index - base;
    return i >= chunks.length ? produced : ends[i]! - chunks[i]!.length;
  };
  const joinable = () => base === 0 && produced <= opts.joinBytes;

  function send(r: Reader): void {
    while (r.wants && r.next < base + chunks.length) {
      const chunk = chunks[r.next - base]!;
      r.next++;
      r.wants = r.body.push(chunk);
    }
    if (ended && r.next === base + chunks.length) r.body.push(null);
  }

  /** Lets go of chunks every reader has been sent (all of them are kept while a viewer may still join). */
  function trim(): void {
    if (joinable()) return;
    let lowest = base + chunks.length;
    for (const r of readers) lowest = Math.min(lowest, r.next);
    const drop = lowest - base;
    if (drop <= 0) return;
    chunks.splice(0, drop);
    ends.splice(0, drop);
    base = lowest;
  }

  /** ffmpeg is read while some reader wants more and the slowest is not too far behind. */
  function pace(): void {
    if (ended) return;
    let someoneWants = false;
    let slowest = produced;
    for (const r of readers) {
      if (r.wants && r.next === base + chunks.length) someoneWants = true;
      slowest = Math.min(slowest, offsetBefore(r.next));
    }
    if (someoneWants && produced - slowest < opts.lagBytes) source.resume();
    else source.pause();
  }

  source.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    produced += chunk.length;
    ends.push(produced);
    for (const r of readers) send(r);
    trim();
    pace();
  });
  source.on('end', () => {
    ended = true;
    for (const r of readers) send(r);
  });
  source.on('error', (err) => {
    ended = true;
    for (const r of readers) r.body.destroy(err);
  });
  source.pause();

  return {
    join() {
      if (!joinable() || (ended && produced === 0)) return null;
      const r: Reader = {
        next: 0,
        wants: false,
        body: new Readable({
          read() {
            r.wants = true;
            send(r);
            trim();
            pace();
          },
        }),
      };
      readers.add(r);
      return r.body;
    },
    leave(body) {
      for (const r of readers)
        if (r.body === body) {
          readers.delete(r);
          if (!body.destroyed) body.destroy();
        }
      if (readers.size === 0) {
        chunks.length = 0;
        ends.length = 0;
        source.pause();
        opts.onIdle();
      } else {
        trim();
        pace();
      }
    },
    get readers() {
      return readers.size;
    },
  };
}
