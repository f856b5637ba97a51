// A selection as a streaming zip (ZipWriter, zip-writer.ts): entries are written while the tree
// is walked, a few files opened and sampled ahead of the one streaming; each file decides whether
// compression pays (stored when its kind or its sampled start says it will not shrink, deflated at
// a fast level otherwise), names are UTF-8, and only what a listing would show goes in (no Burrow
// folders, no symlinks, hidden files per preference).
import fs from 'node:fs';
import type { Writable } from 'node:stream';
import zlib from 'node:zlib';
import { applyPatches, type Patch } from '../core/patches.ts';
import { HAS_PROC_FD, openChildFile, openDirIn, openFileIn, type Dir, type OpenedFile } from '../files/confined.ts';
import { walkFiles } from '../files/walk.ts';
import { ChunkPool, CHUNK } from '../http/range.ts';
import type { ZipAnswer } from '../http/zip.ts';
import { deflateWhole, ZipWriter } from './zip-writer.ts';

const STORED = new Set([
  'jpg',
  'jpeg',
  'png',
  'gif',
  'webp',
  'avif',
  'heic',
  'heif',
  'mp3',
  'm4a',
  'aac',
  'ogg',
  'opus',
  'flac',
  'mp4',
  'm4v',
  'mov',
  'mkv',
  'webm',
  'avi',
  'zip',
  'gz',
  'tgz',
  'bz2',
  'xz',
  'zst',
  '7z',
  'rar',
  'docx',
  'xlsx',
  'pptx',
  'odt',
  'ods',
  'odp',
  'epub',
  'jar',
  'apk',
  'pdf',
  'woff',
  'woff2',
]);

export function isCompressedKind(name: string): boolean {
  const dot = name.lastIndexOf('.');
  return dot > 0 && STORED.has(name.slice(dot + 1).toLowerCase());
}

/** Below this, deflate saves a few hundred bytes at the price of a compressor per entry. */
const SMALL_FILE = 16 * 1024;

/** Deflate only what gains from it: not already-compressed kinds, not small files. */
export function shouldDeflate(name: string, size: number): boolean {
  return size >= SMALL_FILE && !isCompressedKind(name);
}

/** Deflate level for what does compress: level 1 runs ~3x level 6 for a few % more bytes. */
export const FAST_LEVEL = 1;
/**
 * The start of a file examined to predict the rest. 4 KiB decides as 8 KiB did (the same
 * answer for ~5,000 files of a Debian system and node_modules, each judged against deflating
 * its first MiB) at half the cost (~12 us a random sample, where every test runs).
 */
const SAMPLE = 4 * 1024;
/** Deflate only when the sample shrinks to at most this fraction (saves ≥ 10 %). */
const PAYS = 0.9;

// Signatures of formats that are compressed inside, whatever their name says.
const MAGIC: Array<[offset: number, bytes: number[]]> = [
  [0, [0x50, 0x4b, 0x03, 0x04]], // zip and its kin (docx, jar, apk, epub…)
  [0, [0x1f, 0x8b]], // gzip
  [0, [0x28, 0xb5, 0x2f, 0xfd]], // zstd
  [0, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]], // xz
  [0, [0x42, 0x5a, 0x68]], // bzip2
  [0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]], // 7z
  [0, [0x52, 0x61, 0x72, 0x21]], // rar
  [0, [0xff, 0xd8, 0xff]], // jpeg
  [0, [0x89, 0x50, 0x4e, 0x47]], // png
  [0, [0x47, 0x49, 0x46, 0x38]], // gif
  [4, [0x66, 0x74, 0x79, 0x70]], // ISO media: mp4, mov, heic, avif
  [0, [0x1a, 0x45, 0xdf, 0xa3]], // matroska, webm
  [0, [0x4f, 0x67, 0x67, 0x53]], // ogg
  [0, [0x66, 0x4c, 0x61, 0x43]], // flac
  [0, [0x49, 0x44, 0x33]], // mp3 with ID3
  [0, [0x77, 0x4f, 0x46]], // woff, woff2
];

function hasCompressedMagic(head: Buffer): boolean {
  return MAGIC.some(([at, sig]) => head.length >= at + sig.length && sig.every((b, i) => head[at + i] === b));
}

// Scratch tables of worthDeflating, reused (it runs to completion, one call at a time): fresh
// ones were ~17 KB to allocate and zero per file.
const byteCounts = new Uint32Array(256);
const wordsSeen = new Int32Array(1 << 12);
// k * log2(k) for the counts a sample can hold: 256 Math.log2 calls were ~3 us a file.
const KLOG = new Float64Array(SAMPLE + 1).map((_, k) => (k ? k * Math.log2(k) : 0));
const klog = (k: number) => (k <= SAMPLE ? KLOG[k]! : k * Math.log2(k));

