// The one Range sender: file reads into a small pool of reused 1 MiB buffers, written to the
// answer, each buffer given back once the socket has taken its bytes (sendRange; http/file.ts
// decides the range, zips reuse the pool). Why: a fresh 1 MiB buffer per read is external memory,
// and at a few hundred MB/s V8 answers it with a full mark-compact every few milliseconds
// (a third of the CPU of a stored zip went to the collector). Reused buffers allocate nothing.
import { applyPatches, type Patch } from '../core/patches.ts';
import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

export const CHUNK = 1024 * 1024;

/**
 * Buffers lent as views; a view comes back only when its bytes were written to the socket. With
 * `idleMs`, the pool can be shared by every answer of a kind (it outlives them): its free
 * buffers are released once none was given back for that long (at most twice that), and
 * released at once (detached, not left to the collector), so nothing is held at rest.
 */
export class ChunkPool {
  private readonly free: Buffer[] = [];
  private readonly lent = new WeakMap<Buffer, Buffer>();
  private readonly max: number;
  private readonly idleMs: number;
  private idle: NodeJS.Timeout | undefined;
  /** Buffers kept so far: the idle check compares it, instead of re-arming a timer per MiB. */
  private kept = 0;
  private keptAtCheck = -1;
  constructor(max = 8, idleMs = 0) {
    this.max = max;
    this.idleMs = idleMs;
  }
  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafeSlow(CHUNK);
  }
  /** A view of `whole` that giveBack() recognises. */
  lend(whole: Buffer, length: number): Buffer {
    const view = whole.subarray(0, length);
    this.lent.set(view, whole);
    return view;
  }
  /** Returns a buffer nobody holds any more; chunks that never came from the pool are ignored. */
  giveBack(chunk: Buffer): void {
    const whole = this.lent.get(chunk);
    if (!whole) return;
    this.lent.delete(chunk);
    this.keep(whole);
  }
  /** For a buffer read into but never lent (end of file). */
  putBack(whole: Buffer): void {
    this.keep(whole);
  }
  private keep(whole: Buffer): void {
    if (this.free.length >= this.max) return;
    this.free.push(whole);
    if (!this.idleMs) return;
    this.kept++;
    this.idle ??= setTimeout(() => this.checkIdle(), this.idleMs).unref();
  }
  /** Frees the buffers nobody holds once the pool went unused: detaching frees the memory now. */
  private checkIdle(): void {
    if (this.kept !== this.keptAtCheck) {
      this.keptAtCheck = this.kept;
      this.idle = setTimeout(() => this.checkIdle(), this.idleMs).unref();
      return;
    }
    this.idle = undefined;
    for (const whole of this.free.splice(0)) (whole.buffer as ArrayBuffer).transfer(0);
  }
}

/**
 * Sends bytes [start, end] of `fd` to `res` and ends it: 1 MiB reads into the pool's buffers,
 * the next read in flight while the socket takes the last one, a buffer back in the pool once
 * the socket has copied it. No stream between file and socket: one read and one write per MiB.
 * A file that ends before `end` fails with ESHORT (the promised length would be unmet); a client
 * that leaves fails with its close. Never closes `fd`.
 */
export async function sendRange(
  res: ServerResponse,
  fd: number,
  start: number,
  end: number,
  pool: ChunkPool,
  /** Bytes sent in place of the file's (core/patches.ts). */
  patches?: readonly Patch[],
) {
  const read = (pos: number) =>
    new Promise<[Buffer, number]>((resolve, reject) => {
      const buf = pool.take();
      fs.read(fd, buf, 0, Math.min(CHUNK, end + 1 - pos), pos, (err, n) => {
        if (!err) return resolve([buf, n]);
        pool.putBack(buf);
        reject(err);
      });
    });
  let next: Promise<[Buffer, number]> | null = start <= end ? read(start) : null;
  try {
    let pos = start;
    while (next) {
      const [buf, n] = await next;
      next = null;
      if (n === 0) {
        pool.putBack(buf);
        throw Object.assign(new Error(`the file ended after ${pos - start} of ${end + 1 - start} bytes`), {
          code: 'ESHORT',
        });
      }
      if (patches) applyPatches(buf.subarray(0, n), pos, patches);
      pos += n;
      if (pos <= end) next = read(pos);
      if (res.destroyed) throw gone(res);
      const ok = res.write(n === buf.length ? buf : buf.subarray(0, n), () => pool.putBack(buf));
      if (!ok && next) await drained(res);
    }
    // finished(), not end's callback: that one never comes when the client leaves at the last byte.
    res.end();
    await finished(res);
  } finally {
    // A read still in flight when the answer failed: let it land before the caller closes fd.
    if (next)
      await next.then(
        ([buf]) => pool.putBack(buf),
        () => {},
      );
  }
}

/** Why an output can take no more: its own error, else a premature close (the client left). */
export const gone = (out: Writable): Error =>
  out.errored ?? Object.assign(new Error('the output was closed'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });

/** Resolves when `out` drains; rejects once it is (or already was) destroyed. */
export function drained(out: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    if (out.destroyed) return reject(gone(out));
    const settle = (err?: Error) => {
      out.off('drain', onDrain);
      out.off('close', onClose);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => settle();
    const onClose = () => settle(gone(out));
    out.on('drain', onDrain);
    out.on('close', onClose);
  });
}
