// Zip through yauzl: the central directory only for a listing (ZIP64 included), names decoded
// the way yauzl decodes them (UTF-8 flag, Info-ZIP Unicode path field, else CP437) but
// classified by us (yauzl would reject the whole archive for one `../` name; we leave that
// entry out and count it). Sizes are checked against what decompression really gives. Stored
// and deflated entries are read here; any other method (bzip2, LZMA, xz…) by 7-Zip (zip-view.ts).
import fs from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import yauzl from 'yauzl';
import { DescriptorRangeReader } from './descriptor.ts';
import { Inflater } from './inflater.ts';
import { encrypted as encryptedError, Handoff, isAppError, readerError, tooManyEntries, unreadable } from './errors.ts';
import type { EntryKind, RawEntry } from './listing.ts';
import { extractSevenZip, openSevenZipEntry } from './sevenzip.ts';
import { entriesZip, type ViewEntry } from './zip-view.ts';

const fstat = promisify(fs.fstat);

/** What opening an entry again needs; kept small (a 100,000-entry listing holds one each). */
export interface ZipRef {
  offset: number;
  csize: number;
  usize: number;
  method: number;
  flags: number;
  crc: number;
}

/** A listing's read-ahead window over the central directory. */
const WINDOW = 1024 * 1024;
/**
 * Reads answered from the window in a row before one waits a tick. yauzl asks for the next
 * entry from inside a read's callback, so each answered at once deepens the stack (about five
 * frames a read); a tick per read cost about a fifth of a 100,000-entry listing.
 */
const AT_ONCE = 128;

/**
 * Reads the caller's descriptor and never closes it (yauzl's own fd reader closes the
 * descriptor with the last stream, and the same descriptor serves the next entry).
 */
class DescriptorReader extends DescriptorRangeReader {
  private readonly readAhead: number;

  /** @param readAhead bytes read at once (a listing's window); 0 reads exactly what yauzl asks */
  constructor(fd: number, readAhead: number) {
    super(fd);
    this.readAhead = readAhead;
  }

  // yauzl reads the central directory a record at a time (two small reads per entry): a
  // listing serves them from a 1 MiB window read ahead, so 100,000 entries are a few dozen
  // preads, into one buffer however large the central directory. Opening an entry reads only
  // its local header (a window there would be a megabyte per entry extracted).
  private window: Buffer = Buffer.alloc(0);
  private windowStart = 0;
  private spare: Buffer | undefined;
  private atOnce = 0;

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (err: Error | null) => void,
  ): void {
    const from = position - this.windowStart;
    if (from >= 0 && from + length <= this.window.length) {
      this.window.copy(buffer, offset, from, from + length);
      if (++this.atOnce < AT_ONCE) return callback(null);
      this.atOnce = 0;
      process.nextTick(callback, null);
      return;
    }
    if (length >= this.readAhead) {
      fs.read(this.fd, buffer, offset, length, position, (err, n) => {
        if (err) return callback(err);
        callback(n < length ? new Error('unexpected EOF') : null);
      });
      return;
    }
    // The window's buffer is refilled: yauzl's reads come one after another, each copied out.
    const next = (this.spare ??= Buffer.allocUnsafeSlow(this.readAhead));
    this.window = Buffer.alloc(0);
    fs.read(this.fd, next, 0, next.length, position, (err, n) => {
      if (err) return callback(err);
      if (n < length) return callback(new Error('unexpected EOF'));
      this.window = next.subarray(0, n);
      this.windowStart = position;
      this.atOnce = 0;
      this.window.copy(buffer, offset, 0, length);
      callback(null);
    });
  }
}

const fromFd = (fd: number, readAhead: number) =>
  new Promise<yauzl.ZipFile>((resolve, reject) => {
    fs.fstat(fd, (err, st) => {
      if (err) return reject(err);
      yauzl.fromRandomAccessReader(
        new DescriptorReader(fd, readAhead),
        st.size,
        { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true },
        (e, zip) => (e ? reject(e) : resolve(zip!)),
      );
    });
  });