/**
 * Whether the start of a file is worth deflating. Cheap tests first, in JavaScript over the
 * sample, both in one pass (~11 us for 4 KiB; two passes were ~17): when its bytes' order-0
 * entropy is low, Huffman coding alone saves 10 %; when it is near 8 bits and no 4-byte string
 * repeats, nothing in deflate can (noise, ciphertext, compressed data). Only between the two is
 * the sample deflated — a zlib stream per call costs ~0.3 ms and ~300 KB of external memory, more
 * than sending a 1 MiB file and a GC every few dozen files (it was a third of the CPU of a zip of
 * random files).
 */
export function worthDeflating(sample: Buffer): boolean {
  const n = sample.length;
  const counts = byteCounts.fill(0);
  // A table of 4-byte words seen, by hash: finding the same word again is a repeat deflate can
  // use. The word at each offset is rolled on by one byte (one load a byte, not four).
  const seen = wordsSeen.fill(0);
  let repeats = 0;
  let word = 0;
  for (let i = 0; i < n; i++) {
    const b = sample[i]!;
    counts[b]!++;
    word = (word >>> 8) | (b << 24);
    if (i < 3) continue;
    const h = Math.imul(word, -1640531535) >>> 20;
    if (seen[h] === word) repeats++;
    else seen[h] = word;
  }
  // Shannon's bits for the sample, -sum k log2(k/n), as n log2 n - sum k log2 k.
  let sum = 0;
  for (let c = 0; c < 256; c++) sum += klog(counts[c]!);
  if (klog(n) - sum <= n * 8 * PAYS) return true;
  if (repeats < n / 64) return false;
  return zlib.deflateRawSync(sample, { level: FAST_LEVEL }).length <= n * PAYS;
}

/** The deflate level for a file given its first bytes (read ahead, see sendZip). */
export function levelFor(name: string, size: number, head: Buffer): number {
  if (!shouldDeflate(name, size)) return 0;
  // Nothing read: the entry's own reads will report what went wrong.
  if (head.length === 0) return FAST_LEVEL;
  const sample = head.subarray(0, SAMPLE);
  if (hasCompressedMagic(sample)) return 0;
  return worthDeflating(sample) ? FAST_LEVEL : 0;
}

/** One selected item, opened and checked before the answer starts (a folder as a descriptor). */
export interface ZipSource {
  name: string;
  root: string;
  /** Paths below a folder the caller may not take away (the resolver's withheldBelow). */
  leaveOut?: (relative: string) => boolean;
  dir?: Dir;
  file?: OpenedFile;
}

/**
 * Opens the selected items inside their roots. A refusal (outside, gone) is an error answer
 * here, before any header is sent; everything later is read through these descriptors.
 */
export async function openSources(
  items: {
    root: string;
    real: string;
    name: string;
    isDirectory: boolean;
    leaveOut?: (relative: string) => boolean;
  }[],
): Promise<ZipSource[]> {
  const out: ZipSource[] = [];
  try {
    for (const i of items) {
      if (i.isDirectory)
        out.push({
          name: i.name,
          root: i.root,
          dir: await openDirIn(i.root, i.real),
          ...(i.leaveOut ? { leaveOut: i.leaveOut } : {}),
        });
      else out.push({ name: i.name, root: i.root, file: await openFileIn(i.root, i.real) });
    }
  } catch (err) {
    await closeSources(out);
    throw err;
  }
  return out;
}

export async function closeSources(sources: ZipSource[]): Promise<void> {
  for (const s of sources) {
    await s.dir?.close();
    await s.file?.close();
  }
}

interface ZipEntry {
  relative: string;
  /** -1: a file not stat'ed by the walk (its descriptor's fstat tells) */ size: number;
  /** null: a file not stat'ed by the walk */ mtime: Date | null;
  isDirectory: boolean;
  root: string;
  /** usable path (files under a folder) */ path?: string;
  /** an already open top file */ file?: OpenedFile;
  /** A file directly in a selected folder: that checked folder and its name there (see prepare). */
  in?: { dir: Dir; name: string };
  /** Its open, started ahead with others (see openedInBatches): null when it was replaced. */
  opening?: Promise<OpenFile | null>;
}

/**
 * Walks the selection: each top item under its own name. With `statFiles` false (a zip), files
 * come with the type the folder's listing gives and no size or time: writeZip learns those from
 * the descriptor it reads.
 */
