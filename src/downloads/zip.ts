// A selection as a streaming zip (yazl): entries are added while the tree is walked and read
// lazily, already-compressed kinds are stored (not deflated), names are UTF-8, and only what a
// listing would show goes in (no Burrow folders, no symlinks, hidden files per preference).
import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import yazl from 'yazl';
import { openDirIn, openFileIn, type Dir, type OpenedFile } from '../files/confined.ts';
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

/** One selected item, opened and checked before the answer starts (a folder as a descriptor). */
export interface ZipSource { name: string; root: string; dir?: Dir; file?: OpenedFile }

/**
 * Opens the selected items inside their roots. A refusal (outside, gone) is an error answer
 * here, before any header is sent; everything later is read through these descriptors.
 */
export async function openSources(items: { root: string; real: string; name: string; isDirectory: boolean }[]): Promise<ZipSource[]> {
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

interface ZipEntry { relative: string; size: number; mtime: Date; isDirectory: boolean; root: string; /** usable path (files under a folder) */ path?: string; /** an already open top file */ file?: OpenedFile }

/** Walks the selection: each top item under its own name. */
export async function* selectionEntries(sources: ZipSource[], showHidden: boolean): AsyncGenerator<ZipEntry> {
  for (const s of sources) {
    if (s.file) {
      yield { relative: s.name, size: s.file.stat.size, mtime: s.file.stat.mtime, isDirectory: false, root: s.root, file: s.file };
      continue;
    }
    const dir = s.dir!;
    const st = await fs.promises.stat(dir.path).catch(() => null);
    if (!st) continue;
    yield { relative: s.name, size: 0, mtime: st.mtime, isDirectory: true, root: s.root };
    for await (const e of walkFiles(s.root, dir, { showHidden })) yield { ...e, root: s.root, relative: `${s.name}/${e.relative}` };
  }
}

/**
 * Streams the selection as a zip. Sources are closed here. Any failure (a file cut short, an
 * entry refused as outside, yazl itself) fails this answer only and rejects for the log.
 */
export async function sendZip(res: ServerResponse, sources: ZipSource[], archiveName: string, showHidden: boolean, headOnly: boolean): Promise<void> {
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
  const ahead = new OpenAhead();
  const done = pumpToResponse(output, res, pool);
  done.catch(() => {});
  try {
    for await (const e of selectionEntries(sources, showHidden)) {
      if (output.destroyed) break;
      if (e.isDirectory) zip.addEmptyDirectory(e.relative, { mtime: e.mtime });
      else {
        const compress = shouldDeflate(e.relative, e.size);
        const opened = e.file ? ahead.own(e.file) : ahead.add(e.root, e.path!);
        if (compress) {
          zip.addReadStreamLazy(e.relative, { mtime: e.mtime, size: e.size, compress }, (cb) => {
            ahead.take(opened).then((fd) => cb(null, fs.createReadStream('', { fd, highWaterMark: CHUNK })), (err) => cb(err, null as any));
          });
        } else zip.addReadStreamLazy(e.relative, { mtime: e.mtime, size: e.size, compress }, (cb) => cb(null, pooledFileStream(pool, ahead.take(opened))));
      }
    }
  } catch (err) {
    output.destroy(err as Error);
  } finally {
    zip.end();
  }
  try {
    await done;
  } finally {
    ahead.closeAll();
    await closeSources(sources.filter((s) => !s.file || !ahead.owns(s.file)));
  }
}

/**
 * Opens the next few files while the current one streams, so the archive does not wait on an
 * open() per entry; bounded, so a 10,000-file selection never holds more than a few descriptors.
 * Each file is opened through its checked top folder and confirmed inside its root.
 */
class OpenAhead {
  private readonly files: { root: string; path: string; fd?: number }[] = [];
  private readonly opened = new Map<number, Promise<number>>();
  private next = 0;
  private readonly window = 4;

  add(root: string, p: string): number {
    this.files.push({ root, path: p });
    return this.files.length - 1;
  }

  /** A top file already open: its descriptor is handed over as it is. */
  private readonly owned = new Set<OpenedFile>();

  owns(file: OpenedFile): boolean {
    return this.owned.has(file);
  }

  own(file: OpenedFile): number {
    this.owned.add(file);
    this.files.push({ root: '', path: '', fd: file.fd });
    this.opened.set(this.files.length - 1, Promise.resolve(file.fd));
    return this.files.length - 1;
  }

  private open(index: number): Promise<number> {
    const f = this.files[index]!;
    return f.fd !== undefined ? Promise.resolve(f.fd) : openFileIn(f.root, f.path).then((o) => o.fd);
  }

  take(index: number): Promise<number> {
    const fd = this.opened.get(index) ?? this.open(index);
    this.opened.delete(index);
    this.next = Math.max(this.next, index + 1);
    while (this.next < this.files.length && this.next <= index + this.window) {
      if (!this.opened.has(this.next)) {
        const p = this.open(this.next);
        p.catch(() => {});
        this.opened.set(this.next, p);
      }
      this.next++;
    }
    return fd;
  }

  closeAll(): void {
    for (const fd of this.opened.values()) fd.then((d) => fs.close(d, () => {}), () => {});
    this.opened.clear();
  }
}
