// The archive capability: list, take one entry out, extract, create. Callers (a thin routes
// file, the one-shot zip routes, WebDAV later) pass resolved, authorised real paths and folder
// handles; this never sees a request. Each operation opens the archive once, without following
// a link, and reads only that descriptor (identity for the cache comes from its fstat).
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import type { ChangeSink } from '../changes.ts';
import type { WorkJournal } from '../files/journal.ts';
import { splitName, temporaryName } from '../files/names.ts';
import { fromFsError } from '../core/errors.ts';
import { openFileIn } from '../files/confined.ts';
import { ListingCache, identityKey } from './cache.ts';
import { encrypted, NeedsListing, tooLargeToBrowse, tooManyEntries, unreadable } from './errors.ts';
import { entryPath } from './entry-path.ts';
import {
  DEFAULT_EXTRACT_LIMITS,
  extract,
  type EntryData,
  type EntryFeed,
  type ExtractEvent,
  type ExtractLimits,
  type ExtractResult,
} from './extract.ts';
import { detectFormat, isCompound, singleStreamName, type Format } from './formats.ts';
import { Listing, Selection, type ArchiveRecord, type ListedEntry, type RawEntry } from './listing.ts';
import { extractSevenZip, listSevenZip, openSevenZipEntry } from './sevenzip.ts';
import { listTarGz, walkTarGz } from './gunzip-walk.ts';
import { listPlainTar } from './tar-index.ts';
import { gzipBound, listTar, scanTar, singleStream, type ReadCount } from './tar-reader.ts';
import { plainTarget, type DirHandle, type ExtractTarget, type PlaceConflict } from './target.ts';
import {
  extractBySevenZip,
  listZip,
  openZipEntry,
  readBuffers,
  readsHere,
  skipTake,
  zipEntrySource,
  type ChunkSource,
  type ReadBuffers,
  type ZipRef,
} from './zip-reader.ts';
import { createZip, type CreateZipSource } from './create.ts';

/** An archive the caller has resolved and may read. */
export interface ArchiveFile {
  /** Real root of the space holding it: the opened descriptor must lie inside. */
  root: string;
  /** Real path on the host. */
  real: string;
  /** Its path as the API names it (echoed in the listing). */
  path: string;
  name: string;
}

/** Spec §2 Archive listing. */
export interface ArchiveListingAnswer {
  path: string;
  name: string;
  inside?: string;
  entries: ListedEntry[];
  total: number;
  outside: number;
}

export interface EntryStream {
  stream: Readable;
  name: string;
  /** Bytes of the whole entry when the archive declares them. */
  size: number | null;
  modified: string | null;
}

export interface ArchiveServiceOptions {
  /** ARCHIVE_MAX_ENTRIES: an archive with more entries is refused (413) for listing and extraction. */
  maxEntries: number;
  /** MAX_BROWSABLE_ARCHIVE_SIZE: compound archives (tar.gz and kin) larger than this are not listed. */
  maxBrowsableSize: number;
  /** Entries kept across cached listings (least recently used out first). */
  cacheEntries?: number;
  extractLimits?: Partial<ExtractLimits>;
  target?: ExtractTarget;
  changes?: ChangeSink;
  /** Staged extractions are recorded here until placed, so a crash leaves nothing after a restart. */
  journal?: WorkJournal;
}

interface Catalogue {
  format: Format;
  listing: Listing;
  readonly weight: number;
}

interface Opened {
  fd: number;
  size: number;
  mtime: Date;
  key: string;
  file: ArchiveFile;
}

const close = (fd: number) => fs.close(fd, () => {});

export class ArchiveService {
  private readonly cache: ListingCache<Catalogue>;
  private readonly options: ArchiveServiceOptions;
  private readonly target: ExtractTarget;
  private readonly limits: ExtractLimits;

