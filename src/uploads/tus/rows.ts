// The TUS rows, made once for every place an upload can be sent: `/api/upload/tus` (an account's
// uploads) and `/api/share/{token}/tus` (a link's, shares/routes.ts). A family names its creation
// URL, its access and its words (summaries, answers); the rows are the same four — create, the
// offset (HEAD), the bytes (PATCH), cancel (DELETE) — over the one TusService, every answer with
// the TUS headers (errors too: the row's `headers`). With UPLOAD_CHUNKED_ENABLED=false they stay
// mounted and described but answer 404 `UPLOAD_CHUNKED_DISABLED`, so a client learns why.
// The family is told of a file an answer placed as data (`TusAnswer.placed`), never by reading
// the answer's headers back.
import type { Caller } from '../../core/caller.ts';
import {
  reply,
  type Access,
  type Method,
  type Responses,
  type RouteContext,
  type RouteDef,
  type StreamBody,
  type TypedRoute,
} from '../../http/route.ts';
import { TUS_HEADERS, tusError } from './protocol.ts';
import type { TusAnswer, TusService } from './service.ts';

/** What a family's hooks get: the request's context (its caller, or its held link) and its parameters. */
export type TusContext<A extends Access> = RouteContext<A, Record<string, string>>;

/** One row's words: what the description says of it. */
export interface TusRowWords<R extends Responses> {
  summary: string;
  description?: string;
  responses: R;
}

export interface TusFamily<
  P extends string,
  A extends 'account' | 'link',
  RC extends Responses,
  RH extends Responses,
  RP extends Responses,
  RD extends Responses,
> {
  /** The creation URL's pattern; each upload is at `${path}/:id`. */
  path: P;
  access: A;
  tags: string[];
  tus: TusService;
  enabled: boolean;
  /** The parameters of `${path}` and of `${path}/:id` (the upload's id is `id`). */
  params?: RouteDef['params'];
  idParams: NonNullable<RouteDef['params']>;
  /** The caller the upload belongs to (an account, or a link's holder). */
  uploader(ctx: TusContext<A>): Caller;
  /** Creates the upload (a link claims its file request's room around it); answers its id. */
  create?(ctx: TusContext<A>, create: () => Promise<TusAnswer & { id: string }>): Promise<TusAnswer & { id: string }>;
  /** The URL an upload is sent to next, without its id (PUBLIC_URL makes it absolute). */
  uploadUrl(ctx: TusContext<A>): string;
  /** Told of the file an answer placed, or skipped at placing (a link counts it for its owner). */
  placed?(ctx: TusContext<A>, placed: NonNullable<TusAnswer['placed']>): void;
  words: { create: TusRowWords<RC>; head: TusRowWords<RH>; patch: TusRowWords<RP>; terminate: TusRowWords<RD> };
}

/** A TUS answer as a reply: its status and headers, no body; UPLOAD_CHUNKED_DISABLED when off. */
export async function tusAnswer(enabled: boolean, call: () => Promise<TusAnswer>) {
  if (!enabled) throw tusError('UPLOAD_CHUNKED_DISABLED');
  const answer = await call();
  return reply(answer.status, undefined, { ...TUS_HEADERS, ...answer.headers });
}

export function tusRows<
  const P extends string,
  A extends 'account' | 'link',
  const RC extends Responses,
  const RH extends Responses,
  const RP extends Responses,
  const RD extends Responses,
>(f: TusFamily<P, A, RC, RH, RP, RD>) {
  const { tus } = f;
  const common = { access: f.access, tags: f.tags, headers: TUS_HEADERS };
  // Every row: the family's hook told of a placed file, the request's unread body drained (no
  // TUS row but PATCH reads one; creation-with-upload is not offered).
  const run = (ctx: RouteContext, call: () => Promise<TusAnswer>) =>
    tusAnswer(f.enabled, async () => {
      const answer = await call();
      if (answer.placed) f.placed?.(ctx as TusContext<A>, answer.placed);
      ctx.req.resume();
      return answer;
    });
  const own = (ctx: RouteContext) => f.uploader(ctx as TusContext<A>);
  const id = (ctx: RouteContext) => (ctx.params as { id: string }).id;
  const row = (
    method: Method,
    path: string,
    words: TusRowWords<Responses>,
    input: Pick<RouteDef, 'params' | 'body'>,
    handler: RouteDef['handler'],
  ): RouteDef => ({ ...common, method, path, ...input, ...words, handler });
  const stream = 'stream' as const;

  return [
    row('POST', f.path, f.words.create, { body: stream, ...(f.params ? { params: f.params } : {}) }, (ctx) =>
      run(ctx, async () => {
        const make = () => tus.create(own(ctx), ctx.req.headers);
        const created = await (f.create ? f.create(ctx as TusContext<A>, make) : make());
        return {
          ...created,
          headers: { Location: `${f.uploadUrl(ctx as TusContext<A>)}/${created.id}`, ...created.headers },
        };
      }),
    ) as unknown as TypedRoute<'POST', P, A, RC, never, StreamBody>,
    row('HEAD', `${f.path}/:id`, f.words.head, { params: f.idParams }, (ctx) =>
      run(ctx, () => tus.head(own(ctx), id(ctx), ctx.req.headers)),
    ) as unknown as TypedRoute<'HEAD', `${P}/:id`, A, RH, never, never>,
    row('PATCH', `${f.path}/:id`, f.words.patch, { body: stream, params: f.idParams }, (ctx) =>
      run(ctx, () => tus.patch(own(ctx), id(ctx), ctx.req.headers, ctx.req)),
    ) as unknown as TypedRoute<'PATCH', `${P}/:id`, A, RP, never, StreamBody>,
    row('DELETE', `${f.path}/:id`, f.words.terminate, { params: f.idParams }, (ctx) =>
      run(ctx, () => tus.terminate(own(ctx), id(ctx), ctx.req.headers)),
    ) as unknown as TypedRoute<'DELETE', `${P}/:id`, A, RD, never, never>,
  ] as const;
}
