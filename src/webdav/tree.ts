// MKCOL, DELETE, COPY and MOVE. A deletion is the trash's (one restorable item, however large);
// a replaced destination goes to the trash before anything takes its name; moves are renames
// (the transfer's journalled copy across file systems) onto a claimed name, never over one.
import fsp from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { withDirIn, withParentIn } from '../files/confined.ts';
import { withTemporary } from '../files/journal.ts';
import { placeDirectory, renameToFreeName } from '../files/names.ts';
import { scopeOf } from '../files/ops.ts';
import { isInside, type InsidePath, type ResolvedPath } from '../files/paths.ts';
import { AppError } from '../core/errors.ts';
import { preconditions, type Change } from './locking.ts';
import { copyDepth, infiniteOnly, parseDestination, parseOverwrite } from './protocol.ts';
import {
  assertInside,
  locationOf,
  nameOf,
  parentCollection,
  refuseReadOnly,
  resolve,
  type DavContext,
} from './resources.ts';

/** Has the request a body (MKCOL must refuse one it does not understand)? */
const hasBody = (req: IncomingMessage) =>
  Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

// §9.3: "MKCOL creates a new collection resource at the location specified by the Request-URI.
// If the Request-URI is already mapped to a resource, then the MKCOL MUST fail." §9.3.1: "405
// (Method Not Allowed) - MKCOL can only be executed on an unmapped URL." "409 (Conflict) - A
// collection cannot be made at the Request-URI until one or more intermediate collections have
// been created." "415 (Unsupported Media Type) - The server does not support the request body
// type (although bodies are legal on MKCOL requests, this specification doesn't define any
// functionality for them)."
export async function mkcol(ctx: DavContext, req: IncomingMessage, r: ResolvedPath): Promise<number> {
  if (hasBody(req)) throw new AppError('DAV_MKCOL_BODY', 'MKCOL takes no body.');
  if (r.exists)
    throw new AppError('EXISTS', 'Something already exists here.', {
      status: 405,
      headers: {
        Allow: 'OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, COPY, MOVE, LOCK, UNLOCK',
      },
    });
  const parent = await parentCollection(ctx, r);
  refuseReadOnly(parent, 'create a folder here');
  await preconditions(ctx, req, r.virtualPath, [{ target: r, membership: true }]);
  await withParentIn(r.space.root, r.realPath, (dir, name) => fsp.mkdir(dir.at(name))).catch((err) => {
    throw err.code === 'EEXIST' ? new AppError('EXISTS', 'Something already exists here.', { status: 405 }) : err;
  });
  ctx.changes.emit({ type: 'created', path: r.realPath, isDirectory: true });
  return 201;
}

/** The parent must let the caller remove members, and the item be deletable (not a space root). */
async function refuseUndeletable(ctx: DavContext, r: ResolvedPath, what: string): Promise<void> {
  const parent = await parentCollection(ctx, r);
  refuseReadOnly(parent, what);
  if (!r.access.canDelete) refuseReadOnly({ ...r, access: { ...r.access, canWrite: false } }, what);
}

/** Into the trash: one entry, bindings forgotten, locks and dead properties gone with it. */
async function toTrash(ctx: DavContext, r: InsidePath): Promise<void> {
  await ctx.ops.deleteOne(ctx.caller, r);
  ctx.store.forgetLocks(locationOf(r));
  ctx.store.forgetProperties(locationOf(r));
}

// §9.6: "After a successful DELETE operation (and in the absence of other actions), a
// subsequent GET/HEAD/PROPFIND request to the target Request-URI MUST return 404 (Not Found)."
// §9.6.1: "The DELETE method on a collection MUST act as if a "Depth: infinity" header was used
// on it." Burrow's DELETE is the trash's: the item can be restored by the account.
export async function remove(ctx: DavContext, req: IncomingMessage, r: ResolvedPath): Promise<number> {
  if (!r.exists) throw new AppError('NOT_FOUND', 'No such file or folder.');
  if (r.isDirectory) infiniteOnly(req.headers.depth, 'DELETE');
  assertInside(r);
  await refuseUndeletable(ctx, r, 'delete this');
  await preconditions(ctx, req, r.virtualPath, [{ target: r, withBelow: true, membership: true }]);
  await toTrash(ctx, r);
  return 204;
}

