// A selection as a streaming zip (yazl): entries are added while the tree is walked and read
// lazily, each file decides whether compression pays (stored when its kind or its sampled start
// says it will not shrink, deflated at a fast level otherwise), names are UTF-8, and only what a
// listing would show goes in (no Burrow folders, no symlinks, hidden files per preference).
import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import yazl from 'yazl';
import { openDirIn, openFileIn, type Dir, type OpenedFile } from '../files/confined.ts';
import { walkFiles } from '../files/walk.ts';
import { ChunkPool, CHUNK, pooledFileStream, pumpToResponse } from './pooled-read.ts';
import { contentDisposition } from './single.ts';

const deflateRaw = promisify(zlib.deflateRaw);
const pread = promisify(fs.read);

// yazl checksums every entry with buffer-crc32, a table loop in JavaScript (~150 MB/s); a
// stored zip is bound by it. Hand the same module Node's native crc32 (same results, ~10 GB/s).
// In the executable the module cannot be reached by name (no node_modules): there yazl's
// checksum stream itself is given the native crc32 (withNativeCrc) — without it the executable's
// stored zips ran at a third of the source's.
let nativeCrc = false;
try {
  const yazlPath = createRequire(import.meta.url).resolve('yazl');
  const crc = createRequire(yazlPath)('buffer-crc32') as { unsigned: (buf: Buffer, previous?: number) => number };
  if (typeof zlib.crc32 === 'function' && crc.unsigned(Buffer.from('burrow')) === zlib.crc32('burrow')) {
    crc.unsigned = (buf, previous = 0) => zlib.crc32(buf, typeof previous === 'number' ? previous : 0);
    nativeCrc = true;
  }
} catch {
  // Patched through the first entry's stream instead.
}

/**
 * yazl pipes each entry's stream first into its checksum stream (a Transform keeping `crc32`,
 * not exported): the first time, that stream's prototype gets the native checksum.
 */
function withNativeCrc(stream: Readable): Readable {
  if (nativeCrc || typeof zlib.crc32 !== 'function') return stream;
  const pipe = stream.pipe;
  stream.pipe = function (this: Readable, dest: NodeJS.WritableStream, opts?: { end?: boolean }) {
    stream.pipe = pipe;
    const proto = Object.getPrototypeOf(dest) as { _transform?: unknown } | null;
    if (!nativeCrc && proto && typeof (dest as { crc32?: unknown }).crc32 === 'number' && proto._transform) {
      proto._transform = function (
        this: { crc32: number },
        chunk: Buffer,
        _encoding: string,
        cb: (err: null, chunk: Buffer) => void,
      ) {
        this.crc32 = zlib.crc32(chunk, this.crc32);
        cb(null, chunk);
      };
      nativeCrc = true;
    }
    return pipe.call(this, dest, opts);
  } as typeof stream.pipe;
  return stream;
}

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
/** The start of a file deflated to predict the rest. */
const SAMPLE = 64 * 1024;
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

/**
 * The deflate level for one file read through `fd`: 0 (stored) for small files, compressed kinds
 * by name or signature, and content whose first 64 KiB, deflated at the fast level, does not
 * shrink by 10 %; FAST_LEVEL otherwise. The sample is deflated on the thread pool, and the
 * decision is made while earlier entries stream (see sendZip's window).
 */
export async function compressionFor(name: string, size: number, fd: number): Promise<number> {
  if (!shouldDeflate(name, size)) return 0;
  const head = Buffer.allocUnsafe(Math.min(SAMPLE, size));
  const bytesRead = await pread(fd, head, 0, head.length, 0).then(
    (r) => r.bytesRead,
    () => 0,
  );
  if (bytesRead === 0) return FAST_LEVEL; // the stream will report what went wrong
  const sample = head.subarray(0, bytesRead);
  if (hasCompressedMagic(sample)) return 0;
  const packed = await deflateRaw(sample, { level: FAST_LEVEL });
  return packed.length <= sample.length * PAYS ? FAST_LEVEL : 0;
}

/** One selected item, opened and checked before the answer starts (a folder as a descriptor). */
export interface ZipSource {
  name: string;
  root: string;
  dir?: Dir;
  file?: OpenedFile;
}

/**
 * Opens the selected items inside their roots. A refusal (outside, gone) is an error answer
 * here, before any header is sent; everything later is read through these descriptors.
 */
