// Streams over a descriptor the caller owns. A ReadStream closes its fd when destroyed even
// with autoClose: false, and one archive descriptor serves several reads in turn, so these
// streams get file-system functions whose close leaves the descriptor alone.
import fs from 'node:fs';
import { Readable, type Writable } from 'node:stream';
import yauzl from 'yauzl';

const keepOpen = {
  open: fs.open,
  read: fs.read,
  close: (_fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => cb(null),
};

/** Bytes `start` … `end` (inclusive; to the end when absent) of `fd`, never closing it. */
export function readDescriptor(fd: number, start = 0, end?: number): Readable {
  return fs.createReadStream('', {
    fd,
    start,
    end,
    autoClose: false,
    emitClose: true,
    highWaterMark: 1024 * 1024,
    fs: keepOpen,
  } as Parameters<typeof fs.createReadStream>[1]);
}

/**
 * yauzl's reader over a descriptor the caller owns: its ranges are readDescriptor streams and its
 * close leaves the descriptor open (yauzl.fromFd's reader closes it when the zip is closed).
 */
export class DescriptorRangeReader extends yauzl.RandomAccessReader {
  protected readonly fd: number;

  constructor(fd: number) {
    super();
    this.fd = fd;
  }

  override _readStreamForRange(start: number, end: number): Readable {
    if (end <= start) return Readable.from([]);
    return readDescriptor(this.fd, start, end - 1);
  }
}

/**
 * Hands `chunk` to a zlib stream; settles once zlib has taken it, or rejects once the stream is
 * destroyed. A write zlib has parked (its output look-ahead full, waiting for a read) never calls
 * back after a destroy, so an extraction that stops mid-entry (a cancel, a limit, a lie) would
 * wait on it for ever.
 */
export function feed(stream: Writable, chunk: Buffer): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (stream.destroyed) return reject(new Error('aborted'));
    const closed = () => reject(new Error('aborted'));
    stream.once('close', closed);
    stream.write(chunk, (err) => {
      stream.off('close', closed);
      if (err) reject(err);
      else resolve();
    });
  });
}
