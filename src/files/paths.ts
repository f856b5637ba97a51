// The one resolver of virtual paths (`<volume>/…`, `personal/…`, `<assigned label>/…`,
// `share/<token>/…`): it refuses every spelling that could leave a space, confirms with
// realpath at use that the target (symlinks included) stays inside its root, keeps every
// account out of the other accounts' personal folders and Burrow's own folders, and says what
// the caller may do there.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import {
  TOP_ACCESS,
  accessFor,
  callerMayWrite,
  createProbeCache,
  probeWritable,
  ruleAt,
  type Access,
  type AccessRule,
  type ReadOnlyReason,
} from './access.ts';
import { isReservedName } from './names.ts';
import type { PersonalFolders } from './personal.ts';

export type { Access, AccessRule, ReadOnlyReason } from './access.ts';

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
  /** Is this virtual path hidden by an access rule (listings leave such children out)? */
  isHiddenByRule(virtualPath: string): boolean;
  /** A predicate over the children of one folder (one snapshot of the rules for a whole listing). */
  hiddenChildren(parentVirtual: string): (name: string) => boolean;
}

export interface AssignedVolume {
  id: string;
  label: string;
  path: string;
  accessMode: 'readonly' | 'readwrite';
}

export interface ResolverOptions {
  volumeRoot: string;
  userDirEnabled: boolean;
  userVolumesEnabled: boolean;
  personal: PersonalFolders;
  /** Folders no route may reach inside any space (configuration, cache). */
  privateDirs: readonly string[];
  accessRules?: () => readonly AccessRule[];
  assignedVolumes?: (userId: string) => readonly AssignedVolume[];
  /** Host folders added as volumes (Administration → Volumes), served beside VOLUME_ROOT's folders. */
  hostVolumes?: () => readonly AssignedVolume[];
  /**
   * `share/<token>/…`: the link's space for this caller or null (shares/links.ts). It is built
   * before the resolver, so it is handed the resolver's own `resolve` to find the owner's item.
   */
  shareSpaces?: (caller: Caller | null, token: string, resolve: PathResolver['resolve']) => Promise<Space | null>;
}

/** Prefixes that never name a volume. */
export const RESERVED_PREFIXES = new Set(['personal', 'share']);

/** How long the volumes read from disk are trusted before they are read again. */
const VOLUMES_FRESH_MS = 1000;

const bad = (message: string) => new AppError('BAD_PATH', message);
const missing = () => new AppError('NOT_FOUND', 'No such file or folder.');

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

async function realpathOrNull(p: string): Promise<string | null> {
  try {
    return await fsp.realpath(p);
  } catch {
    return null;
  }
}

/** The real location of `p`: realpath of the deepest existing ancestor plus the missing tail. */
/** The entry in its folder's real place (the folders above resolved, the entry itself not followed). */
async function canonicalEntry(p: string): Promise<string> {
  const dir = await realpathOrNull(path.dirname(p));
  return dir ? path.join(dir, path.basename(p)) : p;
}

async function realLocation(p: string): Promise<{ real: string; exists: boolean; dangling: boolean }> {
  const full = await realpathOrNull(p);
  if (full) return { real: full, exists: true, dangling: false };
  const link = await fsp.lstat(p).catch(() => null);
  if (link) {
    // A dangling symlink: judge it by where it points, as a later create would follow it.
    const target = path.resolve(path.dirname(p), await fsp.readlink(p).catch(() => ''));
    const parent = await realLocation(path.dirname(target));
    return { real: path.join(parent.real, path.basename(target)), exists: false, dangling: true };
  }
  const parentPath = path.dirname(p);
  if (parentPath === p) return { real: p, exists: false, dangling: false };
  const parent = await realLocation(parentPath);
  return { real: path.join(parent.real, path.basename(p)), exists: false, dangling: false };
}

