// GET /api/search without req/res: scopes from what the caller may see, the index where it
// covers a scope (a bounded live walk elsewhere), names first and closest first, documents
// after by relevance, and every hit mapped through the resolver, which leaves out what the
// caller may not see (other accounts' personal folders, hidden rules, Burrow's own folders).
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import type { PathResolver } from '../files/paths.ts';
import type { Indexes } from '../indexer/indexes.ts';
import {
  searchIndex,
  documentBody,
  entriesPassing,
  factSql,
  foldersNamed,
  listIndex,
  takenById,
  takenOfFiles,
  type Found,
  type IndexedFile,
  type Scope,
} from './from-index.ts';
import { searchLive } from './live.ts';
import type { SearchSort } from './wire.ts';
import { documentKind } from '../indexer/extract.ts';
import { compareNames, keyOf, matchLine, parseTerm, type Term } from './term.ts';
import {
  factsPass,
  FieldError,
  hasFilters,
  hasMediaFilters,
  parseQuery,
  withinPasses,
  type FieldName,
  type Filters,
  type ParsedQuery,
} from './fields.ts';

export interface SearchItem {
  name: string;
  path: string;
  kind: 'dir' | 'file';
  matchLine?: string;
  matchLineNumber?: number;
  matchPage?: number;
}
export interface SearchAnswer {
  items: SearchItem[];
  truncated: boolean;
  complete: boolean;
}

/** A name found in the index carries its root and relative path; its real path is made only if it is shown. */
interface NameCandidate {
  /** The index row (index hits only). */
  id?: number;
  real?: string;
  rootPath?: string;
  rel?: string;
  name: string;
  isDir: boolean;
  tier: number;
}
interface DocCandidate {
  real: string;
  name: string;
  order: number;
  id?: number;
  line?: string;
  lineNumber?: number;
}

export interface SearchDeps {
  config: Config;
  db: Database;
  indexes: Indexes;
  resolver: PathResolver;
  /** The account asked to see dot-files (preference showHiddenFiles); otherwise they and everything inside dot-folders stay out. */
  showHidden?: (userId: string) => boolean;
  /** The virtual paths this account tagged with a tag (`tag:`). */
  tagged?: (userId: string, tag: string) => string[];
}

/** Stable: the items with a date taken first, newest taken first; the others after, in the order they had. */
function byTaken<T>(list: T[], taken: (x: T) => number | undefined): T[] {
  return list
    .map((x, i) => ({ x, i, t: taken(x) }))
    .sort((a, b) =>
      a.t !== undefined && b.t !== undefined
        ? b.t - a.t || a.i - b.i
        : a.t !== undefined
          ? -1
          : b.t !== undefined
            ? 1
            : a.i - b.i,
    )
    .map((e) => e.x);
}

/** Matches every name: the walk of a query made only of fields. */
const EVERY_NAME: Term = { kind: 'pattern', text: '*', regex: /^/su, longestLiteral: '' };

/** The item at a real path passes the filters on its own facts (a stat: the live walk and tagged items only). */
async function statPasses(f: Filters, real: string, name: string): Promise<{ mtime: number; isDir: boolean } | null> {
  try {
    const st = await fs.promises.stat(real);
    const facts = { name, isDir: st.isDirectory(), size: st.size, mtime: st.mtimeMs };
    return factsPass(f, facts) ? facts : null;
  } catch {
    return null;
  }
}

async function realOr(p: string): Promise<string> {
  try {
    return await fs.promises.realpath(p);
  } catch {
    return p;
  }
}

function joinReal(root: string, rel: string): string {
  return rel === '' ? root : path.join(root, ...rel.split('/'));
}

