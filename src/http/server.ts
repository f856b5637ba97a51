// The HTTP server: request id, security headers, the guard, route rows → handlers, the error
// envelope, 404/405 for unknown API paths, and the embedded UI (sirv) behind everything else.
// Each request is matched once: the guard's match gives the row it judged and the parameters
// the handler gets, so what is checked and what runs cannot differ.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AppError, fromFsError, errorEnvelope } from '../core/errors.ts';
import { readJsonBody } from './body.ts';
import { readQuery, type QueryPathProbe } from './query.ts';
import { clientAddress, peerAddress, type TrustRule } from './address.ts';
import { guardRequest, type Authenticator } from './guard.ts';
import { readPath, rawPathname } from './path.ts';
import { RouteMatcher, type RouteMatch } from './router.ts';
import { endRefusal, refuseBody } from './linger.ts';
import { nextArrival, requestContext, type Logger } from '../core/log.ts';
import { Reply, type RouteDef } from './route.ts';
import type { Duplex } from 'node:stream';
import type { Caller } from '../core/caller.ts';
import { isClientGone, prepareJson, sendJson, sendWholeReply } from './send.ts';
import { answeredNames, assertKnownHost, type HostPolicy } from './origin.ts';
import { prepareErrorPage, wantsErrorPage } from './error-page.ts';
import { holdLink, type LinkGate } from './link.ts';
import { isBulkBody } from '../core/load.ts';

export interface HttpOptions {
  routes: readonly RouteDef[];
  auth: Authenticator;
  log: Logger;
  trustProxy: TrustRule;
  /** PUBLIC_URL: pages there may send changes too (besides the address a request was sent to). */
  publicUrl?: string | null;
  /** The host names requests may be addressed to (origin.ts); absent: any (tests of the adapter alone). */
  hosts?: Omit<HostPolicy, 'trustProxy' | 'publicUrl'>;
  jsonBodyLimit: number;
  /** Serves everything that is not an API route (the UI); answers 404 itself when it has nothing. */
  fallback?: (req: IncomingMessage, res: ServerResponse) => void;
  /** Protocols served outside the API (WebDAV): raw requests, their own authentication, no cookie. */
  rawMounts?: readonly RawMount[];
  /** WebSocket endpoints (the terminal): the 'upgrade' requests for exactly `path`; any other upgrade is refused. */
  upgrades?: readonly UpgradeMount[];
  /** Whether a path named in a query exists (http/query.ts: which reading of a raw `+` is meant). */
  queryPaths?: QueryPathProbe;
  /** Holds the link of `access: 'link'` rows (http/link.ts); the shares capability gives it. */
  links?: LinkGate;
  /** Answers a page request that must go to HTTPS instead (http/secure.ts); true when it did. */
  plainNotice?: (req: IncomingMessage, res: ServerResponse, secure: boolean) => boolean;
  /** Told of every request in and out (core/load.ts): background work yields while people wait. */
  load?: { begin(bulk?: boolean): number; end(ticket: number): void };
}

/** Takes over an HTTP upgrade for one path; it authenticates the request itself and answers on the socket. */
export interface UpgradeMount {
  path: string;
  handle(req: IncomingMessage, socket: Duplex, head: Buffer, ctx: { requestId: string; ip: string }): void;
}

/** A path prefix whose requests are handed over untouched: no guard, no JSON, no body limit, no session. */
export interface RawMount {
  /** `/dav/`: the mount takes `/dav` and everything under `/dav/` (as sent, case-sensitive). */
  prefix: string;
  handle(req: IncomingMessage, res: ServerResponse, ctx: { requestId: string; ip: string; secure: boolean }): void;
  /** Requests to `/` with these methods are the mount's too (Windows' WebClient probes the root). */
  rootMethods?: readonly string[];
}

function rawMountFor(mounts: readonly RawMount[], pathname: string, method: string | undefined): RawMount | undefined {
  return mounts.find(
    (m) =>
      pathname === m.prefix.slice(0, -1) ||
      pathname.startsWith(m.prefix) ||
      (pathname === '/' && m.rootMethods?.includes(method ?? '')),
  );
}

