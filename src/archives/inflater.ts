// Deflate and gzip inflated into buffers the caller owns and reuses. A zlib stream hands over each
// output chunk in a buffer of its own (1 MiB each at our chunk size): fresh memory the kernel
// maps and zeroes page by page as zlib first writes it, freed only when the collector runs —
// measured on 50 MB of text inflated five times, 40-70 ms and 160-2,300 page faults a round
// through the stream against 26 ms and 4-7 faults into one reused buffer; on an extraction,
// faults in zlib's output loop were an eighth of all CPU samples (perf). zlib itself is the same:
// node:zlib's handle, driven the way zlib.inflateRawSync drives it, a step at a time: a step
// fills at most one output buffer (about a millisecond), so the event loop goes on between steps.
import zlib from 'node:zlib';

interface Handle {
  writeSync(
    flush: number,
    input: Buffer,
    inOff: number,
    inLen: number,
    out: Buffer,
    outOff: number,
    outLen: number,
  ): void;
}
/** What node:zlib's sync functions use: its handle and the [availOut, availIn] it writes after each call. */
interface Internals {
  _handle?: Handle | null;
  _writeState?: Uint32Array;
}

const EMPTY = Buffer.alloc(0);

export class Inflater {
  private readonly z: zlib.InflateRaw | zlib.Gunzip;
  private readonly handle: Handle;
  private readonly state: Uint32Array;
  private ended = false;

  /** `raw`: a zip entry's deflate stream; `gzip`: a .gz file, every member in turn as zlib.createGunzip reads it. */
  constructor(kind: 'raw' | 'gzip') {
    this.z = kind === 'raw' ? zlib.createInflateRaw() : zlib.createGunzip();
    // zlib reports a bad stream by destroying its stream (the error is read back from it below).
    this.z.on('error', () => {});
    const { _handle: handle, _writeState: state } = this.z as unknown as Internals;
    // Pinned by the Node this ships with; a Node that changed them fails the archive tests at once.
    if (typeof handle?.writeSync !== 'function' || !(state instanceof Uint32Array))
      throw new Error('node:zlib no longer exposes the handle its sync functions use');
    this.handle = handle;
    this.state = state;
  }

  /**
   * Inflates `input` from `from` into `out` from its start, until the input is used up or `out`
   * is full: what it read and wrote. Nothing read and nothing written means the stream ended
   * (bytes after its end are left unread). Throws zlib's error for a broken stream.
   */
  step(input: Buffer, from: number, out: Buffer): { read: number; wrote: number } {
    return this.call(zlib.constants.Z_NO_FLUSH, input, from, out);
  }

  /**
   * Once the input is all given: the rest of the output into `out` (called again while it fills
   * `out`). Throws "unexpected end of file" where the stream stops before its end.
   */
  finish(out: Buffer): number {
    if (this.ended) return 0;
    const { wrote } = this.call(zlib.constants.Z_FINISH, EMPTY, 0, out);
    if (wrote < out.length) this.ended = true;
    return wrote;
  }

  close(): void {
    this.z.close();
  }

  private call(flush: number, input: Buffer, from: number, out: Buffer): { read: number; wrote: number } {
    const inLen = input.length - from;
    this.handle.writeSync(flush, input, from, inLen, out, 0, out.length);
    if (this.z.errored) throw this.z.errored;
    return { wrote: out.length - this.state[0]!, read: inLen - this.state[1]! };
  }
}