// §9.8 COPY / §9.9 MOVE. "If a resource exists at the destination and the Overwrite header is
// "T", then prior to performing the move, the server MUST perform a DELETE with "Depth:
// infinity" on the destination resource." (§9.9.3; §9.8.4 says the same of COPY) — Burrow's
// DELETE is the trash, so the replaced item can be restored. §9.8.5/§9.9.4: "403 (Forbidden) -
// ... the source and destination resources are the same", "409 (Conflict) - A resource cannot be
// created at the destination until one or more intermediate collections have been created",
// "412 (Precondition Failed) - ... the Overwrite header is "F" and the destination URL is already
// mapped to a resource". Success: "201 (Created) - The source resource was successfully copied
// [moved]. The copy [move] operation resulted in the creation of a new resource." "204 (No
// Content) - The source resource was successfully copied to a preexisting destination resource."
export async function copyOrMove(
  ctx: DavContext,
  req: IncomingMessage,
  r: ResolvedPath,
  operation: 'copy' | 'move',
): Promise<number> {
  if (!r.exists) throw new AppError('NOT_FOUND', 'No such file or folder.');
  if (!r.space) throw new AppError('TOP_LEVEL', 'The top of the mount cannot be copied or moved.', { status: 403 });
  const depth = operation === 'copy' ? copyDepth(req.headers.depth) : 'infinity';
  if (operation === 'move' && r.isDirectory) infiniteOnly(req.headers.depth, 'MOVE');
  const overwrite = parseOverwrite(req.headers.overwrite);
  const d = await resolve(ctx, parseDestination(req.headers.destination, req.headers.host));
  if (!d.space || d.relative === '')
    throw new AppError('TOP_LEVEL', 'A volume cannot be replaced; name a path inside one.', { status: 403 });
  if (d.space.root === r.space.root && d.relative === r.relative)
    throw new AppError('DAV_SAME_RESOURCE', 'The source and the destination are the same.');
  if (
    r.isDirectory &&
    d.space.root === r.space.root &&
    (r.relative === '' || d.relative.startsWith(r.relative + '/'))
  ) {
    throw new AppError('INTO_ITSELF', 'A folder cannot be put inside itself.', { status: 403 });
  }
  const destParent = await parentCollection(ctx, d);
  if (d.exists && !overwrite) throw new AppError('DAV_EXISTS', 'The destination exists and Overwrite is F.');
  refuseReadOnly(destParent, 'write at the destination');
  if (d.exists) await refuseUndeletable(ctx, d, 'replace the destination');
  if (operation === 'move') await refuseUndeletable(ctx, r, 'move this away');
  // A symlinked folder is judged where it leads: never copied or moved into itself that way.
  if (r.isDirectory && isInside(await fsp.realpath(r.realPath), await fsp.realpath(destParent.realPath)))
    throw new AppError('INTO_ITSELF', 'A folder cannot be put inside itself.', { status: 403 });

  const changes: Change[] = [{ target: d, withBelow: true, membership: true }];
  if (operation === 'move') changes.push({ target: r, withBelow: true, membership: true });
  await preconditions(ctx, req, r.virtualPath, changes);

  const destSpace = d.space;
  const existed = d.exists;
  if (existed) await toTrash(ctx, d);
  const name = nameOf(d.virtualPath);
  const destDir = destParent.realPath;
  const destReal = path.join(destDir, name);
  const from = locationOf(r);
  const to = locationOf(d);

  if (operation === 'move') {
    const srcRoot = r.space.root;
    await withParentIn(srcRoot, r.realPath, (src, srcName) =>
      withDirIn(destSpace.root, destDir, async (dir) => {
        const moved = await ctx.transfer.move(
          { path: src.at(srcName), real: r.realPath, root: srcRoot },
          dir,
          name,
          r.isDirectory,
        );
        if (moved.name !== name) {
          // Someone took the name between the trash and the rename: put the item back, say so.
          await renameToFreeName(dir.at(moved.name), src.path, srcName, r.isDirectory).catch(() => {});
          throw new AppError('DAV_EXISTS', 'The destination was created by someone else meanwhile.');
        }
      }),
    );
    const sameKind = scopeOf(ctx.caller, r).userId === scopeOf(ctx.caller, d).userId;
    if (sameKind) ctx.bindings.carry(r.virtualPath, d.virtualPath, scopeOf(ctx.caller, r), { from, to });
    else {
      ctx.bindings.forget(r.virtualPath, scopeOf(ctx.caller, r));
      ctx.bindings.carryReal(from, to);
    }
    ctx.store.moveProperties(from, to);
    ctx.store.forgetLocks(from);
    ctx.changes.emit({ type: 'moved', from: r.realPath, to: destReal, isDirectory: r.isDirectory });
    return existed ? 204 : 201;
  }

  let placed: string;
  if (depth === '0' && r.isDirectory) {
    // §9.8.3: "A COPY of "Depth: 0" only instructs that the collection and its properties, but
    // not resources identified by its internal member URLs, are to be copied."
    placed = await withDirIn(destSpace.root, destDir, (dir) =>
      withTemporary(ctx.journal, dir, async (temp) => {
        await fsp.mkdir(temp);
        return placeDirectory(temp, dir.path, name);
      }),
    );
    ctx.store.patchProperties(
      to,
      ctx.store.properties(from).map((p) => ({ set: p })),
    );
  } else {
    const srcRoot = r.space.root;
    placed = await withParentIn(srcRoot, r.realPath, (src, srcName) =>
      withDirIn(destSpace.root, destDir, (dir) =>
        ctx.transfer
          .copy({ path: src.at(srcName), real: r.realPath, root: srcRoot }, dir, name, r.isDirectory)
          .then((p) => p.name),
      ),
    );
    ctx.store.copyProperties(from, to);
  }
  if (placed !== name) {
    await fsp.rm(path.join(destDir, placed), { recursive: true, force: true });
    throw new AppError('DAV_EXISTS', 'The destination was created by someone else meanwhile.');
  }
  ctx.changes.emit({ type: 'created', path: destReal, isDirectory: r.isDirectory });
  return existed ? 204 : 201;
}
