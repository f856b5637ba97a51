// Document text for the content index. Plain-text files (by extension, binary content refused by
// a NUL sniff) are read here, in the walker's thread. Every other kind — office documents
// (docx/xlsx/pptx, odt/ods/odp), PDF (its text layer, page by page), EPUB, RTF and HTML — is
// read by the extractor thread (extract.worker.ts through extract-pool.ts), which is stopped
// and started again when one document takes too long or too much memory: a hostile file costs
// that document, never the server or the walk. Every read is bounded (bytes read, bytes
// unpacked, pages, time), and a document contributes at most MAX_TEXT of text.
import fs from 'node:fs';
import { SEARCH_FACT_KINDS } from '../files/kinds.ts';
import type { SearchFacts } from '../metadata/read.ts';
import { MAX_TEXT, decodeEntities, tidy } from '../metadata/zip-text.ts';

export { MAX_TEXT, TooLarge, xmlText, zipParts } from '../metadata/zip-text.ts';

const MAX_TEXT_FILE = 32 * 1024 * 1024;
/** A PDF's pages are separated by this character in the indexed text (the page of a passage). */
export const PAGE_BREAK = '\f';

const TEXT_EXTENSIONS = new Set(
  (
    'txt text md markdown rst org adoc tex csv tsv log json jsonc json5 yaml yml toml ini cfg conf properties env ' +
    'xml css scss less svg js mjs cjs jsx ts tsx vue py rb go rs java kt kts swift scala c h cc cpp hpp cs ' +
    'php pl lua r sql sh bash zsh fish ps1 bat cmd srt vtt sub ics vcf gitignore dockerfile makefile gradle nfo diff patch'
  ).split(' '),
);
const OFFICE_PARTS: Record<string, RegExp> = {
  docx: /^word\/(document|header\d*|footer\d*|footnotes)\.xml$/,
  xlsx: /^xl\/(sharedStrings|worksheets\/sheet\d+)\.xml$/,
  pptx: /^ppt\/(slides\/slide\d+|notesSlides\/notesSlide\d+)\.xml$/,
  odt: /^content\.xml$/,
  ods: /^content\.xml$/,
  odp: /^content\.xml$/,
};
const HTML_EXTENSIONS = new Set(['html', 'htm', 'xhtml']);

/** What kind of reader a document needs ('text': read in the walker; the others: the extractor thread). */
export type DocKind = 'text' | 'office' | 'pdf' | 'epub' | 'rtf' | 'html';
/** The kinds the extractor thread reads, whose outcome the index keeps (and the administrator sees). */
export const EXTRACTED_KINDS = ['office', 'pdf', 'epub', 'rtf', 'html'] as const;
export type ExtractedKind = (typeof EXTRACTED_KINDS)[number];

/**
 * What became of a document: `indexed` (its text is searchable), `empty` (it holds no text),
 * `no-text-layer` (a PDF whose pages are pictures only: scanned, never recognised), `encrypted`
 * (a password is needed), `broken` (not readable as its kind), `too-large` (past a limit of
 * bytes read, bytes unpacked or memory), `timed-out` (past the time limit), `deferred` (the
 * run's limit was spent: read at the next walk of its folder; its old text stays).
 */
export const DOC_STATUSES = [
  'indexed',
  'empty',
  'no-text-layer',
  'encrypted',
  'broken',
  'too-large',
  'timed-out',
  'deferred',
] as const;
export type DocStatus = (typeof DOC_STATUSES)[number];

export interface DocState {
  kind: ExtractedKind;
  status: DocStatus;
  /** PDF and EPUB: pages (PDF) or chapters (EPUB) in the document. */
  pages?: number;
}

export interface Extracted {
  text: string | null;
  /** Set for the kinds the extractor thread reads. */
  state?: DocState;
  /** A photo's or a song's facts for search (hasSearchFacts). */
  media?: SearchFacts;
}