export async function* selectionEntries(
  sources: ZipSource[],
  showHidden: boolean,
  statFiles = true,
): AsyncGenerator<ZipEntry> {
  for (const s of sources) {
    if (s.file) {
      yield {
        relative: s.name,
        size: s.file.stat.size,
        mtime: s.file.stat.mtime,
        isDirectory: false,
        root: s.root,
        file: s.file,
      };
      continue;
    }
    const dir = s.dir!;
    const st = await fs.promises.stat(dir.path).catch(() => null);
    if (!st) continue;
    yield { relative: s.name, size: 0, mtime: st.mtime, isDirectory: true, root: s.root };
    for await (const e of walkFiles(s.root, dir, {
      showHidden,
      statFiles,
      ...(s.leaveOut ? { leaveOut: s.leaveOut } : {}),
    })) {
      const direct = HAS_PROC_FD && !e.isDirectory && !e.relative.includes('/');
      yield {
        ...e,
        root: s.root,
        relative: `${s.name}/${e.relative}`,
        in: direct ? { dir, name: e.relative } : undefined,
      };
    }
  }
}

/**
 * A file opened and decided ahead of its turn: the descriptor, the level, the bytes sampled;
 * a file that deflates and fits in its first read is already deflating (its CRC with it).
 */
interface OpenFile {
  fd: number;
  size: number;
  mtime: Date;
  close: () => Promise<void>;
}

/**
 * Bytes a zip sends in place of some of an entry's own, the same length (a link's photos lose
 * their place: metadata/location.ts), or none.
 */
export type Scrub = (name: string, fd: number, size: number) => Promise<Patch[]>;

interface Prepared {
  entry: ZipEntry;
  file?: OpenFile;
  level: number;
  head: Buffer;
  patches?: readonly Patch[];
  deflated?: Promise<{ crc: number; bytes: Buffer[] }>;
}

/**
 * The selection as a zip answer (http/zip.ts sends it): its sources are closed whatever happens.
 * Stored unless `compress` (the person asked for a smaller zip): a zip download is sent about as
 * fast as the files are read when stored (issue 33: a 100 MB mix at 954 MB/s stored, 86 deflating
 * its text half; this machine's bench, test/bench/zip.ts, has both), while deflate level 1 on two
 * threads makes ~170 MB/s of text — ahead only on a link slower than that, and there the person
 * can ask for it.
 */
export function zipAnswer(
  sources: ZipSource[],
  name: string,
  showHidden: boolean,
  compress = false,
  scrub?: Scrub,
): ZipAnswer {
  return {
    name,
    write: (out) => writeZip(out, sources, showHidden, undefined, compress, scrub),
    close: () => closeSources(sources),
  };
}

/**
 * The selection as zip bytes onto `out` (a download's response, a file being written), up to
 * the end of the central directory; the caller ends `out`. Sources and every file opened ahead
 * are closed here, whatever happens. Stops with the signal's reason between entries. With
 * `compress`, each file that shrinks is deflated (levelFor decides); without, all are stored.
 */