  constructor(options: ArchiveServiceOptions) {
    this.options = options;
    this.cache = new ListingCache<Catalogue>(options.cacheEntries ?? 1_000_000);
    this.target = options.target ?? plainTarget;
    this.limits = { ...DEFAULT_EXTRACT_LIMITS, ...options.extractLimits };
  }

  /** One folder level `inside` the archive (the top when absent), with the archive's totals. */
  async list(
    file: ArchiveFile,
    inside?: string,
    page?: { offset?: number; limit?: number },
  ): Promise<ArchiveListingAnswer> {
    return this.withArchive(file, async (a) => {
      const { listing } = await this.catalogue(a);
      const level = listing.level(inside, page);
      return {
        path: file.path,
        name: file.name,
        ...(level.inside !== null ? { inside: level.inside } : {}),
        entries: level.entries,
        total: listing.total,
        outside: listing.outside,
      };
    });
  }

  /**
   * The items a selection would write at the top of its destination (a folder stands for
   * everything under it; none: the archive's top level), as the listing shows them: what
   * POST /api/archive/conflicts compares with the destination before any work.
   */
  async roots(file: ArchiveFile, entries: readonly string[]): Promise<ListedEntry[]> {
    return this.withArchive(file, async (a) => {
      const { listing } = await this.catalogue(a);
      return [...listing.selection(entries).roots].map((r) => listing.entry(r));
    });
  }

  /** What `openEntry` would serve (name, declared size, time), without reading it: for Range answers. */
  async entryInfo(file: ArchiveFile, entry: string): Promise<Omit<EntryStream, 'stream'>> {
    return this.withArchive(file, async (a) => {
      const { listing } = await this.catalogue(a);
      const record = listing.lookupFile(entry);
      if (record.encrypted) throw encrypted(record.path);
      if (record.kind !== 'file') throw unreadable(`"${record.path}" is a ${record.kind}, not a file`);
      const meta = listing.entry(record.path);
      return { name: meta.name, size: meta.size, modified: meta.modified };
    });
  }

  /**
   * The one file named exactly `entry`, looked up in the listing first. `range` (inclusive
   * end, already checked against `size` by the caller) is a byte range of a stored zip entry,
   * and skipped over in a decompressed stream otherwise. The descriptor stays open until the
   * stream ends or is destroyed.
   */
  async openEntry(file: ArchiveFile, entry: string, range?: { start: number; end: number }): Promise<EntryStream> {
    const a = await this.openArchive(file);
    let handedOver = false;
    try {
      const { format, listing } = await this.catalogue(a);
      const record = listing.lookupFile(entry);
      if (record.encrypted) throw encrypted(record.path);
      if (record.kind !== 'file') throw unreadable(`"${record.path}" is a ${record.kind}, not a file`);
      const meta = listing.entry(record.path);
      let stream: Readable;
      if (format === 'zip') {
        stream = await openZipEntry(a.fd, record.ref as ZipRef, record.path, range);
      } else if (format === 'sevenzip') {
        stream = sized(
          await openSevenZipEntry(a.fd, a.size, file.name, record.ref as string, () => {}),
          record.size,
          record.path,
        );
        if (range) stream = skipTake(stream, range.start, range.end - range.start + 1);
      } else if (format === 'gz' || format === 'bz2' || format === 'xz') {
        stream = singleStream(a.fd, format);
        if (range) stream = skipTake(stream, range.start, range.end - range.start + 1);
      } else {
        stream = await tarEntry(a.fd, format, record.path);
        if (range) stream = skipTake(stream, range.start, range.end - range.start + 1);
      }
      handedOver = true;
      stream.once('close', () => close(a.fd));
      return { stream, name: meta.name, size: meta.size, modified: meta.modified };
    } finally {
      if (!handedOver) close(a.fd);
    }
  }