/** Limits of one document and of one walk (SEARCH_EXTRACT_*). */
export interface ExtractLimits {
  /** Largest document read (bytes on disk). */
  maxBytes: number;
  /** PDF pages read at most (the text of later pages is not indexed). */
  maxPages: number;
  /** Longest one document may take; then its reader is stopped. */
  timeoutMs: number;
  /** Time the extractor may spend in one walk (0: no limit); past it documents are deferred. */
  runMs: number;
}

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? name.toLowerCase() : name.slice(dot + 1).toLowerCase();
}

export function documentKind(name: string): DocKind | null {
  const ext = extensionOf(name);
  if (TEXT_EXTENSIONS.has(ext)) return 'text';
  if (ext in OFFICE_PARTS) return 'office';
  if (ext === 'pdf') return 'pdf';
  if (ext === 'epub') return 'epub';
  if (ext === 'rtf') return 'rtf';
  if (HTML_EXTENSIONS.has(ext)) return 'html';
  return null;
}

/** The zip parts holding an office document's text, by its extension. */
export function officeParts(name: string): RegExp | undefined {
  return OFFICE_PARTS[extensionOf(name)];
}

/** A photo or a song: the indexer reads its date taken and camera, or its artist and album (metadata/read.ts). */
export function hasSearchFacts(name: string): boolean {
  return SEARCH_FACT_KINDS.has(extensionOf(name));
}

/** True when the file's name says it may carry indexable text. */
export function isDocument(name: string): boolean {
  return documentKind(name) !== null;
}

export async function readHead(file: string, bytes: number): Promise<Buffer> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export function decodeText(buf: Buffer): string | null {
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return buf.subarray(2).toString('utf16le');
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff)
    return Buffer.from(buf.subarray(2)).swap16().toString('utf16le');
  const start = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  if (buf.subarray(0, 8192).includes(0)) return null;
  return buf.subarray(start).toString('utf8');
}

/**
 * The words a reader sees in an HTML or XHTML page: no script, style or template, no comments,
 * blocks and line breaks as line ends, entities decoded (`&lt;` stays text: it is decoded after
 * the tags are gone).
 */
export function htmlText(html: string): string {
  return tidy(
    decodeEntities(
      html
        .replace(/<!--[\s\S]*?(-->|$)/g, ' ')
        .replace(/<(script|style|template|noscript|head)\b[\s\S]*?(<\/\1\s*>|$)/gi, ' ')
        .replace(/<(br|hr)\b[^>]*>/gi, '\n')
        .replace(/<\/?(p|div|h[1-6]|li|tr|table|section|article|blockquote|pre|title|dd|dt|figcaption)\b[^>]*>/gi, '\n')
        .replace(/<\/(td|th)>/gi, '\t')
        .replace(/<[^>]*>/g, '')
        .replace(/[ \t\r]+/g, (m) => (m.includes('\t') ? '\t' : ' ')),
    ),
  );
}

const RTF_SKIP = new Set([
  'fonttbl',
  'colortbl',
  'stylesheet',
  'info',
  'pict',
  'object',
  'header',
  'footer',
  'headerl',
  'headerr',
  'footerl',
  'footerr',
  'xmlnstbl',
  'listtable',
  'listoverridetable',
  'rsidtbl',
  'generator',
  'themedata',
  'colorschememapping',
  'latentstyles',
  'datastore',
  'fldinst',
]);
const RTF_BREAKS: Record<string, string> = {
  par: '\n',
  line: '\n',
  sect: '\n\n',
  page: '\n\n',
  tab: '\t',
  cell: '\t',
  row: '\n',
};
const CP1252: Record<number, string> = {
  0x80: '€', 0x82: '‚', 0x84: '„', 0x85: '…', 0x8a: 'Š', 0x8c: 'Œ', 0x8e: 'Ž', 0x91: '‘', 0x92: '’', 0x93: '“',
  0x94: '”', 0x95: '•', 0x96: '–', 0x97: '—', 0x99: '™', 0x9a: 'š', 0x9c: 'œ', 0x9e: 'ž', 0x9f: 'Ÿ',
}; // prettier-ignore

/**
 * The text of an RTF document: control words dropped, destinations that are not body text
 * (fonts, colours, pictures, metadata, `\*` extensions) skipped, `\'hh` (Windows-1252) and
 * `\uN` (with its `\ucN` fallback characters skipped) decoded. One pass, no recursion.
 */