export function createPathResolver(options: ResolverOptions): PathResolver {
  const probe = createProbeCache();
  const rules = () => options.accessRules?.() ?? [];
  const shareSpaces = options.shareSpaces ?? null;
  let privateReal: string[] | null = null;

  async function privateZones(): Promise<string[]> {
    privateReal ??= await Promise.all(
      options.privateDirs.map(async (d) => (await realpathOrNull(d)) ?? path.resolve(d)),
    );
    return privateReal;
  }

  // Every request resolves through the volumes; reading them (a readdir of VOLUME_ROOT, a stat
  // and a realpath per volume, a realpath per host folder) cost ~15 % of a small request. They
  // change when VOLUME_ROOT's entries or the host-volume list change, which the key sees; a
  // symlink re-pointed further down (outside VOLUME_ROOT) is seen within a second. Confinement
  // does not rest on this: every descriptor is still checked against its root at use.
  let volumesCache: { key: string; until: number; spaces: Promise<Space[]> } | null = null;
  async function volumeSpaces(): Promise<Space[]> {
    const top = await fsp.stat(options.volumeRoot, { bigint: true }).catch(() => null);
    const key = `${top?.ino}:${top?.mtimeNs}:${top?.ctimeNs}:${top?.nlink}:${top?.size}:${JSON.stringify(options.hostVolumes?.() ?? [])}`;
    const now = Date.now();
    if (!volumesCache || volumesCache.key !== key || now >= volumesCache.until) {
      const spaces = readVolumeSpaces();
      volumesCache = { key, until: now + VOLUMES_FRESH_MS, spaces };
      spaces.catch(() => {
        if (volumesCache?.spaces === spaces) volumesCache = null;
      });
    }
    return [...(await volumesCache.spaces)];
  }

  /** Real paths of the other accounts' personal folders (assertNotPrivate), fresh for as long as the volumes. */
  const personalReal = new Map<string, { until: number; real: string }>();
  async function realPersonalFolder(folder: string): Promise<string> {
    const now = Date.now();
    const hit = personalReal.get(folder);
    if (hit && now < hit.until) return hit.real;
    const real = (await realpathOrNull(folder)) ?? folder;
    if (personalReal.size > 10_000) personalReal.clear();
    personalReal.set(folder, { until: now + VOLUMES_FRESH_MS, real });
    return real;
  }

  async function readVolumeSpaces(): Promise<Space[]> {
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(options.volumeRoot, { withFileTypes: true });
    } catch {
      return [];
    }
    const out: Space[] = [];
    for (const e of entries) {
      if (e.name.startsWith('.') || RESERVED_PREFIXES.has(e.name)) continue;
      const full = path.join(options.volumeRoot, e.name);
      if (!e.isDirectory() && !(e.isSymbolicLink() && (await fsp.stat(full).catch(() => null))?.isDirectory()))
        continue;
      const root = await realpathOrNull(full);
      if (!root || (await privateZones()).some((zone) => isInside(zone, root))) continue;
      out.push({ kind: 'volume', name: e.name, path: e.name, root, readOnly: await probe(root) });
    }
    // Confined like the others: real root, never a private folder; a VOLUME_ROOT folder of the same name wins.
    for (const v of options.hostVolumes?.() ?? []) {
      if (out.some((s) => s.name.toLowerCase() === v.label.toLowerCase())) continue;
      const root = await realpathOrNull(v.path);
      if (!root || (await privateZones()).some((zone) => isInside(zone, root))) continue;
      out.push({
        kind: 'volume',
        name: v.label,
        path: v.label,
        root,
        accessMode: v.accessMode,
        readOnly: (await probe(root)) ?? (v.accessMode === 'readonly' ? 'access' : null),
      });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  async function virtualIn(list: Space[], caller: Caller, realPath: string): Promise<string | null> {
    const target = path.resolve(realPath);
    let best: Space | null = null;
    for (const s of list) {
      if (isInside(s.root, target) && (!best || s.root.length > best.root.length)) best = s;
    }
    if (!best) return null;
    const rel = path.relative(best.root, target).split(path.sep).filter(Boolean);
    if (rel.some(isReservedName)) return null;
    const virtual = [best.path, ...rel].join('/');
    try {
      await assertNotPrivate(caller, target, best);
    } catch {
      return null;
    }
    return ruleAt(rules(), virtual) === 'hidden' ? null : virtual;
  }

  async function spaces(caller: Caller): Promise<Space[]> {
    if (caller.link) return [];
    const assigned = options.userVolumesEnabled ? (options.assignedVolumes?.(caller.userId) ?? []) : [];
    if (assigned.length) {
      const out: Space[] = [];
      for (const v of assigned) {
        const root = await realpathOrNull(v.path);
        if (!root) continue;
        const storage = await probe(root);
        out.push({
          kind: 'assigned',
          name: v.label,
          path: v.label,
          root,
          accessMode: v.accessMode,
          readOnly: storage ?? (v.accessMode === 'readonly' ? 'access' : null),
        });
      }
      return out;
    }
    const out = await volumeSpaces();
    if (options.userDirEnabled) {
      const root = await fsp.realpath(await options.personal.folderFor(caller.userId, caller.username));
      out.push({ kind: 'personal', name: 'Personal', path: 'personal', root, readOnly: await probe(root) });
    }
    return out;
  }

  /** Throws 404 when `real` lies in another account's personal folder or a private folder. */
  async function assertNotPrivate(caller: Caller, real: string, space: Space): Promise<void> {
    for (const zone of await privateZones()) if (isInside(zone, real)) throw missing();
    if (!options.userDirEnabled && options.personal.all().length === 0) return;
    const own = space.kind === 'personal' ? space.root : null;
    for (const folder of options.personal.all()) {
      const folderReal = await realPersonalFolder(folder);
      if (folderReal === own) continue;
      // A link stands on its owner's side: the owner's own folder was checked when the link resolved.
      if (space.share && space.share.ownerSpace.kind === 'personal' && isInside(folderReal, space.root)) continue;
      if (isInside(folderReal, real)) throw missing();
    }
  }

  async function spaceFor(
    caller: Caller,
    first: string,
    segments: string[],
  ): Promise<{ space: Space; rest: string[] }> {
    // A link holder reaches its own link and nothing else, whatever path it sends.
    if (caller.link && (first !== 'share' || segments[1] !== caller.link.token)) throw missing();
    if (first === 'share') {
      const token = segments[1];
      const space =
        token && shareSpaces ? await shareSpaces(caller, token, (c, p, o) => resolver.resolve(c, p, o)) : null;
      if (!space) throw missing();
      return { space, rest: segments.slice(2) };
    }
    const space = (await spaces(caller)).find((s) => s.path === first);
    if (!space) throw missing();
    return { space, rest: segments.slice(1) };
  }

  const resolver: PathResolver = {
    async resolve(caller, virtualPath, opts = {}) {
      const segments = parseVirtualPath(virtualPath);
      if (segments.length === 0) {
        return {
          virtualPath: '',
          space: null,
          realPath: '',
          relative: '',
          access: TOP_ACCESS,
          exists: true,
          isDirectory: true,
        };
      }
      const { space, rest } = await spaceFor(caller, segments[0]!, segments);
      // At any depth: a space may hold another space's root (an assigned folder inside a volume).
      if (rest.some(isReservedName)) throw missing();
      const normalised = segments.join('/');
      // Access rules name the owner's paths: a link is judged where its item really is.
      const rulePath = space.share ? [space.share.sourcePath, ...rest].join('/') : normalised;
      const rule = ruleAt(rules(), rulePath);
      if (rule === 'hidden') throw missing();

      const realPath = path.join(space.root, ...rest);
      const location = await realLocation(realPath);
      if (!isInside(space.root, location.real)) {
        throw new AppError('PATH_OUTSIDE');
      }
      await assertNotPrivate(caller, location.real, space);
      if (opts.mustExist && !location.exists) throw missing();

      let isDirectory = false;
      if (location.exists) isDirectory = (await fsp.stat(realPath).catch(() => null))?.isDirectory() ?? false;
      let readOnly: ReadOnlyReason = space.readOnly;
      if (readOnly === null && isDirectory) readOnly = await probeWritable(realPath);
      if (readOnly === null && (rule === 'ro' || !callerMayWrite(caller))) readOnly = 'access';
      let access = accessFor(readOnly, { isRoot: rest.length === 0, canShare: space.kind !== 'share' });
      if (space.share) {
        const allow = space.share.allow;
        const narrowed = { ...access, canRename: access.canDelete } as Access & { canRename: boolean };
        for (const key of Object.keys(allow) as (keyof typeof allow)[])
          narrowed[key] = narrowed[key] && allow[key] === true;
        access = narrowed;
      }
      return {
        virtualPath: normalised,
        space,
        realPath,
        relative: rest.join('/'),
        canonicalPath: location.real === realPath ? realPath : await canonicalEntry(realPath),
        access,
        exists: location.exists,
        isDirectory,
      };
    },

    async resolveInside(caller, virtualPath, opts = {}) {
      const r = await resolver.resolve(caller, virtualPath, opts);
      if (!r.space) throw new AppError('TOP_LEVEL', opts.atTop);
      return r;
    },

    spaces,

    async toVirtual(caller, realPath) {
      return virtualIn(await spaces(caller), caller, realPath);
    },

    async virtualizer(caller) {
      const snapshot = await spaces(caller);
      return (realPath) => virtualIn(snapshot, caller, realPath);
    },

    isHiddenByRule(virtualPath) {
      return ruleAt(rules(), virtualPath) === 'hidden';
    },

    hiddenChildren(parentVirtual) {
      const snapshot = rules();
      if (snapshot.length === 0) return () => false;
      const relevant = snapshot.filter((r) => r.permissions === 'hidden');
      if (relevant.length === 0) return () => false;
      return (name) => ruleAt(relevant, joinVirtual(parentVirtual, name)) === 'hidden';
    },
  };
  return resolver;
}
