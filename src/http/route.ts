// Routes are data: one row declares method, path, access, input schemas, responses and the
// handler. http/server.ts mounts the rows and http/openapi.ts describes the same rows, so a
// route cannot be mounted without being described, or described without being mounted.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { Caller, Scope } from '../core/caller.ts';
import type { Logger } from '../core/log.ts';

// Moved to src/core/caller.ts; re-exported until the folders named in src/http/errors.ts import from core.
export type { Caller, Scope };

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/**
 * public: no credential needed (a signed-in caller is still recognised);
 * link: a share-link holder (public as far as credentials go; the share decides);
 * session: session cookie only (tokens refused); account: session or API token;
 * admin: administrator, session only.
 */
export type Access = 'public' | 'link' | 'session' | 'account' | 'admin';

export interface ResponseSpec {
  description: string;
  /** JSON schema of the body (zod); absent = not described further. */
  schema?: z.ZodType;
  /** Content type when not JSON (e.g. application/octet-stream, application/x-ndjson). */
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RouteContext<Q = any, B = any> {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Path parameters, percent-decoded; a wildcard `*` arrives as `params.path`. */
  readonly params: Record<string, string>;
  readonly query: Q;
  readonly body: B;
  /** Null only on public/link routes called without a credential. */
  readonly caller: Caller | null;
  readonly requestId: string;
  /** Client address after TRUST_PROXY. */
  readonly ip: string;
  readonly log: Logger;
}

export interface RouteDef<Q = any, B = any> {
  method: Method;
  /** polka pattern: `/api/shares/:id`, `/api/browse/*` (the wildcard becomes `params.path`). */
  path: string;
  access: Access;
  /** Token scope the route needs; default read for GET/HEAD, write otherwise. */
  scope?: Scope;
  summary: string;
  description?: string;
  tags: string[];
  query?: z.ZodType<Q>;
  /** A zod schema for a JSON body, or 'stream' when the handler reads the request itself. */
  body?: z.ZodType<B> | 'stream';
  /** Largest JSON body in bytes (default JSON_BODY_LIMIT). */
  bodyLimit?: number;
  /** Status of a successful JSON answer (default 200). */
  status?: number;
  responses: Record<number, ResponseSpec | string>;
  /** Not listed in the OpenAPI description's operation list (never set for /api routes). */
  handler(ctx: RouteContext<Q, B>): unknown | Promise<unknown>;
}

/** Identity helper so a route row is type-checked against its own schemas. */
export function route<Q = any, B = any>(def: RouteDef<Q, B>): RouteDef<Q, B> {
  return def;
}

/** An answer with an explicit status, headers or a non-JSON body. */
export class Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string | number | string[]>;
  constructor(status: number, body?: unknown, headers: Record<string, string | number | string[]> = {}) {
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export const reply = (status: number, body?: unknown, headers?: Record<string, string | number | string[]>) => new Reply(status, body, headers);
export const noContent = () => new Reply(204);

export function effectiveScope(def: Pick<RouteDef, 'method' | 'scope'>): Scope {
  return def.scope ?? (def.method === 'GET' || def.method === 'HEAD' ? 'read' : 'write');
}