export function createSearch(deps: SearchDeps) {
  const { config, db, indexes, resolver } = deps;

  async function startFolders(
    caller: Caller,
    startPath: string | undefined,
  ): Promise<{ real: string; spaceRoot: string }[]> {
    const trimmed = (startPath ?? '').replace(/^\/+|\/+$/g, '');
    if (trimmed !== '') {
      const r = await resolver.resolve(caller, trimmed, { mustExist: true });
      if (r.space) {
        if (!r.isDirectory) throw new AppError('NOT_A_FOLDER', 'The start of a search must be a folder.');
        return [{ real: r.realPath, spaceRoot: await realOr(r.space.root) }];
      }
    }
    const spaces = (await resolver.spaces(caller)).filter((s) => s.kind !== 'share');
    const out: { real: string; spaceRoot: string }[] = [];
    for (const s of spaces) {
      const real = await realOr(s.root);
      out.push({ real, spaceRoot: real });
    }
    return out;
  }

  /** `tag:` alone or with other fields but no words: the tagged items themselves, newest first. */
  async function taggedOnly(
    caller: Caller,
    filters: Filters,
    tagged: Set<string>,
    startPath: string | undefined,
    limit: number,
    sort: SearchSort,
  ): Promise<SearchAnswer> {
    const start = (startPath ?? '').replace(/^\/+|\/+$/g, '');
    if (start !== '') await resolver.resolve(caller, start, { mustExist: true });
    const dotFiles = deps.showHidden?.(caller.userId) === true;
    const hits: { item: SearchItem; mtime: number; real: string }[] = [];
    for (const p of [...tagged].sort()) {
      if (start !== '' && p !== start && !p.startsWith(start + '/')) continue;
      if (!withinPasses(filters.within, p)) continue;
      if (!dotFiles && p.split('/').some((segment) => segment.startsWith('.'))) continue;
      let real: string;
      try {
        const r = await resolver.resolve(caller, p, { mustExist: true });
        if (!r.space) continue;
        real = r.realPath;
      } catch {
        continue;
      }
      const name = p.slice(p.lastIndexOf('/') + 1);
      const facts = await statPasses(filters, real, name);
      if (!facts) continue;
      hits.push({
        item: { name, path: p.slice(0, p.lastIndexOf('/')), kind: facts.isDir ? 'dir' : 'file' },
        mtime: facts.mtime,
        real,
      });
    }
    // Date taken, camera, artist, album: what the index read of the files, asked once for them
    // all (a file it has not read yet fails).
    const indexed = (): IndexedFile[] => {
      const rows: IndexedFile[] = [];
      for (const [i, h] of hits.entries()) {
        const cover = indexes.readyCover(h.real);
        if (cover) rows.push({ key: i, rootId: cover.root.id, rel: cover.rel });
      }
      return rows;
    };
    if (hasMediaFilters(filters)) {
      const passing = entriesPassing(db, indexed(), factSql(filters));
      const kept = hits.filter((_, i) => passing.has(i));
      hits.length = 0;
      hits.push(...kept);
    }
    hits.sort((a, b) => b.mtime - a.mtime);
    let sorted = hits;
    if (sort === 'taken') {
      const taken = takenOfFiles(db, indexed());
      const keyOf = new Map(hits.map((h, i) => [h, i]));
      sorted = byTaken(hits, (h) => taken.get(keyOf.get(h)!));
    }
    return { items: sorted.slice(0, limit).map((h) => h.item), truncated: false, complete: hits.length <= limit };
  }

  async function run(
    caller: Caller,
    q: string | undefined,
    startPath: string | undefined,
    limit: number,
    fieldParams: Partial<Record<FieldName, string>> = {},
    sort: SearchSort = 'relevance',
  ): Promise<SearchAnswer> {
    let parsed: ParsedQuery;
    try {
      parsed = parseQuery(q ?? '', fieldParams);
    } catch (err) {
      if (err instanceof FieldError) throw new AppError('SEARCH_FIELD_INVALID', err.message);
      throw err;
    }
    const { filters } = parsed;
    const filtered = hasFilters(filters);
    // Words are a term as before; a query of fields alone lists what passes them.
    const term: Term | null = parsed.text === '' && filtered ? null : parseTerm(parsed.text);
    let tagged: Set<string> | null = null;
    for (const tag of filters.tags) {
      const paths = deps.tagged?.(caller.userId, tag) ?? [];
      tagged = new Set(tagged ? paths.filter((p) => tagged!.has(p)) : paths);
    }
    if (tagged && !term) return taggedOnly(caller, filters, tagged, startPath, limit, sort);
    const facts = factSql(filters);
    const deadline = Date.now() + config.search.timeBudgetMs;
    const starts = await startFolders(caller, startPath);
    const names: NameCandidate[] = [];
    const docs: DocCandidate[] = [];
    let truncated = false;
    let capped = false;
    for (const start of starts) {
      indexes.ensureRoot(start.spaceRoot);
      if (Date.now() > deadline) {
        truncated = true;
        break;
      }
      const cover = config.search.indexEnabled ? indexes.readyCover(start.real) : null;
      if (cover) {
        const base: Scope = { rootId: cover.root.id, rootPath: cover.root.path, rel: cover.rel };
        // `in:`: the folders of that name in this scope, unless the scope is already inside one.
        let scopes = [base];
        const within = filters.within[0];
        if (within !== undefined) {
          const startVirtual = await resolver.toVirtual(caller, start.real);
          if (startVirtual === null || !withinPasses(filters.within, `${startVirtual}/x`)) {
            const key = keyOf(within.slice(within.lastIndexOf('/') + 1));
            scopes = foldersNamed(db, base, key).map((rel) => ({ ...base, rel }));
          }
        }
        for (const scope of scopes) {
          const found: Found = term
            ? searchIndex(db, scope, term, deadline, true, limit, facts)
            : listIndex(db, scope, facts, deadline, limit, sort === 'taken');
          for (const n of found.names)
            names.push({ id: n.id, rootPath: n.rootPath, rel: n.rel, name: n.name, isDir: n.isDir, tier: n.tier });
          for (const d of found.docs)
            docs.push({ real: joinReal(d.rootPath, d.rel), name: d.name, order: d.rank, id: d.id });
          truncated ||= found.truncated;
          capped ||= found.capped;
        }
      } else {
        const found = await searchLive(start.real, term ?? EVERY_NAME, deadline, () => true);
        if (hasMediaFilters(filters)) {
          // What a photo or song says is known to the index only: until it is ready, nothing is
          // known to pass (the answer says it is not whole).
          found.names = [];
          found.docs = [];
          capped = true;
        } else if (filtered) {
          // Not indexed yet: what the walk found is checked against the fields one by one.
          const keep = async <T extends { real: string; name: string }>(list: T[]) => {
            const out: T[] = [];
            for (const x of list) if (await statPasses(filters, x.real, x.name)) out.push(x);
            return out;
          };
          found.names = await keep(found.names);
          found.docs = await keep(found.docs);
        }
        names.push(...found.names);
        // Live document hits have no rank: they follow the ranked ones, in walk order.
        for (const d of found.docs)
          docs.push({
            real: d.real,
            name: d.name,
            order: Number.MAX_SAFE_INTEGER,
            line: d.line,
            lineNumber: d.lineNumber,
          });
        truncated ||= found.truncated;
        capped ||= found.capped;
      }
    }
    if (term) names.sort(compareNames);
    docs.sort((a, b) => a.order - b.order);
    if (sort === 'taken') {
      // What the index read of each hit (a hit of the live walk, not indexed yet, has none).
      const ids = [...names, ...docs].flatMap((c) => (c.id === undefined ? [] : [c.id]));
      const taken = takenById(db, ids);
      const at = (c: { id?: number }) => (c.id === undefined ? undefined : taken.get(c.id));
      names.splice(0, names.length, ...byTaken(names, at));
      docs.splice(0, docs.length, ...byTaken(docs, at));
    }

    const items: SearchItem[] = [];
    const shown = new Set<string>();
    let more = false;
    const dotFiles = deps.showHidden?.(caller.userId) === true;
    const toVirtual = await resolver.virtualizer(caller);
    const place = async (real: string, name: string, isDir: boolean): Promise<SearchItem | null> => {
      if (shown.has(real)) return null;
      const virtual = await toVirtual(real);
      if (virtual === null || !virtual.includes('/')) return null;
      if (!dotFiles && virtual.split('/').some((segment) => segment.startsWith('.'))) return null;
      if (!withinPasses(filters.within, virtual) || (tagged && !tagged.has(virtual))) return null;
      shown.add(real);
      return { name, path: virtual.slice(0, virtual.lastIndexOf('/')), kind: isDir ? 'dir' : 'file' };
    };
    // Past a full page, only an item the caller may see says there is more: a match in a
    // folder hidden from them is neither shown nor counted.
    for (const n of names) {
      const item = await place(n.real ?? joinReal(n.rootPath!, n.rel!), n.name, n.isDir);
      if (!item) continue;
      if (items.length >= limit) {
        more = true;
        break;
      }
      items.push(item);
    }
    for (const d of more ? [] : docs) {
      const item = await place(d.real, d.name, false);
      if (!item) continue;
      if (items.length >= limit) {
        more = true;
        break;
      }
      const hit =
        d.line !== undefined
          ? { line: d.line, lineNumber: d.lineNumber! }
          : d.id !== undefined && term
            ? matchLine(term, documentBody(db, d.id) ?? '')
            : null;
      if (hit) {
        item.matchLine = hit.line;
        item.matchLineNumber = hit.lineNumber;
        if ('page' in hit && documentKind(d.name) === 'pdf') item.matchPage = hit.page;
      }
      items.push(item);
    }
    return { items, truncated, complete: !truncated && !capped && !more };
  }

  return { run };
}