const S_IFMT = 0o170000;

function kindOf(e: yauzl.Entry, name: string): EntryKind {
  const unixMode = e.versionMadeBy >> 8 === 3 ? (e.externalFileAttributes >>> 16) & S_IFMT : 0;
  if (unixMode === 0o120000) return 'link';
  if (unixMode === 0o020000 || unixMode === 0o060000 || unixMode === 0o010000 || unixMode === 0o140000) return 'device';
  if (name.endsWith('/') || name.endsWith('\\') || unixMode === 0o040000) return 'directory';
  // DOS directory attribute, for archivers that write neither a slash nor a mode.
  if ((e.externalFileAttributes & 0x10) !== 0 && e.uncompressedSize === 0) return 'directory';
  return 'file';
}

/**
 * The entry's name as yauzl decodes it (getFileNameLowLevel). A name of printable ASCII with no
 * Unicode path field reads the same in CP437 and UTF-8, so it is taken in one slice (yauzl's
 * CP437 decoder builds it a character at a time).
 */
function nameOf(e: yauzl.Entry): string {
  const raw = e.fileName as unknown as Buffer;
  let plain = true;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!;
    if (b < 0x20 || b > 0x7e || b === 0x5c) {
      plain = false;
      break;
    }
  }
  if (plain) for (const f of e.extraFields) if (f.id === 0x7075) plain = false;
  return plain ? raw.toString('latin1') : yauzl.getFileNameLowLevel(e.generalPurposeBitFlag, raw, e.extraFields, false);
}

/** Every entry of the central directory, in order, given to `visit` as it is parsed (none is kept here). */
export async function listZip(fd: number, maxEntries: number, visit: (e: RawEntry) => void): Promise<void> {
  const zip = await fromFd(fd, WINDOW).catch((err) => {
    throw unreadable((err as Error).message);
  });
  if (zip.entryCount > maxEntries) throw tooManyEntries(maxEntries);
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (e: yauzl.Entry) => {
        const name = nameOf(e);
        const kind = kindOf(e, name);
        let mtime: Date | null = null;
        try {
          mtime = e.getLastModDate();
        } catch {
          mtime = null;
        }
        const ref: ZipRef = {
          offset: e.relativeOffsetOfLocalHeader,
          csize: e.compressedSize,
          usize: e.uncompressedSize,
          method: e.compressionMethod,
          flags: e.generalPurposeBitFlag,
          crc: e.crc32,
        };
        try {
          visit({
            stored: name,
            kind,
            size: kind === 'directory' ? null : e.uncompressedSize,
            mtime,
            encrypted: e.isEncrypted(),
            ref,
          });
        } catch (err) {
          // Thrown here it would unwind through yauzl's read callbacks and be lost.
          return reject(err);
        }
        zip.readEntry();
      });
      zip.on('end', resolve);
      zip.on('error', reject);
      zip.readEntry();
    });
  } catch (err) {
    throw unreadable((err as Error).message);
  } finally {
    zip.close();
  }
}

/**
 * The zip for opening entries: its end record found and read once (64 KiB searched), so
 * an extraction passing it to each `openZipEntry` reads each entry's local header and bytes only.
 * Closing it leaves the descriptor open.
 */
export const openZip = (fd: number): Promise<yauzl.ZipFile> =>
  fromFd(fd, 0).catch((err) => {
    throw unreadable((err as Error).message);
  });

/**
 * One entry's bytes. A stored entry is a plain byte range of the archive, so a Range costs
 * nothing; a deflated one is decompressed and the bytes before `start` are skipped; any other
 * method is decompressed by 7-Zip (zip-view.ts), skipped the same way. `end` is inclusive, like HTTP's.
 */