export async function writeZip(
  out: Writable,
  sources: ZipSource[],
  showHidden: boolean,
  signal?: AbortSignal,
  compress = true,
  scrub?: Scrub,
): Promise<void> {
  const pool = zipPool;
  const zip = new ZipWriter(out, pool);
  // Files opened ahead and not yet streamed: closed here whatever happens.
  const open = new Set<OpenFile>();
  // Preparations done, and the last that chose to deflate: see aheadBytes.
  let prepared = 0;
  let lastDeflating = -Infinity;
  const aheadBytes = () => (prepared - lastDeflating <= AHEAD_FILES / 4 ? AHEAD_BYTES : STORED_AHEAD_BYTES);
  // A file directly in a selected folder opens through that folder's checked descriptor, its
  // one name never followed (confined by construction, as tree copies open theirs): no
  // descriptor check (a readlink) and no lstat in the walk — its type came from the folder's
  // listing, its size and time come from this descriptor, and a link or a folder put in its
  // place since is refused by the open (O_NOFOLLOW) or the fstat: null, left out. Each trip to
  // the thread pool saved is a wake-up of a thread and of the loop.
  const openListed = async (within: Dir, name: string): Promise<OpenFile | null> => {
    const f = await openChildFile(within, name).catch((err: NodeJS.ErrnoException) => {
      if (err.code && REPLACED.has(err.code)) return null;
      throw err;
    });
    if (!f) return null;
    const file = { fd: f.fd, size: f.stat.size, mtime: f.stat.mtime, close: () => f.close() };
    open.add(file);
    return file;
  };
  // A file the walk listed and that is gone, or no longer a regular file, when opened: left out.
  const prepare = async (entry: ZipEntry): Promise<Prepared | null> => {
    if (entry.isDirectory) return { entry, level: 0, head: EMPTY };
    let file: OpenFile;
    if (entry.file) {
      const f = entry.file;
      // A top file belongs to its source and is closed with it.
      file = { fd: f.fd, size: f.stat.size, mtime: f.stat.mtime, close: async () => {} };
    } else if (entry.in) {
      const f = await (entry.opening ?? openListed(entry.in.dir, entry.in.name));
      if (!f) return null;
      file = f;
    } else {
      // Deeper files open by path (openFileIn follows a final link that stays inside): the
      // lstat keeps links out of the zip, as the listing shows them.
      const st = await fs.promises.lstat(entry.path!).catch(() => null);
      if (!st?.isFile()) return null;
      const f = await openFileIn(entry.root, entry.path!);
      file = { fd: f.fd, size: f.stat.size, mtime: f.stat.mtime, close: () => f.close() };
    }
    open.add(file);
    // The first chunk is read here, ahead of its turn: the sample comes from it, and it is the
    // start of the entry, so the next file's first read overlaps the current file's sending.
    const head = await readHead(pool, file.fd, file.size);
    const patches = scrub ? await scrub(entry.relative, file.fd, file.size) : [];
    applyPatches(head, 0, patches);
    const level = compress ? levelFor(entry.relative, file.size, head) : 0;
    prepared++;
    if (level) lastDeflating = prepared;
    if (!level || head.length !== file.size) return { entry, file, level, head, patches };
    // The whole file is in `head`: it deflates now, on the thread pool, while earlier entries
    // are written (at most DEFLATE_THREADS at once, all zips together).
    const deflated = deflateWhole(head, level).finally(() => pool.giveBack(head));
    deflated.catch(() => {}); // awaited in turn
    return { entry, file, level, head: EMPTY, deflated };
  };
  try {
    // A file weighs its first read: a full one until its size is known.
    const weigh = (e: ZipEntry) => (e.isDirectory ? 0 : e.size < 0 ? CHUNK : Math.min(e.size, CHUNK));
    const held = (p: Prepared | null) => (p?.file ? Math.min(p.file.size, CHUNK) : 0);
    const entries = openedInBatches(selectionEntries(sources, showHidden, false), openListed);
    for await (const p of ahead(entries, weigh, prepare, held, aheadBytes)) {
      signal?.throwIfAborted();
      if (!p) continue;
      if (!p.file) {
        await zip.directory(p.entry.relative, p.entry.mtime!);
        continue;
      }
      try {
        if (p.deflated) {
          const { crc, bytes } = await p.deflated;
          await zip.deflatedFile(p.entry.relative, p.file.mtime, p.file.size, crc, bytes);
        } else await zip.file(p.entry.relative, p.file.mtime, p.file.fd, p.file.size, p.level, p.head, p.patches);
      } finally {
        open.delete(p.file);
        // Not awaited: a close is a trip to the thread pool the next entry need not wait for.
        p.file.close().catch(() => {});
      }
    }
    await zip.finish();
  } finally {
    for (const f of open) await f!.close();
    await closeSources(sources);
  }
}

const EMPTY = Buffer.alloc(0);

/** Why opening a listed file fails when it was removed or replaced (by a link, a folder, a FIFO) since. */
const REPLACED = new Set(['ENOENT', 'ELOOP', 'EISDIR', 'EINVAL']);

/** Up to 1 MiB from the start of fd, as a view lent from the pool (empty when the read fails). */
function readHead(pool: ChunkPool, fd: number, size: number): Promise<Buffer> {
  if (size === 0) return Promise.resolve(EMPTY);
  // A small file gets a buffer of its own size (not lent, so never pooled): many of them ahead
  // must not hold 1 MiB each.
  const small = size < CHUNK / 4;
  const buf = small ? Buffer.allocUnsafe(size) : pool.take();
  return new Promise((resolve) =>
    fs.read(fd, buf, 0, Math.min(CHUNK, size), 0, (err, n) => {
      if (err || n === 0) {
        if (!small) pool.putBack(buf);
        resolve(EMPTY);
      } else resolve(small ? buf.subarray(0, n) : pool.lend(buf, n));
    }),
  );
}

