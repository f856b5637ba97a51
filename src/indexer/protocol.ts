import type { DocState, ExtractLimits } from './extract.ts';
import type { SearchFacts } from '../metadata/read.ts';

// Messages between the main thread (which owns the one database connection) and the walker
// worker (which owns the file-system calls). Paths inside a root are relative, '/'-separated.

export interface EntryRecord {
  /** Parent folder relative to the root ('' = the root; the root's own record has name ''). */
  dir: string;
  name: string;
  isDir: boolean;
  /** File: bytes. Folder: bytes of its direct files. */
  size: number;
  mtime: number;
  /** Folders only. */
  entries?: number;
  totalSize?: number;
  totalEntries?: number;
  complete?: boolean;
}

export interface DocRecord {
  dir: string;
  name: string;
  /** null: the document has no text (any more): empty, binary, too large. */
  text: string | null;
  /** What became of a document of an extracted kind (PDF, EPUB, RTF, HTML, office); `deferred` keeps the old text. */
  state?: DocState;
  /** A photo's or a song's facts for search (date taken, camera, artist, album), read when the file is new or changed. */
  media?: SearchFacts;
}

export interface WorkerOptions {
  ioTimeoutMs: number;
  maxStalledIo: number;
  /** URL of a module exporting `createFsLayer(options)` (tests: simulated hanging mounts). */
  fsModule?: string;
  fsOptions?: unknown;
  /** The synchronous walk's call counter, read by the main thread's watchdog (watchdog.ts). */
  beat?: SharedArrayBuffer;
  /** The main thread's verdict "people are being served" (core/load.ts): walks and extraction hold back. */
  load?: SharedArrayBuffer;
  /** Limits of document extraction (SEARCH_EXTRACT_*). */
  extract?: ExtractLimits;
}

export interface WalkJob {
  id: number;
  root: string;
  /** Where to start ('' = the whole root); may name a file. */
  rel: string;
  concurrency: number;
  /** Entries between pauses (0 = never pause) and the pause itself. */
  batch: number;
  pauseMs: number;
  /** Relative paths (and everything below them) never read. */
  excludes: string[];
  /** Extract document text for the content index. */
  content: boolean;
  /** 'dirs': folder records only (the folder-size baseline); 'all': files too (the catalogue). */
  emit: 'dirs' | 'all';
  /**
   * Plain synchronous calls in the worker (local disks): several times faster than the
   * thread-pool calls and they leave the pool to the requests; no per-call timeout, so network
   * mounts and test layers keep the guarded asynchronous walk.
   */
  sync: boolean;
  /**
   * Folders (relative to the root) where an earlier attempt of this walk hung: not read, their
   * records say incomplete (the paced sweep retries them with the guarded walk).
   */
  skip?: string[];
  /**
   * Documents whose text the index holds, and photos and songs whose facts it holds (relative
   * path → `mtime:size`, mtime in whole ms): read again only when their file changed, not at
   * every walk that passes them (a renamed folder of PDFs was read whole again).
   */
  known?: Map<string, string>;
}

/** The `known` value of a file as a walk sees it. */
export const docStamp = (mtimeMs: number, size: number): string => `${Math.trunc(mtimeMs)}:${size}`;

export interface ListJob {
  id: number;
  root: string;
  rel: string;
  excludes: string[];
}

export interface WalkSummary {
  /** The start path did not exist (or was not readable at all). */
  missing: boolean;
  isDir: boolean;
  totalSize: number;
  totalEntries: number;
  complete: boolean;
  dirs: number;
  files: number;
  ms: number;
}

export interface Listing {
  ok: boolean;
  /** ENOENT / ENOTDIR: the folder is gone (or became a file). */
  gone: boolean;
  /** The folder is there, but its names or one of its entries could not be read (not ok). */
  partial: boolean;
  mtime: number;
  entries: { name: string; isDir: boolean; size: number; mtime: number }[];
}

export type ToWorker =
  | { type: 'walk'; job: WalkJob }
  | { type: 'list'; job: ListJob }
  | { type: 'cancel'; id: number }
  /** The main thread wrote one 'out' batch of the job: the worker may send another. */
  | { type: 'ack'; id: number };

export type FromWorker =
  | { type: 'out'; id: number; entries: EntryRecord[]; docs: DocRecord[] }
  | { type: 'done'; id: number; summary: WalkSummary }
  | { type: 'listed'; id: number; listing: Listing }
  | { type: 'failed'; id: number; message: string }
  | { type: 'io'; stalled: number; paused: boolean }
  /** A file met by the walk was not read for the index: no longer a regular file inside its root. */
  | { type: 'skipped'; id: number; file: string; reason: string };

/** Joins a parent folder and a name into a relative path. */
export function joinRel(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

/** Splits a relative path into its parent folder and name ('' → ['', '']). */
export function splitRel(rel: string): [string, string] {
  const i = rel.lastIndexOf('/');
  return i < 0 ? ['', rel] : [rel.slice(0, i), rel.slice(i + 1)];
}

/** True when `rel` is `base` or lies below it. */
export function isWithin(rel: string, base: string): boolean {
  return base === '' || rel === base || rel.startsWith(base + '/');
}
