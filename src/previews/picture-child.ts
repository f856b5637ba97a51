// Thumbnails are drawn in a short-lived child process, not in the server. Decoding a camera
// JPEG and scaling it runs in the image add-on's threads, and glibc keeps what those threads
// allocated in per-thread arenas for the life of the process (issue 33: a photo folder's
// thumbnails left the server at ~153 MB resident 60 s after, against ~110 wanted). A child
// gives all of it back when it leaves: it is started on the first picture and leaves after
// IDLE_MS without one. The child answers the WebP bytes, and the server writes the cache file.
//
// What it draws from goes down a pipe of its own (its fd 4), never as a path: the server reads
// the checked descriptor (positional reads, SOURCE_CHUNK at a time) and writes frames
// [job id u32][length u32][bytes], a zero length ending a job's input (ABORTED: the read
// failed). The server so never holds a whole picture (up to 64 MiB) nor a serialized copy of
// it; the child gathers each job's frames and draws once its input ended. The job itself
// (kind, size, quality) comes by IPC.
//
// The child is this program again (selfArgs() in native.ts) with `--picture-child <CACHE_DIR>`
// (the add-on is extracted under CACHE_DIR).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import type { Writable } from 'node:stream';
import { GifReader } from 'omggif';
import type { Logger } from '../core/log.ts';
import { createNativeAddons, removeUnfinishedAddons, selfArgs } from '../native.ts';
import { HeifDecoder, isIsoMedia } from './heif.ts';

/**
 * What the child draws from: an SVG, a GIF (its first frame), a HEIF (HEIC: decoded by libheif
 * in a thread of the child, heif.ts) or any picture the add-on decodes.
 */
export type PictureKind = 'svg' | 'gif' | 'heif' | 'picture';

/** Bytes in memory (a song's cover, a video's frame), or a checked descriptor read from its start. */
export type PictureInput = Uint8Array | { fd: number; size: number };

export interface PictureJob {
  kind: PictureKind;
  input: PictureInput;
  /** Longest side wanted (never enlarged). */
  size: number;
  quality: number;
}

/** What the child is sent by IPC: the job without its bytes, which come down the pipe. */
type JobMessage = { id: number; job: Omit<PictureJob, 'input'> };

/** Bytes read from a descriptor and written down the pipe at a time. */
const SOURCE_CHUNK = 1024 * 1024;
/** The most input a job may have: the thumbnails' bound on a source (thumbnails.ts) with room to spare. */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;
/** The frame length that ends a job's input as failed. */
const ABORTED = 0xffffffff;
/** The child's fd of the input pipe (0–2 stdio, 3 IPC). */
const INPUT_FD = 4;

/** Pictures bigger than this (decoded pixels) get no thumbnail. */
export const MAX_PIXELS = 80_000_000;
/** The child leaves after this long without a picture to draw. */
export const IDLE_MS = 10_000;
/** `ResizeFit.Inside`: as large as possible within both bounds, aspect kept. */
const FIT_INSIDE = 2;

interface ImageTransformer {
  metadata(withExif?: boolean): Promise<{ width: number; height: number }>;
  /** By the picture's EXIF orientation, or by `orientation` (1–8) when given. */
  rotate(orientation?: number): ImageTransformer;
  resize(width: number, height?: number | null, filter?: number | null, fit?: number | null): ImageTransformer;
  webp(quality?: number): Promise<Buffer>;
  png(): Promise<Buffer>;
}
type ImageModule = {
  Transformer: (new (input: Uint8Array) => ImageTransformer) & {
    fromSvg(input: Uint8Array | string): ImageTransformer;
    fromRgbaPixels(input: Uint8Array | Uint8ClampedArray, width: number, height: number): ImageTransformer;
  };
};

async function fromPicture(mod: ImageModule, input: Uint8Array): Promise<ImageTransformer> {
  const meta = await new mod.Transformer(input).metadata(false);
  if (meta.width * meta.height > MAX_PIXELS) throw new Error('picture too large for a thumbnail');
  return new mod.Transformer(input).rotate();
}

