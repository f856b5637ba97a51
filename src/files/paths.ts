// Virtual paths (`<volume>/…`, `personal/…`, `<assigned label>/…`, `share/<token>/…`) and what
// resolving one answers: the spaces, a resolved path (the top or a path inside a space), the
// resolver's contract, and the spelling rules every path passes. The resolver itself is
// resolver.ts; which spaces an account sees and the folders no path may reach, spaces.ts.
import path from 'node:path';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import type { Access, AccessLevel, ReadOnlyReason } from './access.ts';

export type { Access, AccessLevel, ReadOnlyReason } from './access.ts';

export interface Space {
  kind: 'volume' | 'personal' | 'assigned' | 'share';
  name: string;
  /** virtual prefix, e.g. 'Media', 'personal', a label, 'share/<token>' */
  path: string;
  /** real absolute root */
  root: string;
  readOnly: ReadOnlyReason;
  accessMode?: 'readonly' | 'readwrite';
  /** A link's space: whose item it is, where it is on the owner's side, what the link allows. */
  share?: ShareBinding;
}

/** What a share space stands on (set by the shares capability's provider). */
export interface ShareBinding {
  ownerId: string;
  /** The owner's space holding the shared item, and the item's virtual path and relative path in it. */
  ownerSpace: Space;
  sourcePath: string;
  sourceRelative: string;
  /** What the link allows; every flag narrows the access the resolver computes (AND). */
  allow: Partial<
    Pick<
      Access,
      | 'canRead'
      | 'canWrite'
      | 'canUpload'
      | 'canDelete'
      | 'canDownload'
      | 'canCreateFolder'
      | 'canCreateFile'
      | 'canRename'
    >
  >;
}

/**
 * A path inside a link as the owner sees it (bindings, trash, versions live on the owner's side);
 * any other path unchanged. The real path is the one resolved and confined to the link.
 */
export function ownerView(r: InsidePath): InsidePath;
export function ownerView(r: ResolvedPath): ResolvedPath;
export function ownerView(r: ResolvedPath): ResolvedPath {
  const share = r.space?.share;
  if (!share) return r;
  const relative = [share.sourceRelative, r.relative].filter(Boolean).join('/');
  return {
    ...r,
    space: share.ownerSpace,
    relative,
    virtualPath: r.relative ? `${share.sourcePath}/${r.relative}` : share.sourcePath,
  };
}

/** What every resolved path carries, at the top or inside a space. */
interface ResolvedCommon {
  /** normalised, '' = top */
  virtualPath: string;
  /** absolute, confined, realpath-checked ('' at the top). The entry itself: a symlink is not replaced by its target. */
  realPath: string;
  /** inside space.root with '/' separators, '' = the root */
  relative: string;
  /**
   * Where the entry really is, every symlink on the way to it followed (not its own: a link is
   * an entry of its own): the same place whatever name reaches it, so a lock taken there is
   * found through an alias (files/locks.ts).
   */
  canonicalPath?: string;
  access: Access;
  exists: boolean;
  isDirectory: boolean;
}

/** The top: every space side by side, no real folder; it always exists, as a folder. */
export interface TopPath extends ResolvedCommon {
  virtualPath: '';
  space: null;
  realPath: '';
  relative: '';
  exists: true;
  isDirectory: true;
}

/** A path inside a space (its root included): what every read and write works on. */
export interface InsidePath extends ResolvedCommon {
  space: Space;
}

/** `if (!r.space)` tells the two apart: past it, `r` is an InsidePath. */
export type ResolvedPath = TopPath | InsidePath;

