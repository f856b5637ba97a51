// Search answered from the index: names by key range (exact, prefix) and by trigram phrase
// (contains, patterns), documents by FTS5 with bm25. Every query is bounded (a candidate cap,
// and the clock checked while iterating) and limited to one scope: a root and a folder in it.
import type { Database } from '../db/database.ts';
import { below } from '../indexer/store.ts';
import { hasMediaFilters, type Filters } from './fields.ts';
import { compareNames, documentQuery, nameTier, trigramPhrase, type Term } from './term.ts';

export interface Scope {
  rootId: number;
  rootPath: string;
  rel: string;
}
export interface NameHit {
  /** The index row: its date taken is looked up by it when asked to sort by that. */
  id: number;
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

/** The filters on an entry's own facts as SQL over `e` (tags and folders are checked by path). */
export interface FactSql {
  sql: string;
  params: (string | number)[];
  /**
   * The filters name what photos and songs say: the files that pass are a few among the root's
   * rows, found first through idx_media and looked up by id (the query leads with them).
   */
  byMedia?: boolean;
}
export function factSql(f: Filters): FactSql {
  const parts: string[] = [];
  const params: (string | number)[] = [];
  if (f.dirs !== undefined) parts.push(f.dirs ? 'e.is_dir = 1' : 'e.is_dir = 0');
  // Extensions are letters, digits, _ and - (fields.ts): nothing GLOB reads as a wildcard.
  if (f.exts.length) {
    parts.push(`(${f.exts.map(() => 'e.key GLOB ?').join(' OR ')})`);
    params.push(...f.exts.map((x) => `*?.${x}`));
  }
  const range = (col: string, r: { from?: number; to?: number }) => {
    if (r.from !== undefined) (parts.push(`${col} >= ?`), params.push(r.from));
    if (r.to !== undefined) (parts.push(`${col} < ?`), params.push(r.to));
  };
  if (f.size.length) parts.push('e.is_dir = 0');
  for (const r of f.size) range('e.size', r);
  for (const r of f.modified) range('e.mtime', r);
  // What photos and songs say of themselves (idx_media, read by the indexer): a file without the fact fails.
  if (hasMediaFilters(f)) {
    const outer = parts.splice(0);
    for (const r of f.taken) range('m.taken', r);
    for (const col of ['camera', 'artist', 'album'] as const)
      for (const word of f[col]) {
        parts.push(`instr(m.${col}_key, ?) > 0`);
        params.push(word.normalize('NFC').toLowerCase());
      }
    outer.push(`e.id IN (SELECT m.id FROM idx_media m WHERE ${parts.splice(0).join(' AND ')})`);
    parts.push(...outer);
    return { sql: ` AND ${parts.join(' AND ')}`, params, byMedia: true };
  }
  return { sql: parts.length ? ` AND ${parts.join(' AND ')}` : '', params };
}
const NO_FACTS: FactSql = { sql: '', params: [] };

/**
 * The root's column as a condition: with media filters, `+e.root_id` (not an index term) so the
 * planner leads with the files idx_media names (each looked up by id) instead of reading every
 * row of the root through its (root_id, dir, name) index — without statistics it takes that
 * equality for the narrower (at 100,000 rows: 120 ms against 5 for `album:"album 7"`).
 */
const rootCol = (facts: FactSql) => (facts.byMedia ? '+e.root_id' : 'e.root_id');

/** A file as the index knows it (its root and relative path), with the caller's key for it. */
export interface IndexedFile {
  key: number;
  rootId: number;
  rel: string;
}

/** The files as one parameter: a JSON array of [key, root id, dir, name] (FILES_AS_ENTRIES reads it). */
function filesParam(files: IndexedFile[]): string {
  return JSON.stringify(
    files.map((f) => {
      const i = f.rel.lastIndexOf('/');
      return i < 0 ? [f.key, f.rootId, '', f.rel] : [f.key, f.rootId, f.rel.slice(0, i), f.rel.slice(i + 1)];
    }),
  );
}

/** The files of filesParam (`f`, its key at `$[0]`) joined to their index rows (`e`). */
const FILES_AS_ENTRIES = `json_each(?) f
     JOIN idx_entries e ON e.root_id = json_extract(f.value, '$[1]') AND e.dir = json_extract(f.value, '$[2]')
       AND e.name = json_extract(f.value, '$[3]')`;

/** The keys of the files whose index rows pass these conditions: one query for them all. */
export function entriesPassing(db: Database, files: IndexedFile[], facts: FactSql): Set<number> {
  if (files.length === 0) return new Set();
  const json = db.get<{ j: string | null }>(
    `SELECT json_group_array(json_extract(f.value, '$[0]')) AS j FROM ${FILES_AS_ENTRIES}
     WHERE 1 = 1${facts.sql}`,
    [filesParam(files), ...facts.params],
  )?.j;
  return new Set(json ? (JSON.parse(json) as number[]) : []);
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
  facts: FactSql = NO_FACTS,
): Found {
  const out: Found = { names: [], docs: [], truncated: false, capped: false };
  const b = below(scope.rel);
  const seen = new Set<number>();
  const take = (r: Row) => {
    if (seen.has(r.id) || r.name === '') return;
    seen.add(r.id);
    const tier = nameTier(term, r.name);
    if (tier >= 0)
      out.names.push({
        id: r.id,
        rootPath: scope.rootPath,
        rel: relOf(r),
        name: r.name,
        isDir: Boolean(r.is_dir),
        tier,
      });
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
  const inScope = `e.root_id = ? AND ${b.sql.replace(/\b(dir|name)\b/g, 'e.$1')}${facts.sql}`;
  const scopeParams = [...b.params, ...facts.params];
  if (term.kind === 'word') {
    // Exact and prefix matches straight from the key index, before the broader trigram query.
    // INDEXED BY: without statistics the planner takes the (root, dir, name) index and reads the whole root.
    scan(`SELECT ${cols} FROM idx_entries e INDEXED BY idx_entries_key WHERE e.key >= ? AND e.key < ? AND ${inScope}`, [
      term.key,
      `${term.key}\u{10ffff}`,
      scope.rootId,
      ...scopeParams,
    ]);
    const phrase = trigramPhrase(term.key);
    if (out.names.length >= limit) out.capped = true;
    else if (phrase)
      scan(
        `SELECT ${cols} FROM idx_names JOIN idx_entries e ON e.id = idx_names.rowid WHERE idx_names MATCH ? AND ${inScope}`,
        [phrase, scope.rootId, ...scopeParams],
      );
  } else {
    const phrase = trigramPhrase(term.longestLiteral);
    if (phrase)
      scan(
        `SELECT ${cols} FROM idx_names JOIN idx_entries e ON e.id = idx_names.rowid WHERE idx_names MATCH ? AND ${inScope}`,
        [phrase, scope.rootId, ...scopeParams],
      );
    // No three letters in a row to look up: every name in the scope is tried, within the budget.
    else scan(`SELECT ${cols} FROM idx_entries e WHERE ${inScope}`, [scope.rootId, ...scopeParams]);
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
      [query, scope.rootId, ...scopeParams],
    )?.j;
    const rows = json ? (JSON.parse(json) as [number, string, string, number, number][]) : [];
    if (rows.length >= cap) out.capped = true;
    for (const [id, dir, name, is_dir, rank] of rows)
      out.docs.push({ id, rootPath: scope.rootPath, rel: relOf({ id, dir, name, is_dir }), name, rank });
  }
  return out;
}

/**
 * Items of a scope that pass the filters when no words were given: newest first (or, `byTaken`,
 * the photos newest taken first and the rest after them, newest first), at most `limit` (and the
 * candidate cap), as name hits of one tier.
 */
export function listIndex(
  db: Database,
  scope: Scope,
  facts: FactSql,
  deadline: number,
  limit: number,
  byTaken = false,
): Found {
  const out: Found = { names: [], docs: [], truncated: Date.now() > deadline, capped: false };
  if (out.truncated) return out;
  const b = below(scope.rel);
  const cap = Math.min(CANDIDATE_CAP, limit * 2 + 50);
  const json = db.get<{ j: string | null }>(
    `SELECT json_group_array(json_array(id, dir, name, is_dir)) AS j FROM (
      SELECT e.id, e.dir, e.name, e.is_dir FROM idx_entries e${byTaken ? ' LEFT JOIN idx_media t ON t.id = e.id' : ''}
      WHERE ${rootCol(facts)} = ? AND e.name != '' AND ${b.sql.replace(/\b(dir|name)\b/g, 'e.$1')}${facts.sql}
      ORDER BY ${byTaken ? 't.taken IS NULL, t.taken DESC, ' : ''}e.mtime DESC LIMIT ${cap})`,
    [scope.rootId, ...b.params, ...facts.params],
  )?.j;
  const rows = json ? (JSON.parse(json) as [number, string, string, number][]) : [];
  if (rows.length >= cap) out.capped = true;
  for (const [id, dir, name, is_dir] of rows)
    out.names.push({
      id,
      rootPath: scope.rootPath,
      rel: relOf({ id, dir, name, is_dir }),
      name,
      isDir: Boolean(is_dir),
      tier: 0,
    });
  return out;
}

/** When each of these index rows' photos was taken (ms, the camera's clock read as UTC); rows without one are absent. */
export function takenById(db: Database, ids: number[]): Map<number, number> {
  if (ids.length === 0) return new Map();
  const json = db.get<{ j: string | null }>(
    `SELECT json_group_array(json_array(m.id, m.taken)) AS j FROM idx_media m
     WHERE m.id IN (SELECT value FROM json_each(?)) AND m.taken IS NOT NULL`,
    [JSON.stringify(ids)],
  )?.j;
  return new Map(json ? (JSON.parse(json) as [number, number][]) : []);
}

/** When each of these files' photos was taken, by the caller's key; files without one are absent. */
export function takenOfFiles(db: Database, files: IndexedFile[]): Map<number, number> {
  if (files.length === 0) return new Map();
  const json = db.get<{ j: string | null }>(
    `SELECT json_group_array(json_array(json_extract(f.value, '$[0]'), m.taken)) AS j FROM ${FILES_AS_ENTRIES}
     JOIN idx_media m ON m.id = e.id
     WHERE m.taken IS NOT NULL`,
    [filesParam(files)],
  )?.j;
  return new Map(json ? (JSON.parse(json) as [number, number][]) : []);
}

/** Folders of a scope with this name (`in:`), as relative paths; at most 200. */
export function foldersNamed(db: Database, scope: Scope, key: string): string[] {
  const b = below(scope.rel);
  return db
    .all<{ dir: string; name: string }>(
      `SELECT e.dir, e.name FROM idx_entries e INDEXED BY idx_entries_key
       WHERE e.key = ? AND e.is_dir = 1 AND e.root_id = ? AND ${b.sql.replace(/\b(dir|name)\b/g, 'e.$1')} LIMIT 200`,
      [key, scope.rootId, ...b.params],
    )
    .map((r) => (r.dir === '' ? r.name : `${r.dir}/${r.name}`));
}

export function documentBody(db: Database, id: number): string | null {
  return db.get<{ body: string }>('SELECT body FROM idx_docs WHERE rowid = ?', [id])?.body ?? null;
}