/** The WebP of `job` from its bytes (what the child does for each job); `heif` decodes a HEIF's. */
export async function drawWebp(
  mod: ImageModule,
  job: Omit<PictureJob, 'input'>,
  input: Uint8Array,
  heif?: HeifDecoder,
): Promise<Buffer> {
  let source: ImageTransformer;
  // Rasterised at its own size first, so it is measured (and never enlarged) like any picture.
  if (job.kind === 'svg') source = await fromPicture(mod, await mod.Transformer.fromSvg(input).png());
  else if (job.kind === 'gif') {
    const gif = new GifReader(input);
    if (gif.width * gif.height > MAX_PIXELS) throw new Error('picture too large for a thumbnail');
    const pixels = new Uint8Array(gif.width * gif.height * 4);
    gif.decodeAndBlitFrameRGBA(0, pixels);
    source = mod.Transformer.fromRgbaPixels(pixels, gif.width, gif.height);
  } else if (job.kind === 'heif' && heif && isIsoMedia(input)) {
    const decoded = await heif.decode(input, MAX_PIXELS);
    source = mod.Transformer.fromRgbaPixels(decoded.pixels, decoded.width, decoded.height);
    if (decoded.orientation > 1) source = source.rotate(decoded.orientation);
    // (A ".heic" that is not a HEIF, e.g. a JPEG renamed, is drawn as any picture.)
  } else source = await fromPicture(mod, input);
  // Fit inside size × size (never enlarged: resize only shrinks with this fit when smaller).
  const meta = await source.metadata(false).catch(() => null);
  const picture =
    !meta || meta.width > job.size || meta.height > job.size
      ? source.resize(job.size, job.size, null, FIT_INSIDE)
      : source;
  return picture.webp(job.quality);
}

type Answer = { id: number; webp: Uint8Array } | { id: number; error: string };

/** The child's side: draws each job it is sent until the server lets go of it. */
export function runPictureChild(cacheDir: string): void {
  const image = createNativeAddons(cacheDir).image() as unknown as ImageModule | null;
  const heif = new HeifDecoder();
  const send = (answer: Answer) => process.send?.(answer);
  type Gathering = {
    job?: JobMessage['job'];
    chunks: Buffer[];
    bytes: number;
    ended?: 'whole' | 'aborted' | 'too large';
  };
  const jobs = new Map<number, Gathering>();
  const gathering = (id: number) => {
    let g = jobs.get(id);
    if (!g) jobs.set(id, (g = { chunks: [], bytes: 0 }));
    return g;
  };
  function drawWhenReady(id: number) {
    const g = jobs.get(id)!;
    if (!g.job || !g.ended) return;
    jobs.delete(id);
    if (g.ended !== 'whole')
      return send({ id, error: `the picture's bytes ${g.ended === 'aborted' ? 'could not be read' : 'are too many'}` });
    if (!image) return send({ id, error: 'the image add-on could not be loaded' });
    const input = g.chunks.length === 1 ? g.chunks[0]! : Buffer.concat(g.chunks, g.bytes);
    g.chunks = [];
    drawWebp(image, g.job, input, heif).then(
      (webp) => send({ id, webp }),
      (err: unknown) => send({ id, error: String((err as Error)?.message ?? err) }),
    );
  }
  process.on('message', ({ id, job }: JobMessage) => {
    gathering(id).job = job;
    drawWhenReady(id);
  });
  // The frames of every job's input, as they come (jobs' frames may alternate).
  let pending: Buffer = Buffer.alloc(0);
  new net.Socket({ fd: INPUT_FD, readable: true, writable: false }).on('data', (data: Buffer) => {
    pending = pending.length ? Buffer.concat([pending, data]) : data;
    while (pending.length >= 8) {
      const id = pending.readUInt32BE(0);
      const length = pending.readUInt32BE(4);
      const g = gathering(id);
      if (length === 0 || length === ABORTED) {
        g.ended ??= length === 0 ? 'whole' : 'aborted';
        pending = pending.subarray(8);
        drawWhenReady(id);
        continue;
      }
      if (pending.length < 8 + length) break;
      if (!g.ended && g.bytes + length <= MAX_INPUT_BYTES) {
        // A copy: `pending` is a slice of the socket's larger buffer, which it would keep alive.
        g.chunks.push(Buffer.from(pending.subarray(8, 8 + length)));
        g.bytes += length;
      } else if (!g.ended) {
        g.ended = 'too large';
        g.chunks = [];
      }
      pending = pending.subarray(8 + length);
    }
  });
  // The server closed the channel (idle, stopping, or gone): nothing is left to do.
  process.on('disconnect', () => process.exit(0));
}

/** A frame header: the job and the length of the bytes that follow (0: the end, ABORTED: failed). */
function frameHeader(id: number, length: number): Buffer {
  const header = Buffer.allocUnsafe(8);
  header.writeUInt32BE(id, 0);
  header.writeUInt32BE(length, 4);
  return header;
}

/** Resolves when `pipe` can take more (at once when its buffer is not full). */
function drained(pipe: Writable, wrote: boolean): Promise<void> {
  if (wrote) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      pipe.off('drain', done);
      pipe.off('close', gone);
      if (err) reject(err);
      else resolve();
    };
    const gone = () => done(new Error('the picture process is gone'));
    pipe.once('drain', () => done());
    pipe.once('close', gone);
  });
}

/** Reads `n` bytes of `fd` at `position` (fewer at its end). */
function readAt(fd: number, n: number, position: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    fs.read(fd, Buffer.allocUnsafe(n), 0, n, position, (err, got, buffer) =>
      err ? reject(err) : resolve(buffer.subarray(0, got)),
    ),
  );
}