export async function openZipEntry(
  fd: number,
  ref: ZipRef,
  name: string,
  range?: { start: number; end: number },
  opened?: yauzl.ZipFile,
): Promise<Readable> {
  if (ref.flags & 1) throw encryptedError(name);
  if (ref.method !== 0 && ref.method !== 8) return bySevenZip(fd, ref, name, range);
  const zip = opened ?? (await openZip(fd));
  const entry = Object.assign(new yauzl.Entry(), {
    relativeOffsetOfLocalHeader: ref.offset,
    compressedSize: ref.csize,
    uncompressedSize: ref.usize,
    compressionMethod: ref.method,
    generalPurposeBitFlag: ref.flags,
  });
  const stored = ref.method === 0;
  // Deflated bytes are read raw and inflated here: yauzl's inflater has zlib's 16 KiB output
  // chunks (a callback, a guard pass and a write per 16 KiB); 256 KiB chunks cost a quarter of it.
  const options = (
    stored && range
      ? { decodeFileData: false, start: range.start, end: range.end + 1 }
      : stored
        ? {}
        : { decodeFileData: false }
  ) as yauzl.ZipFileOptions;
  const raw = await new Promise<Readable>((resolve, reject) =>
    zip.openReadStream(entry, options, (err, s) => (err ? reject(unreadable(err.message)) : resolve(s!))),
  );
  if (!opened) raw.once('close', () => zip.close());
  if (stored) return range ? raw : exactly(raw, ref.usize, name);
  const inflate = zlib.createInflateRaw({ chunkSize: INFLATE_CHUNK });
  raw.on('error', (err) => inflate.destroy(err));
  inflate.on('close', () => raw.destroy());
  const stream = exactly(raw.pipe(inflate), ref.usize, name);
  if (range) return skipTake(stream, range.start, range.end - range.start + 1);
  return stream;
}

const INFLATE_CHUNK = 256 * 1024;

/** Whether this reader decompresses the entry itself (stored, deflated) or 7-Zip does. */
export const readsHere = (ref: ZipRef) => ref.method === 0 || ref.method === 8;

async function bySevenZip(fd: number, ref: ZipRef, name: string, range?: { start: number; end: number }) {
  const { size: archiveSize } = await fstat(fd);
  const { view, size } = await entriesZip(fd, archiveSize, [{ ref, name }]);
  // 7-Zip checks the CRC; the declared size is held here as for every other method.
  const stream = exactly(await openSevenZipEntry(fd, size, 'entries.zip', '0', () => {}, view), ref.usize, name);
  return range ? skipTake(stream, range.start, range.end - range.start + 1) : stream;
}

/** Entries per 7-Zip run when extracting (each run holds their made headers). */
const BATCH = 1000;

/**
 * Extracts entries that 7-Zip decompresses, in as few 7-Zip runs as batches (starting a run
 * costs far more than an entry): `visit` gets each entry's bytes in the order given.
 */
export async function extractBySevenZip(
  fd: number,
  entries: readonly ViewEntry[],
  visit: (index: number, data: Readable) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  const { size: archiveSize } = await fstat(fd);
  for (let from = 0; from < entries.length; from += BATCH) {
    const batch = entries.slice(from, from + BATCH);
    const { view, size } = await entriesZip(fd, archiveSize, batch);
    const names = batch.map((_, i) => String(i));
    await extractSevenZip(
      fd,
      size,
      'entries.zip',
      names,
      async (outPath, data) => {
        const i = Number(outPath);
        const e = batch[i];
        if (!e || String(i) !== outPath) throw unreadable(`7-Zip gave an entry it was not asked for`);
        await visit(from + i, exactly(data, e.ref.usize, e.name));
      },
      signal,
      view,
    );
  }
}

