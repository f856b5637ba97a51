// The one resolver of virtual paths (`<volume>/…`, `personal/…`, `<assigned label>/…`,
// `share/<token>/…`): it refuses every spelling that could leave a space, confirms with
// realpath at use that the target (symlinks included) stays inside its root, keeps every
// account out of the other accounts' personal folders and Burrow's own folders (spaces.ts),
// and says what the caller may do there. The shapes it answers are in paths.ts.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import {
  TOP_ACCESS,
  accessFor,
  callerMayWrite,
  probeWritable,
  type Access,
  type AccessLevel,
  type ReadOnlyReason,
} from './access.ts';
import { isReservedName } from './names.ts';
import {
  isInside,
  ownerView,
  parseVirtualPath,
  type PathResolver,
  type InsidePath,
  type ResolvedPath,
  type Space,
  type TopPath,
} from './paths.ts';
import { createSpaces, realpathOrNull, type Spaces, type SpacesDeps } from './spaces.ts';

export interface ResolverDeps extends SpacesDeps {
  /**
   * The access model's one check (access/): the person's level at a virtual path (as the owner
   * of a link sees it, for a link). Without it every account manages everything it reaches.
   */
  levelAt?: (userId: string, virtualPath: string) => AccessLevel;
  /** The paths rules are set at (access/): where a level can change below a folder. */
  rulePaths?: () => readonly string[];
  /**
   * `share/<token>/…`: the link's space for this caller or null (shares/links.ts). It is built
   * before the resolver, so it is handed the resolver's own `resolve` to find the owner's item.
   */
  shareSpaces?: (caller: Caller | null, token: string, resolve: PathResolver['resolve']) => Promise<Space | null>;
}

const missing = () => new AppError('NOT_FOUND', 'No such file or folder.');

const TOP: TopPath = Object.freeze({
  virtualPath: '',
  space: null,
  realPath: '',
  relative: '',
  access: TOP_ACCESS,
  exists: true,
  isDirectory: true,
});

/** The entry in its folder's real place (the folders above resolved, the entry itself not followed). */
async function canonicalEntry(p: string): Promise<string> {
  const dir = await realpathOrNull(path.dirname(p));
  return dir ? path.join(dir, path.basename(p)) : p;
}

/** The real location of `p`: realpath of the deepest existing ancestor plus the missing tail. */
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

/**
 * What the caller may do at a resolved place: the storage, the person's level there (a link's
 * creator's, for a link: a link never gives more than its creator has now), the caller's token,
 * then a link's flags narrow it.
 */
async function accessAt(
  caller: Caller,
  space: Space,
  place: { realPath: string; isDirectory: boolean; isRoot: boolean; level: AccessLevel },
): Promise<Access> {
  let readOnly: ReadOnlyReason = space.readOnly;
  if (readOnly === null && place.isDirectory) readOnly = await probeWritable(place.realPath);
  const writes = callerMayWrite(caller);
  if (readOnly === null && !writes) readOnly = 'access';
  // A new link is a change: a read token makes none, whatever the rules give its account.
  const access = accessFor(readOnly, {
    isRoot: place.isRoot,
    canShare: space.kind !== 'share' && writes,
    level: place.level,
  });
  if (!space.share) return access;
  const allow = space.share.allow;
  const narrowed = { ...access, canRename: access.canRename ?? access.canDelete } as Access & { canRename: boolean };
  for (const key of Object.keys(allow) as (keyof typeof allow)[]) narrowed[key] = narrowed[key] && allow[key] === true;
  return narrowed;
}

