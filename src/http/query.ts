// Query strings as every client writes them — the one place that reads them.
//
// A browser's URLSearchParams, Python's urlencode (what `requests` uses) and curl's
// --data-urlencode send a space as `+` and a plus as `%2B`; encodeURIComponent sends `%20` and
// `%2B`; the native app (Foundation's URLComponents) sends a space as `%20` and leaves a plus —
// and `/` — raw (wire-shapes rule 4). So:
// - a term, and every value that is not a path, is read as form data (`+` is a space), unless
//   the query spells its spaces `%20` and escapes no `+` nor `/` (the native app): then its raw
//   `+` is a plus;
// - a path (a field the row marks with `queryPath`) that holds a raw `+` has two readings, the
//   `+` a plus or a space. The one the query's own spelling points to is tried first — a `%2B`
//   or an escaped `/` means a form encoder (`+` is a space), a `%20` or a raw `/` the native
//   app (`+` is a plus), the plus when nothing says or both do — and when it names nothing the
//   other reading is taken if that names something. A field read inside another (an archive's
//   entry, an upload's new relative path) follows the query's spelling, or the reading the path
//   beside it turned out to be, or the plus;
// - a value that is not valid percent-encoding (or not UTF-8) answers 400 INVALID_QUERY.
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';

/**
 * What a path in a query names: `virtual` a path of the caller's (`<volume>/…`, `share/<t>/…`),
 * `link` a path inside the link the row's `:token` names, `host` an absolute folder of the host
 * (administrators), `inner` a name inside what another field names (no lookup of its own).
 */
export type QueryPathKind = 'virtual' | 'link' | 'host' | 'inner';

/** Does the path exist for this caller? (app.ts answers with the resolver; false when it cannot tell.) */
export type QueryPathProbe = (
  kind: Exclude<QueryPathKind, 'inner'>,
  path: string,
  ctx: { caller: Caller | null; req: IncomingMessage; params: Record<string, string> },
) => Promise<boolean>;

const marked = new WeakMap<z.ZodType, QueryPathKind>();

const PATH_NOTE =
  'A path: spaces as `%20` or `+`, a plus as `%2B`; a raw `+` (as the native app sends it) is a plus when that names something, a space otherwise.';

/** Marks a query field as a path of that kind (described as such in the OpenAPI document). */
export function queryPath<T extends z.ZodType>(kind: QueryPathKind, schema: T): T {
  const described = schema.describe(schema.description ?? PATH_NOTE);
  marked.set(described, kind);
  return described;
}

/** The kind a field of a row's query schema was marked with (through optional/default wrappers). */
function kindOf(field: z.ZodType): QueryPathKind | undefined {
  for (let t: z.ZodType | undefined = field; t;) {
    const kind = marked.get(t);
    if (kind) return kind;
    t = (t as { def?: { innerType?: z.ZodType } }).def?.innerType;
  }
  return undefined;
}

function decode(text: string, key: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new AppError(
      'INVALID_QUERY',
      `The query string is not valid percent-encoding${key ? ` (in ${JSON.stringify(key.slice(0, 64))})` : ''}: send bytes as %XX of UTF-8.`,
    );
  }
}

interface RawQuery {
  /** Each field as sent (the first of a repeated name), still encoded. */
  fields: Map<string, string>;
  /** What a raw `+` in a path means, as the query's spelling says; null when it does not. */
  plusIs: 'space' | 'plus' | null;
  /** What a raw `+` in a term means: a plus only from a client that writes spaces as %20. */
  termPlusIs: 'space' | 'plus';
}

function readRaw(search: string): RawQuery {
  const text = search.startsWith('?') ? search.slice(1) : search;
  const fields = new Map<string, string>();
  let formLike = false;
  let nativeLike = false;
  let spacesEscaped = false;
  for (const pair of text.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1);
    const key = decode(rawKey.replace(/\+/g, ' '), rawKey);
    if (/%2[bf]/i.test(rawValue)) formLike = true;
    if (rawValue.includes('%20')) spacesEscaped = true;
    if (spacesEscaped || rawValue.includes('/')) nativeLike = true;
    if (!fields.has(key)) fields.set(key, rawValue);
  }
  return {
    fields,
    plusIs: formLike === nativeLike ? null : formLike ? 'space' : 'plus',
    termPlusIs: spacesEscaped && !formLike ? 'plus' : 'space',
  };
}

/** The value with a raw `+` read as a plus, then as a space (one reading when it has none). */
function readings(raw: string, key: string): { plus: string; space: string } {
  const plus = decode(raw, key);
  return { plus, space: raw.includes('+') ? decode(raw.replace(/\+/g, ' '), key) : plus };
}

/**
 * The query of a request as the row's schema will read it: terms as form data, each marked path
 * in the reading that names something (see the header).
 */
export async function readQuery(
  search: string,
  schema: z.ZodType | undefined,
  probe: QueryPathProbe | undefined,
  ctx: Parameters<QueryPathProbe>[2],
): Promise<Record<string, string>> {
  const { fields, plusIs, termPlusIs } = readRaw(search);
  const shape = (schema as { shape?: Record<string, z.ZodType> } | undefined)?.shape ?? {};
  const out: Record<string, string> = {};
  const inner: string[] = [];
  let found: 'space' | 'plus' | null = null;
  for (const [key, raw] of fields) {
    const kind = shape[key] ? kindOf(shape[key]) : undefined;
    const { plus, space } = readings(raw, key);
    if (!kind || plus === space) {
      out[key] = kind || termPlusIs === 'plus' ? plus : space;
      continue;
    }
    if (kind === 'inner') {
      inner.push(key);
      continue;
    }
    const order = plusIs === 'space' ? (['space', 'plus'] as const) : (['plus', 'space'] as const);
    out[key] = order[0] === 'plus' ? plus : space;
    for (const reading of order) {
      const value = reading === 'plus' ? plus : space;
      if (probe && (await probe(kind, value, ctx).catch(() => false))) {
        out[key] = value;
        found ??= reading;
        break;
      }
    }
  }
  for (const key of inner) {
    const { plus, space } = readings(fields.get(key)!, key);
    out[key] = (plusIs ?? found ?? 'plus') === 'plus' ? plus : space;
  }
  return out;
}
