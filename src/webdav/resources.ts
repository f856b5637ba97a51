// What a WebDAV request acts on: a URL under the mount resolved by the one resolver, its host
// location for the DAV tables, its entity tag, and the members of a collection as the API's
// listings show them (reserved names, rule-hidden children and links leading out left out).
import type { BodyPace } from '../core/load.ts';
import type { ItemLocks } from '../files/locks.ts';
import type { Stats } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ActivityEvent } from '../activity/service.ts';
import type { ChangeSink } from '../changes.ts';
import { etagOf } from '../http/file.ts';
import type { Bindings, RealLocation } from '../files/bindings.ts';
import { openEntryIn, withDirIn } from '../files/confined.ts';
import { isReservedName } from '../files/names.ts';
import type { FileOps } from '../files/ops.ts';
import { joinVirtual, type InsidePath, type PathResolver, type ResolvedPath } from '../files/paths.ts';
import type { Transfer } from '../files/transfer.ts';
import { AppError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { Caller } from '../core/caller.ts';
import type { PathLocks } from '../cluster/path-locks.ts';
import type { WorkJournal } from '../files/journal.ts';
import type { TrashService } from '../trash/service.ts';
import type { FreeSpace } from '../uploads/staging.ts';
import type { QuotaPort } from '../files/quota-port.ts';
import type { VersionService } from '../versions/service.ts';
import { hrefOf } from './protocol.ts';
import type { DavStore } from './store.ts';

/** The services WebDAV works through: the same ones the HTTP API uses. */
export interface DavServices {
  resolver: PathResolver;
  ops: FileOps;
  trash: TrashService;
  versions: VersionService;
  transfer: Transfer;
  /** One file's save at a time (the editor's, cluster/path-locks.ts): a PUT's compare, version and placement. */
  saveLocks: PathLocks;
  /** A PUT's (or a Depth 0 COPY's) temporary is recorded until it takes the name: a crash leaves nothing after the restart. */
  journal: WorkJournal;
  bindings: Bindings;
  /** Every door's locks (files/locks.ts): DAV writes ask it for the office editor's (ours are checked here). */
  locks: ItemLocks;
  changes: ChangeSink;
  store: DavStore;
  log: Logger;
  /** The activity log: WebDAV writes are recorded like the API's (`dav.<method>`). */
  activity: { record(event: ActivityEvent): void };
  /** The uploads' free-space rule: a PUT keeps UPLOAD_FREE_SPACE_RESERVE free (507). */
  space: FreeSpace;
  /** Quotas a PUT is held against (quotas/): refused before its bytes are kept. */
  quotas: QuotaPort;
  /** People's other requests go first: a PUT's body yields to them (core/load.ts). */
  pace?: BodyPace;
}

/** One request's context: the authenticated caller and the services. */
export interface DavContext extends DavServices {
  caller: Caller;
  requestId: string;
  ip: string;
}

export const locationOf = (r: InsidePath): RealLocation => ({ root: r.space.root, relative: r.relative });

export const isCollection = (r: ResolvedPath) => r.space === null || r.isDirectory;

export const hrefFor = (r: ResolvedPath) => hrefOf(r.virtualPath, isCollection(r));

export function parentVirtual(virtual: string): string {
  const i = virtual.lastIndexOf('/');
  return i < 0 ? '' : virtual.slice(0, i);
}

export const nameOf = (virtual: string) => virtual.slice(virtual.lastIndexOf('/') + 1);

export async function resolve(ctx: DavContext, virtual: string): Promise<ResolvedPath> {
  return ctx.resolver.resolve(ctx.caller, virtual);
}

/** The existing parent collection of a target (RFC 4918 §9.3.1, §9.7.1: 409 when missing). */
/** The top of the mount is nobody's to change (403). */
export function assertInside(r: ResolvedPath): asserts r is InsidePath {
  if (!r.space) throw new AppError('TOP_LEVEL', 'The top of the mount cannot be changed.', { status: 403 });
}

export async function parentCollection(ctx: DavContext, target: ResolvedPath): Promise<ResolvedPath> {
  assertInside(target);
  if (target.relative === '')
    throw new AppError('TOP_LEVEL', 'Volumes are not created, moved or removed over WebDAV.', { status: 403 });
  let parent: ResolvedPath;
  try {
    parent = await ctx.resolver.resolve(ctx.caller, parentVirtual(target.virtualPath));
  } catch (err) {
    if (err instanceof AppError && err.status === 404)
      throw new AppError('DAV_NO_PARENT', 'The parent collection does not exist.');
    throw err;
  }
  if (!parent.exists || !parent.isDirectory)
    throw new AppError('DAV_NO_PARENT', 'The parent collection does not exist.');
  return parent;
}

export function refuseReadOnly(r: ResolvedPath, what: string): void {
  if (r.access.canWrite) return;
  const why =
    r.access.readOnly === 'storage'
      ? 'the volume is read-only'
      : r.access.readOnly === 'permission'
        ? 'the server may not write there'
        : 'your access here is read-only';
  throw new AppError('READ_ONLY', `You may not ${what}: ${why}.`);
}

/**
 * The resource's own stats, from a descriptor checked inside its space (confined at use): a
 * folder swapped for a link to outside between the resolve and now is refused (403), never
 * described. Throws as opening does (ENOENT when gone).
 */
export async function checkedStats(r: InsidePath): Promise<Stats> {
  const entry = await openEntryIn(r.space.root, r.realPath);
  try {
    return entry.stat;
  } finally {
    await entry.close();
  }
}

export async function statOf(r: ResolvedPath): Promise<Stats | null> {
  if (!r.space) return null;
  return checkedStats(r).catch(() => null);
}

export const etagFor = (st: Stats | null): string | null => (st ? etagOf(st) : null);

/** A member of a collection, as PROPFIND Depth 1 lists it. */
export interface Member {
  virtualPath: string;
  realPath: string | null;
  stats: Stats;
  isDirectory: boolean;
  root: string | null;
  relative: string;
}

/**
 * The members of a collection. Names and stats come from the folder's checked descriptor
 * (confined.ts), as browse's listing does: a folder swapped for a link to outside between the
 * resolve and the listing never shows what lies outside (names, sizes, dates). Entries are
 * described by lstat through the descriptor (the final name never followed); a link is listed
 * only when the descriptor it opens lies inside the same space, and is described by that
 * descriptor.
 */
export async function membersOf(ctx: DavContext, r: ResolvedPath): Promise<Member[]> {
  if (!r.space) {
    const out: Member[] = [];
    for (const s of await ctx.resolver.spaces(ctx.caller)) {
      const st = await fsp.stat(s.root).catch(() => null);
      if (st)
        out.push({ virtualPath: s.path, realPath: s.root, stats: st, isDirectory: true, root: s.root, relative: '' });
    }
    return out;
  }
  const hidden = ctx.resolver.hiddenChildren(ctx.caller, r);
  const root = r.space.root;
  const described = await withDirIn(root, r.realPath, async (dir) => {
    const entries = (await fsp.readdir(dir.path, { withFileTypes: true })).filter(
      (e) => !isReservedName(e.name) && !hidden(e.name) && (e.isSymbolicLink() || e.isFile() || e.isDirectory()),
    );
    return Promise.all(
      entries.map(async (e) => {
        if (!e.isSymbolicLink()) return { name: e.name, st: await fsp.lstat(dir.at(e.name)).catch(() => null) };
        const target = await openEntryIn(root, dir.at(e.name)).catch(() => null);
        if (!target) return { name: e.name, st: null };
        await target.close();
        return { name: e.name, st: target.stat };
      }),
    );
  });
  const out: Member[] = [];
  for (const { name, st } of described) {
    if (!st || (!st.isFile() && !st.isDirectory())) continue;
    out.push({
      virtualPath: joinVirtual(r.virtualPath, name),
      realPath: path.join(r.realPath, name),
      stats: st,
      isDirectory: st.isDirectory(),
      root,
      relative: r.relative ? `${r.relative}/${name}` : name,
    });
  }
  return out;
}
