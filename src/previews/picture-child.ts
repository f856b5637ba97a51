// Thumbnails are drawn in a short-lived child process, not in the server. Decoding a camera
// JPEG and scaling it runs in the image add-on's threads, and glibc keeps what those threads
// allocated in per-thread arenas for the life of the process (issue 33: a photo folder's
// thumbnails left the server at ~153 MB resident 60 s after, against ~110 wanted). A child
// gives all of it back when it leaves: it is started on the first picture and leaves after
// IDLE_MS without one. The server reads the checked descriptor and hands the child bytes
// (never a path); the child answers the WebP bytes, and the server writes the cache file.
//
// The child is this program again: the executable with `--picture-child <CACHE_DIR>` (the
// add-on is extracted under CACHE_DIR), or from source `node src/main.ts --picture-child …`.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { GifReader } from 'omggif';
import { isExecutable } from '../assets.ts';
import type { Logger } from '../core/log.ts';
import { createNativeAddons } from '../native.ts';

/** What the child draws from: an SVG, a GIF (its first frame) or any picture the add-on decodes. */
export type PictureKind = 'svg' | 'gif' | 'picture';

export interface PictureJob {
  kind: PictureKind;
  input: Uint8Array;
  /** Longest side wanted (never enlarged). */
  size: number;
  quality: number;
}

/** Pictures bigger than this (decoded pixels) get no thumbnail. */
export const MAX_PIXELS = 80_000_000;
/** The child leaves after this long without a picture to draw. */
export const IDLE_MS = 10_000;
/** `ResizeFit.Inside`: as large as possible within both bounds, aspect kept. */
const FIT_INSIDE = 2;

interface ImageTransformer {
  metadata(withExif?: boolean): Promise<{ width: number; height: number }>;
  rotate(): ImageTransformer;
  resize(width: number, height?: number | null, filter?: number | null, fit?: number | null): ImageTransformer;
  webp(quality?: number): Promise<Buffer>;
  png(): Promise<Buffer>;
}
type ImageModule = {
  Transformer: (new (input: Uint8Array) => ImageTransformer) & {
    fromSvg(input: Uint8Array | string): ImageTransformer;
    fromRgbaPixels(input: Uint8Array, width: number, height: number): ImageTransformer;
  };
};

async function fromPicture(mod: ImageModule, input: Uint8Array): Promise<ImageTransformer> {
  const meta = await new mod.Transformer(input).metadata(false);
  if (meta.width * meta.height > MAX_PIXELS) throw new Error('picture too large for a thumbnail');
  return new mod.Transformer(input).rotate();
}

/** The WebP of `job` (what the child does for each message). */
export async function drawWebp(mod: ImageModule, job: PictureJob): Promise<Buffer> {
  const { input } = job;
  let source: ImageTransformer;
  // Rasterised at its own size first, so it is measured (and never enlarged) like any picture.
  if (job.kind === 'svg') source = await fromPicture(mod, await mod.Transformer.fromSvg(input).png());
  else if (job.kind === 'gif') {
    const gif = new GifReader(input);
    if (gif.width * gif.height > MAX_PIXELS) throw new Error('picture too large for a thumbnail');
    const pixels = new Uint8Array(gif.width * gif.height * 4);
    gif.decodeAndBlitFrameRGBA(0, pixels);
    source = mod.Transformer.fromRgbaPixels(pixels, gif.width, gif.height);
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
  const send = (answer: Answer) => process.send?.(answer);
  process.on('message', (message: { id: number; job: PictureJob }) => {
    const { id, job } = message;
    if (!image) return send({ id, error: 'the image add-on could not be loaded' });
    drawWebp(image, job).then(
      (webp) => send({ id, webp }),
      (err: unknown) => send({ id, error: String((err as Error)?.message ?? err) }),
    );
  });
  // The server closed the channel (idle, stopping, or gone): nothing is left to do.
  process.on('disconnect', () => process.exit(0));
}

export interface PictureChild {
  /** The WebP bytes of `job`, drawn in the child (started when none is running). */
  draw(job: PictureJob): Promise<Buffer>;
  /** Lets the child go now (the server stops). */
  close(): void;
}

/** The server's side: one child at a time, started on demand, let go after `idleMs` without work. */
export function createPictureChild(deps: { cacheDir: string; log: Logger; idleMs?: number }): PictureChild {
  const idleMs = deps.idleMs ?? IDLE_MS;
  let child: ChildProcess | null = null;
  let nextId = 1;
  const pending = new Map<number, { owner: ChildProcess; resolve: (b: Buffer) => void; reject: (e: Error) => void }>();
  let idle: NodeJS.Timeout | undefined;

  function letGo() {
    if (child?.connected) child.disconnect();
    child = null;
  }

  function start(): ChildProcess {
    const self = isExecutable() ? [] : [...process.execArgv, fileURLToPath(new URL('../main.ts', import.meta.url))];
    const c = spawn(process.execPath, [...self, '--picture-child', deps.cacheDir], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
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
    c.on('exit', (code, signal) => {
      if (child === c) child = null;
      // Jobs sent to it and not answered fail (the pictures are remembered as without a thumbnail).
      for (const [id, waiter] of pending)
        if (waiter.owner === c) {
          pending.delete(id);
          waiter.reject(new Error(`the picture process ended (${signal ?? `exit ${code}`})`));
        }
    });
    // It must not keep the server's process alive when that stops.
    c.unref();
    (c.channel as { unref?: () => void } | undefined)?.unref?.();
    return c;
  }

  return {
    draw(job) {
      clearTimeout(idle);
      child ??= start();
      const c = child;
      const id = nextId++;
      return new Promise<Buffer>((resolve, reject) => {
        pending.set(id, { owner: c, resolve, reject });
        c.send({ id, job }, (err) => {
          if (!err || !pending.has(id)) return;
          pending.delete(id);
          reject(err);
        });
      });
    },
    close() {
      clearTimeout(idle);
      letGo();
    },
  };
}
