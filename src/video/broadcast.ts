// One ffmpeg's output read by several viewers (service.ts): two people opening the same video
// share one process instead of converting it twice, however far the first has got.
//
// The output is fragmented MP4, whose first bytes (the header) every reader needs, so each
// reader starts at the first byte. What ffmpeg wrote goes into a spill file (in the cache
// folder, removed from the folder as soon as it is open: a crash leaves nothing behind), and a
// reader behind the newest bytes reads them from there; a reader at the newest bytes is handed
// each chunk as it comes. Memory is a chunk per reader at most, and a viewer who joins late (or
// reads slowly) holds nobody back: ffmpeg is read while a reader at the newest bytes wants more.
// The spill file is as long as the output and goes when its last reader leaves. Should it fail
// to be written (a full disk), the stream goes on for the readers at its newest bytes and
// nobody joins any more.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';

/** Bytes read from the spill file at a time for a reader behind. */
const READ_BYTES = 256 * 1024;

interface Reader {
  body: Readable;
  /** Who reads (the service's viewer key: a seek of that viewer ends its reader). */
  viewer: string;
  /** Absolute byte offset of the next byte this reader is sent. */
  pos: number;
  /** Its consumer asked for more (push returned true since). */
  wants: boolean;
  /** A read of the spill file in flight for it. */
  reading: boolean;
}

export interface Broadcast {
  /** A new reader from the first byte; null when it cannot be given whole (the spill file failed, or the output ended badly). */
  join(viewer: string): Readable | null;
  /** A reader leaves; the last one leaving ends the source (`onIdle`). */
  leave(body: Readable): void;
  /** The readers of one viewer. */
  readersOf(viewer: string): Readable[];
  readonly readers: number;
}

export function broadcast(source: Readable, opts: { spillDir: string; onIdle: () => void }): Broadcast {
  let produced = 0;
  let ended = false;
  let failed = false;
  let spill: number | null = null;
  let closeSpill = (): void => {
    if (spill !== null) fs.closeSync(spill);
  };
  const readers = new Set<Reader>();
  try {
    fs.mkdirSync(opts.spillDir, { recursive: true });
    const file = path.join(opts.spillDir, `video-${randomUUID()}.part`);
    const fd = fs.openSync(file, 'w+', 0o600);
    spill = fd;
    try {
      fs.unlinkSync(file);
    } catch {
      // A system that cannot remove an open file: removed when it is closed.
      closeSpill = () => {
        fs.closeSync(fd);
        fs.rmSync(file, { force: true });
      };
    }
  } catch {
    spill = null;
  }
  /** The spill file cannot give readers behind their bytes: they end, and nobody joins. */
  function spillFailed(): void {
    failed = true;
    if (spill === null) return;
    closeSpill();
    spill = null;
    for (const r of readers)
      if (r.pos < produced) r.body.destroy(new Error('The video could not be held for its viewers.'));
  }
  if (spill === null) failed = true;

  function send(r: Reader): void {
    if (!r.wants || r.reading || r.body.destroyed) return;
    if (r.pos < produced) {
      if (spill === null) return;
      const fd = spill;
      const len = Math.min(READ_BYTES, produced - r.pos);
      const buf = Buffer.allocUnsafe(len);
      r.reading = true;
      fs.read(fd, buf, 0, len, r.pos, (err, n) => {
        r.reading = false;
        if (!readers.has(r)) return;
        if (err || n === 0) return spillFailed();
        r.pos += n;
        r.wants = r.body.push(n === len ? buf : buf.subarray(0, n));
        send(r);
        pace();
      });
      return;
    }
    if (ended) r.body.push(null);
  }

  /** ffmpeg is read while a reader at the newest bytes wants more. */
  function pace(): void {
    if (ended) return;
    let someoneWants = false;
    for (const r of readers) if (r.wants && !r.reading && r.pos === produced) someoneWants = true;
    if (someoneWants) source.resume();
    else source.pause();
  }

  source.on('data', (chunk: Buffer) => {
    if (spill !== null)
      try {
        fs.writeSync(spill, chunk, 0, chunk.length, produced);
      } catch {
        spillFailed();
      }
    // Readers at the newest bytes are handed the chunk itself.
    for (const r of readers)
      if (r.pos === produced && r.wants && !r.reading && !r.body.destroyed) {
        r.pos += chunk.length;
        r.wants = r.body.push(chunk);
      }
    produced += chunk.length;
    for (const r of readers) send(r);
    pace();
  });
  source.on('end', () => {
    ended = true;
    for (const r of readers) send(r);
  });
  source.on('error', (err) => {
    ended = true;
    failed = true;
    for (const r of readers) r.body.destroy(err);
  });
  source.pause();

  return {
    join(viewer) {
      // Without the spill file, only a reader at the first byte still gets the whole output.
      if ((failed && produced > 0) || (ended && produced === 0)) return null;
      const r: Reader = {
        viewer,
        pos: 0,
        wants: false,
        reading: false,
        body: new Readable({
          read() {
            r.wants = true;
            send(r);
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
        source.pause();
        spillFailed();
        opts.onIdle();
      } else pace();
    },
    readersOf(viewer) {
      return [...readers].filter((r) => r.viewer === viewer).map((r) => r.body);
    },
    get readers() {
      return readers.size;
    },
  };
}
