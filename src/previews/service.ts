// Previews: which file a viewer may open and how it is to be shown. Each answer is an opened,
// checked descriptor (the bytes sent are the ones checked), the name it is shown under, and
// whether it must be sandboxed; the routes only send it.
import fs from 'node:fs';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import { openFileIn, withFileIn, type OpenedFile } from '../files/confined.ts';
import { kindOf } from '../files/items.ts';
import { PREVIEW_KINDS } from '../files/kinds.ts';
import type { InsidePath, PathResolver, ResolvedPath } from '../files/paths.ts';
import { looksBinary } from '../files/text.ts';
import type { Thumbnails } from './thumbnails.ts';

export interface Preview {
  opened: OpenedFile;
  name: string;
  /**
   * Served with `Content-Security-Policy: sandbox`: every kind but PDF (browsers refuse to draw
   * a PDF in a sandboxed document, and their PDF viewers run no script with the page's origin).
   */
  sandbox: boolean;
}

/** How much of a file is read to tell text from binary. */
const SNIFF_BYTES = 8192;

export function createPreviews(deps: { resolver: PathResolver; thumbnails: Thumbnails }) {
  const { resolver, thumbnails } = deps;

  async function readableFile(caller: Caller, virtual: string): Promise<InsidePath> {
    const file = await resolver.resolveInside(caller, virtual, { mustExist: true, atTop: 'Name a file, not the top.' });
    if (file.isDirectory) throw new AppError('IS_A_FOLDER');
    if (!file.access.canRead) throw new AppError('FORBIDDEN', 'You may not read this file.');
    return file;
  }
  const nameOf = (file: ResolvedPath) => file.virtualPath.slice(file.virtualPath.lastIndexOf('/') + 1);

  return {
    /** GET /api/preview: a kind a viewer shows, inline with its real type. */
    async preview(caller: Caller, virtual: string): Promise<Preview> {
      const file = await readableFile(caller, virtual);
      const name = nameOf(file);
      const kind = kindOf(name, false);
      if (!PREVIEW_KINDS.has(kind))
        throw new AppError('NOT_PREVIEWABLE', `Files of kind "${kind}" cannot be previewed; download it instead.`);
      return { opened: await openFileIn(file.space.root, file.realPath), name, sandbox: kind !== 'pdf' };
    },

    /** GET /api/raw: any file that is text, as plain text (a binary file is refused). */
    async text(caller: Caller, virtual: string): Promise<Preview> {
      const file = await readableFile(caller, virtual);
      // The sniffed head and the bytes sent come from one descriptor.
      const opened = await openFileIn(file.space.root, file.realPath);
      try {
        const head = Buffer.alloc(SNIFF_BYTES);
        const bytesRead = await new Promise<number>((resolve, reject) =>
          fs.read(opened.fd, head, 0, head.length, 0, (err, n) => (err ? reject(err) : resolve(n))),
        );
        if (looksBinary(head.subarray(0, bytesRead))) throw new AppError('BINARY');
      } catch (err) {
        await opened.close();
        throw err;
      }
      return { opened, name: nameOf(file), sandbox: true };
    },

    /**
     * GET /api/thumbnails/*: where the thumbnail (or a screen-sized rendition) is, or "". The URL
     * carries the file's path (and the size asked for), so any instance of a cluster can answer
     * it: the one asked checks the caller's access again and makes the picture when it has none.
     */
    async thumbnailUrl(caller: Caller, virtual: string, size: number | undefined): Promise<{ thumbnail: string }> {
      const file = await readableFile(caller, virtual);
      const kind = kindOf(nameOf(file), false);
      const made = await withFileIn(file.space.root, file.realPath, (opened) =>
        thumbnails.thumbnailFor(file.realPath, opened, { kind, size }),
      );
      if (!made) return { thumbnail: '' };
      // The path as wire-shapes rule 4 spells it: each character percent-encoded but `/`; the size
      // made (a wanted size rounded up to its rendition), so one picture has one URL.
      const query = `path=${encodeURIComponent(file.virtualPath).replaceAll('%2F', '/')}${size === undefined ? '' : `&size=${made.size}`}`;
      return { thumbnail: `/api/thumbnails-cache/${made.name}?${query}` };
    },

    /**
     * The thumbnail (or, with `size`, a screen-sized rendition) of a file resolved and checked by
     * its caller — a link holder's row (shares) — opened with its cache name, or null when there is none.
     */
    async thumbnailOf(file: ResolvedPath, size?: number): Promise<{ opened: OpenedFile; name: string } | null> {
      if (!file.space || file.isDirectory) return null;
      // A link to one file is rooted at that file, which its space is named after.
      const kind = kindOf(file.relative === '' ? file.space.name : nameOf(file), false);
      const made = await withFileIn(file.space.root, file.realPath, (opened) =>
        thumbnails.thumbnailFor(file.realPath, opened, { kind, size }),
      );
      return made ? { opened: await this.cachedThumbnail(made.name), name: made.name } : null;
    },

    /**
     * GET /api/thumbnails-cache/:file?path=&size=: the picture GET /api/thumbnails handed out,
     * for whoever may read `path` now (checked as GET /api/thumbnails checks it), when `name` is
     * the name that file has now; made here when this instance has not made it yet. Anything
     * else — a file the caller may not read, a name of another file or of an older version — is
     * 404 and makes nothing.
     */
    async cachedThumbnailOf(
      caller: Caller,
      name: string,
      virtual: string,
      size: number | undefined,
    ): Promise<OpenedFile> {
      const missing = () => new AppError('NOT_FOUND', 'No such thumbnail.');
      if (!thumbnails.cachedFile(name)) throw missing();
      const file = await readableFile(caller, virtual).catch((err: unknown) => {
        if (err instanceof AppError && ['FORBIDDEN', 'NOT_FOUND', 'IS_A_FOLDER'].includes(err.code)) throw missing();
        throw err;
      });
      const kind = kindOf(nameOf(file), false);
      const made = await withFileIn(file.space.root, file.realPath, async (opened) => {
        if (thumbnails.nameFor(file.realPath, opened, { kind, size })?.name !== name) return null;
        return thumbnails.thumbnailFor(file.realPath, opened, { kind, size });
      });
      if (made?.name !== name) throw missing();
      return this.cachedThumbnail(name);
    },

    /** A cached picture by its name (the caller has checked who asks for it). */
    async cachedThumbnail(name: string): Promise<OpenedFile> {
      const file = thumbnails.cachedFile(name);
      // The cache folder judged by its real path (CACHE_DIR may be reached through a link).
      const cacheRoot = await fs.promises.realpath(thumbnails.dir).catch(() => thumbnails.dir);
      const opened = file ? await openFileIn(cacheRoot, file).catch(() => null) : null;
      if (!opened) throw new AppError('NOT_FOUND', 'No such thumbnail.');
      return opened;
    },
  };
}

export type Previews = ReturnType<typeof createPreviews>;