/** The entry must give exactly the size its central directory declares (a lie is an error, never more output). */
function exactly(source: Readable, size: number, name: string): Readable {
  let seen = 0;
  const check = new Transform({
    highWaterMark: INFLATE_CHUNK,
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      cb(seen > size ? unreadable(`"${name}" is larger than the archive says`) : null, chunk);
    },
    flush(cb) {
      cb(seen < size ? unreadable(`"${name}" ends before its declared size`) : null);
    },
  });
  source.on('error', (err) => check.destroy(isAppError(err) ? err : unreadable((err as Error).message)));
  check.on('close', () => source.destroy());
  // A short entry can fail here before anyone reads it (an extraction is still claiming its
  // name): the error stays the stream's `errored` state, which pipeline and iteration report;
  // without a listener it would be thrown as an unhandled 'error' event.
  check.on('error', () => {});
  return source.pipe(check);
}

/** Bytes `start` … `start + length - 1` of a stream that can only be read from the beginning. */
export function skipTake(source: Readable, start: number, length: number): Readable {
  let skipped = 0;
  let taken = 0;
  let ended = false;
  const end = () => {
    if (!ended) out.push(null);
    ended = true;
  };
  const out = new Readable({
    read() {
      source.resume();
    },
    destroy(err, cb) {
      source.destroy();
      cb(err);
    },
  });
  source.on('data', (chunk: Buffer) => {
    let c = chunk;
    if (skipped < start) {
      const skip = Math.min(start - skipped, c.length);
      skipped += skip;
      c = c.subarray(skip);
    }
    if (!c.length || ended) return;
    const want = Math.min(length - taken, c.length);
    taken += want;
    if (!out.push(c.subarray(0, want))) source.pause();
    if (taken >= length) {
      end();
      source.destroy();
    }
  });
  source.on('end', end);
  source.on('error', (err) => out.destroy(err));
  return out;
}

/** An entry's bytes handed over a chunk at a time: `take` is awaited, and the chunk may be reused once it resolves. */
export interface ChunkSource {
  pump(take: (chunk: Buffer) => Promise<void>): Promise<void>;
}

/**
 * Buffers one extraction lends its entries in turn: two to read into (the next read runs while
 * the last chunk is written) and two to inflate into (the next chunk is inflated while the last
 * is written).
 */
export interface ReadBuffers {
  readonly a: Buffer;
  readonly b: Buffer;
  readonly out: readonly [Buffer, Buffer];
}

export const READ_CHUNK = 1024 * 1024;
export const readBuffers = (): ReadBuffers => ({
  a: Buffer.allocUnsafeSlow(READ_CHUNK),
  b: Buffer.allocUnsafeSlow(READ_CHUNK),
  out: [Buffer.allocUnsafeSlow(INFLATE_OUT), Buffer.allocUnsafeSlow(INFLATE_OUT)],
});

/** An entry whose header and bytes fit in this many bytes is read in one read (zipEntrySource). */
const SMALL_ENTRY = 64 * 1024;
const HEADER_SLACK = 1024;

const pread = (fd: number, buf: Buffer, length: number, position: number) =>
  new Promise<number>((resolve, reject) =>
    fs.read(fd, buf, 0, length, position, (err, n) => (err ? reject(err) : resolve(n))),
  );

/**
 * A stored or deflated entry of an extraction, read straight from the archive's descriptor with
 * positioned reads into the extraction's two buffers (yauzl's read stream allocated a buffer
 * per read and passed each chunk through two Transforms): the local header is checked as yauzl
 * checks it, a stored entry is copied in 1 MiB reads (the next read runs while the last chunk is
 * written), a deflated one inflated a step at a time into the extraction's two output buffers.
 * The entry must give exactly its declared size: more stops before the extra byte is handed over.
 */
