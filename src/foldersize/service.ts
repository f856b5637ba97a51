// Folder-size records, from the index alone: a lookup, never a walk. An un-indexed folder
// answers `indexed: false, sizeBytes: null`. Asking about a folder also notes it as on screen,
// so the indexer re-checks it in the background.
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import { isReservedName } from '../files/names.ts';
import { isInside, parseVirtualPath, type InsidePath, type PathResolver, type ResolvedPath } from '../files/paths.ts';
import type { FolderFigures, Indexes } from '../indexer/indexes.ts';

export interface FolderSizeRecord {
  path: string;
  canEnter: boolean;
  sizeBytes: number | null;
  entryCount: number;
  lastUpdated: string | null;
  indexed: boolean;
  complete: boolean;
}

/** A folder's recursive size as the index has it (`complete` false while its first walk counts). */
export interface Held {
  bytes: number;
  complete: boolean;
  lastUpdated: string | null;
}

export interface FolderSizeDeps {
  indexes: Indexes;
  resolver: PathResolver;
}

/** No figure: `counting` when the index's first walk of the folder is due or under way. */
function unindexed(path: string, canEnter = false, counting = false): FolderSizeRecord {
  return { path, canEnter, sizeBytes: null, entryCount: 0, lastUpdated: null, indexed: false, complete: !counting };
}

/** Whether this process may list the folder (a host permission, not a rule). */
async function mayList(real: string): Promise<boolean> {
  try {
    await fs.promises.access(real, fs.constants.R_OK | fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function createFolderSizes(deps: FolderSizeDeps) {
  const { indexes, resolver } = deps;

  /**
   * A folder an access rule hides: resolved through the nearest ancestor the caller may see,
   * then confined to that ancestor's space like any path (spec §8: the size is reported, with
   * canEnter false). Null when it is not a folder of the space (missing, a file, a link out).
   */
  async function hiddenFolder(
    caller: Caller,
    virtualPath: string,
  ): Promise<{ virtualPath: string; spaceRoot: string; realPath: string } | null> {
    const segments = parseVirtualPath(virtualPath);
    if (segments.some(isReservedName)) return null;
    let visible = segments.length - 1;
    while (visible > 0 && resolver.isHiddenByRule(caller, segments.slice(0, visible).join('/'))) visible--;
    if (visible === 0) return null; // a space itself is never hidden by a rule
    const ancestor = await resolver.resolve(caller, segments.slice(0, visible).join('/'));
    if (!ancestor.space || !ancestor.exists || !ancestor.isDirectory) return null;
    const realPath = path.join(ancestor.realPath, ...segments.slice(visible));
    const [real, root] = await Promise.all([
      fs.promises.realpath(realPath).catch(() => null),
      fs.promises.realpath(ancestor.space.root).catch(() => null),
    ]);
    if (!real || !root || !isInside(root, real)) return null;
    const st = await fs.promises.lstat(realPath).catch(() => null); // the folder itself, not a link to one
    if (!st?.isDirectory()) return null;
    return { virtualPath: segments.join('/'), spaceRoot: ancestor.space.root, realPath };
  }

  async function record(caller: Caller, virtualPath: string): Promise<FolderSizeRecord> {
    let r: ResolvedPath;
    try {
      r = await resolver.resolve(caller, virtualPath);
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 404) throw err;
      const hidden = resolver.isHiddenByRule(caller, parseVirtualPath(virtualPath).join('/'))
        ? await hiddenFolder(caller, virtualPath)
        : null;
      if (!hidden) throw err;
      return figuresFor(hidden.virtualPath, hidden.spaceRoot, hidden.realPath, false);
    }
    if (!r.space || !r.exists || !r.isDirectory) return unindexed(r.virtualPath);
    const canEnter = r.access.canRead && (await mayList(r.realPath));
    const whole = await figuresFor(r.virtualPath, r.space.root, r.realPath, canEnter);
    return withoutHidden(caller, whole, r as InsidePath);
  }

  /**
   * A folder's figures as the person may see them: what an access rule hides from them below it
   * is not counted — a hidden folder's bytes, its entries and the folder itself, a hidden file's
   * bytes and the file — so a total tells nothing of it. One index lookup per hidden place, no walk.
   */
  function withoutHidden(caller: Caller, record: FolderSizeRecord, folder: InsidePath): FolderSizeRecord {
    if (!record.indexed || record.sizeBytes === null) return record;
    const hidden = resolver.hiddenBelow(caller, folder);
    if (hidden.length === 0) return record;
    const recursive = indexes.figures(folder.realPath).recursive;
    let { sizeBytes, entryCount } = record;
    for (const relative of hidden) {
      const segments = relative.split('/');
      // Shallow figures count only a folder's own entries: a hidden one deeper is not in them.
      if (!recursive && segments.length > 1) continue;
      const found = indexed(folder.realPath, relative);
      if (!found) continue;
      entryCount -= 1;
      // A rule on a single file: shallow figures count a folder's own files' bytes too.
      if ('file' in found) sizeBytes -= found.file;
      else if (recursive) {
        sizeBytes -= found.folder.sizeBytes ?? 0;
        entryCount -= found.folder.entryCount;
      }
    }
    return { ...record, sizeBytes: Math.max(0, sizeBytes), entryCount: Math.max(0, entryCount) };
  }

  /**
   * What the index has at a hidden place: a folder's figures or a file's size. Rules name it in
   * NFC; a name written on disk decomposed (NFD, as macOS clients write it) is its other spelling.
   */
  function indexed(base: string, relative: string): { folder: FolderFigures } | { file: number } | null {
    for (const spelling of new Set([relative, relative.normalize('NFD')])) {
      const real = path.join(base, ...spelling.split('/'));
      const folder = indexes.figures(real);
      if (folder.indexed) return { folder };
      const file = indexes.fileSize(real);
      if (file !== null) return { file };
    }
    return null;
  }

  async function figuresFor(
    virtualPath: string,
    spaceRoot: string,
    realPath: string,
    canEnter: boolean,
  ): Promise<FolderSizeRecord> {
    indexes.ensureRoot(await fs.promises.realpath(spaceRoot).catch(() => spaceRoot));
    const figures = indexes.figures(realPath);
    if (figures.indexed) indexes.noteViewed(realPath);
    if (!figures.indexed) return unindexed(virtualPath, canEnter, figures.counting);
    return {
      path: virtualPath,
      canEnter,
      sizeBytes: figures.sizeBytes,
      entryCount: figures.entryCount,
      lastUpdated: figures.lastUpdated,
      indexed: true,
      complete: figures.complete,
    };
  }

  return {
    record,
    /**
     * What a folder of a space holds in all (its whole subtree), from the index: null when the
     * index has no recursive figure for it (off, shallow, not walked yet). A space seen here for
     * the first time is queued for its walk.
     */
    async held(spaceRoot: string, realPath: string): Promise<Held | null> {
      indexes.ensureRoot(await fs.promises.realpath(spaceRoot).catch(() => spaceRoot));
      const f = indexes.figures(realPath);
      if (!f.indexed || !f.recursive || f.sizeBytes === null) return null;
      return { bytes: f.sizeBytes, complete: f.complete, lastUpdated: f.lastUpdated };
    },
    /** Records for many paths; a path that cannot be answered gets an un-indexed record, not an error. */
    async batch(caller: Caller, paths: string[]): Promise<FolderSizeRecord[]> {
      const out: FolderSizeRecord[] = [];
      for (const p of paths) {
        try {
          out.push(await record(caller, p));
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          out.push(unindexed(p));
        }
      }
      return out;
    },
  };
}