export async function openSources(
  items: { root: string; real: string; name: string; isDirectory: boolean }[],
): Promise<ZipSource[]> {
  const out: ZipSource[] = [];
  try {
    for (const i of items) {
      if (i.isDirectory) out.push({ name: i.name, root: i.root, dir: await openDirIn(i.root, i.real) });
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
  size: number;
  mtime: Date;
  isDirectory: boolean;
  root: string;
  /** usable path (files under a folder) */ path?: string;
  /** an already open top file */ file?: OpenedFile;
}

/** Walks the selection: each top item under its own name. */
export async function* selectionEntries(sources: ZipSource[], showHidden: boolean): AsyncGenerator<ZipEntry> {
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
    for await (const e of walkFiles(s.root, dir, { showHidden }))
      yield { ...e, root: s.root, relative: `${s.name}/${e.relative}` };
  }
}

/**
 * Streams the selection as a zip. Sources are closed here. Any failure (a file cut short, an
 * entry refused as outside, yazl itself) fails this answer only and rejects for the log.
 */
export async function sendZip(
  res: ServerResponse,
  sources: ZipSource[],
  archiveName: string,
  showHidden: boolean,
  headOnly: boolean,
): Promise<void> {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/zip');
  res.setHeader('Content-Disposition', contentDisposition(archiveName));
  res.setHeader('Cache-Control', 'no-store');
  if (headOnly) {
    await closeSources(sources);
    res.end();
    return;
  }
  const zip = new yazl.ZipFile();
  const output = zip.outputStream as Readable;
  // yazl reports a bad entry on the ZipFile, not on its output: route it there so it fails this answer.
  zip.on('error', (err: Error) => output.destroy(err));
  const pool = new ChunkPool();
  const window = new Window(WINDOW);
  const done = pumpToResponse(output, res, pool);
  done.catch(() => {});
  // A client that leaves stops the pump: nothing streams through any more, so nobody waits.
  output.once('close', () => window.close());
  const owned = new Set<OpenedFile>();
  // Descriptors opened ahead and not yet handed to a stream (closed here if the answer fails).
  const waiting = new Set<number>();
  try {
    for await (const e of selectionEntries(sources, showHidden)) {
      if (output.destroyed) break;
      if (e.isDirectory) {
        zip.addEmptyDirectory(e.relative, { mtime: e.mtime });
        continue;
      }
      // A few files are opened (and sampled) ahead of the one streaming, never more: the local
      // header carries the method, so the decision has to be made before the entry is added.
      await window.room();
      if (output.destroyed) break;
      if (e.file) owned.add(e.file);
      const fd = e.file ? e.file.fd : (await openFileIn(e.root, e.path!)).fd;
      waiting.add(fd);
      window.enter();
      const level = await compressionFor(e.relative, e.size, fd);
      zip.addReadStreamLazy(e.relative, { mtime: e.mtime, size: e.size, compressionLevel: level }, (cb) => {
        waiting.delete(fd);
        const stream =
          level === 0
            ? pooledFileStream(pool, Promise.resolve(fd))
            : fs.createReadStream('', { fd, highWaterMark: CHUNK, start: 0 });
        stream.once('close', () => window.leave());
        cb(null, withNativeCrc(stream));
      });
    }
  } catch (err) {
    output.destroy(err as Error);
  } finally {
    zip.end();
  }
  try {
    await done;
  } finally {
    window.close();
    for (const fd of waiting) fs.close(fd, () => {});
    await closeSources(sources.filter((s) => !s.file || !owned.has(s.file)));
  }
}

/** Files opened ahead of the one streaming: enough to hide an open() and a sample per entry. */
const WINDOW = 4;

/** A counting gate: room() waits while `size` files are open and not yet streamed through. */
class Window {
  private open = 0;
  private wake: (() => void) | null = null;
  private readonly size: number;
  constructor(size: number) {
    this.size = size;
  }
  async room(): Promise<void> {
    while (this.open >= this.size)
      await new Promise<void>((r) => {
        this.wake = r;
      });
  }
  enter(): void {
    this.open++;
  }
  leave(): void {
    this.open--;
    this.release();
  }
  /** The answer ended: nothing more will leave, so nobody may wait. */
  close(): void {
    this.open = -Infinity;
    this.release();
  }
  private release(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }
}
