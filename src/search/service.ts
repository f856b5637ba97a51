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
import { searchIndex, documentBody, type Found } from './from-index.ts';
import { searchLive } from './live.ts';
import { documentKind } from '../indexer/extract.ts';
import { compareNames, matchLine, parseTerm, type Term } from './term.ts';

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

  async function run(
    caller: Caller,
    q: string | undefined,
    startPath: string | undefined,
    limit: number,
  ): Promise<SearchAnswer> {
    const term: Term = parseTerm(q ?? '');
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
        const found: Found = searchIndex(
          db,
          { rootId: cover.root.id, rootPath: cover.root.path, rel: cover.rel },
          term,
          deadline,
          true,
          limit,
        );
        for (const n of found.names)
          names.push({ rootPath: n.rootPath, rel: n.rel, name: n.name, isDir: n.isDir, tier: n.tier });
        for (const d of found.docs)
          docs.push({ real: joinReal(d.rootPath, d.rel), name: d.name, order: d.rank, id: d.id });
        truncated ||= found.truncated;
        capped ||= found.capped;
      } else {
        const found = await searchLive(start.real, term, deadline, () => true);
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
    names.sort(compareNames);
    docs.sort((a, b) => a.order - b.order);

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
      shown.add(real);
      return { name, path: virtual.slice(0, virtual.lastIndexOf('/')), kind: isDir ? 'dir' : 'file' };
    };
    for (const n of names) {
      if (items.length >= limit) {
        more = true;
        break;
      }
      const item = await place(n.real ?? joinReal(n.rootPath!, n.rel!), n.name, n.isDir);
      if (item) items.push(item);
    }
    for (const d of docs) {
      if (items.length >= limit) {
        more = true;
        break;
      }
      const item = await place(d.real, d.name, false);
      if (!item) continue;
      const hit =
        d.line !== undefined
          ? { line: d.line, lineNumber: d.lineNumber! }
          : d.id !== undefined
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
