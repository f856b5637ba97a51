// Thumbnails: small WebP pictures of images, made by @napi-rs/image in a short-lived child
// process (picture-child.ts says why; a broken add-on fails thumbnails and nothing else) and
// cached in CACHE_DIR/thumbnails.
// A cache name is a SHA-256 of the real path, size, modification time and the thumbnail
// settings: a changed file or setting gets a new name, and every instance reading one shared
// folder (mounted at the same path) computes the same name, so any of them can answer a
// thumbnail URL (issue 31). The name is no secret: a cached picture is served only to who may
// read the file its URL names (service.ts cachedThumbnail). Generation is bounded by the
// `thumbnails.concurrency` setting and shared by concurrent requests for the same picture.
// Besides the thumbnail size there are a few screen-sized renditions (RENDITIONS) for the
// viewer, so a phone is not sent 12 MP. Sources: what the add-on decodes, SVG rasterised by
// the add-on (resvg: no script, no external fetches), GIF's first frame through omggif, and a
// song's cover picture (music-metadata), a
// video's poster frame from ffmpeg when it is on the PATH (execFile, the checked descriptor
// handed over as fd 3, never a path or a shell string).
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { OpenedFile } from '../files/confined.ts';
import { AppError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { AUDIO_KINDS, THUMBNAIL_KINDS, VIDEO_KINDS } from '../files/kinds.ts';
import { coverPicture } from '../metadata/read.ts';
import { createPictureChild, type PictureJob } from './picture-child.ts';

export interface ThumbnailSettings {
  enabled: boolean;
  size: number;
  quality: number;
  concurrency: number;
}

/** Pictures bigger than this (file bytes or decoded pixels) get no thumbnail. */
const MAX_SOURCE_BYTES = 64 * 1024 * 1024;
/** Remembered failures (by cache name), so a damaged picture is not decoded on every listing. */
const MAX_FAILURES = 10_000;
export const CACHE_NAME = /^[0-9a-f]{64}\.webp$/;
/** Longest sides of the viewer's renditions; a wanted size is rounded up to one of these. */
export const RENDITIONS = [640, 1280, 1920, 2560] as const;
const FFMPEG_TIMEOUT_MS = 20_000;
const FFMPEG_MAX_OUTPUT = 64 * 1024 * 1024;

export interface Thumbnails {
  /**
   * The cache name for this picture now (made when missing) and the size of the rendition made
   * (a wanted size rounded up to one of RENDITIONS, or the thumbnail size), or null when there
   * is none (a kind without thumbnails, nothing to draw from, thumbnails off). A picture that does not decode
   * throws PICTURE_UNREADABLE (remembered: it is not decoded again until it changes).
   * `opened` is the checked descriptor of the picture (confined.ts): its size, time and bytes
   * are the ones used; `realPath` only keys the cache.
   */
  thumbnailFor(
    realPath: string,
    opened: Pick<OpenedFile, 'stat' | 'path' | 'fd'>,
    options?: { kind?: string; size?: number },
  ): Promise<{ name: string; size: number } | null>;
  /**
   * The cache name thumbnailFor would give this picture now, or null when it would give none;
   * nothing is made or read but the settings.
   */
  nameFor(
    realPath: string,
    opened: Pick<OpenedFile, 'stat'>,
    options?: { kind?: string; size?: number },
  ): { name: string; size: number; quality: number; kind: string } | null;
  /** The cache folder (thumbnail pictures are read only from inside it). */
  readonly dir: string;
  /** Absolute path of a cached thumbnail by name, or null when the name is not one of ours. */
  cachedFile(name: string): string | null;
}

/** The longest side to make for a wanted `size`: the thumbnail size, or the next rendition up (the largest at most). */
export function renditionSize(wanted: number | undefined, thumbnailSize: number): number {
  if (!wanted || !Number.isFinite(wanted) || wanted <= thumbnailSize) return thumbnailSize;
  return RENDITIONS.find((r) => r >= wanted) ?? RENDITIONS[RENDITIONS.length - 1]!;
}

/** A poster frame as PNG from ffmpeg reading the open descriptor (its fd 3); null without ffmpeg. */
function videoFrame(fd: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    // /dev/fd/3 reopens the very file we checked (seekable, unlike pipe:3, so an MP4 with its
    // index at the end works); no path of ours is named and no shell is involved.
    const child = spawn(
      'ffmpeg',
      ['-v', 'error', '-nostdin', '-i', '/dev/fd/3', '-frames:v', '1', '-f', 'image2pipe', '-vcodec', 'png', 'pipe:1'],
      { stdio: ['ignore', 'pipe', 'pipe', fd], windowsHide: true },
    );
    const out: Buffer[] = [];
    let size = 0;
    let errText = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), FFMPEG_TIMEOUT_MS);
    child.stdout!.on('data', (b: Buffer) => {
      size += b.length;
      if (size > FFMPEG_MAX_OUTPUT) child.kill('SIGKILL');
      else out.push(b);
    });
    child.stderr!.on('data', (b: Buffer) => {
      if (errText.length < 2000) errText += b.toString();
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'ENOENT') resolve(null);
      else reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0 && size > 0 && size <= FFMPEG_MAX_OUTPUT) resolve(Buffer.concat(out));
      else reject(new Error(`ffmpeg gave no frame (exit ${code}): ${errText.trim().slice(0, 300)}`));
    });
  });
}