export function createPathResolver(deps: ResolverDeps): PathResolver {
  const spaces: Spaces = createSpaces(deps);
  const levelAt = deps.levelAt ?? (() => 'manage' as const);
  const shareSpaces = deps.shareSpaces ?? null;

  /** Whose rules speak at a place: a link's creator inside a link, the caller elsewhere. */
  const personAt = (caller: Caller, space: Space | null): string => space?.share?.ownerId ?? caller.userId;

  /** The space a path's first segment names, and the segments inside it. */
  async function spaceFor(caller: Caller, segments: string[]): Promise<{ space: Space; rest: string[] }> {
    const first = segments[0]!;
    // A link holder reaches its own link and nothing else, whatever path it sends.
    if (caller.link && (first !== 'share' || segments[1] !== caller.link.token)) throw missing();
    if (first === 'share') {
      const token = segments[1];
      const space = token && shareSpaces ? await shareSpaces(caller, token, resolve) : null;
      if (!space) throw missing();
      return { space, rest: segments.slice(2) };
    }
    const space = (await spaces.of(caller)).find((s) => s.path === first);
    if (!space) throw missing();
    return { space, rest: segments.slice(1) };
  }

  async function resolve(
    caller: Caller,
    virtualPath: string,
    opts: { mustExist?: boolean } = {},
  ): Promise<ResolvedPath> {
    const segments = parseVirtualPath(virtualPath);
    if (segments.length === 0) return { ...TOP };
    const { space, rest } = await spaceFor(caller, segments);
    // At any depth: a space may hold another space's root (an assigned folder inside a volume).
    if (rest.some(isReservedName)) throw missing();
    const normalised = segments.join('/');
    const level = ruleLevel(caller, space, rest.join('/'));
    if (level === 'hidden') throw missing();

    const realPath = path.join(space.root, ...rest);
    const location = await realLocation(realPath);
    if (!isInside(space.root, location.real)) throw new AppError('PATH_OUTSIDE');
    await spaces.assertNotPrivate(location.real, space);
    if (opts.mustExist && !location.exists) throw missing();

    const isDirectory = location.exists && ((await fsp.stat(realPath).catch(() => null))?.isDirectory() ?? false);
    return {
      virtualPath: normalised,
      space,
      realPath,
      relative: rest.join('/'),
      canonicalPath: location.real === realPath ? realPath : await canonicalEntry(realPath),
      access: await accessAt(caller, space, { realPath, isDirectory, isRoot: rest.length === 0, level }),
      exists: location.exists,
      isDirectory,
    };
  }

  /**
   * The rules' word (no I/O) on a path inside a space (relative, '/'-separated): they name the
   * owner's paths, so a link is judged where its item really is, for its creator.
   */
  function ruleLevel(caller: Caller, space: Space, relative: string): AccessLevel {
    const base = space.share ? space.share.sourcePath : space.path;
    return levelAt(personAt(caller, space), [base, relative].filter(Boolean).join('/'));
  }

  /** ruleLevel of a path below a resolved folder. */
  const levelBelow = (caller: Caller, folder: InsidePath, relative: string): AccessLevel =>
    ruleLevel(caller, folder.space, [folder.relative, relative].filter(Boolean).join('/'));

  /** The spaces the caller sees, less those the access model hides from them. */
  async function visibleSpaces(caller: Caller): Promise<Space[]> {
    return (await spaces.of(caller)).filter((s) => levelAt(caller.userId, s.path) !== 'hidden');
  }

  /** A host path as the caller's virtual path among `list`, or null when the caller cannot see it. */
  async function virtualIn(caller: Caller, list: Space[], realPath: string): Promise<string | null> {
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
      await spaces.assertNotPrivate(target, best);
    } catch {
      return null;
    }
    return levelAt(caller.userId, virtual) === 'hidden' ? null : virtual;
  }

  return {
    resolve,

    async resolveInside(caller, virtualPath, opts = {}) {
      const r = await resolve(caller, virtualPath, opts);
      if (!r.space) throw new AppError('TOP_LEVEL', opts.atTop);
      return r;
    },

    spaces: visibleSpaces,

    async toVirtual(caller, realPath) {
      return virtualIn(caller, await visibleSpaces(caller), realPath);
    },

    async virtualizer(caller) {
      const snapshot = await visibleSpaces(caller);
      return (realPath) => virtualIn(caller, snapshot, realPath);
    },

    isHiddenByRule(caller, virtualPath) {
      return levelAt(caller.userId, virtualPath) === 'hidden';
    },

    levelBelow,

    mayDeleteByRule(caller, space, relative) {
      const level = ruleLevel(caller, space, relative);
      const readOnly = space.readOnly ?? (callerMayWrite(caller) ? null : 'access');
      return accessFor(readOnly, { isRoot: relative === '', canShare: false, level }).canDelete;
    },

    withheldBelow(caller, folder) {
      return (relative) => {
        const level = levelBelow(caller, folder, relative);
        return level === 'hidden' || level === 'view';
      };
    },

    hiddenBelow(caller, folder) {
      const owner = ownerView(folder);
      const person = personAt(caller, folder.space);
      const base = owner.virtualPath.normalize('NFC');
      const below = (deps.rulePaths?.() ?? []).filter(
        (p) => p.startsWith(base + '/') && levelAt(person, p) === 'hidden',
      );
      // The topmost of them: what is inside a hidden folder is counted with it.
      return below.filter((p) => !below.some((q) => p.startsWith(q + '/'))).map((p) => p.slice(base.length + 1));
    },

    hiddenChildren(caller, parent) {
      if (!parent.space) return (name) => levelAt(caller.userId, name) === 'hidden';
      return (name) => levelBelow(caller, parent, name) === 'hidden';
    },
  };
}
