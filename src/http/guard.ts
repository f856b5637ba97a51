// The credential guard. It runs before routing, on the path folded to lower case,
// percent-decoded and stripped of doubled and trailing slashes, and decides from the route
// table itself (access and scope of the matching row), so the token rules cannot drift from
// what is mounted and hold in any letter case or spelling of a path.
import type { IncomingMessage } from 'node:http';
import { AppError } from '../core/errors.ts';
import { assertSameOrigin, type OriginPolicy } from './origin.ts';
import type { RequestPath } from './path.ts';
import { effectiveScope, type RouteDef } from './route.ts';
import type { RouteMatch, RouteMatcher } from './router.ts';
import type { Caller } from '../core/caller.ts';

export interface Authenticator {
  /** The caller of every request when AUTH_MODE=disabled; null when authentication is on. */
  anonymousCaller(): Caller | null;
  /** The session behind the request's cookie, or null. */
  fromSession(req: IncomingMessage, ip: string): Caller | null;
  /** The account behind a bearer secret, or null for any unusable token (the reason is logged by the implementor). */
  fromToken(secret: string, req: IncomingMessage, ip: string): Caller | null;
  /** A Set-Cookie header to add to the answer (a session whose lifetime slid forward). */
  renewal?(req: IncomingMessage): string | undefined;
}

export const TOKEN_NOT_ALLOWED = 'AUTH_TOKEN_NOT_ALLOWED';
export const TOKEN_READ_ONLY = 'AUTH_TOKEN_READ_ONLY';
export const TOKEN_INVALID = 'AUTH_TOKEN_INVALID';

function bearerSecret(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const m = /^bearer\s+(.+)$/i.exec(header.trim());
  return m ? m[1]!.trim() : undefined;
}

/** Routes no token may reach, whatever its scope or owner. */
function tokenRefused(method: string, path: string, row: RouteDef | undefined): boolean {
  const isMe = path === '/api/auth/me' && (method === 'GET' || method === 'HEAD');
  if (path.startsWith('/api/auth/') && !isMe) return true;
  if (path === '/api/terminal' || path.startsWith('/api/terminal/')) return true;
  return row !== undefined && (row.access === 'admin' || row.access === 'session');
}

/** Read tokens may GET/HEAD, and call the rows that declare scope 'read' (downloads). */
function isReadRequest(method: string, row: RouteDef | undefined): boolean {
  if (row) return effectiveScope(row) === 'read';
  return method === 'GET' || method === 'HEAD';
}

/**
 * Decides who is calling and whether they may reach the row. Throws the refusal. Requests
 * without a bearer token are refused when a browser sent a change from another site.
 * Returns the caller (null for public rows without credential).
 */
export function guardRequest(
  req: IncomingMessage,
  requestPath: RequestPath,
  ip: string,
  matcher: RouteMatcher,
  auth: Authenticator,
  origin: OriginPolicy,
): { caller: Caller | null; row: RouteDef | undefined; dispatch: RouteMatch | undefined } {
  const method = (req.method ?? 'GET').toUpperCase();
  if (requestPath.refusal) throw requestPath.refusal;
  const path = requestPath.normalised;
  const { row, dispatch } = matcher.match(method, path, requestPath.raw);
  // The row's handler checks its own token; cookies and Authorization are not ours to read.
  if (row?.access === 'callback') return { caller: null, row, dispatch };
  const secret = bearerSecret(req);
  let caller: Caller | null;
  if (secret !== undefined) {
    if (tokenRefused(method, path, row)) throw new AppError(TOKEN_NOT_ALLOWED);
    caller = auth.fromToken(secret, req, ip);
    if (!caller) throw new AppError(TOKEN_INVALID);
    if (caller.tokenScope !== 'write' && !isReadRequest(method, row)) throw new AppError(TOKEN_READ_ONLY);
  } else {
    // Whatever credential rides along by itself (a cookie, or none with AUTH_MODE=disabled).
    assertSameOrigin(req, origin);
    caller = auth.fromSession(req, ip) ?? auth.anonymousCaller();
  }
  if (row && (row.access === 'account' || row.access === 'session' || row.access === 'admin') && !caller) {
    throw new AppError('AUTH_REQUIRED');
  }
  if (row?.access === 'admin' && !caller!.isAdmin) throw new AppError('ADMIN_ONLY');
  return { caller, row, dispatch };
}
