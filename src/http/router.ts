// The router: which row a request reaches. Rows are regexparam patterns (`/api/shares/:id`,
// `/api/browse/*`), tried in table order as they always were (the first that matches wins;
// HEAD falls back to GET), but only the few whose leading static segments the path spells: the
// rows hang in a tree by those segments, and each node keeps, in table order and per method,
// every row whose static prefix ends at it or above it. A request walks the tree as far as its
// segments go and tests that node's list (at most a dozen rows on today's table, where a scan
// tested all ~150). The tree only narrows: the row's own pattern still decides, so what matches
// is exactly what the whole-table scan matched.
//
// Why not polka (the design card's "minimal Polka server"): see docs/design.md, "Routing".
import { parse as parsePattern } from 'regexparam';
import type { RouteDef } from './route.ts';
import { decodeSegment } from './path.ts';

interface CompiledRow {
  index: number;
  def: RouteDef;
  keys: string[];
  pattern: RegExp;
}

interface Node {
  next: Map<string, Node>;
  /** Rows whose static prefix ends exactly here. */
  own: CompiledRow[];
  /** Every row whose static prefix ends here or above, in table order: all, then by method. */
  all: CompiledRow[];
  byMethod: Map<string, CompiledRow[]>;
}

/** The row a request reaches and its path parameters, from the one match per request. */
export interface RouteMatch {
  row: RouteDef;
  /**
   * The path parameters, each segment of the path as sent decoded once (the wildcard `*`
   * arrives as `path`); read after the guard has judged the caller, so refusals come first.
   */
  readParams(): Record<string, string>;
}

/**
 * A static segment the tree may index: regexparam writes static segments into the pattern as
 * they are, so one holding a regular-expression character (`openapi.json`: `.` is any
 * character) is left to the pattern, and the row hangs one level up.
 */
const INDEXABLE = /^[a-z0-9_~!'&=,;@%-]+$/;

function staticPrefix(path: string): string[] {
  const out: string[] = [];
  for (const segment of path.split('/').slice(1)) {
    if (segment.startsWith(':') || segment.startsWith('*')) break;
    const key = segment.toLowerCase();
    if (!INDEXABLE.test(key)) break;
    out.push(key);
  }
  return out;
}

function node(): Node {
  return { next: new Map(), own: [], all: [], byMethod: new Map() };
}

/** Each segment decoded once; an encoded separator or NUL in a parameter is refused. */
function paramsFrom(keys: readonly string[], m: RegExpExecArray): Record<string, string> {
  const params: Record<string, string> = {};
  keys.forEach((key, i) => {
    const segments = (m[i + 1] ?? '')
      .split('/')
      .filter((s) => s !== '')
      .map(decodeSegment);
    params[key === '*' ? 'path' : key] = segments.join('/');
  });
  return params;
}

/**
 * A row's pattern: regexparam's, with each static segment's regular-expression characters
 * escaped first (it writes static segments in as they are, so `/api/openapi.json` also matched
 * `/api/openapiXjson`), and dotAll: a decoded name may hold CR/LF (made on the host), and `*`
 * must still match it.
 */
export function compileRoute(path: string): { keys: string[]; pattern: RegExp } {
  const literal = path
    .split('/')
    .map((s) => (s.startsWith(':') || s.startsWith('*') ? s : s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  const { keys, pattern } = parsePattern(literal);
  return { keys, pattern: new RegExp(pattern.source, pattern.flags + 's') };
}

export class RouteMatcher {
  private readonly root = node();
  constructor(routes: readonly RouteDef[]) {
    routes.forEach((def, index) => {
      const row = { index, def, ...compileRoute(def.path) };
      let at = this.root;
      for (const key of staticPrefix(def.path)) {
        let child = at.next.get(key);
        if (!child) at.next.set(key, (child = node()));
        at = child;
      }
      at.own.push(row);
    });
    const fill = (n: Node, above: CompiledRow[]): void => {
      n.all = [...above, ...n.own].sort((a, b) => a.index - b.index);
      for (const row of n.all) {
        const list = n.byMethod.get(row.def.method) ?? [];
        if (list.length === 0) n.byMethod.set(row.def.method, list);
        list.push(row);
      }
      for (const child of n.next.values()) fill(child, n.all);
    };
    fill(this.root, []);
  }
  /** The deepest node the path's leading segments reach. */
  private nodeFor(path: string): Node {
    let at = this.root;
    let start = 1;
    while (start <= path.length) {
      let end = path.indexOf('/', start);
      if (end < 0) end = path.length;
      const child = at.next.get(path.slice(start, end).toLowerCase());
      if (!child) break;
      at = child;
      start = end + 1;
    }
    return at;
  }
  /** The rows a request for this path tests, in table order: every row the tree did not rule out. */
  candidates(method: string, path: string): readonly RouteDef[] {
    const n = this.nodeFor(path);
    const want = method.toUpperCase();
    const rows = [...(n.byMethod.get(want) ?? []), ...(want === 'HEAD' ? (n.byMethod.get('GET') ?? []) : [])];
    return rows.map((r) => r.def);
  }
  private findRow(method: string, path: string): CompiledRow | undefined {
    const n = this.nodeFor(path);
    const want = method.toUpperCase();
    return (
      firstMatch(n.byMethod.get(want), path) ?? (want === 'HEAD' ? firstMatch(n.byMethod.get('GET'), path) : undefined)
    );
  }
  /** The row for this method and normalised path (HEAD falls back to GET). */
  find(method: string, path: string): RouteDef | undefined {
    return this.findRow(method, path)?.def;
  }
  /**
   * The one match of a request: the row for the normalised path (what the guard judges) and,
   * when the raw path spells that row (single slashes, separators not encoded; letters in any
   * case), the parameters read from the raw path. Any other spelling is judged by the guard and
   * then answers 404/405, as it always did.
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
  /** Methods mounted for a path (for 405 answers and to tell a row's path from the UI's). */
  methodsFor(path: string): string[] {
    const rows = this.nodeFor(path).all.filter((r) => matches(r, path));
    return [...new Set(rows.map((r) => r.def.method))];
  }
}

function matches(r: CompiledRow, path: string): boolean {
  return r.pattern.test(path) || r.pattern.test(path + '/');
}

function firstMatch(rows: readonly CompiledRow[] | undefined, path: string): CompiledRow | undefined {
  if (rows) for (const r of rows) if (matches(r, path)) return r;
  return undefined;
}
