// The credential guard. It runs before routing, on the path folded to lower case,
// percent-decoded and stripped of doubled and trailing slashes, and decides from the route
// table itself (access and scope of the matching row), so the token rules cannot drift from
// what is mounted and hold in any letter case or spelling of a path.
import type { IncomingMessage } from 'node:http';
import { parse as parsePattern } from 'regexparam';
import { AppError } from '../core/errors.ts';
import { assertSameOrigin, type OriginPolicy } from './origin.ts';
import { effectiveScope, type RouteDef } from './route.ts';
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

interface CompiledRow {
  def: RouteDef;
  pattern: RegExp;
  keys: string[];
}

/** The row a request reaches and its path parameters, from the one match per request. */
export interface RouteMatch {
  row: RouteDef;
  /**
   * The path parameters, percent-decoded one segment at a time (the wildcard `*` arrives as
   * `path`); read after the guard has judged the caller, so refusals come first.
   */
  readParams(): Record<string, string>;
}

/** Lower-cased, decoded, without doubled or trailing slashes; refuses undecodable and `..`. */
export function normaliseGuardPath(pathname: string): string {
  let decoded = pathname;
  // Decode repeatedly so that double encoding (%252F) cannot hide a segment. Only the path as
  // sent must be valid: once decoded, a name may hold `%` and two hex digits that are no UTF-8
  // (`100% sure %E9.txt`), which stops the decoding there. The row is found on what was decoded
  // and the handler's parameters are read from the same row, so nothing slips between the two.
  for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(decoded); i++) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      if (i === 0) throw new AppError('BAD_PATH', 'The path is not valid percent-encoding.');
      break;
    }
  }
  if (decoded.includes('\0')) throw new AppError('BAD_PATH', 'The path contains a NUL byte.');
  const segments = decoded
    .toLowerCase()
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw new AppError('BAD_PATH', 'The path may not contain "..".');
  return '/' + segments.join('/');
}

/** Each segment decoded once; an encoded `/` or `\` inside the wildcard is refused. */
function paramsFrom(keys: readonly string[], m: RegExpExecArray): Record<string, string> {
  const params: Record<string, string> = {};
  keys.forEach((key, i) => {
    const segments = (m[i + 1] ?? '')
      .split('/')
      .filter((s) => s !== '')
      .map((segment) => {
        let decoded: string;
        try {
          decoded = decodeURIComponent(segment);
        } catch {
          throw new AppError('BAD_PATH', 'The path is not valid percent-encoding.');
        }
        if (key === '*' && /[/\\]/.test(decoded))
          throw new AppError('BAD_PATH', 'Encoded slashes are not allowed in a path.');
        return decoded;
      });
    params[key === '*' ? 'path' : key] = segments.join('/');
  });
  return params;
}

export class RouteMatcher {
  private readonly rows: CompiledRow[];
  constructor(routes: readonly RouteDef[]) {
    this.rows = routes.map((def) => {
      const { keys, pattern } = parsePattern(def.path);
      // dotAll: a decoded name may hold CR/LF (made on the host), and `*` must still match it.
      return { def, keys, pattern: new RegExp(pattern.source, pattern.flags + 's') };
    });
  }
  private findRow(method: string, path: string): CompiledRow | undefined {
    const want = method.toUpperCase();
    const candidates = this.rows.filter((r) => r.pattern.test(path) || r.pattern.test(path + '/'));
    return (
      candidates.find((r) => r.def.method === want) ??
      (want === 'HEAD' ? candidates.find((r) => r.def.method === 'GET') : undefined)
    );
  }
  /** The row for this method and normalised path (HEAD falls back to GET). */
  find(method: string, path: string): RouteDef | undefined {
    return this.findRow(method, path)?.def;
  }
  /**
   * The one match of a request: the row for the normalised path (what the guard judges) and,
   * when the raw path spells that row exactly (letter case, single slashes, separators not
   * encoded), the parameters read from the raw path. Any other
   * spelling is judged by the guard and then answers 404/405, as it always did.
   */
  match(
    method: string,
    normalisedPath: string,
    rawPath: string,
  ): { row: RouteDef | undefined; dispatch: RouteMatch | undefined } {
    const r = this.findRow(method, normalisedPath);
    const m = r?.pattern.exec(rawPath);
    if (!r || !m) return { row: r?.def, dispatch: undefined };
    return { row: r.def, dispatch: { row: r.def, readParams: () => paramsFrom(r.keys, m) } };
  }
  /** Methods mounted for a path (for 405 answers). */
  methodsFor(path: string): string[] {
    return [
      ...new Set(this.rows.filter((r) => r.pattern.test(path) || r.pattern.test(path + '/')).map((r) => r.def.method)),
    ];
  }
}

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
  pathname: string,
  ip: string,
  matcher: RouteMatcher,
  auth: Authenticator,
  origin: OriginPolicy,
): { caller: Caller | null; row: RouteDef | undefined; dispatch: RouteMatch | undefined } {
  const method = (req.method ?? 'GET').toUpperCase();
  const path = normaliseGuardPath(pathname);
  const { row, dispatch } = matcher.match(method, path, pathname);
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