  /**
   * Extracts `entries` (a folder stands for everything under it; none means all) into
   * `destination`, emitting spec §6 events, and announces every written path on the changes
   * sink when it succeeded. A failure or `signal` removes what it had created, then throws.
   */
  async extract(
    file: ArchiveFile,
    entries: readonly string[],
    destination: DirHandle,
    emit: (e: ExtractEvent) => void = () => {},
    signal?: AbortSignal,
    conflict?: (entry: string) => PlaceConflict,
    reserve?: (bytes: number) => void,
  ): Promise<ExtractResult> {
    const result = await this.extractInto(file, entries, destination, true, emit, signal, conflict, reserve);
    for (const w of result.written)
      this.options.changes?.emit({ type: 'created', path: w.path, isDirectory: w.isDirectory });
    return result;
  }

  private extractInto(
    file: ArchiveFile,
    entries: readonly string[],
    destination: DirHandle,
    stage: boolean,
    emit: (e: ExtractEvent) => void,
    signal?: AbortSignal,
    conflict?: (entry: string) => PlaceConflict,
    reserve?: (bytes: number) => void,
  ): Promise<ExtractResult> {
    return this.withArchive(file, async (a) => {
      // The quota is taken once: a run by a tar.gz's bound that must be listed after all holds
      // its bound, and the exact run takes only what is past it.
      let held = 0;
      const reserveOnce =
        reserve &&
        ((bytes: number) => {
          if (bytes <= held) return;
          reserve(bytes - held);
          held = bytes;
        });
      // One start event: the exact run after a bound's comes on with progress events.
      let started = false;
      const emitOnce = (e: ExtractEvent) => {
        if (e.type === 'start' && started) return;
        started ||= e.type === 'start';
        emit(e);
      };
      const journal = this.options.journal ?? null;
      const run = async (listed: boolean) => {
        const { job, selectionError } = await this.plan(a, entries, listed);
        if (selectionError) throw selectionError;
        return extract({
          ...job,
          target: this.target,
          destination,
          limits: this.limits,
          emit: emitOnce,
          signal,
          journal,
          stage,
          ...(conflict ? { conflict } : {}),
          ...(reserveOnce ? { reserve: reserveOnce } : {}),
        });
      };
      // A run by a bound that cannot go on by it (NeedsListing) is run again, listed.
      return run(false).catch((err: unknown) => {
        if (err instanceof NeedsListing) return run(true);
        throw err;
      });
    });
  }

  /**
   * The one-shot form (`POST /api/files/zip/extract`): the whole archive into a new folder
   * beside it, named after the archive (`name (1)` when taken). Returns that folder.
   */
  async extractToNewFolder(
    file: ArchiveFile,
    parent: DirHandle,
    emit?: (e: ExtractEvent) => void,
    signal?: AbortSignal,
    reserve?: (bytes: number) => void,
  ): Promise<{ name: string; path: string; result: ExtractResult }> {
    const stem =
      file.name.replace(/\.(tar\.(gz|bz2|xz)|tgz|tbz2?|txz)$/i, '') === file.name
        ? splitName(file.name).stem
        : file.name.replace(/\.(tar\.(gz|bz2|xz)|tgz|tbz2?|txz)$/i, '');
    // Built under a temporary name and placed whole (as extract() stages each selected item).
    const temp = temporaryName();
    const journal = this.options.journal;
    const row = journal?.begin(path.join(parent.path, temp));
    let result: ExtractResult;
    try {
      const folder = await this.target.mkdirExclusive(parent, temp);
      result = await this.extractInto(file, [], folder, false, emit ?? (() => {}), signal, undefined, reserve);
    } catch (err) {
      await this.target.remove(parent, temp, true);
      if (row) journal!.end(row);
      throw err;
    }
    // A folder that cannot be placed keeps its row: the next start removes it.
    const { name } = await this.target.place(parent, temp, stem || 'archive', true);
    if (row) journal!.end(row);
    const real = path.join(parent.path, name);
    this.options.changes?.emit({ type: 'created', path: real, isDirectory: true });
    return { name, path: real, result: { ...result, written: [{ path: real, isDirectory: true }] } };
  }

