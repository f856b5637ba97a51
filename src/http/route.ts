// Routes are data: one row declares method, path, access, input schemas, answers and the
// handler. http/server.ts mounts the rows and http/openapi.ts describes the same rows, so a
// route cannot be mounted without being described, or described without being mounted.
//
// HOW TO WRITE A ROW (read this, then copy the example)
// - Wrap it in `route({...})`: the identity helper that infers the types below from the row.
// - `path` is a route pattern (regexparam); `:id` and a trailing `*` (which arrives as `params.path`) are
//   parameters. Give every path parameter a schema in `params` (a z.object with one key per
//   parameter; the wildcard is `path`). Parameters arrive percent-decoded and are validated;
//   a bad one answers 400 INVALID_PARAMS. `query` and `body` work the same way (400
//   INVALID_QUERY / INVALID_BODY); `body: 'stream'` when the handler reads the request itself.
// - `access` decides the caller's type: `account`, `session` and `admin` rows get a `Caller`;
//   `public` and `link` rows get `Caller | null`. Never write `caller!` or `params.x!`.
// - `responses` lists every status the handler produces. A JSON success gives `schema` (put it
//   in the capability's wire.ts and export its z.infer type there); the handler's plain return
//   is then checked against it at compile time, and so is the body of any `reply(status, body)`
//   for a status with a schema. `status` on the row is the status of a plain return (default 200).
// - Not JSON: give `contentType` (a stream, a file, NDJSON; the handler writes `res` itself, or
//   returns `reply(status, buffer)`); no body: declare 204 and return `noContent()`. Progress
//   streams use `openEventStream(res)` (http/ndjson.ts, contentType application/x-ndjson);
//   answers with an ETag use `isNotModified(req, { etag })` (http/conditional.ts) for 304.
// - Request headers the row reads (If-Match, …): name them in `requestHeaders` with what they
//   do; the handler reads `req.headers` and passes the value into the service.
// - Errors: throw `new AppError('CODE', message?)` with a code from src/core/errors.ts; list the
//   refusals in `responses` as prose (the error envelope is described once for all rows).
// - The handler is one line into a service: no SQL, no loops over the file system here.
// - Types: the handler's answer is inferred as written and must fit a declared answer. Two
//   TypeScript corners: a literal inside a callback (`.map((s) => ({ kind: 'volume' }))`) widens
//   to string — write `'volume' as const` or type the service's result; an empty literal array
//   (`items: []`) reads as readonly — write `[] as Item[]`. Rows whose 2xx is prose only are not
//   checked (and are listed in test/api/openapi.test.ts until converted).
//
//   route({
//     method: 'PATCH', path: '/api/auth/tokens/:id', access: 'session', tags: ['API tokens'],
//     summary: 'Rename an API token',
//     params: z.object({ id: tokenId }), body: z.object({ name }),
//     responses: { 200: { description: 'The token', schema: z.object({ token: wireToken }) }, 404: 'No such token' },
//     handler: ({ caller, params, body, ip }) => ({ token: tokens.rename(caller.userId, params.id, body.name, ip) }),
//   }),
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { Caller, Scope } from '../core/caller.ts';
import type { Logger } from '../core/log.ts';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/**
 * public: no credential needed (a signed-in caller is still recognised);
 * link: a share-link holder (public as far as credentials go; the share decides);
 * session: session cookie only (tokens refused); account: session or API token;
 * admin: administrator, session only;
 * callback: a server-to-server call authorised only by the row's own token (WOPI, ONLYOFFICE):
 * no cookie is read, a bearer header is the protocol's and not an API token, no Origin check
 * (nothing ambient is trusted, so a cross-site request gains nothing).
 */
export type Access = 'public' | 'link' | 'session' | 'account' | 'admin' | 'callback';

/** The caller a handler gets: the guard has already refused anonymous requests to the other rows. */
export type CallerFor<A extends Access> = A extends 'callback'
  ? null
  : A extends 'public' | 'link'
    ? Caller | null
    : Caller;

/** The parameter names of a route pattern: `:id` → `id`, a trailing `*` → `path`. */
export type PathParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? (Name extends `${infer N}?` ? N : Name) | PathParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name extends `${infer N}?`
      ? N
      : Name
    : P extends `${string}*`
      ? 'path'
      : never;

export interface ResponseSpec {
  description: string;
  /** Zod schema of the body (JSON, or the given contentType's structure); absent = prose only. */
  schema?: z.ZodType;
  /** Content type when not JSON (e.g. application/octet-stream, application/x-ndjson). */
  contentType?: string;
  headers?: Record<string, string>;
}

export type Responses = Record<number, ResponseSpec | string>;