/** Writes a job's input down the pipe as frames: from memory, or read from the descriptor from its start. */
async function sendInput(pipe: Writable, id: number, input: PictureInput): Promise<void> {
  try {
    if (input instanceof Uint8Array) {
      for (let at = 0; at < input.length; at += SOURCE_CHUNK) {
        const part = input.subarray(at, at + SOURCE_CHUNK);
        await drained(pipe, pipe.write(Buffer.concat([frameHeader(id, part.length), part])));
      }
    } else {
      // The size checked when the file was opened (a file that grew since is read no further).
      const size = Math.min(input.size, MAX_INPUT_BYTES);
      for (let at = 0; at < size;) {
        const part = await readAt(input.fd, Math.min(SOURCE_CHUNK, size - at), at);
        if (!part.length) break;
        at += part.length;
        await drained(pipe, pipe.write(Buffer.concat([frameHeader(id, part.length), part])));
      }
    }
    pipe.write(frameHeader(id, 0));
  } catch (err) {
    if (!pipe.destroyed) pipe.write(frameHeader(id, ABORTED));
    throw err;
  }
}

export interface PictureChild {
  /** The WebP bytes of `job`, drawn in the child (started when none is running). */
  draw(job: PictureJob): Promise<Buffer>;
  /**
   * Ends the child now (the server stops) and resolves once it has exited. A child writes: at
   * its start it extracts the image add-on into CACHE_DIR/native (inside the executable), and
   * one only let go finished that first, after its server had stopped. Killed (SIGKILL): it
   * holds nothing that needs an orderly end; the folder it was extracting is removed.
   */
  close(): Promise<void>;
}

/** The server's side: one child at a time, started on demand, let go after `idleMs` without work. */
export function createPictureChild(deps: { cacheDir: string; log: Logger; idleMs?: number }): PictureChild {
  const idleMs = deps.idleMs ?? IDLE_MS;
  let child: ChildProcess | null = null;
  /** Every child started that has not exited: the current one, and any let go and still leaving. */
  const live = new Set<ChildProcess>();
  let nextId = 1;
  const pending = new Map<number, { owner: ChildProcess; resolve: (b: Buffer) => void; reject: (e: Error) => void }>();
  let idle: NodeJS.Timeout | undefined;

  function letGo() {
    if (child?.connected) child.disconnect();
    child = null;
  }

  function start(): ChildProcess {
    const c = spawn(process.execPath, [...selfArgs(), '--picture-child', deps.cacheDir], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc', 'pipe'],
      serialization: 'advanced',
      windowsHide: true,
    });
    c.on('message', (answer: Answer) => {
      const waiter = pending.get(answer.id);
      if (!waiter) return;
      pending.delete(answer.id);
      if ('error' in answer) waiter.reject(new Error(answer.error));
      else waiter.resolve(Buffer.from(answer.webp.buffer, answer.webp.byteOffset, answer.webp.byteLength));
      if (!pending.size && child === c) idle = setTimeout(letGo, idleMs).unref();
    });
    c.on('error', (err) => deps.log.warn('the picture process could not start', { err }));
    live.add(c);
    c.on('exit', (code, signal) => {
      live.delete(c);
      if (child === c) child = null;
      // Jobs sent to it and not answered fail (the pictures are remembered as without a thumbnail).
      for (const [id, waiter] of pending)
        if (waiter.owner === c) {
          pending.delete(id);
          waiter.reject(new Error(`the picture process ended (${signal ?? `exit ${code}`})`));
        }
    });
    // A pipe the child closed answers EPIPE: the 'exit' above fails the jobs.
    c.stdio[INPUT_FD]!.on('error', () => {});
    // It must not keep the server's process alive when that stops.
    c.unref();
    (c.channel as { unref?: () => void } | undefined)?.unref?.();
    (c.stdio[INPUT_FD] as net.Socket).unref();
    return c;
  }

  return {
    draw(job) {
      clearTimeout(idle);
      child ??= start();
      const c = child;
      const id = nextId++;
      const { input, ...rest } = job;
      return new Promise<Buffer>((resolve, reject) => {
        const fail = (err: Error) => {
          if (!pending.has(id)) return;
          pending.delete(id);
          reject(err);
        };
        pending.set(id, { owner: c, resolve, reject });
        c.send({ id, job: rest } satisfies JobMessage, (err) => err && fail(err));
        sendInput(c.stdio[INPUT_FD] as Writable, id, input).catch(fail);
      });
    },
    async close() {
      clearTimeout(idle);
      letGo();
      await Promise.all(
        [...live].map(async (c) => {
          // One that never started has nothing to wait for.
          if (c.pid === undefined || c.exitCode !== null || c.signalCode !== null) return;
          const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
          // Waited for: it must keep this process alive until then (unref'd while it worked).
          c.ref();
          c.kill('SIGKILL');
          await exited;
          if (c.pid !== undefined) removeUnfinishedAddons(deps.cacheDir, c.pid);
        }),
      );
    },
  };
}