/** Sent over TLS, here or (as a trusted proxy says) before it. */
function isSecure(req: IncomingMessage, trustProxy: TrustRule): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted) return true;
  const proto = req.headers['x-forwarded-proto'];
  return (
    trustProxy.trusts(peerAddress(req)) &&
    (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase() === 'https'
  );
}

export interface RequestState {
  requestId: string;
  ip: string;
  caller: Caller | null;
  /** The client went away and that was logged (once, at debug). */
  gone?: boolean;
}

const state = new WeakMap<IncomingMessage, RequestState>();

/** The request's id, address and caller, as decided by the guard. */
export function requestState(req: IncomingMessage): RequestState {
  const s = state.get(req);
  if (!s) throw new Error('request state read before the guard ran');
  return s;
}

const SECURITY_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "frame-ancestors 'self'",
  'X-Frame-Options': 'SAMEORIGIN',
  'Referrer-Policy': 'same-origin',
};

function isApiPath(pathname: string): boolean {
  return /^\/api(\/|$)/i.test(pathname);
}

function zodMessage(error: z.ZodError, where: 'body' | 'query' | 'path parameter'): string {
  const issue = error.issues[0]!;
  const field = issue.path.length ? issue.path.join('.') : where;
  return `Invalid ${where}: ${field}: ${issue.message}`;
}

/** Method and path (never the query string, which may carry a secret) for log lines. */
function requestFields(req: IncomingMessage | undefined): Record<string, unknown> {
  return req ? { method: req.method, path: rawPathname(req) } : {};
}

/** Notes once, at debug, that the client left before its answer was complete. */
function noteGone(req: IncomingMessage | undefined, log: Logger, fields: Record<string, unknown>): void {
  const s = req ? state.get(req) : undefined;
  if (s?.gone) return;
  if (s) s.gone = true;
  log.debug('client went away before the answer was complete', { ...requestFields(req), ...fields });
}

/**
 * Every error answer goes through here: the envelope, and a log line carrying the requestId
 * (info for refusals, warn/error for the server's own failures). Never throws.
 */
