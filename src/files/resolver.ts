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
  ruleAt,
  type Access,
  type AccessRule,
  type ReadOnlyReason,
} from './access.ts';
import { isReservedName } from './names.ts';
import {
  isInside,
  joinVirtual,
  parseVirtualPath,
  type PathResolver,
  type ResolvedPath,
  type Space,
  type TopPath,
} from './paths.ts';
import { createSpaces, realpathOrNull, type Spaces, type SpacesDeps } from './spaces.ts';

export interface ResolverDeps extends SpacesDeps {
  accessRules?: () => readonly AccessRule[];
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

/** What the caller may do at a resolved place: the storage, the rule, the caller, then a link's flags narrow it. */
async function accessAt(
  caller: Caller,
  space: Space,
  place: { realPath: string; isDirectory: boolean; isRoot: boolean; rule: ReturnType<typeof ruleAt> },
): Promise<Access> {
  let readOnly: ReadOnlyReason = space.readOnly;
  if (readOnly === null && place.isDirectory) readOnly = await probeWritable(place.realPath);
  if (readOnly === null && (place.rule === 'ro' || !callerMayWrite(caller))) readOnly = 'access';
  const access = accessFor(readOnly, { isRoot: place.isRoot, canShare: space.kind !== 'share' });
  if (!space.share) return access;
  const allow = space.share.allow;
  const narrowed = { ...access, canRename: access.canDelete } as Access & { canRename: boolean };
  for (const key of Object.keys(allow) as (keyof typeof allow)[]) narrowed[key] = narrowed[key] && allow[key] === true;
  return narrowed;
}

export function createPathResolver(deps: ResolverDeps): PathResolver {
  const spaces: Spaces = createSpaces(deps);
  const rules = () => deps.accessRules?.() ?? [];
  const shareSpaces = deps.shareSpaces ?? null;

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
    // Access rules name the owner's paths: a link is judged where its item really is.
    const rulePath = space.share ? [space.share.sourcePath, ...rest].join('/') : normalised;
    const rule = ruleAt(rules(), rulePath);
    if (rule === 'hidden') throw missing();

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
      access: await accessAt(caller, space, { realPath, isDirectory, isRoot: rest.length === 0, rule }),
      exists: location.exists,
      isDirectory,
    };
  }

  /** A host path as the caller's virtual path among `list`, or null when the caller cannot see it. */
  async function virtualIn(list: Space[], realPath: string): Promise<string | null> {
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
    return ruleAt(rules(), virtual) === 'hidden' ? null : virtual;
  }

  return {
    resolve,

    async resolveInside(caller, virtualPath, opts = {}) {
      const r = await resolve(caller, virtualPath, opts);
      if (!r.space) throw new AppError('TOP_LEVEL', opts.atTop);
      return r;
    },

    spaces: (caller) => spaces.of(caller),

    async toVirtual(caller, realPath) {
      return virtualIn(await spaces.of(caller), realPath);
    },

    async virtualizer(caller) {
      const snapshot = await spaces.of(caller);
      return (realPath) => virtualIn(snapshot, realPath);
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
}
