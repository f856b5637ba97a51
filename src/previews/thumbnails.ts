// Thumbnails: small WebP pictures of images, made by @napi-rs/image (loaded on first use, so
// a broken add-on disables thumbnails and nothing else) and cached in CACHE_DIR/thumbnails.
// A cache name is an HMAC (key kept beside the cache) of the real path, size, modification
// time and the thumbnail settings: a changed file or setting gets a new name, and a name
// cannot be guessed by an account that may not see the file. Generation is bounded by the
// `thumbnails.concurrency` setting and shared by concurrent requests for the same picture.
import { createHmac, randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { OpenedFile } from '../files/confined.ts';
import type { Logger } from '../core/log.ts';

export interface ThumbnailSettings { enabled: boolean; size: number; quality: number; concurrency: number }

/** Pictures bigger than this (file bytes or decoded pixels) get no thumbnail. */
const MAX_SOURCE_BYTES = 64 * 1024 * 1024;
const MAX_PIXELS = 80_000_000;
/** Remembered failures (by cache name), so a damaged picture is not decoded on every listing. */
const MAX_FAILURES = 10_000;
export const CACHE_NAME = /^[0-9a-f]{64}\.webp$/;

interface ImageTransformer {
  metadata(withExif?: boolean): Promise<{ width: number; height: number }>;
  rotate(): ImageTransformer;
  resize(width: number, height?: number | null, filter?: number | null, fit?: number | null): ImageTransformer;
  webp(quality?: number): Promise<Buffer>;
}
type ImageModule = { Transformer: new (input: Uint8Array) => ImageTransformer };
/** `ResizeFit.Inside`: as large as possible within both bounds, aspect kept. */
const FIT_INSIDE = 2;

export interface Thumbnails {
  /**
   * The cache name for this picture now (made when missing), or null when there is none.
   * `opened` is the checked descriptor of the picture (confined.ts): its size, time and bytes
   * are the ones used; `realPath` only keys the cache.
   */
  thumbnailFor(realPath: string, opened: Pick<OpenedFile, 'stat' | 'path'>): Promise<string | null>;
  /** The cache folder (thumbnail pictures are read only from inside it). */
  readonly dir: string;
  /** Absolute path of a cached thumbnail by name, or null when the name is not one of ours. */
  cachedFile(name: string): string | null;
}

export function createThumbnails(deps: { cacheDir: string; settings: () => ThumbnailSettings; log: Logger; loadModule?: () => ImageModule }): Thumbnails {
  const dir = path.join(deps.cacheDir, 'thumbnails');
  let module: ImageModule | null | undefined;
  let key: Promise<Buffer> | undefined;
  const inFlight = new Map<string, Promise<string | null>>();
  const failed = new Set<string>();
  let running = 0;
  const waiting: (() => void)[] = [];

  function images(): ImageModule | null {
    if (module === undefined) {
      try {
        module = deps.loadModule ? deps.loadModule() : (createRequire(import.meta.url)('@napi-rs/image') as ImageModule);
      } catch (err) {
        deps.log.warn('the image add-on could not be loaded; thumbnails are off', { err });
        module = null;
      }
    }
    return module;
  }

  function secret(): Promise<Buffer> {
    key ??= (async () => {
      await fsp.mkdir(dir, { recursive: true });
      const file = path.join(dir, '.key');
      try {
        await fsp.writeFile(file, randomBytes(32), { flag: 'wx', mode: 0o600 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const value = await fsp.readFile(file);
      if (value.length < 32) throw new Error('thumbnail key is damaged');
      return value;
    })().catch((err) => { key = undefined; throw err; });
    return key;
  }

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

  async function make(mod: ImageModule, source: string, target: string, settings: ThumbnailSettings): Promise<void> {
    const input = await fsp.readFile(source);
    const meta = await new mod.Transformer(input).metadata(false);
    if (meta.width * meta.height > MAX_PIXELS) throw new Error('picture too large for a thumbnail');
    let picture = new mod.Transformer(input).rotate();
    if (meta.width > settings.size || meta.height > settings.size) picture = picture.resize(settings.size, settings.size, null, FIT_INSIDE);
    const webp = await picture.webp(settings.quality);
    // Written whole under a temporary name, then renamed: a reader never sees half a picture.
    const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await fsp.writeFile(temp, webp, { flag: 'wx' });
    await fsp.rename(temp, target).catch(async (err) => {
      await fsp.rm(temp, { force: true });
      throw err;
    });
  }

  return {
    dir,
    async thumbnailFor(realPath, opened) {
      const settings = deps.settings();
      if (!settings.enabled) return null;
      const st = opened.stat;
      if (!st.isFile() || st.size === 0 || st.size > MAX_SOURCE_BYTES) return null;
      const mod = images();
      if (!mod) return null;
      const name = createHmac('sha256', await secret())
        .update(JSON.stringify([realPath, st.size, st.mtimeMs, settings.size, settings.quality]))
        .digest('hex') + '.webp';
      if (failed.has(name)) return null;
      const target = path.join(dir, name);
      if (await fsp.access(target).then(() => true, () => false)) return name;
      let pending = inFlight.get(name);
      if (!pending) {
        pending = slot(() => make(mod, opened.path, target, settings))
          .then(() => name, (err) => {
            if (failed.size >= MAX_FAILURES) failed.clear();
            failed.add(name);
            deps.log.debug('no thumbnail for a picture', { err: String(err) });
            return null;
          })
          .finally(() => inFlight.delete(name));
        inFlight.set(name, pending);
      }
      return pending;
    },
    cachedFile(name) {
      return CACHE_NAME.test(name) ? path.join(dir, name) : null;
    },
  };
}
