// The tar family through tar-stream: tar, tar.gz (node:zlib), tar.bz2 (unbzip2-stream, pure
// JavaScript) and tar.xz (xz-decompress: xz-embedded compiled to WebAssembly and inlined in
// the package, so nothing native and nothing fetched). One forward pass: a listing of a
// compressed tar reads the whole archive, which is why those are the "compound" formats with a
// browse size limit. A plain tar is listed from its headers alone (tar-index.ts).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Duplex, PassThrough, Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { feed, readDescriptor } from './descriptor.ts';
import { NeedsListing, tooManyEntries, unreadable } from './errors.ts';
import type { Format } from './formats.ts';
import type { EntryKind, RawEntry } from './listing.ts';

const require = createRequire(import.meta.url);

/** Bytes of the archive read so far (extraction judges the expansion ratio by them as it streams). */
export interface ReadCount {
  bytes: number;
}

/** The archive's bytes from `fd` (not closed here: the caller owns the descriptor). */
function rawStream(fd: number, count?: ReadCount): Readable {
  const raw = readDescriptor(fd);
  if (count) raw.on('data', (chunk: Buffer) => (count.bytes += chunk.length));
  return raw;
}

function bunzip2(): Duplex {
  const unbzip2 = require('unbzip2-stream') as () => Duplex;
  // An old-style `through` stream: wrapped so pipeline sees a modern stream with errors intact.
  const inner = unbzip2();
  const outer = new PassThrough({ highWaterMark: 1024 * 1024 });
  inner.on('data', (b: Buffer) => {
    if (!outer.write(b)) inner.pause();
  });
  outer.on('drain', () => inner.resume());
  inner.on('end', () => outer.end());
  inner.on('error', (err: Error) => outer.destroy(err));
  const input = new PassThrough();
  input.on('data', (b: Buffer) => {
    if (inner.write(b) === false) input.pause();
  });
  inner.on('drain', () => input.resume());
  input.on('end', () => inner.end());
  return Duplex.from({ writable: input, readable: outer });
}