export function sendError(res: ServerResponse, err: unknown, requestId: string, log: Logger): void {
  try {
    const req = res.req as IncomingMessage | undefined;
    if (isClientGone(err, res))
      return noteGone(req, log, { requestId, code: (err as NodeJS.ErrnoException | null)?.code });
    let appError = err instanceof AppError ? err : fromFsError(err);
    const fields = { requestId, ...requestFields(req) };
    if (!appError) {
      log.error('unhandled error', { ...fields, status: 500, err });
      appError = new AppError('INTERNAL');
    } else if (appError.status >= 500) {
      log.warn('request failed', {
        ...fields,
        status: appError.status,
        code: appError.code,
        err: err instanceof Error ? err : undefined,
      });
    } else {
      log.info('request refused', { ...fields, status: appError.status, code: appError.code });
    }
    if (res.headersSent) {
      // A streamed answer already started: all we can do is cut it so the client sees a failure.
      res.destroy();
      return;
    }
    // The body may still be arriving: read it away so the client can read this answer.
    if (req) refuseBody(req, res);
    for (const [k, v] of Object.entries(appError.headers)) res.setHeader(k, v);
    endRefusal(
      req,
      res,
      wantsErrorPage(req)
        ? prepareErrorPage(res, appError.status, appError.message, requestId)
        : prepareJson(
            res,
            appError.status,
            errorEnvelope(appError.status, appError.message, requestId, appError.code, appError.details),
          ),
    );
  } catch (failure) {
    log.error('an error answer could not be sent', { requestId, err: failure });
    res.destroy();
  }
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** A JSON row takes only application/json (a form cannot send it across sites); an empty body is fine. */
function assertJsonBody(req: IncomingMessage): void {
  const length = req.headers['content-length'];
  const empty = req.headers['transfer-encoding'] === undefined && (length === undefined || Number(length) === 0);
  if (empty || JSON_TYPE.test(req.headers['content-type'] ?? '')) return;
  throw new AppError(
    'UNSUPPORTED_MEDIA_TYPE',
    `Send the body as JSON with Content-Type: application/json (it came as ${req.headers['content-type'] ? JSON.stringify(req.headers['content-type']) : 'no Content-Type'}).`,
  );
}

async function runRoute(
  match: RouteMatch,
  req: IncomingMessage,
  res: ServerResponse,
  opts: HttpOptions,
): Promise<void> {
  const { requestId, ip, caller } = requestState(req);
  const def = match.row;
  for (const [k, v] of Object.entries(def.headers ?? {})) res.setHeader(k, v);
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const rawParams = match.readParams();
  let params: unknown = rawParams;
  if (def.params) {
    const parsed = def.params.safeParse(params);
    if (!parsed.success) throw new AppError('INVALID_PARAMS', zodMessage(parsed.error, 'path parameter'));
    params = parsed.data;
  }
  let query: unknown = {};
  if (def.query) {
    const read = await readQuery(q < 0 ? '' : url.slice(q), def.query, opts.queryPaths, {
      caller,
      req,
      params: rawParams,
    });
    const parsed = def.query.safeParse(read);
    if (!parsed.success) throw new AppError('INVALID_QUERY', zodMessage(parsed.error, 'query'));
    query = parsed.data;
  }
  let body: unknown;
  if (def.body && def.body !== 'stream') {
    assertJsonBody(req);
    const parsed = def.body.safeParse(await readJsonBody(req, def.bodyLimit ?? opts.jsonBodyLimit));
    if (!parsed.success) throw new AppError('INVALID_BODY', zodMessage(parsed.error, 'body'));
    body = parsed.data;
  }
  const link = def.access === 'link' ? holdLink(opts.links, params as { token?: unknown }, req, caller, ip) : undefined;
  const result = await def.handler({ req, res, params, query, body, caller, link, requestId, ip, log: opts.log });
  if (res.headersSent || res.writableEnded) return;
  if (result instanceof Reply) {
    if (result.whole) return sendWholeReply(req, res, result);
    for (const [k, v] of Object.entries(result.headers)) res.setHeader(k, v);
    if (result.body === undefined || result.status === 204 || result.status === 304) {
      res.statusCode = result.status;
      res.end();
    } else if (Buffer.isBuffer(result.body) || typeof result.body === 'string') {
      res.statusCode = result.status;
      res.end(req.method === 'HEAD' ? undefined : result.body);
    } else {
      sendJson(res, result.status, result.body);
    }
    return;
  }
  if (result === undefined) {
    res.statusCode = 204;
    res.end();
    return;
  }
  sendJson(res, def.status ?? 200, result);
}

export function createHttpServer(opts: HttpOptions): http.Server {
  // The route table is whole when the server is made (app.ts): compiled once, here.
  const matcher = new RouteMatcher(opts.routes);

  /**
   * No row for this method and spelling: 405 with Allow on a row's path (under /api or outside
   * it, as `POST /licenses.txt`), else the UI outside /api, or 404.
   */
  function noMatch(req: IncomingMessage, res: ServerResponse): void {
    const pathname = rawPathname(req);
    const allowed = matcher.methodsFor(pathname.toLowerCase());
    if (allowed.length > 0) {
      res.setHeader('Allow', allowed.join(', '));
      throw new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; allowed: ${allowed.join(', ')}.`);
    }
    if (!isApiPath(pathname)) {
      if (opts.fallback) return opts.fallback(req, res);
      throw new AppError('NOT_FOUND');
    }
    throw new AppError('NOT_FOUND', 'No such API route.');
  }

  const hostPolicy: HostPolicy | null = opts.hosts
    ? { ...opts.hosts, trustProxy: opts.trustProxy, publicUrl: opts.publicUrl ?? null }
    : null;
  /** Names are read again every few seconds (this computer's name may change; an announcer may add one). */
  let names: { set: Set<string>; at: number } | null = null;
  function checkHost(req: IncomingMessage): void {
    if (!hostPolicy) return;
    if (!names || performance.now() - names.at > 5000)
      names = { set: answeredNames(hostPolicy), at: performance.now() };
    assertKnownHost(req, hostPolicy, names.set);
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const requestId = randomBytes(9).toString('base64url');
    res.setHeader('X-Request-Id', requestId);
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    const ip = clientAddress(req, opts.trustProxy);
    const s: RequestState = { requestId, ip, caller: null };
    state.set(req, s);
    const started = performance.now();
    const load = opts.load;
    if (load) {
      const ticket = load.begin(isBulkBody(req.headers));
      res.once('close', () => load.end(ticket));
    }
    res.on('finish', () => {
      requestContext.run({ requestId }, () =>
        opts.log.debug('request', {
          method: req.method,
          path: rawPathname(req),
          status: res.statusCode,
          ms: Math.round(performance.now() - started),
          ip,
        }),
      );
    });
    // A write to a socket the client closed must fail that answer only, never the process.
    res.on('error', (err) => noteGone(req, opts.log, { requestId, code: (err as NodeJS.ErrnoException).code }));
    res.on('close', () => {
      if (!res.writableFinished) noteGone(req, opts.log, { requestId, status: res.statusCode });
    });
    requestContext.run({ requestId, arrival: nextArrival() }, () => {
      try {
        checkHost(req);
        const secure = isSecure(req, opts.trustProxy);
        if (opts.plainNotice?.(req, res, secure)) return;
        const pathname = rawPathname(req);
        const raw = rawMountFor(opts.rawMounts ?? [], pathname, req.method);
        if (raw) return raw.handle(req, res, { requestId, ip, secure });
        // Judged on the normalised spelling too, so `//api//…` or `/api%2F…` cannot slip past the
        // guard; rows outside /api (probes, protocol endpoints) are guarded too, in any spelling.
        const path = readPath(pathname);
        let dispatch: RouteMatch | undefined;
        if (isApiPath(pathname) || isApiPath(path.normalised) || matcher.methodsFor(path.normalised).length > 0) {
          const guarded = guardRequest(req, path, ip, matcher, opts.auth, {
            trustProxy: opts.trustProxy,
            publicUrl: opts.publicUrl ?? null,
          });
          s.caller = guarded.caller && { ...guarded.caller, address: ip };
          dispatch = guarded.dispatch;
          const renewal = opts.auth.renewal?.(req);
          if (renewal) res.appendHeader('Set-Cookie', renewal);
        }
        if (!dispatch) return noMatch(req, res);
        runRoute(dispatch, req, res, opts).catch((err) => sendError(res, err, requestId, opts.log));
      } catch (err) {
        sendError(res, err, requestId, opts.log);
      }
    });
  }

  const server = http.createServer(handle);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const requestId = randomBytes(9).toString('base64url');
    socket.on('error', () => socket.destroy());
    const refuse = (status: string) =>
      socket.end(`HTTP/1.1 ${status}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    try {
      checkHost(req);
    } catch {
      return refuse('421 Misdirected Request');
    }
    const mount = opts.upgrades?.find((m) => m.path === rawPathname(req));
    if (!mount) return refuse('404 Not Found');
    requestContext.run({ requestId }, () => {
      try {
        mount.handle(req, socket, head, { requestId, ip: clientAddress(req, opts.trustProxy) });
      } catch (err) {
        opts.log.error('upgrade failed', { requestId, err });
        socket.destroy();
      }
    });
  });
  server.headersTimeout = 60_000;
  server.requestTimeout = 0; // uploads may take hours; idle sockets are bounded by keepAliveTimeout
  server.keepAliveTimeout = 65_000;
  return server;
}

/**
 * Stops `server` taking connections and resolves once every request in flight is answered (or
 * after `graceMs`, when what is left is cut). A connection whose request ends after the close
 * began is kept alive by its client, and `server.close()` would wait the keep-alive timeout for
 * it (5 s): idle connections are closed as they become idle, every 100 ms.
 */
export function closeServer(
  server: Pick<http.Server, 'close' | 'closeIdleConnections' | 'closeAllConnections'>,
  graceMs: number,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    const done = () => {
      clearInterval(sweep);
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      server.closeAllConnections();
      done();
    }, graceMs);
    timer.unref();
    sweep.unref();
    server.close(done);
    server.closeIdleConnections();
  });
}
