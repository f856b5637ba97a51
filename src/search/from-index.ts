// Search answered from the index: names by key range (exact, prefix) and by trigram phrase
// (contains, patterns), documents by FTS5 with bm25. Every query is bounded (a candidate cap,
// and the clock checked while iterating) and limited to one scope: a root and a folder in it.
import type { Database } from '../db/database.ts';
import { below } from '../indexer/store.ts';
import { compareNames, documentQuery, nameTier, trigramPhrase, type Term } from './term.ts';

export interface Scope {
  rootId: number;
  rootPath: string;
  rel: string;
}
export interface NameHit {
  rootPath: string;
  rel: string;
  name: string;
  isDir: boolean;
  tier: number;
}
export interface DocHit {
  id: number;
  rootPath: string;
  rel: string;
  name: string;
  rank: number;
}
export interface Found {
  names: NameHit[];
  docs: DocHit[];
  truncated: boolean;
  capped: boolean;
}

/** Candidates read per query; past it the answer is no longer known to be whole. */
export const CANDIDATE_CAP = 5000;

interface Row {
  id: number;
  dir: string;
  name: string;
  is_dir: number;
}

const relOf = (r: Row) => (r.dir === '' ? r.name : `${r.dir}/${r.name}`);

/**
 * `limit`: the page size. When exact and prefix matches alone fill it, the broader substring
 * query is skipped (it could only add names ranked after them); the answer is then not whole.
 */
export function searchIndex(
  db: Database,
  scope: Scope,
  term: Term,
  deadline: number,
  wantDocs: boolean,
  limit = Number.POSITIVE_INFINITY,
): Found {
  const out: Found = { names: [], docs: [], truncated: false, capped: false };
  const b = below(scope.rel);
  const seen = new Set<number>();
  const take = (r: Row) => {
    if (seen.has(r.id) || r.name === '') return;
    seen.add(r.id);
    const tier = nameTier(term, r.name);
    if (tier >= 0)
      out.names.push({ rootPath: scope.rootPath, rel: relOf(r), name: r.name, isDir: Boolean(r.is_dir), tier });
  };
  /** The budget has run out: every lookup not made any more leaves the answer truncated. */
  const expired = () => (out.truncated ||= Date.now() > deadline);
  // Candidates come back as one JSON array per query: one crossing out of the database instead
  // of one per row and column (≈10 µs a row in the wasm driver; 5,000 rows were 50 ms).
  const scan = (sql: string, params: (string | number)[]) => {
    if (expired()) return;
    const json = db.get<{ j: string | null }>(
      `SELECT json_group_array(json_array(id, dir, name, is_dir)) AS j FROM (${sql} LIMIT ${CANDIDATE_CAP})`,
      params,
    )?.j;
    const rows = json ? (JSON.parse(json) as [number, string, string, number][]) : [];
    for (const [id, dir, name, is_dir] of rows) take({ id, dir, name, is_dir });
    if (rows.length >= CANDIDATE_CAP) out.capped = true;
  };
  const cols = 'e.id, e.dir, e.name, e.is_dir';
  const inScope = `e.root_id = ? AND ${b.sql.replace(/\b(dir|name)\b/g, 'e.$1')}`;
  if (term.kind === 'word') {
    // Exact and prefix matches straight from the key index, before the broader trigram query.
    // INDEXED BY: without statistics the planner takes the (root, dir, name) index and reads the whole root.
    scan(`SELECT ${cols} FROM idx_entries e INDEXED BY idx_entries_key WHERE e.key >= ? AND e.key < ? AND ${inScope}`, [
      term.key,
      `${term.key}\u{10ffff}`,
      scope.rootId,
      ...b.params,
    ]);
    const phrase = trigramPhrase(term.key);
    if (out.names.length >= limit) out.capped = true;
    else if (phrase)
      scan(
        `SELECT ${cols} FROM idx_names JOIN idx_entries e ON e.id = idx_names.rowid WHERE idx_names MATCH ? AND ${inScope}`,
        [phrase, scope.rootId, ...b.params],
      );
  } else {
    const phrase = trigramPhrase(term.longestLiteral);
    if (phrase)
      scan(
        `SELECT ${cols} FROM idx_names JOIN idx_entries e ON e.id = idx_names.rowid WHERE idx_names MATCH ? AND ${inScope}`,
        [phrase, scope.rootId, ...b.params],
      );
    // No three letters in a row to look up: every name in the scope is tried, within the budget.
    else scan(`SELECT ${cols} FROM idx_entries e WHERE ${inScope}`, [scope.rootId, ...b.params]);
  }
  out.names.sort(compareNames);
  const query = wantDocs ? documentQuery(term) : null;
  if (query && !expired()) {
    // Only as many ranked documents as a page can show (with room for ones the caller may not
    // see); one JSON array out of the database.
    const cap = Math.min(CANDIDATE_CAP, Number.isFinite(limit) ? limit * 2 + 50 : CANDIDATE_CAP);
    const json = db.get<{ j: string | null }>(
      `SELECT json_group_array(json_array(id, dir, name, is_dir, rank)) AS j FROM (
      SELECT ${cols}, bm25(idx_docs) AS rank FROM idx_docs JOIN idx_entries e ON e.id = idx_docs.rowid
      WHERE idx_docs MATCH ? AND ${inScope} ORDER BY rank LIMIT ${cap})`,
      [query, scope.rootId, ...b.params],
    )?.j;
    const rows = json ? (JSON.parse(json) as [number, string, string, number, number][]) : [];
    if (rows.length >= cap) out.capped = true;
    for (const [id, dir, name, is_dir, rank] of rows)
      out.docs.push({ id, rootPath: scope.rootPath, rel: relOf({ id, dir, name, is_dir }), name, rank });
  }
  return out;
}

export function documentBody(db: Database, id: number): string | null {
  return db.get<{ body: string }>('SELECT body FROM idx_docs WHERE rowid = ?', [id])?.body ?? null;
}
