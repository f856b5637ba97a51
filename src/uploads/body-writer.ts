// Request bodies into files. The socket hands over chunks of at most 64 KiB; whatever arrived
// while the last write was on the disk goes in the next pwritev, so a write carries ~0.4 MiB
// when the disk keeps up and more when it does not. Why not a write stream behind a counting
// Transform: every chunk then passes two stream queues and their callbacks on the main thread,
// the thread that also reads the socket. Not copied into buffers of our own either: measured,
// a copy of every byte on that thread cost more than the collector saved.
//
// A request body's chunks are each a fresh copy made by Node's HTTP parser: memory outside V8's
// heap that only a collection frees, so V8 answers a few hundred MB/s of them with a full
// mark-compact every ~20 MB (70 in six 256 MiB TUS uploads, each marking the whole heap). With
// `freeWritten` a chunk's memory is released (its ArrayBuffer detached) as soon as its bytes
// are written: 14 in the same six uploads.
//
// With `pace` a body yields to people's other requests (core/load.ts): while one waits, the
// source is paused after each batch until they are served, or for MAX_YIELD_MS at most, and
// then reads YIELD_SLICE_BYTES at least before it yields again.
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { YIELD_SLICE_BYTES, type BodyPace } from '../core/load.ts';

/** Bytes waiting for the disk before the body is paused (the socket's backpressure). */
const PAUSE_AT = 4 * 1024 * 1024;

export interface BodyWriteOptions {
  /** Sees every chunk before it is kept; throwing refuses the body (nothing after it is written). */
  inspect?: (chunk: Buffer) => void;
  /** Aborting stops the write (the body is destroyed, as a pipeline would). */
  signal?: AbortSignal;
  /**
   * The source is a request body nobody else reads (an IncomingMessage): a chunk that is a
   * whole ArrayBuffer of its own is detached once written, which frees its memory at once.
   */
  freeWritten?: boolean;
  /**
   * On a failure the source is paused and left, not destroyed: the caller answers the request
   * (a 507 when the disk filled) and reads the rest away (http/linger.ts), where destroying a
   * request body would cut the connection before the client saw any answer.
   */
  keepSource?: boolean;
  /** People's other requests go first (core/load.ts); absent, the body is read as fast as the disk takes it. */
  pace?: BodyPace;
}

/** Frees the memory of chunks that own their whole ArrayBuffer; views into a larger one are left. */
function release(chunks: Buffer[]): void {
  for (const chunk of chunks) {
    const whole = chunk.buffer as ArrayBuffer;
    if (chunk.byteOffset !== 0 || chunk.byteLength !== whole.byteLength) continue;
    try {
      whole.transfer(0);
    } catch {
      // Not detachable (memory V8 does not own): left to the collector.
    }
  }
}

export interface BodyWrite {
  /** Bytes in the file from `position` on, without a gap — also after a failure. */
  readonly written: number;
  /** Resolves with `written` once the body has ended and every byte is written. */
  readonly done: Promise<number>;
}

/** pwritev until all of `chunks` (`length` bytes) is written (a regular file may take less at once). */
function writeAll(fd: number, chunks: Buffer[], length: number, position: number, cb: (err: Error | null) => void) {
  const step = (rest: Buffer[], left: number, at: number) =>
    fs.writev(fd, rest, at, (err, n) => {
      if (err) return cb(err);
      if (n >= left) return cb(null);
      // Short write: skip what went, go on with the rest.
      let skip = n;
      let i = 0;
      while (skip >= rest[i]!.length) skip -= rest[i++]!.length;
      step([rest[i]!.subarray(skip), ...rest.slice(i + 1)], left - n, at + n);
    });
  step(chunks, length, position);
}

/**
 * Writes `source` into `fd` from `position` on. On a failure (the source failed or was cut
 * off, `inspect` threw, the signal aborted, a write failed) the source is destroyed and the
 * promise rejects once no write is in flight, so the caller may truncate or close at once.
 */
export function writeBody(source: Readable, fd: number, position: number, options: BodyWriteOptions = {}): BodyWrite {
  const state = { written: 0, done: null as unknown as Promise<number> };
  state.done = new Promise<number>((resolve, reject) => {
    let gathered: Buffer[] = [];
    let length = 0;
    let writing = false;
    let ended = false;
    let failure: unknown = null;
    let settled = false;
    /** Holding back for people's requests: the cancel of the pace's callback. */
    let yielding: (() => void) | null = null;
    /** Bytes read since the body last held back (it reads a slice at least each time). */
    let sinceYield = YIELD_SLICE_BYTES;
    const pace = options.pace;

    const onAbort = () => fail(options.signal!.reason);
    const settle = () => {
      if (settled || writing) return;
      if (!failure && (!ended || length > 0)) return;
      settled = true;
      yielding?.();
      yielding = null;
      source.off('data', onData);
      source.off('end', onEnd);
      options.signal?.removeEventListener('abort', onAbort);
      if (failure) reject(failure);
      else resolve(state.written);
    };
    function fail(err: unknown) {
      if (failure || settled) return;
      failure = err ?? new Error('the body write was stopped');
      gathered = [];
      length = 0;
      if (options.keepSource) source.pause();
      else if (!source.destroyed) source.destroy();
      settle();
    }
    // Whatever has gathered goes in one write as soon as the disk is free: the batch grows
    // by itself when the disk is slower than the socket.
    const writeNext = () => {
      if (writing) return;
      if (failure || length === 0) return settle();
      const chunks = gathered;
      const bytes = length;
      gathered = [];
      length = 0;
      writing = true;
      writeAll(fd, chunks, bytes, position + state.written, (err) => {
        writing = false;
        if (err) return fail(err);
        state.written += bytes;
        if (options.freeWritten) release(chunks);
        if (!ended && !failure) holdBackOrResume();
        writeNext();
      });
    };
    /** After a batch: someone waits (and this body had its slice) — pause until served; else read on. */
    const holdBackOrResume = () => {
      if (yielding) return;
      if (pace && sinceYield >= YIELD_SLICE_BYTES && pace.waiting()) {
        source.pause();
        yielding = pace.whenServed(() => {
          yielding = null;
          sinceYield = 0;
          if (!ended && !failure && !settled) source.resume();
        });
        return;
      }
      if (source.isPaused()) source.resume();
    };
    function onData(chunk: Buffer) {
      if (failure) return;
      try {
        options.inspect?.(chunk);
      } catch (err) {
        return fail(err);
      }
      gathered.push(chunk);
      length += chunk.length;
      sinceYield += chunk.length;
      if (length >= PAUSE_AT) source.pause();
      else if (writing) holdBackOrResume();
      writeNext();
    }
    function onEnd() {
      if (failure) return;
      ended = true;
      writeNext();
    }

    if (options.signal?.aborted) return fail(options.signal.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    source.on('data', onData);
    source.once('end', onEnd);
    finished(source).catch(fail);
  });
  return state;
}