/** An answer with an explicit status, headers or a non-JSON body. */
export class Reply<S extends number = number, B = unknown> {
  readonly status: S;
  readonly body: B;
  readonly headers: Record<string, string | number | string[]>;
  constructor(status: S, body: B, headers: Record<string, string | number | string[]> = {}) {
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export function reply<S extends number>(status: S): Reply<S, undefined>;
export function reply<S extends number, const B>(
  status: S,
  body: B,
  headers?: Record<string, string | number | string[]>,
): Reply<S, B>;
export function reply(status: number, body?: unknown, headers?: Record<string, string | number | string[]>): Reply {
  return new Reply(status, body, headers);
}
export const noContent = (headers?: Record<string, string | number | string[]>) => new Reply(204, undefined, headers);

declare const jsonOf: unique symbol;
/** JSON already serialised (a listing kept with its ETag); T is the shape it was made from. */
export type JsonText<T> = string & { readonly [jsonOf]: T };
/** Marks text the service serialised from a value of the answer's shape. */
export const jsonText = <T>(text: string) => text as JsonText<T>;

type Is2xx<S> = `${S & number}` extends `2${string}` ? true : false;
/** A declared JSON answer: a schema and no other content type. */
type JsonSchemaOf<T> = T extends { schema: infer Z extends z.ZodType; contentType?: undefined } ? Z : never;
type HasContentType<T> = T extends { contentType: string } ? true : false;

/** Every Reply the row may give: typed bodies where a JSON schema is declared. */
type RepliesOf<R> = {
  [S in keyof R & number]: [JsonSchemaOf<R[S]>] extends [never]
    ? Reply<S, unknown>
    : Reply<S, z.output<JsonSchemaOf<R[S]>> | JsonText<z.output<JsonSchemaOf<R[S]>>>>;
}[keyof R & number];

/** Old rows (a 2xx described in prose only) are not checked; route-coverage lists them. */
type Unchecked<R> = true extends {
  [S in keyof R & number]: Is2xx<S> extends true
    ? [JsonSchemaOf<R[S]>] extends [never]
      ? HasContentType<R[S]> extends true
        ? false
        : S extends 204
          ? false
          : true
      : false
    : false;
}[keyof R & number]
  ? true
  : false;

/** A plain (non-Reply) return is the body of the row's `status` (one of its JSON 2xx answers). */
type PlainOf<R> = { [S in keyof R & number]: Is2xx<S> extends true ? z.output<JsonSchemaOf<R[S]>> : never }[keyof R &
  number];

/** A row that declares 204, or a non-JSON 2xx, may write or end the answer itself and return nothing. */
type NothingOf<R> = true extends {
  [S in keyof R & number]: Is2xx<S> extends true ? (S extends 204 ? true : HasContentType<R[S]>) : false;
}[keyof R & number]
  ? void
  : never;

/** Protocol rows (TUS) answer a computed status without a body when no 2xx is JSON. */
type BodylessOf<R> = true extends {
  [S in keyof R & number]: Is2xx<S> extends true ? ([JsonSchemaOf<R[S]>] extends [never] ? false : true) : false;
}[keyof R & number]
  ? never
  : Reply<number, undefined>;

export type Answer<R> = Unchecked<R> extends true ? unknown : PlainOf<R> | RepliesOf<R> | NothingOf<R> | BodylessOf<R>;

export interface RouteContext<A extends Access = Access, P = Record<string, string>, Q = any, B = any> {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Path parameters, percent-decoded (and validated when the row has a `params` schema). */
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  readonly caller: CallerFor<A>;
  readonly requestId: string;
  /** Client address after TRUST_PROXY. */
  readonly ip: string;
  readonly log: Logger;
}

export interface RouteDef<
  Path extends string = string,
  A extends Access = Access,
  P = any,
  Q = any,
  B = any,
  R extends Responses = Responses,
> {
  method: Method;
  /** regexparam pattern: `/api/shares/:id`, `/api/browse/*` (the wildcard becomes `params.path`). */
  path: Path;
  access: A;
  /** Token scope the route needs; default read for GET/HEAD, write otherwise. */
  scope?: Scope;
  summary: string;
  description?: string;
  tags: string[];
  /** One key per path parameter (the wildcard is `path`); the raw values are strings. */
  params?: z.ZodType<P, Record<PathParamNames<Path>, string>>;
  query?: z.ZodType<Q>;
  /** Request headers the row reads, each with what it does (described as header parameters). */
  requestHeaders?: Record<string, string>;
  /** A zod schema for a JSON body, or 'stream' when the handler reads the request itself. */
  body?: z.ZodType<B> | 'stream';
  /** Largest JSON body in bytes (default JSON_BODY_LIMIT). */
  bodyLimit?: number;
  /** Status of a plain (non-Reply) answer (default 200). */
  status?: number;
  responses: R;
  handler(ctx: RouteContext<A, P, Q, B>): Answer<R> | Promise<Answer<R>>;
}

/** A row as written: the handler's answer T is inferred (literals kept) and must fit the row's answers. */
export interface RowInput<Path extends string, A extends Access, P, Q, B, R extends Responses, T> extends Omit<
  RouteDef<Path, A, P, Q, B, R>,
  'handler'
> {
  handler(ctx: RouteContext<A, P, Q, B>): T | Promise<T>;
}

/**
 * Identity helper: infers the row's types from the row itself, so the handler's caller, params,
 * query, body and answer are checked against the row's own access and schemas.
 */
export function route<
  const Path extends string,
  A extends Access,
  R extends Responses,
  P = Record<PathParamNames<Path>, string>,
  Q = any,
  B = any,
  // const: an inline 'ok' stays 'ok' (TypeScript would widen it to string before comparing).
  const T extends Answer<R> = Answer<R>,
>(def: RowInput<Path, A, P, Q, B, R, T>): RouteDef {
  return def as unknown as RouteDef;
}

export function effectiveScope(def: Pick<RouteDef, 'method' | 'scope'>): Scope {
  return def.scope ?? (def.method === 'GET' || def.method === 'HEAD' ? 'read' : 'write');
}
