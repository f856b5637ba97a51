// A selection as a streaming zip (yazl): entries are added while the tree is walked and read
// lazily, already-compressed kinds are stored (not deflated), names are UTF-8, and only what a
// listing would show goes in (no Burrow folders, no symlinks, hidden files per preference).
import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import type { Readable } from 'node:stream';
import yazl from 'yazl';
import { walkFiles } from '../files/walk.ts';
import { ChunkPool, CHUNK, pooledFileStream, pumpToResponse } from './pooled-read.ts';
import { contentDisposition } from './single.ts';

// yazl checksums every entry with buffer-crc32, a table loop in JavaScript (~150 MB/s); a
// stored zip is bound by it. Hand the same module Node's native crc32 (same results, ~10 GB/s).
// Where the module cannot be reached (a bundle), zips still work, only slower.
try {
  const yazlPath = createRequire(import.meta.url).resolve('yazl');
  const crc = createRequire(yazlPath)('buffer-crc32') as { unsigned: (buf: Buffer, previous?: number) => number };
  if (typeof zlib.crc32 === 'function' && crc.unsigned(Buffer.from('burrow')) === zlib.crc32('burrow')) {
    crc.unsigned = (buf, previous = 0) => zlib.crc32(buf, typeof previous === 'number' ? previous : 0);
  }
} catch {
  // Keep the JavaScript checksum.
}

const STORED = new Set(['jpg', 'jpeg', 'png', 'gif', 'webp', 'avif', 'heic', 'heif', 'mp3', 'm4a', 'aac', 'ogg', 'opus', 'flac', 'mp4', 'm4v', 'mov', 'mkv', 'webm', 'avi', 'zip', 'gz', 'tgz', 'bz2', 'xz', 'zst', '7z', 'rar', 'docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp', 'epub', 'jar', 'apk', 'pdf', 'woff', 'woff2']);

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

export interface ZipSource { real: string; name: string; isDirectory: boolean }

/** Walks the selection: each top item under its own name. */
export async function* selectionEntries(sources: ZipSource[], showHidden: boolean) {
  for (const s of sources) {
    if (!s.isDirectory) {
      const st = await fs.promises.stat(s.real).catch(() => null);
      if (st?.isFile()) yield { relative: s.name, real: s.real, size: st.size, mtime: st.mtime, isDirectory: false };
      continue;
    }
    const st = await fs.promises.stat(s.real).catch(() => null);
    if (!st) continue;
    yield { relative: s.name, real: s.real, size: 0, mtime: st.mtime, isDirectory: true };
    for await (const e of walkFiles(s.real, { showHidden })) yield { ...e, relative: `${s.name}/${e.relative}` };
  }
}

export async function sendZip(res: ServerResponse, sources: ZipSource[], archiveName: string, showHidden: boolean, headOnly: boolean): Promise<void> {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/zip');
  res.setHeader('Content-Disposition', contentDisposition(archiveName));
  res.setHeader('Cache-Control', 'no-store');
  if (headOnly) {
    res.end();
    return;
  }
  const zip = new yazl.ZipFile();
  const pool = new ChunkPool();
  const ahead = new OpenAhead();
  const done = pumpToResponse(zip.outputStream as Readable, res, pool);
  try {
    for await (const e of selectionEntries(sources, showHidden)) {
      if (e.isDirectory) zip.addEmptyDirectory(e.relative, { mtime: e.mtime });
      else {
        const compress = shouldDeflate(e.relative, e.size);
        if (compress) zip.addReadStreamLazy(e.relative, { mtime: e.mtime, size: e.size, compress }, (cb) => cb(null, fs.createReadStream(e.real, { highWaterMark: CHUNK })));
        else {
          const index = ahead.add(e.real);
          zip.addReadStreamLazy(e.relative, { mtime: e.mtime, size: e.size, compress }, (cb) => cb(null, pooledFileStream(pool, ahead.take(index))));
        }
      }
    }
  } finally {
    zip.end();
  }
  try {
    await done;
  } finally {
    ahead.closeAll();
  }
}

// A bare descriptor (not a FileHandle, which would close itself when collected).
const openFd = (real: string) => promisify(fs.open)(real, 'r');

/**
 * Opens the next few files while the current one streams, so the archive does not wait on an
 * open() per entry; bounded, so a 10,000-file selection never holds more than a few descriptors.
 */
class OpenAhead {
  private readonly paths: string[] = [];
  private readonly opened = new Map<number, Promise<number>>();
  private next = 0;
  private readonly window = 4;

  add(real: string): number {
    this.paths.push(real);
    return this.paths.length - 1;
  }

  take(index: number): Promise<number> {
    const fd = this.opened.get(index) ?? openFd(this.paths[index]!);
    this.opened.delete(index);
    this.next = Math.max(this.next, index + 1);
    while (this.next < this.paths.length && this.next <= index + this.window) {
      if (!this.opened.has(this.next)) this.opened.set(this.next, openFd(this.paths[this.next]!));
      this.next++;
    }
    return fd;
  }

  closeAll(): void {
    for (const fd of this.opened.values()) fd.then((d) => fs.close(d, () => {}), () => {});
    this.opened.clear();
  }
}
