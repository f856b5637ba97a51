// The WebDAV request handler: one authenticated request under /dav/ → the method's rules →
// the files, trash and versions services. The HTTP layer authenticates (webdav/auth.ts) and
// hands the caller in; nothing here reads cookies.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, errorEnvelope, fromFsError } from '../core/errors.ts';
import { endRefusal, refuseBody } from '../http/linger.ts';
import { get, put } from './content.ts';
import { lock, unlock } from './locking.ts';
import { propfind, proppatch } from './props.ts';
import { DAV_COMPLIANCE, DAV_METHODS, DavConditionError, virtualFromDavPath, XML_BODY_LIMIT } from './protocol.ts';
import { resolve, type DavContext } from './resources.ts';
import { copyOrMove, mkcol, remove } from './tree.ts';
import { errorBody, parseXml, type Element } from './xml.ts';

export type { DavContext, DavServices } from './resources.ts';

const ALLOW = DAV_METHODS.join(', ');

/** Reads a small XML body (PROPFIND, PROPPATCH, LOCK); 413 past the limit. */
async function xmlBody(req: IncomingMessage): Promise<Element | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > XML_BODY_LIMIT)
      throw new AppError('DAV_BODY_TOO_LARGE', `XML bodies are limited to ${XML_BODY_LIMIT} bytes.`);
    chunks.push(chunk as Buffer);
  }
  return parseXml(Buffer.concat(chunks).toString('utf8'));
}

/** Drains a body the method does not read, so the connection can carry the next request. */
async function drain(req: IncomingMessage): Promise<void> {
  if (req.readableEnded) return;
  for await (const _ of req) {
    /* discarded */
  }
}

function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.statusCode = status;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Length', 0);
  res.end();
}

function sendXml(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.statusCode = status;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', 'application/xml; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** Errors: RFC conditions as a DAV:error body, everything else in the API's envelope. */
export function sendDavError(res: ServerResponse, err: unknown, ctx: Pick<DavContext, 'requestId' | 'log'>): void {
  const known = err instanceof AppError ? err : fromFsError(err);
  if (!known) ctx.log.error('WebDAV request failed', { err });
  const status = known?.status ?? 500;
  const message = known?.message ?? 'Something went wrong on the server.';
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // The body may still be arriving (a PUT refused before or while it is read): it is read away,
  // bounded, so the client sees this answer rather than a cut connection.
  const req = res.req as IncomingMessage | undefined;
  if (req) refuseBody(req, res);
  res.setHeader('X-Request-Id', ctx.requestId);
  for (const [k, v] of Object.entries(known?.headers ?? {})) res.setHeader(k, v);
  const condition = err instanceof DavConditionError;
  const body = condition
    ? errorBody(err.condition, message)
    : JSON.stringify(errorEnvelope(status, message, ctx.requestId, known?.code, known?.details));
  res.statusCode = status;
  res.setHeader('Content-Type', condition ? 'application/xml; charset=utf-8' : 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  endRefusal(req, res, body);
}

/**
 * Serves one WebDAV request for an authenticated caller. `req.url` is the path as sent
 * (starting with /dav/). Never throws: every failure is answered.
 */
export async function handleDav(req: IncomingMessage, res: ServerResponse, ctx: DavContext): Promise<void> {
  try {
    await dispatch(req, res, ctx);
  } catch (err) {
    sendDavError(res, err, ctx);
  }
  record(req, res, ctx);
}

/** Methods that change files; each success (and each refusal past sign-in) goes to the activity log. */
const WRITES = new Set(['PUT', 'DELETE', 'MKCOL', 'COPY', 'MOVE']);

function record(req: IncomingMessage, res: ServerResponse, ctx: DavContext): void {
  const method = (req.method ?? '').toUpperCase();
  if (!WRITES.has(method)) return;
  const path = (req.url ?? '/').split('?')[0]!;
  const destination = typeof req.headers.destination === 'string' ? req.headers.destination : undefined;
  ctx.activity.record({
    action: `dav.${method.toLowerCase()}`,
    outcome: res.statusCode < 300 ? 'success' : 'failure',
    userId: ctx.caller.userId,
    username: ctx.caller.username,
    ip: ctx.ip,
    detail: {
      path: safeDecode(path),
      status: res.statusCode,
      ...(destination ? { destination: safeDecode(destination) } : {}),
      ...(ctx.caller.tokenId ? { tokenId: ctx.caller.tokenId } : {}),
    },
  });
}

const safeDecode = (s: string) => {
  try {
    return decodeURI(s);
  } catch {
    return s;
  }
};

async function dispatch(req: IncomingMessage, res: ServerResponse, ctx: DavContext): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const pathname = (req.url ?? '/').split('?')[0]!;
  res.setHeader('DAV', DAV_COMPLIANCE);
  if (method === 'OPTIONS') {
    await drain(req);
    // RFC 4918 §10.1: "All DAV-compliant resources MUST return the DAV header with
    // compliance-class "1" on all OPTIONS responses." MS-Author-Via makes Windows use WebDAV.
    sendEmpty(res, 200, { Allow: ALLOW, 'MS-Author-Via': 'DAV' });
    return;
  }
  if (!(DAV_METHODS as readonly string[]).includes(method))
    throw new AppError('DAV_METHOD', `${method} is not a WebDAV method here.`, { headers: { Allow: ALLOW } });
  const r = await resolve(ctx, virtualFromDavPath(pathname));

  switch (method) {
    case 'GET':
    case 'HEAD':
      await drain(req);
      return get(ctx, req, res, r);
    case 'PUT':
      return put(ctx, req, res, r);
    case 'PROPFIND':
      return propfind(ctx, req, res, r, await xmlBody(req));
    case 'PROPPATCH':
      return proppatch(ctx, req, res, r, await xmlBody(req));
    case 'MKCOL': {
      const status = await mkcol(ctx, req, r);
      await drain(req);
      return sendEmpty(res, status);
    }
    case 'DELETE':
      await drain(req);
      return sendEmpty(res, await remove(ctx, req, r));
    case 'COPY':
    case 'MOVE':
      await drain(req);
      return sendEmpty(res, await copyOrMove(ctx, req, r, method === 'COPY' ? 'copy' : 'move'));
    case 'LOCK': {
      const answer = await lock(ctx, req, r, await xmlBody(req));
      return sendXml(res, answer.status, answer.body, answer.headers);
    }
    case 'UNLOCK':
      await drain(req);
      unlock(ctx, req, r);
      return sendEmpty(res, 204);
  }
}