  /** A selection into a new zip in `destination` (`name`, numbered when taken). */
  async compress(
    sources: CreateZipSource[],
    destination: DirHandle,
    name: string,
    options: { showHidden: boolean; signal?: AbortSignal },
  ): Promise<{ name: string; path: string }> {
    const journal = this.options.journal;
    const staging = journal
      ? (tempName: string) => {
          const row = journal.begin(path.join(destination.path, tempName));
          return () => journal.end(row);
        }
      : undefined;
    const made = await this.target.within(destination, (usable) =>
      createZip(sources, usable, name, { ...options, staging }),
    );
    const real = path.join(destination.path, made.name);
    this.options.changes?.emit({ type: 'created', path: real, isDirectory: false });
    return { name: made.name, path: real };
  }

  private async plan(
    a: Opened,
    entries: readonly string[],
    listed = true,
  ): Promise<{
    job: Pick<
      Parameters<typeof extract>[0],
      'archiveName' | 'archiveBytes' | 'selection' | 'declared' | 'feed' | 'bound'
    >;
    selectionError?: Error;
  }> {
    const format = await detectFormat(a.fd, a.file.name, a.size);
    // A compound archive past the browse limit is still extracted whole, in one pass, without
    // a listing first (its sizes are then only known as they come: the running guards hold).
    if (isCompound(format) && a.size > this.options.maxBrowsableSize && entries.length === 0) {
      const selection = Selection.everything();
      return {
        job: {
          archiveName: a.file.name,
          archiveBytes: a.size,
          selection,
          declared: { files: null, bytes: null },
          feed: tarFeed(a.fd, format, null),
        },
      };
    }
    // A whole tar.gz not listed yet is extracted in one gunzip pass, judged before a byte is
    // written by what its trailer states (the tar's length, more than its files hold): a second
    // pass only to list it doubled the work (gunzip is most of it). Where the bound is refused
    // or passed, the archive is listed and extracted again by its exact sizes (extractInto).
    if (!listed && format === 'tar.gz' && entries.length === 0 && !this.cache.has(a.key)) {
      const bound = await gzipBound(a.fd, a.size);
      if (bound !== null)
        return {
          job: {
            archiveName: a.file.name,
            archiveBytes: a.size,
            selection: Selection.everything(),
            declared: { files: null, bytes: null },
            bound,
            feed: tarFeed(a.fd, format, this.options.maxEntries),
          },
        };
    }
    const { listing } = await this.catalogue(a);
    const selection = listing.selection(entries);
    const declared = listing.declaredBytes(selection);
    const locked = listing.records.find((r) => r.kind === 'file' && r.encrypted && selection.rootOf(r.path));
    if (locked) return { job: null as never, selectionError: encrypted(locked.path) };
    let feed: EntryFeed;
    if (format === 'zip') feed = zipFeed(a.fd, a.size, listing, selection);
    else if (format === 'sevenzip') feed = sevenZipFeed(a, listing, selection);
    else if (format === 'gz' || format === 'bz2' || format === 'xz')
      feed = singleFeed(a.fd, format, listing.records[0]!.path);
    else feed = tarFeed(a.fd, format, this.options.maxEntries);
    return { job: { archiveName: a.file.name, archiveBytes: a.size, selection, declared, feed } };
  }

  private async catalogue(a: Opened): Promise<Catalogue> {
    return this.cache.get(a.key, async () => {
      const format = await detectFormat(a.fd, a.file.name, a.size);
      if (isCompound(format) && a.size > this.options.maxBrowsableSize)
        throw tooLargeToBrowse(this.options.maxBrowsableSize);
      const max = this.options.maxEntries;
      const listing = new Listing();
      // A zip's listing is built as its central directory is parsed (no 100,000 raw entries held).
      const add = (raw: RawEntry[]) => raw.forEach((e) => listing.add(e));
      if (format === 'zip') await listZip(a.fd, max, (e) => listing.add(e));
      else if (format === 'sevenzip') add(await listSevenZip(a.fd, a.size, a.file.name, max));
      else if (format === 'gz' || format === 'bz2' || format === 'xz')
        add([{ stored: singleStreamName(a.file.name), kind: 'file', size: null, mtime: a.mtime, encrypted: false }]);
      else if (format === 'tar') add(await listPlainTar(a.fd, a.size, max));
      else if (format === 'tar.gz') add(await listTarGz(a.fd, max));
      else add(await listTar(a.fd, format, max));
      return { format, listing, weight: listing.weight };
    });
  }

