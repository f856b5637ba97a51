// GET, HEAD and PUT. Reads are the download path's (Range, If-Range, ETag); a PUT streams into
// a hidden temporary beside its target and is then placed: a new file claims its name
// exclusively, an existing file's content is replaced only after it is kept as a version.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { AppError } from '../core/errors.ts';
import { paceFor } from '../core/load.ts';
import { writeBody, type BodyWrite } from '../uploads/body-writer.ts';
import { etagMatches, ifMatchHolds } from '../http/conditional.ts';
import { etagOf, sendFile } from '../http/file.ts';
import { createFileAt, openFileIn, withParentIn } from '../files/confined.ts';
import { withTemporary } from '../files/journal.ts';
import type { ResolvedPath } from '../files/paths.ts';
import type { Hold } from '../files/quota-port.ts';
import { preconditions } from './locking.ts';
import { membersOf, nameOf, parentCollection, refuseReadOnly, type DavContext } from './resources.ts';

const fsDatasync = promisify(fs.fdatasync);
const fsClose = promisify(fs.close);

export async function get(ctx: DavContext, req: IncomingMessage, res: ServerResponse, r: ResolvedPath): Promise<void> {
  if (!r.exists) throw new AppError('NOT_FOUND', 'No such file or folder.');
  if (!r.space || r.isDirectory) {
    // RFC 4918 §9.4: "GET, when applied to a collection, may return the contents of an
    // "index.html" resource, a human-readable view of the contents of the collection, or
    // something else altogether." Plain text, one name a line (folders end in "/"): an HTML page
    // would be active content on our origin, and a browser shown this URL deserves more than 405.
    const names = (await membersOf(ctx, r)).map((m) => nameOf(m.virtualPath) + (m.isDirectory ? '/' : '')).sort();
    const body = Buffer.from(names.map((n) => n + '\n').join(''), 'utf8');
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('Content-Length', body.length);
    res.end(req.method === 'HEAD' ? undefined : body);
    return;
  }
  // The descriptor checked inside the space is the one streamed (confined at use).
  await sendFile(req, res, await openFileIn(r.space.root, r.realPath), nameOf(r.virtualPath), 'attachment');
}

// RFC 9110 §13.1.1/§13.1.2 on PUT, read as every route reads them (http/conditional.ts): If-Match
// compares strongly ("*" needs a current representation, a weak tag never matches), If-None-Match
// weakly ("*" needs none: a client creating a file that must not exist yet).
function httpConditions(req: IncomingMessage, etag: string | null): void {
  const match = req.headers['if-match'];
  if (match && !ifMatchHolds(match, etag))
    throw new AppError('DAV_PRECONDITION', 'If-Match does not match the current file.');
  const noneMatch = req.headers['if-none-match'];
  if (noneMatch && etag !== null && etagMatches(noneMatch, etag))
    throw new AppError('DAV_PRECONDITION', 'If-None-Match: the file exists.');
}

// RFC 4918 §9.7.1: "A PUT that would result in the creation of a resource without an
// appropriately scoped parent collection MUST fail with a 409 (Conflict)." §9.7.2: "a PUT request
// to an existing collection MAY be treated as an error (405 Method Not Allowed)". RFC 9110 §14.5:
// "An origin server that allows PUT on a given target resource MUST send a 400 (Bad Request)
// response to a PUT request that contains a Content-Range header field".
export async function put(ctx: DavContext, req: IncomingMessage, res: ServerResponse, r: ResolvedPath): Promise<void> {
  if (req.headers['content-range'])
    throw new AppError('DAV_PARTIAL_PUT', 'Partial PUT (Content-Range) is not supported; send the whole file.');
  if (!r.space || (r.exists && r.isDirectory))
    throw new AppError('DAV_IS_COLLECTION', 'A collection has no content to PUT.', {
      headers: {
        Allow: 'OPTIONS, PROPFIND, PROPPATCH, MKCOL, DELETE, COPY, MOVE, LOCK, UNLOCK',
      },
    });
  const parent = await parentCollection(ctx, r);
  refuseReadOnly(r.exists ? r : parent, r.exists ? 'change this file' : 'create a file here');
  httpConditions(req, r.exists ? etagOf(await fsp.stat(r.realPath)) : null);
  await preconditions(ctx, req, r.virtualPath, [{ target: r, membership: !r.exists }]);

  // Everything below happens in the checked parent folder's descriptor: the temporary, the
  // version kept and the file replaced are the ones inside the volume, whatever is swapped.
  const root = r.space.root;
  // The body is held against the quotas: its whole Content-Length before a byte is read, or
  // chunk by chunk as it streams (507 QUOTA_EXCEEDED; the temporary goes with the refusal).
  const length = req.headers['content-length'] === undefined ? NaN : Number(req.headers['content-length']);
  const quota = ctx.quotas.hold(ctx.quotas.chargeFor(ctx.caller, r.space), Number.isFinite(length) ? length : 0);
  let written: { replaced: boolean; etag: string };
  try {
    written = await putInto(ctx, req, r, root, Number.isFinite(length) ? null : quota);
    quota.land([r.realPath]);
  } finally {
    quota.release();
  }
  const { replaced, etag } = written;
  ctx.changes.emit(
    replaced ? { type: 'modified', path: r.realPath } : { type: 'created', path: r.realPath, isDirectory: false },
  );
  res.statusCode = replaced ? 204 : 201;
  res.setHeader('ETag', etag);
  res.setHeader('Content-Length', 0);
  res.end();
}

