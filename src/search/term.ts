// What a search term means. A word (or its beginning) matches names containing it, closest
// first, and documents containing a word that begins with it. `*` and `?` make a pattern that
// whole names must match. The term never reaches a shell or a query string unescaped: names
// are matched through a trigram phrase and a RegExp built here, documents through an FTS5
// phrase made of the term's own letters and digits.
import { AppError } from '../core/errors.ts';

export const MIN_TERM = 3;
export const MAX_TERM = 200;

export type Term =
  | { kind: 'word'; text: string; key: string; tokens: string[] }
  | { kind: 'pattern'; text: string; regex: RegExp; longestLiteral: string };

const WORD_CHARS = /[\p{L}\p{N}]+/gu;

export function keyOf(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

export function parseTerm(raw: string): Term {
  const text = raw.normalize('NFC').trim();
  if ([...text].length < MIN_TERM)
    throw new AppError('SEARCH_TERM_TOO_SHORT', `The search term needs at least ${MIN_TERM} characters.`);
  if ([...text].length > MAX_TERM)
    throw new AppError('SEARCH_TERM_TOO_LONG', `The search term may have at most ${MAX_TERM} characters.`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) throw new AppError('SEARCH_TERM_INVALID');
  if (/[*?]/.test(text)) {
    const literal = text.replace(/[*?]/g, '');
    if (literal.length === 0) throw new AppError('SEARCH_PATTERN_TOO_BROAD');
    const source = [...text].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : escapeRegex(c))).join('');
    const runs = keyOf(text)
      .split(/[*?]+/)
      .filter(Boolean)
      .sort((a, b) => [...b].length - [...a].length);
    return { kind: 'pattern', text, regex: new RegExp(`^${source}$`, 'isu'), longestLiteral: runs[0] ?? '' };
  }
  const key = keyOf(text);
  return { kind: 'word', text, key, tokens: key.match(WORD_CHARS) ?? [] };
}

/**
 * How close a name is to the term: 0 exact (also without the extension), 1 begins with it,
 * 2 a word inside begins with it, 3 contains it; -1 no match.
 */
export function nameTier(term: Term, name: string): number {
  const key = keyOf(name);
  if (term.kind === 'pattern') return term.regex.test(name.normalize('NFC')) ? 1 : -1;
  const at = key.indexOf(term.key);
  if (at < 0) return -1;
  if (key === term.key) return 0;
  const dot = key.lastIndexOf('.');
  if (dot > 0 && key.slice(0, dot) === term.key) return 0;
  if (at === 0) return 1;
  for (let i = at; i >= 0; i = key.indexOf(term.key, i + 1)) {
    if (!/[\p{L}\p{N}]/u.test(key[i - 1]!)) return 2;
  }
  return 3;
}

/** Orders name matches: tier, then shorter names, then by name. */
export function compareNames(a: { tier: number; name: string }, b: { tier: number; name: string }): number {
  return a.tier - b.tier || a.name.length - b.name.length || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** FTS5 query for documents: the term's words as one phrase, the last one as a prefix. */
export function documentQuery(term: Term): string | null {
  if (term.kind !== 'word' || term.tokens.length === 0) return null;
  return `"${term.tokens.join(' ')}"*`;
}

/** FTS5 trigram phrase for a literal (quotes doubled), or null when shorter than 3 characters. */
export function trigramPhrase(literal: string): string | null {
  if ([...literal].length < 3) return null;
  return `"${literal.replace(/"/g, '""')}"`;
}

/**
 * The first line of `text` holding a word that begins with the term's first word, its page (the
 * text's form feeds: a PDF's pages) and its number in that page.
 */
export function matchLine(term: Term, text: string): { line: string; lineNumber: number; page: number } | null {
  if (term.kind !== 'word' || !term.tokens.length) return null;
  const re = new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegex(term.tokens[0]!)}`, 'iu');
  const pages = text.split('\f');
  for (let p = 0; p < pages.length; p++) {
    const lines = pages[p]!.split(/\r\n|\n|\r/);
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const m = re.exec(line.normalize('NFC'));
      if (!m) continue;
      let shown = line.trim();
      if (shown.length > 240) {
        const start = Math.max(0, m.index - 80);
        shown = (start > 0 ? '…' : '') + line.slice(start, start + 220).trim() + '…';
      }
      return { line: shown, lineNumber: i + 1, page: p + 1 };
    }
  }
  return null;
}
