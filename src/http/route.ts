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
//   `public` and `link` rows get `Caller | null`. Never write `caller!` or `params.x!`. A `link`
//   row's path has `:token`: the link is held before the handler runs (its password cookie,
//   expiry and users list checked; see http/link.ts) and the handler gets it as `link` (the
//   link's own caller and its share), typed by the capability that holds links.
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
// - The row is also the UI's contract: route() answers a TypedRoute (below) that keeps the row's
//   literal method and path and, as types only, what a client sends and reads. A route group
//   function returns its rows unannotated (`export function fooRoutes(deps) { return [route(…)] }`,
//   not `: RouteDef[]`, which would forget them) and is listed in src/contract.ts; the UI
//   calls `api('GET /api/foo/:id', { params, query, body })` (ui/src/api/client.ts) and reads the
//   2xx schema's output. test/types/contract.ts pins these compile-time claims.
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

/**
 * What a `link` row's handler gets as `link`. The capability that holds links declares it
 * (src/shares/holder.ts augments this interface with `held`), so http/ names no share type.
 */
export interface LinkTypes {}
/** A held link: the holder's caller and the link's share. */
export type HeldLink = LinkTypes extends { held: infer H } ? H : never;
/** The link a handler gets: held for `link` rows, nothing for the others. */
export type LinkFor<A extends Access> = A extends 'link' ? HeldLink : undefined;

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
  /** A whole text file in JSON: compressed when large and accepted, 304 for its ETag (http/send.ts). */
  readonly whole: boolean;
  constructor(status: S, body: B, headers: Record<string, string | number | string[]> = {}, whole = false) {
    this.status = status;
    this.body = body;
    this.headers = headers;
    this.whole = whole;
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
/**
 * A JSON answer carrying a whole text file (the editor's `{ content }`, a version's or a trashed
 * file's text), checked against the row's 200 schema like any answer: never cached without
 * asking, compressed over 32 KB when the client accepts it, and answered 304 when the client's
 * copy has `etag` (http/send.ts sendWholeReply).
 */
export function wholeText<const B>(body: B, etag?: string): Reply<200, B> {
  const headers: Record<string, string> = etag
    ? { ETag: etag, 'Cache-Control': 'private, no-cache' }
    : { 'Cache-Control': 'private, no-cache' };
  return new Reply(200, body, headers, true);
}

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
  /** The link a `link` row holds (http/link.ts), resolved once before the handler. */
  readonly link: LinkFor<A>;
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
  /** Headers every answer of the row carries, its errors included (TUS: Tus-Resumable). */
  headers?: Readonly<Record<string, string>>;
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
export interface RowInput<
  M extends Method,
  Path extends string,
  A extends Access,
  P,
  Q,
  B,
  R extends Responses,
  T,
  QI = unknown,
  BI = unknown,
> extends Omit<RouteDef<Path, A, P, Q, B, R>, 'handler' | 'method' | 'query' | 'body'> {
  method: M;
  query?: z.ZodType<Q, QI>;
  body?: z.ZodType<B, BI> | 'stream';
  handler(ctx: RouteContext<A, P, Q, B>): T | Promise<T>;
}

/** A `link` row's path names the link: `:token`. */
type LinkPath<Path extends string, A extends Access> = A extends 'link'
  ? 'token' extends PathParamNames<Path>
    ? unknown
    : { path: { 'a link row names its link': ':token' } }
  : unknown;

/** A `params` schema may only name parameters the path has. */
type DeclaredParams<Path extends string, P> = [Exclude<keyof P, PathParamNames<Path>>] extends [never]
  ? unknown
  : { params: { 'not a parameter of the path': Exclude<keyof P, PathParamNames<Path>> } };

/**
 * Identity helper: infers the row's types from the row itself, so the handler's caller, params,
 * query, body and answer are checked against the row's own access and schemas. The row it
 * answers keeps those types (a TypedRoute) for src/contract.ts and the UI's client.
 */
export function route<
  const M extends Method,
  const Path extends string,
  A extends Access,
  const R extends Responses,
  P = Record<PathParamNames<Path>, string>,
  Q = any,
  B = any,
  // const: an inline 'ok' stays 'ok' (TypeScript would widen it to string before comparing).
  const T extends Answer<R> = Answer<R>,
  QI = never,
  BI = never,
  // The body as written, to tell 'stream' from a schema.
  const BD = undefined,
>(
  def: RowInput<M, Path, A, P, Q, B, R, T, QI, BI> & DeclaredParams<Path, P> & LinkPath<Path, A> & { body?: BD },
): TypedRoute<M, Path, A, R, QI, BD extends 'stream' ? StreamBody : BI> {
  return def as unknown as TypedRoute<M, Path, A, R, QI, BD extends 'stream' ? StreamBody : BI>;
}

/** What a client sends to a row that reads the request itself (`body: 'stream'`): bytes or a form. */
export type StreamBody = Blob | FormData | ArrayBuffer | Uint8Array | string;

// ---- The contract: what a client may send to a row and what it reads back -------------------
//
// route() answers a TypedRoute: a RouteDef (so the server mounts and describes it as any row)
// whose method, path and access keep their literal types, and which carries, as types only
// (nothing at run time), what a client sends and reads: the query and body schemas' *input*
// (defaults may be left out) and the declared answers. src/contract.ts unions every route
// group's rows into one table (`ApiRoutes`); the UI's client (ui/src/api/client.ts) reads a
// row's types through the helpers below, so a changed row fails to compile in the UI.
// test/types/contract.ts pins these claims with @ts-expect-error rows.

declare const clientTypes: unique symbol;

/** A row with its literal method, path and access and its client-side types. */
export interface TypedRoute<
  M extends Method = Method,
  Path extends string = string,
  A extends Access = Access,
  R extends Responses = Responses,
  QI = unknown,
  BI = unknown,
> extends RouteDef {
  readonly method: M;
  readonly path: Path;
  readonly access: A;
  /** Types only, never set: the query and body a client sends and the answers it reads. */
  readonly [clientTypes]?: { query: QI; body: BI; responses: R };
}

/** The path parameters a client fills in (the wildcard `*` is `path`, a slash-separated path). */
export type ClientParams<Row> =
  Row extends TypedRoute<Method, infer Path> ? Record<PathParamNames<Path>, string> : never;
/** A value a query string carries (a schema that coerces takes any of them). */
export type QueryValue = string | number | boolean;
/**
 * The query a client sends: the row's query schema's input (never when the row reads no query);
 * a field the schema coerces (input unknown) takes a string, a number or a boolean.
 */
export type ClientQuery<Row> = Row extends { readonly [clientTypes]?: { query: infer QI } }
  ? [QI] extends [never]
    ? never
    : { [K in keyof QI]: unknown extends QI[K] ? QueryValue : QI[K] }
  : never;
/**
 * The body a client sends: the body schema's input (defaults may be left out); a row that reads
 * the request itself (`body: 'stream'`) takes raw bytes or a form; never when the row has no body.
 */
export type ClientBody<Row> = Row extends { readonly [clientTypes]?: { body: infer BI } } ? BI : never;

type ResponsesOf<Row> = Row extends { readonly [clientTypes]?: { responses: infer R } } ? R : never;
/** A 2xx answer in JSON: a schema and no content type, or application/json. */
type ClientJsonOf<T> = T extends { schema: infer Z extends z.ZodType }
  ? T extends { contentType: infer C }
    ? C extends 'application/json'
      ? z.output<Z>
      : never
    : z.output<Z>
  : never;
/**
 * What a client reads from a 2xx answer: the output of the JSON schema of each 2xx (the server
 * serialises it, so it is also what arrives); 204 reads as undefined; a 2xx in prose only reads
 * as unknown. A row that answers 304 still types its 2xx: the browser turns a 304 of its own
 * cache into the cached 200 unless the caller sent If-None-Match itself.
 */
export type ClientAnswer<Row> = {
  [S in keyof ResponsesOf<Row> & number]: Is2xx<S> extends true
    ? S extends 204
      ? undefined
      : ResponsesOf<Row>[S] extends string
        ? unknown
        : [ClientJsonOf<ResponsesOf<Row>[S]>] extends [never]
          ? ResponsesOf<Row>[S] extends { contentType: string }
            ? never
            : unknown
          : ClientJsonOf<ResponsesOf<Row>[S]>
    : never;
}[keyof ResponsesOf<Row> & number];
/** A row whose 2xx answers are bytes (a file, a zip, NDJSON, TUS): a client reads the Response itself. */
export type IsRawRow<Row> = [ClientAnswer<Row>] extends [never] ? true : false;

export function effectiveScope(def: Pick<RouteDef, 'method' | 'scope'>): Scope {
  return def.scope ?? (def.method === 'GET' || def.method === 'HEAD' ? 'read' : 'write');
}