export async function zipEntrySource(
  fd: number,
  archiveSize: number,
  ref: ZipRef,
  name: string,
  buffers: ReadBuffers,
): Promise<ChunkSource> {
  if (ref.flags & 1) throw encryptedError(name);
  const head = buffers.a;
  // A small entry is read with its local header in one read (most of a small file's cost is
  // its trips to the pool): its name and extra fields rarely pass HEADER_SLACK.
  const whole = 30 + HEADER_SLACK + ref.csize;
  const got = await pread(fd, head, whole <= SMALL_ENTRY ? Math.min(whole, archiveSize - ref.offset) : 30, ref.offset);
  if (got < 30) throw unreadable(`"${name}": unexpected EOF`);
  if (head.readUInt32LE(0) !== 0x04034b50)
    throw unreadable(`invalid local file header signature: 0x${head.readUInt32LE(0).toString(16)}`);
  const start = ref.offset + 30 + head.readUInt16LE(26) + head.readUInt16LE(28);
  if (start + ref.csize > archiveSize)
    throw unreadable(`file data overflows file bounds: ${start} + ${ref.csize} > ${archiveSize}`);
  const read =
    start + ref.csize <= ref.offset + got ? head.subarray(start - ref.offset, start - ref.offset + ref.csize) : null;
  const larger = () => unreadable(`"${name}" is larger than the archive says`);
  const shorter = () => unreadable(`"${name}" ends before its declared size`);
  const usize = ref.usize;
  /** The compressed (or stored) bytes, `limit` of them, chunk by chunk into the two buffers; each handed over before the next but one is read. */
  const raw = async (limit: number, take: (chunk: Buffer) => Promise<void>) => {
    if (read) return limit ? take(read.subarray(0, limit)) : undefined;
    let at = start;
    let left = limit;
    let spare = buffers.b;
    let n = await pread(fd, buffers.a, Math.min(READ_CHUNK, left), at);
    let chunk = buffers.a;
    while (left > 0) {
      if (n === 0) throw shorter();
      at += n;
      left -= n;
      const next = left > 0 ? pread(fd, spare, Math.min(READ_CHUNK, left), at) : null;
      next?.catch(() => {});
      try {
        await take(chunk.subarray(0, n));
      } catch (err) {
        await next?.catch(() => {});
        throw err;
      }
      if (!next) break;
      n = await next;
      [chunk, spare] = [spare, chunk];
    }
  };
  if (ref.method === 0)
    return {
      pump: (take) =>
        ref.csize > usize ? Promise.reject(larger()) : ref.csize < usize ? Promise.reject(shorter()) : raw(usize, take),
    };
  return { pump: (take) => inflated(raw, ref.csize, usize, buffers.out, take, larger, shorter) };
}

/** Inflate output chunks of an extraction: fewer, larger chunks are fewer callbacks and writes. */
const INFLATE_OUT = 1024 * 1024;

/**
 * A deflated entry inflated a step at a time into the extraction's two output buffers in turn
 * (inflater.ts): each chunk is handed to `take` while the next is inflated into the other
 * buffer, one `take` in flight. It must give exactly `usize` bytes: more stops before the extra
 * byte is handed over.
 */
async function inflated(
  raw: (limit: number, take: (chunk: Buffer) => Promise<void>) => Promise<void>,
  csize: number,
  usize: number,
  outs: readonly [Buffer, Buffer],
  take: (chunk: Buffer) => Promise<void>,
  larger: () => Error,
  shorter: () => Error,
): Promise<void> {
  const z = new Inflater('raw');
  const handoff = new Handoff(take);
  let i = 0;
  let seen = 0;
  const hand = (n: number) => {
    seen += n;
    if (seen > usize) throw larger();
    const chunk = outs[i]!.subarray(0, n);
    // The next step inflates into the other buffer, once the take holding it is done.
    i ^= 1;
    return handoff.hand(chunk);
  };
  try {
    await raw(csize, async (input) => {
      for (let from = 0; from < input.length;) {
        const { read, wrote } = z.step(input, from, outs[i]!);
        if (!read && !wrote) break; // the stream ended before its compressed size: what it gave is judged below
        from += read;
        if (wrote) await hand(wrote);
      }
    });
    for (let wrote = INFLATE_OUT; wrote === INFLATE_OUT;) {
      wrote = z.finish(outs[i]!);
      if (wrote) await hand(wrote);
    }
    await handoff.drain();
    if (seen < usize) throw shorter();
  } catch (err) {
    await handoff.settled();
    throw readerError(err);
  } finally {
    z.close();
  }
}
