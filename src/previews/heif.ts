// HEIF pictures (HEIC from phones) for the thumbnails, in the picture child (picture-child.ts):
// the image add-on has no HEVC decoder, so a thread of its own (heif.worker.ts, libheif in
// WebAssembly) decodes the picture to RGBA pixels, and the add-on turns, scales and encodes
// them as it does any picture's.
//
// One picture at a time, each bounded by time (DECODE_TIMEOUT_MS) and by its size (its pixels,
// read from the file's own header before anything is decoded). The thread keeps its
// WebAssembly memory until it ends: it is ended after IDLE_MS without a picture, after one
// whose decoding left that memory above MAX_HEAP_BYTES, and on any failure of its own; the
// next picture starts a fresh one.
import type { Worker } from 'node:worker_threads';
import { heifDimensions, heifOrientation, readAtBuffer } from '../metadata/containers.ts';
import { startWorker } from '../workers.ts';

export interface HeifRequest {
  id: number;
  bytes: Uint8Array;
  maxPixels: number;
}
export type HeifReply =
  | { id: number; width: number; height: number; pixels: Uint8ClampedArray; heapBytes: number }
  | { id: number; error: string };

export interface DecodedHeif {
  width: number;
  height: number;
  pixels: Uint8ClampedArray;
  /** The EXIF Orientation still to apply (1: none): the decoder applied the file's own rotation and mirroring. */
  orientation: number;
}

export const DECODE_TIMEOUT_MS = 60_000;
export const IDLE_MS = 3_000;
/** WebAssembly memory past which the thread is ended after its picture (a 12 MP picture needs ~120 MB). */
export const MAX_HEAP_BYTES = 256 * 1024 * 1024;

/** Whether `bytes` are an ISO media file (HEIF, AVIF, MP4…): an `ftyp` box first. */
export function isIsoMedia(bytes: Uint8Array): boolean {
  return bytes.length >= 12 && Buffer.from(bytes.buffer, bytes.byteOffset, 12).toString('latin1', 4, 8) === 'ftyp';
}

interface Job {
  request: HeifRequest;
  orientation: number;
  resolve: (d: DecodedHeif) => void;
  reject: (e: Error) => void;
}

export class HeifDecoder {
  private worker: Worker | null = null;
  private readonly queue: Job[] = [];
  private current: Job | null = null;
  private nextId = 1;
  private idle: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Threads started so far (tests read it). */
  started = 0;
  private readonly idleMs: number;
  private readonly maxHeapBytes: number;

  constructor(options: { idleMs?: number; maxHeapBytes?: number } = {}) {
    this.idleMs = options.idleMs ?? IDLE_MS;
    this.maxHeapBytes = options.maxHeapBytes ?? MAX_HEAP_BYTES;
  }

  /** Whether a decoder thread is running now. */
  get running(): boolean {
    return this.worker !== null;
  }

  /** The picture's RGBA pixels, upright once `orientation` is applied; rejects when it does not decode. */
  async decode(bytes: Uint8Array, maxPixels: number): Promise<DecodedHeif> {
    if (!isIsoMedia(bytes)) throw new Error('not a HEIF picture');
    const read = readAtBuffer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    const size = await heifDimensions(read, bytes.length).catch(() => null);
    if (size && size.width * size.height > maxPixels) throw new Error('picture too large for a thumbnail');
    const turn = await heifOrientation(read, bytes.length);
    const orientation = !turn.transformed && turn.exif ? turn.exif : 1;
    return new Promise((resolve, reject) => {
      this.queue.push({ request: { id: this.nextId++, bytes, maxPixels }, orientation, resolve, reject });
      this.pump();
    });
  }

  private start(): Worker {
    const worker = startWorker('previews/heif.worker.ts', { stdout: true, stderr: true });
    this.started++;
    worker.stdout.resume();
    worker.stderr.resume();
    worker.on('message', (m: HeifReply) => {
      if (this.current?.request.id === m.id) this.finish(worker, m);
    });
    worker.on('error', (err) => {
      if (this.worker === worker) this.fail(err);
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.fail(new Error(`the HEIF decoder ended (exit ${code})`));
    });
    return worker;
  }

  private pump(): void {
    if (this.current || !this.queue.length) return;
    clearTimeout(this.idle);
    const job = (this.current = this.queue.shift()!);
    this.worker ??= this.start();
    // A copy of its own goes to the thread, moved there rather than copied again (a Buffer's
    // memory may be Node's shared pool, which cannot be moved); this side's is let go.
    const sent = new Uint8Array(job.request.bytes);
    job.request.bytes = new Uint8Array(0);
    try {
      this.worker.postMessage({ ...job.request, bytes: sent }, [sent.buffer]);
    } catch (err) {
      return this.fail(err as Error);
    }
    this.timer = setTimeout(() => this.fail(new Error('the HEIF picture took too long to decode')), DECODE_TIMEOUT_MS);
  }

  private finish(worker: Worker, m: HeifReply): void {
    const job = this.current!;
    clearTimeout(this.timer);
    this.current = null;
    if ('error' in m) job.reject(new Error(m.error));
    else job.resolve({ width: m.width, height: m.height, pixels: m.pixels, orientation: job.orientation });
    // Its memory stays as large as the largest picture it decoded: past the bound it goes now.
    if ('heapBytes' in m && m.heapBytes > this.maxHeapBytes) this.end(worker);
    this.next();
  }

  private next(): void {
    if (this.queue.length) this.pump();
    else {
      clearTimeout(this.idle);
      this.idle = setTimeout(() => this.close(), this.idleMs);
      this.idle.unref();
    }
  }

  private end(worker: Worker): void {
    if (this.worker === worker) this.worker = null;
    void worker.terminate();
  }

  /** The thread failed (crashed, or the picture took too long): it goes, the picture fails, the next one starts afresh. */
  private fail(err: Error): void {
    const job = this.current;
    clearTimeout(this.timer);
    this.current = null;
    if (this.worker) this.end(this.worker);
    job?.reject(err);
    this.next();
  }

  /** Ends the thread (its memory with it); pictures still waiting fail. */
  close(): void {
    clearTimeout(this.idle);
    clearTimeout(this.timer);
    if (this.worker) this.end(this.worker);
    for (const job of [this.current, ...this.queue.splice(0)]) job?.reject(new Error('the HEIF decoder was closed'));
    this.current = null;
  }
}