export interface PathResolver {
  /** Resolves a virtual path for a caller. Throws AppError 400 (bad path), 404 (unknown space / missing when mustExist), 403 (not allowed). */
  resolve(caller: Caller, virtualPath: string, options?: { mustExist?: boolean }): Promise<ResolvedPath>;
  /**
   * resolve for what works inside a space: the top throws 400 TOP_LEVEL (`atTop` its message),
   * so the answer always has its space.
   */
  resolveInside(
    caller: Caller,
    virtualPath: string,
    options?: { mustExist?: boolean; atTop?: string },
  ): Promise<InsidePath>;
  /** The spaces the caller sees (GET /api/volumes). */
  spaces(caller: Caller): Promise<Space[]>;
  /** Host path → the caller's virtual path, or null when the caller cannot see it (search results, folder sizes). */
  toVirtual(caller: Caller, realPath: string): Promise<string | null>;
  /** toVirtual for many paths in one request (a page of search results): the caller's spaces are read once. */
  virtualizer(caller: Caller): Promise<(realPath: string) => Promise<string | null>>;
  /** Is this virtual path hidden from the caller by the access model? */
  isHiddenByRule(caller: Caller, virtualPath: string): boolean;
  /**
   * The access model's level (from the rules alone, no I/O) at a path below a resolved folder
   * (relative, '/'-separated) for the caller — a link: its creator. What a placement below a
   * checked folder asks of each folder it makes or enters.
   */
  levelBelow(caller: Caller, folder: InsidePath, relative: string): AccessLevel;
  /**
   * May the caller delete at `relative` in `space` now, from the rules, the space's storage and
   * the caller's token alone (no I/O): what removing a trashed item for good asks of its original
   * place, which is gone.
   */
  mayDeleteByRule(caller: Caller, space: Space, relative: string): boolean;
  /** A predicate over the children of one resolved folder: which names the caller (a link: its creator) may not see. */
  hiddenChildren(caller: Caller, parent: ResolvedPath): (name: string) => boolean;
  /**
   * What a walk below a folder (a zip, an archive made of it) leaves out: the paths under it
   * (relative, '/'-separated) the caller — a link: its creator — may not take away (hidden or
   * view only).
   */
  withheldBelow(caller: Caller, folder: InsidePath): (relative: string) => boolean;
  /**
   * The topmost folders (relative, '/'-separated) below a folder that an access rule hides from
   * the caller — a link: its creator — found from the rules alone (folder sizes leave them out).
   */
  hiddenBelow(caller: Caller, folder: InsidePath): string[];
}

export interface AssignedVolume {
  id: string;
  label: string;
  path: string;
  accessMode: 'readonly' | 'readwrite';
}

/** Prefixes that never name a volume. */
export const RESERVED_PREFIXES = new Set(['personal', 'share']);

const bad = (message: string) => new AppError('BAD_PATH', message);

/** Splits and checks a virtual path; throws 400 for every spelling that could escape. */
export function parseVirtualPath(input: unknown): string[] {
  if (typeof input !== 'string') throw bad('The path must be a string.');
  if (input.includes('\0')) throw bad('The path contains a NUL byte.');
  if (input.includes('\\')) throw bad('The path may not contain a backslash.');
  if (input.startsWith('/') || input.startsWith('~'))
    throw bad('The path must be relative to the top (no leading "/" or "~").');
  if (/^[a-zA-Z]:/.test(input)) throw bad('The path may not name a drive.');
  // Trailing slashes are harmless; doubled slashes inside are not a spelling we accept.
  const trimmed = input.replace(/\/+$/, '');
  if (trimmed === '') return [];
  const segments = trimmed.split('/');
  for (const s of segments) {
    if (s === '') throw bad('The path contains an empty segment.');
    if (s === '.' || s === '..') throw bad('The path may not contain "." or ".." segments.');
    if (/%(2e|2f|5c|00)/i.test(s)) throw bad('The path may not contain encoded dots, slashes or NUL.');
    // Other control characters (CR, LF, tab…) are legal in names on disk, and files made on the
    // host carry them: they must stay reachable. Headers never carry a name raw (RFC 5987).
    if (Buffer.byteLength(s) > 255) throw bad('A name in the path is longer than 255 bytes.');
  }
  return segments;
}

export function joinVirtual(parent: string, name: string): string {
  return parent ? `${parent}/${name}` : name;
}

/** Is `child` the folder `parent` or inside it (both absolute, normalised)? */
export function isInside(parent: string, child: string): boolean {
  if (child === parent) return true;
  const rel = path.relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}