function unxz(source: Readable): Readable {
  const { XzReadableStream } = require('xz-decompress') as {
    XzReadableStream: new (s: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>;
  };
  return Readable.fromWeb(
    new XzReadableStream(
      Readable.toWeb(source) as ReadableStream<Uint8Array>,
    ) as import('node:stream/web').ReadableStream,
  );
}

/** The decompressed bytes of a gzip / bzip2 / xz archive (or a plain tar as it is). */
export function decompressed(fd: number, format: Format, count?: ReadCount): Readable {
  const kind = format.replace(/^tar\.?/, '');
  if (kind === 'gz') return gunzipped(fd, count);
  const source = rawStream(fd, count);
  if (kind === 'bz2') return chain(source, bunzip2());
  if (kind === 'xz') return unxz(source);
  return source;
}

const GZ_READ = 1024 * 1024;

/**
 * A gzip file's bytes, decompressed in 1 MiB output chunks. Its compressed bytes are read with
 * positioned reads into two buffers used in turn (a read stream allocates a new 1 MiB buffer per
 * read, garbage the collector then chases): each is handed to zlib and read into again once
 * zlib has consumed it, the next read running meanwhile. Stops reading when the output is destroyed.
 */
function gunzipped(fd: number, count?: ReadCount): Readable {
  // Up to 4 MiB of output ahead: gunzip goes on while the last chunks are parsed and written.
  const gunzip = zlib.createGunzip({ chunkSize: GZ_READ, readableHighWaterMark: 4 * GZ_READ } as zlib.ZlibOptions);
  const buffers = [Buffer.allocUnsafeSlow(GZ_READ), Buffer.allocUnsafeSlow(GZ_READ)];
  const read = (buf: Buffer, at: number) =>
    new Promise<number>((resolve, reject) =>
      fs.read(fd, buf, 0, buf.length, at, (err, n) => (err ? reject(err) : resolve(n))),
    );
  void (async () => {
    let at = 0;
    let i = 0;
    let n = await read(buffers[0]!, 0);
    while (n > 0 && !gunzip.destroyed) {
      at += n;
      if (count) count.bytes += n;
      const chunk = buffers[i]!.subarray(0, n);
      i ^= 1;
      const next = read(buffers[i]!, at);
      next.catch(() => {});
      await feed(gunzip, chunk);
      n = await next;
    }
    if (!gunzip.destroyed) gunzip.end();
  })().catch((err: unknown) => gunzip.destroy(err as Error));
  return gunzip;
}

/**
 * What a gzip file says it expands to: its trailer's ISIZE, the length of its (last) member's
 * content modulo 4 GiB. For a tar.gz that is the tar's length, every header and padding
 * included, so an upper bound of the files' bytes — when the file is one member under 4 GiB.
 * Trusted only as a bound the extraction holds while it streams (extract.ts `bound`), and only
 * where it is at least what the compressed bytes could hold (deflate never grows data by more
 * than 5 bytes per 64 KiB block besides the header): a smaller one is a wrapped or a partial
 * count, answered null (the archive is then listed first).
 */
export async function gzipBound(fd: number, size: number): Promise<number | null> {
  if (size < 18) return null;
  const tail = Buffer.alloc(4);
  let got = 0;
  while (got < 4) {
    const n = await new Promise<number>((resolve, reject) =>
      fs.read(fd, tail, got, 4 - got, size - 4 + got, (err, n) => (err ? reject(err) : resolve(n))),
    );
    if (n === 0) return null;
    got += n;
  }
  const isize = tail.readUInt32LE(0);
  return isize + 5 * Math.ceil(isize / 65535) + 64 * 1024 >= size ? isize : null;
}

function chain(source: Readable, transform: Transform | Duplex): Readable {
  source.on('error', (err) => transform.destroy(err));
  transform.on('close', () => source.destroy());
  return source.pipe(transform);
}

/** Entry kinds of a tar header's type (the header listing in tar-index.ts uses the same). */
export function kindOf(type: string | null | undefined): EntryKind {
  switch (type) {
    case 'file':
    case 'contiguous-file':
    case null:
    case undefined:
      return 'file';
    case 'directory':
      return 'directory';
    case 'symlink':
    case 'link':
      return 'link';
    default:
      return 'device';
  }
}

export type TarVisit = (raw: RawEntry, data: Readable) => Promise<'stop' | void>;

/**
 * Walks a tar archive entry by entry. `visit` must consume or ignore `data` (an ignored one is
 * skipped); answering 'stop' ends the walk without reading further.
 */
export async function scanTar(fd: number, format: Format, visit: TarVisit, count?: ReadCount): Promise<void> {
  const extract = tar.extract();
  const source = decompressed(fd, format, count);
  const feeding = pipeline(source, extract).catch((err) => {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw err;
  });
  feeding.catch(() => {}); // awaited below; a walk that fails first must not leave it unhandled
  let stopped = false;
  try {
    for await (const entry of extract) {
      const h = entry.header;
      const raw: RawEntry = {
        stored: h.name,
        kind: kindOf(h.type),
        size: kindOf(h.type) === 'file' ? (h.size ?? 0) : null,
        mtime: h.mtime ?? null,
        encrypted: false,
        linkTarget: h.linkname ?? undefined,
      };
      // No listener here: a 'data' listener would start the flow before the visitor pipes it.
      const data = entry as unknown as Readable;
      const answer = await visit(raw, data);
      if (answer === 'stop') {
        stopped = true;
        break;
      }
      if (!data.readableEnded && !data.destroyed) data.resume();
    }
  } catch (err) {
    source.destroy();
    throw asUnreadable(err);
  } finally {
    if (stopped) source.destroy();
  }
  await feeding.catch((err) => {
    if (!stopped) throw asUnreadable(err);
  });
}

function asUnreadable(err: unknown): Error {
  if (err instanceof NeedsListing) return err;
  if (err && typeof err === 'object' && 'status' in err) return err as unknown as Error;
  return unreadable((err as Error)?.message ?? String(err));
}

export async function listTar(fd: number, format: Format, maxEntries: number): Promise<RawEntry[]> {
  const out: RawEntry[] = [];
  await scanTar(fd, format, async (raw) => {
    if (out.length >= maxEntries) throw tooManyEntries(maxEntries);
    out.push(raw);
  });
  return out;
}

/** The one file of a plain .gz / .bz2 / .xz, fully checked by its decompressor as it streams. */
export function singleStream(fd: number, format: Format, count?: ReadCount): Readable {
  const out = decompressed(fd, format, count);
  const guarded = new PassThrough();
  out.on('error', (err) => guarded.destroy(unreadable(err.message)));
  return out.pipe(guarded);
}