/** The PUT's write itself, in the checked parent folder; `streaming` takes each chunk's bytes. */
function putInto(
  ctx: DavContext,
  req: IncomingMessage,
  r: ResolvedPath,
  root: string,
  streaming: Hold | null,
): Promise<{ replaced: boolean; etag: string }> {
  return withParentIn(root, r.realPath, async (dir, name) => {
    const current = await openFileIn(root, dir.at(name)).catch((err) => {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    });
    try {
      let replaced = current !== null;
      let etag = '';
      // The body's length, when sent, must fit with the reserve left over before a byte is read;
      // without one, each chunk is checked before it is kept. A full disk answers 507 either way
      // (the request is not cut: the rest of its body is read away, http/linger.ts).
      const declared = req.headers['content-length'] === undefined ? NaN : Number(req.headers['content-length']);
      // (The free-space reading is cached per real path.)
      if (Number.isFinite(declared)) await ctx.space.ensureSpace(dir.real, declared);
      let write: BodyWrite | undefined;
      const free = Number.isFinite(declared) ? undefined : await ctx.space.guard(dir.path, () => write?.written ?? 0);
      const inspect = !free
        ? undefined
        : (chunk: Buffer) => {
            try {
              streaming?.add(chunk.length);
            } catch (err) {
              // Refused, the body lets go of what it held at once: writes racing with it have its
              // room before this request ends (the rest of its body is read away first).
              streaming?.release();
              throw err;
            }
            free(chunk);
          };
      await withTemporary(ctx.journal, dir, async (temp, tempName) => {
        const fd = await createFileAt(dir, tempName, current ? current.stat.mode & 0o7777 : 0o644);
        try {
          write = writeBody(req, fd, 0, {
            freeWritten: true,
            keepSource: true,
            inspect,
            ...paceFor(ctx.pace, req.headers),
          });
          await write.done;
          // On disk before it takes the name (the old content stays until the rename).
          await fsDatasync(fd);
        } catch (err) {
          throw req.aborted || (err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE'
            ? new AppError('DAV_ABORTED', 'The upload ended before its last byte; nothing was kept.')
            : err;
        } finally {
          await fsClose(fd).catch(() => {});
        }
        // The compare, the version kept and the placement are one turn of this file's save lock —
        // the editor's (cluster/path-locks.ts): in this process and, on a cluster, across the
        // instances. The body is read before it (an upload may be slow), so the conditions are
        // compared again here, with the file as it is now: two PUTs sent with one If-Match do not
        // both land, the second answers 412 and its temporary goes.
        await ctx.saveLocks.exclusively(r.realPath, async () => {
          // A new file claims its name exclusively; one created meanwhile by another door is
          // replaced like any other existing file — after the conditions hold for it and it is
          // kept as a version.
          for (;;) {
            const now = await openFileIn(root, dir.at(name)).catch((err) => {
              if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
              throw err;
            });
            if (!now) {
              httpConditions(req, null);
              try {
                await fsp.link(temp, dir.at(name));
              } catch (err) {
                if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
                throw err;
              }
              await fsp.unlink(temp);
              replaced = false;
              break;
            }
            try {
              httpConditions(req, etagOf(now.stat));
              await ctx.versions.keep(r.realPath, ctx.caller.username, now, { replacement: temp });
            } finally {
              await now.close();
            }
            await fsp.rename(temp, dir.at(name));
            replaced = true;
            break;
          }
          // The ETag of what this PUT placed (the next save waits for this turn's end).
          etag = etagOf(await fsp.lstat(dir.at(name)));
        });
      });
      return { replaced, etag };
    } finally {
      await current?.close();
    }
  });
}