export function rtfText(rtf: string): string {
  let out = '';
  const stack: { skip: boolean; uc: number }[] = [];
  let skip = false;
  let uc = 1;
  let pendingSkip = 0;
  let i = 0;
  const emit = (s: string) => {
    if (pendingSkip > 0) {
      pendingSkip--;
      return;
    }
    if (!skip) out += s;
  };
  while (i < rtf.length && out.length < MAX_TEXT) {
    const c = rtf[i]!;
    if (c === '{') {
      stack.push({ skip, uc });
      i++;
      if (rtf.startsWith('\\*', i)) skip = true;
      continue;
    }
    if (c === '}') {
      const top = stack.pop();
      if (top) ({ skip, uc } = top);
      i++;
      continue;
    }
    if (c === '\\') {
      const next = rtf[i + 1];
      if (next === undefined) break;
      if (next === "'") {
        const code = parseInt(rtf.slice(i + 2, i + 4), 16);
        if (Number.isFinite(code)) emit(code >= 0x80 && code < 0xa0 ? (CP1252[code] ?? '') : String.fromCharCode(code));
        i += 4;
        continue;
      }
      if (!/[a-z]/i.test(next)) {
        if (next === '~') emit(' ');
        else if (next === '\\' || next === '{' || next === '}') emit(next);
        else if (next === '\n' || next === '\r') emit('\n');
        i += 2;
        continue;
      }
      const m = /^([a-z]{1,32})(-?\d{1,10})? ?/i.exec(rtf.slice(i + 1, i + 48))!;
      const word = m[1]!;
      const arg = m[2] === undefined ? null : Number(m[2]);
      i += 1 + m[0].length;
      pendingSkip = 0;
      if (RTF_SKIP.has(word)) skip = true;
      else if (word === 'uc' && arg !== null) uc = Math.max(0, Math.min(arg, 4));
      else if (word === 'u' && arg !== null) {
        const code = arg < 0 ? arg + 65536 : arg;
        if (!skip && code > 0) out += String.fromCharCode(code);
        pendingSkip = uc;
      } else if (word in RTF_BREAKS) emit(RTF_BREAKS[word]!);
      continue;
    }
    if (c === '\n' || c === '\r') {
      i++;
      continue;
    }
    emit(c);
    i++;
  }
  return tidy(out);
}

/** The order of an EPUB's chapters: the package document's spine, as zip paths. */
export function epubSpine(opfPath: string, opf: string): string[] {
  const base = opfPath.includes('/') ? opfPath.slice(0, opfPath.lastIndexOf('/') + 1) : '';
  const hrefs = new Map<string, string>();
  for (const m of opf.matchAll(/<(?:\w+:)?item\b[^>]*>/g)) {
    const id = /\bid\s*=\s*["']([^"']*)["']/.exec(m[0])?.[1];
    const href = /\bhref\s*=\s*["']([^"']*)["']/.exec(m[0])?.[1];
    if (id && href) hrefs.set(id, href);
  }
  const out: string[] = [];
  for (const m of opf.matchAll(/<(?:\w+:)?itemref\b[^>]*\bidref\s*=\s*["']([^"']*)["']/g)) {
    const href = hrefs.get(m[1]!);
    if (!href) continue;
    let p: string;
    try {
      p = decodeURIComponent(href.split('#')[0]!);
    } catch {
      p = href;
    }
    const segments: string[] = [];
    for (const s of (base + p).split('/')) {
      if (s === '..') segments.pop();
      else if (s && s !== '.') segments.push(s);
    }
    out.push(segments.join('/'));
  }
  return out;
}

/** A plain-text file's text (the walker's thread reads it), or null when it has none or is too large. */
export async function plainText(file: string, size: number): Promise<string | null> {
  if (size > MAX_TEXT_FILE || size === 0) return null;
  const text = decodeText(await readHead(file, Math.min(size, MAX_TEXT)));
  return text && text.trim() ? text : null;
}