  private async openArchive(file: ArchiveFile): Promise<Opened> {
    let opened;
    try {
      opened = await openFileIn(file.root, file.real);
    } catch (err) {
      throw fromFsError(err) ?? err;
    }
    const { fd, stat: st } = opened;
    return {
      fd,
      size: st.size,
      mtime: st.mtime,
      key: identityKey({ real: opened.real, dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs }),
      file,
    };
  }

  private async withArchive<T>(file: ArchiveFile, fn: (a: Opened) => Promise<T>): Promise<T> {
    const a = await this.openArchive(file);
    try {
      return await fn(a);
    } finally {
      close(a.fd);
    }
  }
}

/** Holds a stream to its declared size: more bytes than declared is an error, not more output. */
function sized(stream: Readable, size: number | null, name: string): Readable {
  if (size === null) return stream;
  let seen = 0;
  const guard = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      if (seen > size) return cb(unreadable(`"${name}" is larger than the archive says`));
      cb(null, chunk);
    },
  });
  stream.on('error', (err) => guard.destroy(err));
  guard.on('close', () => stream.destroy());
  return stream.pipe(guard);
}

async function tarEntry(fd: number, format: Format, wanted: string): Promise<Readable> {
  return new Promise((resolve, reject) => {
    let found = false;
    scanTar(fd, format, async (raw, data) => {
      if (found || raw.kind !== 'file' || entryPath(raw.stored) !== wanted) return;
      found = true;
      const out = new Transform({ transform: (c, _e, cb) => cb(null, c) });
      resolve(out);
      // The walk waits here until the caller has read the entry (or gone away).
      await new Promise<void>((done) => {
        data.pipe(out);
        out.on('close', () => done());
        data.on('end', () => done());
      });
      return 'stop';
    }).then(
      () => {
        if (!found) reject(unreadable('the entry was listed but not found when read again'));
      },
      (err) => (found ? undefined : reject(err)),
    );
  });
}

/** Zip entries extracted at once (see zipFeed). */
const ZIP_ENTRIES_AT_ONCE = 2;
/**
 * An entry this large is extracted alone: inflating it (this thread) and writing it (the pool)
 * keep both cores busy, and beside another it only ends later, so its flush starts later (100 MB
 * in ten files, 2026-12-02: 97-125 ms alone against 101-159 two at a time). Small ones go two at
 * a time: there each file's create, write and close are most of the time (2,000 files of 4 KiB:
 * 1.2 s against 2.0 s one at a time).
 */
const ZIP_ALONE = 4 * 1024 * 1024;

