// The search query's fields, read in one place for every way a query arrives: typed into the
// box (`kind:photo ext:pdf size:>100MB modified:<2024-06 tag:receipts in:"Family Photos"`, what
// photos and songs say of themselves — `taken:2025 camera:pixel artist:"Nina Simone" album:…` —
// and quoted phrases), as the API's own query parameters (`kind=photo&size=>100MB`, each value read
// by the same rules), and by the web interface for its filter chips. Pure: no Node imports.
import { AUDIO_KINDS, PICTURE_KINDS, TEXT_KINDS, VIDEO_KINDS } from '../files/kinds.ts';

export const FIELD_NAMES = [
  'kind',
  'ext',
  'size',
  'modified',
  'taken',
  'camera',
  'artist',
  'album',
  'tag',
  'in',
] as const;
export type FieldName = (typeof FIELD_NAMES)[number];

/** Kinds a person names, with the extensions each means (`folder`: folders only). */
export const KINDS: Readonly<Record<string, readonly string[]>> = {
  photo: [...PICTURE_KINDS, 'raw', 'cr2', 'cr3', 'nef', 'arw', 'dng', 'orf', 'rw2'],
  video: [...VIDEO_KINDS, 'wmv', 'flv', 'mpg', 'mpeg', 'ts', 'mts', 'm2ts'],
  audio: [...AUDIO_KINDS, 'wma', 'aiff', 'aif', 'mid', 'midi'],
  document: [
    'pdf',
    'doc',
    'docx',
    'odt',
    'rtf',
    'txt',
    'md',
    'pages',
    'epub',
    'xls',
    'xlsx',
    'ods',
    'csv',
    'ppt',
    'pptx',
    'odp',
    'key',
    'numbers',
  ],
  pdf: ['pdf'],
  text: [...TEXT_KINDS],
  archive: ['zip', '7z', 'rar', 'tar', 'gz', 'tgz', 'bz2', 'xz', 'zst', 'iso'],
  folder: [],
};
const KIND_ALIASES: Record<string, string> = {
  photos: 'photo',
  image: 'photo',
  images: 'photo',
  picture: 'photo',
  pictures: 'photo',
  videos: 'video',
  movie: 'video',
  music: 'audio',
  song: 'audio',
  songs: 'audio',
  documents: 'document',
  doc: 'document',
  docs: 'document',
  archives: 'archive',
  folders: 'folder',
  dir: 'folder',
  directory: 'folder',
};

/** A half-open range [from, to) of a number (bytes, or ms since the epoch); either end may be absent. */
export interface Range {
  from?: number;
  to?: number;
}

export interface Filters {
  /** Lower-cased extensions an item's name must end with (any of them); kinds add theirs. */
  exts: string[];
  /** Folders only (`kind:folder`), files only (any other kind or `ext:`), or either. */
  dirs?: boolean;
  /** Each range must hold (several `size:` narrow). */
  size: Range[];
  modified: Range[];
  /** Date taken (a photo's EXIF, the camera's clock read as UTC): each range must hold. */
  taken: Range[];
  /** Words a photo's camera, a song's artist or album must contain (lower-cased NFC), all of them. */
  camera: string[];
  artist: string[];
  album: string[];
  /** Tags the item must all carry (as typed; compared by the tags' own key). */
  tags: string[];
  /** Folder names (or paths) the item must be inside, all of them. */
  within: string[];
}

export interface ParsedQuery {
  /** The words and phrases that are not fields, quotes removed ('' when there are none). */
  text: string;
  filters: Filters;
  /** The fields as read, in order (what the interface shows as chips). */
  fields: { name: FieldName; value: string }[];
}

/** A field that cannot be read: the message says what was expected. */
export class FieldError extends Error {}

const emptyFilters = (): Filters => ({
  exts: [],
  size: [],
  modified: [],
  taken: [],
  camera: [],
  artist: [],
  album: [],
  tags: [],
  within: [],
});

/** The filters only the index knows (what a photo or song says about itself): a stat cannot check them. */
export const hasMediaFilters = (f: Filters): boolean =>
  f.taken.length + f.camera.length + f.artist.length + f.album.length > 0;

export const hasFilters = (f: Filters): boolean =>
  f.exts.length > 0 ||
  f.dirs !== undefined ||
  f.size.length + f.modified.length + f.tags.length + f.within.length > 0 ||
  hasMediaFilters(f);