export function createThumbnails(deps: {
  cacheDir: string;
  settings: () => ThumbnailSettings;
  log: Logger;
}): Thumbnails & { close(): Promise<void> } {
  const dir = path.join(deps.cacheDir, 'thumbnails');
  const pictures = createPictureChild({ cacheDir: deps.cacheDir, log: deps.log });
  const inFlight = new Map<string, Promise<{ name: string; size: number } | null>>();
  /** Cache names that have no thumbnail: nothing to draw from (`none`), or a picture that does not decode. */
  const failed = new Map<string, 'none' | 'unreadable'>();
  let running = 0;
  const waiting: (() => void)[] = [];

  async function slot<T>(work: () => Promise<T>): Promise<T> {
    const limit = Math.max(1, deps.settings().concurrency);
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await work();
    } finally {
      running--;
      waiting.shift()?.();
    }
  }

  /** What the child draws from, by kind (null when there is nothing to show, e.g. no ffmpeg). */
  async function source(
    opened: Pick<OpenedFile, 'stat' | 'path' | 'fd'>,
    kind: string,
  ): Promise<Omit<PictureJob, 'size' | 'quality'> | null> {
    if (VIDEO_KINDS.has(kind)) {
      const frame = await videoFrame(opened.fd);
      return frame ? { kind: 'picture', input: frame } : null;
    }
    // A song's thumbnail is its cover; a song without one has none.
    if (AUDIO_KINDS.has(kind)) {
      const cover = await coverPicture(opened.fd, opened.stat.size);
      return cover ? { kind: 'picture', input: cover } : null;
    }
    // The checked descriptor itself, read from its start as its bytes go to the child.
    return {
      kind: kind === 'svg' || kind === 'gif' ? kind : kind === 'heic' || kind === 'heif' ? 'heif' : 'picture',
      input: { fd: opened.fd, size: opened.stat.size },
    };
  }

  async function make(
    opened: Pick<OpenedFile, 'stat' | 'path' | 'fd'>,
    kind: string,
    target: string,
    size: number,
    quality: number,
  ): Promise<boolean> {
    const from = await source(opened, kind);
    if (!from) return false;
    const webp = await pictures.draw({ ...from, size, quality });
    // Written whole under a temporary name, then renamed: a reader never sees half a picture.
    await fsp.mkdir(dir, { recursive: true });
    const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await fsp.writeFile(temp, webp, { flag: 'wx' });
    await fsp.rename(temp, target).catch(async (err) => {
      await fsp.rm(temp, { force: true });
      throw err;
    });
    return true;
  }

  function nameFor(
    realPath: string,
    opened: Pick<OpenedFile, 'stat'>,
    options: { kind?: string; size?: number } = {},
  ): { name: string; size: number; quality: number; kind: string } | null {
    const settings = deps.settings();
    if (!settings.enabled) return null;
    const st = opened.stat;
    const kind = options.kind ?? '';
    // Only kinds drawn from (a PDF or a text is never decoded as a picture: no thumbnail, no error).
    if (!THUMBNAIL_KINDS.has(kind)) return null;
    // A video is read by ffmpeg a frame's worth at a time and a song's cover is in its head, so
    // their size is no bound on the work.
    if (
      !st.isFile() ||
      st.size === 0 ||
      (st.size > MAX_SOURCE_BYTES && !VIDEO_KINDS.has(kind) && !AUDIO_KINDS.has(kind))
    )
      return null;
    const size = renditionSize(options.size, settings.size);
    // Renditions are looked at full-screen: a better quality than the thumbnail's.
    const quality = size === settings.size ? settings.quality : Math.max(settings.quality, 82);
    const name =
      createHash('sha256')
        .update(JSON.stringify(['thumbnail-v2', realPath, st.size, st.mtimeMs, size, quality, kind]))
        .digest('hex') + '.webp';
    return { name, size, quality, kind };
  }

  return {
    dir,
    nameFor,
    async thumbnailFor(realPath, opened, options = {}) {
      const named = nameFor(realPath, opened, options);
      if (!named) return null;
      const { name, size, quality, kind } = named;
      const made = { name, size };
      const known = failed.get(name);
      if (known === 'unreadable') throw new AppError('PICTURE_UNREADABLE');
      if (known) return null;
      const target = path.join(dir, name);
      if (
        await fsp.access(target).then(
          () => true,
          () => false,
        )
      )
        return made;
      let pending = inFlight.get(name);
      if (!pending) {
        pending = slot(() => make(opened, kind, target, size, quality))
          .then(
            (drawn) => {
              if (drawn) return made;
              failed.set(name, 'none');
              return null;
            },
            (err) => {
              if (failed.size >= MAX_FAILURES) failed.clear();
              failed.set(name, 'unreadable');
              deps.log.debug('no thumbnail for a picture', { err: String(err) });
              throw new AppError('PICTURE_UNREADABLE');
            },
          )
          .finally(() => inFlight.delete(name));
        inFlight.set(name, pending);
      }
      return pending;
    },
    cachedFile(name) {
      return CACHE_NAME.test(name) ? path.join(dir, name) : null;
    },
    close: () => pictures.close(),
  };
}