function zipFeed(fd: number, size: number, listing: Listing, selection: Selection): EntryFeed {
  return {
    async run(visit, signal) {
      // Entries only 7-Zip decompresses come last, all in one 7-Zip run (one per entry would
      // cost a worker start each).
      const later: ArchiveRecord[] = [];
      // Two entries in flight, a large one alone (ZIP_ALONE), each with its own buffers, kept
      // for the whole run. The next entry starts once the last one's file is created (its
      // source is being pumped), so files and roots are claimed in archive order as before;
      // the first failure stops both.
      const free: ReadBuffers[] = [];
      const inFlight = new Set<Promise<void>>();
      let large = false;
      let failed: { err: unknown } | null = null;
      const fail = (err: unknown) => {
        failed ??= { err };
      };
      for (const r of listing.records) {
        if (signal.aborted || failed) break;
        if (!selection.rootOf(r.path)) continue;
        const entry = { path: r.path, stored: r.path, kind: r.kind, size: r.size };
        if (r.kind !== 'file') {
          await visit(entry, null).catch(fail);
          continue;
        }
        if (!readsHere(r.ref as ZipRef)) {
          later.push(r);
          continue;
        }
        const alone = (r.size ?? 0) >= ZIP_ALONE;
        while (inFlight.size >= (alone || large ? 1 : ZIP_ENTRIES_AT_ONCE)) await Promise.race(inFlight);
        if (failed) break;
        const buffers = free.pop() ?? readBuffers();
        large = alone;
        let source: ChunkSource;
        try {
          source = await zipEntrySource(fd, size, r.ref as ZipRef, r.path, buffers);
        } catch (err) {
          fail(err);
          free.push(buffers);
          break;
        }
        let started = () => {};
        const pumping = new Promise<void>((resolve) => (started = resolve));
        const data: ChunkSource = {
          pump(take) {
            started();
            return source.pump((chunk) => {
              if (failed) throw failed.err;
              return take(chunk);
            });
          },
        };
        const visiting: Promise<void> = visit(entry, data)
          .catch(fail)
          .finally(() => {
            inFlight.delete(visiting);
            free.push(buffers);
          });
        inFlight.add(visiting);
        await Promise.race([pumping, visiting]);
      }
      await Promise.all(inFlight);
      if (failed) throw (failed as { err: unknown }).err;
      if (!later.length || signal.aborted) return;
      await extractBySevenZip(
        fd,
        later.map((r) => ({ ref: r.ref as ZipRef, name: r.path })),
        (i, data) => {
          const r = later[i]!;
          return visit({ path: r.path, stored: r.path, kind: r.kind, size: r.size }, data);
        },
        signal,
      );
    },
  };
}

function tarFeed(fd: number, format: Format, maxEntries: number | null): EntryFeed {
  const read: ReadCount = { bytes: 0 };
  return {
    consumed: () => read.bytes,
    async run(visit, signal) {
      let count = 0;
      const each = async (raw: RawEntry, data: EntryData) => {
        if (signal.aborted) return 'stop';
        // Past the limit the walk is refused (a listed archive was refused before it began).
        if (maxEntries !== null && ++count > maxEntries) throw tooManyEntries(maxEntries);
        await visit(
          { path: entryPath(raw.stored), stored: raw.stored, kind: raw.kind, size: raw.size },
          raw.kind === 'file' ? data : null,
        );
      };
      // A tar.gz without a buffer per chunk (gunzip-walk.ts); the other compressions through tar-stream.
      if (format === 'tar.gz') await walkTarGz(fd, each, read);
      else await scanTar(fd, format, each, read);
    },
  };
}

function singleFeed(fd: number, format: Format, name: string): EntryFeed {
  const read: ReadCount = { bytes: 0 };
  return {
    consumed: () => read.bytes,
    async run(visit) {
      await visit({ path: name, stored: name, kind: 'file', size: null }, singleStream(fd, format, read));
    },
  };
}

function sevenZipFeed(a: Opened, listing: Listing, selection: Selection): EntryFeed {
  return {
    async run(visit, signal) {
      const names: string[] = [];
      for (const r of listing.records) {
        if (!selection.rootOf(r.path)) continue;
        if (r.kind === 'file') names.push(r.ref as string);
        else await visit({ path: r.path, stored: r.path, kind: r.kind, size: r.size }, null);
      }
      if (!names.length) return;
      await extractSevenZip(
        a.fd,
        a.size,
        a.file.name,
        names,
        async (outPath, data) => {
          const p = entryPath(outPath);
          const r = p === null ? undefined : listing.file(p);
          if (!r || !selection.rootOf(r.path)) {
            data.resume();
            await new Promise((done) => data.on('end', done));
            return;
          }
          await visit({ path: r.path, stored: outPath, kind: 'file', size: r.size }, data);
        },
        signal,
      );
    },
  };
}