const UNITS: Record<string, number> = { b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** `>100MB`, `<=1.5 GB`, `10k`, `2GiB`, `10MB..1GB` (a plain size means at least it). */
export function parseSize(value: string): Range {
  const v = value.trim().toLowerCase().replace(/\s+/g, '');
  const range = v.split('..');
  if (range.length === 2) {
    const out: Range = {};
    if (range[0]) out.from = bytes(range[0], value);
    if (range[1]) out.to = bytes(range[1], value) + 1;
    return out;
  }
  const m = /^(<=|>=|<|>|=)?(.+)$/.exec(v)!;
  const n = bytes(m[2]!, value);
  switch (m[1]) {
    case '<':
      return { to: n };
    case '<=':
      return { to: n + 1 };
    case '>':
      return { from: n + 1 };
    case '=':
      return { from: n, to: n + 1 };
    default:
      return { from: n };
  }
}
function bytes(text: string, whole: string): number {
  const m = /^(\d+(?:[.,]\d+)?)(?:([bkmgt])(?:i?b)?)?$/.exec(text);
  if (!m)
    throw new FieldError(`size:${whole} is not a size: write for example size:>100MB, size:<2GB or size:10MB..1GB.`);
  return Math.round(Number(m[1]!.replace(',', '.')) * UNITS[m[2] ?? 'b']!);
}

/** `2024`, `2024-06`, `2024-06-15` (UTC) with `<`, `<=`, `>`, `>=`, or `2024-01..2024-06`. */
export function parseDate(name: string, value: string): Range {
  const v = value.trim();
  const range = v.split('..');
  if (range.length === 2) {
    const out: Range = {};
    if (range[0]) out.from = period(name, range[0], value).from;
    if (range[1]) out.to = period(name, range[1], value).to;
    return out;
  }
  const m = /^(<=|>=|<|>|=)?(.+)$/.exec(v)!;
  const p = period(name, m[2]!, value);
  switch (m[1]) {
    case '<':
      return { to: p.from };
    case '<=':
      return { to: p.to };
    case '>':
      return { from: p.to };
    case '>=':
      return { from: p.from };
    default:
      return p;
  }
}
function period(name: string, text: string, whole: string): { from: number; to: number } {
  const m = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$/.exec(text.trim());
  const bad = () =>
    new FieldError(
      `${name}:${whole} is not a date: write for example ${name}:2024, ${name}:<2024-06 or ${name}:2024-01-15.`,
    );
  if (!m) throw bad();
  const y = Number(m[1]);
  const mo = m[2] ? Number(m[2]) : undefined;
  const d = m[3] ? Number(m[3]) : undefined;
  if (mo !== undefined && (mo < 1 || mo > 12)) throw bad();
  if (d !== undefined && (d < 1 || d > new Date(Date.UTC(y, mo!, 0)).getUTCDate())) throw bad();
  if (d !== undefined) return { from: Date.UTC(y, mo! - 1, d), to: Date.UTC(y, mo! - 1, d + 1) };
  if (mo !== undefined) return { from: Date.UTC(y, mo - 1, 1), to: Date.UTC(y, mo, 1) };
  return { from: Date.UTC(y, 0, 1), to: Date.UTC(y + 1, 0, 1) };
}

/** Adds one field's value (from the box or a query parameter) to the filters. */
export function addField(filters: Filters, name: FieldName, raw: string): void {
  const value = raw.normalize('NFC').trim();
  if (value === '') throw new FieldError(`${name}: needs a value.`);
  switch (name) {
    case 'kind':
      for (const one of value.toLowerCase().split(',')) {
        const kind = KIND_ALIASES[one.trim()] ?? one.trim();
        const exts = KINDS[kind];
        if (!exts) throw new FieldError(`kind:${one} is not a kind: use one of ${Object.keys(KINDS).join(', ')}.`);
        if (kind === 'folder') {
          if (filters.dirs === false) throw new FieldError('kind:folder cannot go with a kind of file or ext:.');
          filters.dirs = true;
        } else {
          if (filters.dirs === true) throw new FieldError('kind:folder cannot go with a kind of file or ext:.');
          filters.dirs = false;
          filters.exts.push(...exts);
        }
      }
      return;
    case 'ext':
      for (const one of value.toLowerCase().split(',')) {
        const ext = one.trim().replace(/^\*?\./, '');
        if (!/^[\p{L}\p{N}_-]{1,16}$/u.test(ext))
          throw new FieldError(`ext:${one} is not an extension: write ext:pdf.`);
        if (filters.dirs === true) throw new FieldError('kind:folder cannot go with a kind of file or ext:.');
        filters.dirs = false;
        filters.exts.push(ext);
      }
      return;
    case 'size':
      filters.size.push(parseSize(value));
      return;
    case 'modified':
      filters.modified.push(parseDate('modified', value));
      return;
    case 'taken':
      filters.taken.push(parseDate('taken', value));
      return;
    case 'camera':
    case 'artist':
    case 'album':
      if (value.length > 200) throw new FieldError(`${name}: takes at most 200 characters.`);
      filters[name].push(value.toLowerCase());
      return;
    case 'tag':
      filters.tags.push(value);
      return;
    case 'in':
      filters.within.push(value.replace(/^\/+|\/+$/g, ''));
      return;
  }
}

const isField = (name: string): name is FieldName => (FIELD_NAMES as readonly string[]).includes(name);

/**
 * Reads a query: `name:value` and `name:"a value"` for the known fields (a word with another
 * colon stays a word: `Re: meeting`, `10:30`), `"a phrase"` as its words, the rest as words.
 * `params`: the API's own field parameters, read by the same rules.
 */
export function parseQuery(q: string, params: Partial<Record<FieldName, string>> = {}): ParsedQuery {
  const filters = emptyFilters();
  const fields: ParsedQuery['fields'] = [];
  const words: string[] = [];
  let fromBox = 0;
  const re = /([\p{L}]+):(?:"([^"]*)"?|(\S*))|"([^"]*)"?|(\S+)/gu;
  for (const m of q.normalize('NFC').matchAll(re)) {
    const name = m[1]?.toLowerCase();
    if (name !== undefined && isField(name)) {
      const value = m[2] ?? m[3] ?? '';
      addField(filters, name, value);
      fields.push({ name, value });
      fromBox++;
    } else if (m[1] !== undefined) words.push(m[0].replace(/"/g, ''));
    else if (m[4] !== undefined) words.push(m[4]);
    else words.push(m[5]!);
  }
  for (const name of FIELD_NAMES) {
    const value = params[name];
    if (value === undefined) continue;
    addField(filters, name, value);
    fields.push({ name, value });
  }
  filters.exts = [...new Set(filters.exts)];
  // Without fields the query is the term as typed, quotes and all (a name may hold them).
  const typed = fromBox === 0 ? q.normalize('NFC').trim() : null;
  return { text: typed ?? words.join(' ').trim(), filters, fields };
}

/** Whether an item's facts pass the filters other than tags and folders (those are checked by path). */
export function factsPass(f: Filters, item: { name: string; isDir: boolean; size: number; mtime: number }): boolean {
  if (f.dirs !== undefined && f.dirs !== item.isDir) return false;
  if (f.exts.length) {
    const dot = item.name.lastIndexOf('.');
    if (dot <= 0 || !f.exts.includes(item.name.slice(dot + 1).toLowerCase())) return false;
  }
  const inside = (r: Range, n: number) => (r.from === undefined || n >= r.from) && (r.to === undefined || n < r.to);
  if (f.size.length && (item.isDir || !f.size.every((r) => inside(r, item.size)))) return false;
  return f.modified.every((r) => inside(r, item.mtime));
}

/** Whether a virtual path lies inside folders with these names (or ending in these paths), NFC and without case. */
export function withinPasses(within: string[], virtualPath: string): boolean {
  if (!within.length) return true;
  const folder = '/' + virtualPath.normalize('NFC').toLowerCase().split('/').slice(0, -1).join('/') + '/';
  return within.every((w) => folder.includes('/' + w.normalize('NFC').toLowerCase() + '/'));
}

/** The query again with one field left out (a chip's ×). */
export function withoutField(q: string, field: { name: string; value: string }): string {
  const re = /([\p{L}]+):(?:"([^"]*)"?|(\S*))/gu;
  let done = false;
  return q
    .replace(re, (whole, name: string, quoted?: string, plain?: string) => {
      if (done || name.toLowerCase() !== field.name || (quoted ?? plain ?? '') !== field.value) return whole;
      done = true;
      return '';
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** `name:value` as the box writes it (quoted when it has a space). */
export const fieldText = (name: FieldName, value: string): string =>
  `${name}:${/\s/.test(value) ? `"${value.replace(/"/g, '')}"` : value}`;