/**
 * How far ahead of the one streaming files are opened and their first chunk read: enough files
 * to hide an open and a read per entry (small files are mostly that), and a bound on the bytes
 * read ahead so memory stays flat. While files deflate, 8 MiB, not 4: with half the files text,
 * 4 left one of the two deflating threads idle at times (the mix at 0.6x of its ceiling, not
 * 0.9x); the peak memory of a zip measured the same with either (+35 MB over idle, 40 or 340
 * files). While every file is stored, 2 MiB: a stored file needs only its first read hidden, and
 * eight 1 MiB buffers read ahead cycle through the caches, each copy into and out of them slower
 * (perf, 100 x 1 MiB random: the kernel's copies ~20 -> ~12.5 ms a zip with 2 MiB).
 */
const AHEAD_FILES = 32;
const AHEAD_BYTES = 8 * CHUNK;
const STORED_AHEAD_BYTES = 2 * CHUNK;

/**
 * One pool for every zip (archives' "compress to zip" too), kept a second after the last: a pool
 * per zip allocated its ~16 MiB afresh each time, external memory V8 answered with about one
 * full collection per 100 MB zip (its helper threads' CPU in a stored zip of 100 x 1 MiB, from
 * source: ~26 ms of ~140 before, ~6 after). Zips side by side take more buffers than it keeps;
 * those go to the collector.
 */
const zipPool = new ChunkPool(AHEAD_BYTES / CHUNK + 8, 1000);

/** Files opened together ahead of their preparation (see openedInBatches). */
const OPEN_BATCH = 8;

/**
 * Files directly in a selected folder opened OPEN_BATCH at a time, before `ahead` prepares them:
 * opens submitted together are taken by the pool's threads one after another, where one at a
 * time each woke a thread and then the loop (interleaved A/B from source, 100 x 1 MiB random:
 * ~2-3 ms of CPU a zip less). A descriptor costs nothing to hold; the bytes read ahead stay
 * bounded by `ahead`. The opens of the batch in hand are waited for when the zip stops, so
 * every descriptor is known to writeZip's cleanup.
 */
async function* openedInBatches(
  entries: AsyncIterable<ZipEntry>,
  openListed: (dir: Dir, name: string) => Promise<OpenFile | null>,
): AsyncGenerator<ZipEntry> {
  let batch: ZipEntry[] = [];
  const start = () => {
    for (const e of batch) {
      if (!e.in) continue;
      e.opening = openListed(e.in.dir, e.in.name);
      e.opening.catch(() => {}); // awaited in turn
    }
  };
  try {
    for await (const e of entries) {
      batch.push(e);
      if (batch.length < OPEN_BATCH) continue;
      start();
      yield* batch;
      batch = [];
    }
    start();
    yield* batch;
  } finally {
    await Promise.allSettled(batch.map((e) => e.opening));
  }
}

/**
 * `prepare` applied to items ahead of the consumer, results in order: at most AHEAD_FILES of
 * them, and `budget()` bytes — an item weighs `weigh(item)` until prepared, then `held(result)`
 * (a file's size is known once open) — but always one. When the consumer stops (or fails), the
 * preparations still running are waited for, so whatever they opened is known to the caller
 * before it cleans up.
 */
async function* ahead<T, U>(
  items: AsyncIterable<T>,
  weigh: (t: T) => number,
  prepare: (t: T) => Promise<U>,
  held: (u: U) => number,
  budget: () => number,
): AsyncGenerator<U> {
  interface Pending {
    result: Promise<U>;
    weight: number;
    settled: boolean;
    queued: boolean;
  }
  const pending: Pending[] = [];
  let bytes = 0;
  let wake: (() => void) | undefined;
  const next = async () => {
    const p = pending.shift()!;
    p.queued = false;
    bytes -= p.weight;
    return p.result;
  };
  try {
    for await (const item of items) {
      const w = weigh(item);
      while (pending.length && (pending.length >= AHEAD_FILES || bytes + w > budget())) {
        // The oldest is ready, or nothing ahead can get lighter: hand one on. Else wait for a
        // preparation to finish (its size known, it may weigh less than was reserved).
        if (pending[0]!.settled || pending.every((p) => p.settled)) yield await next();
        else await new Promise<void>((resolve) => (wake = resolve));
      }
      const p: Pending = { result: prepare(item), weight: w, settled: false, queued: true };
      pending.push(p);
      bytes += w;
      p.result
        .then(
          (u) => {
            if (!p.queued) return;
            const h = held(u);
            bytes += h - p.weight;
            p.weight = h;
          },
          () => {}, // awaited in turn; a failure ahead is not unhandled meanwhile
        )
        .finally(() => {
          p.settled = true;
          wake?.();
          wake = undefined;
        });
    }
    while (pending.length) yield await next();
  } finally {
    await Promise.allSettled(pending.map((p) => p.result));
  }
}
