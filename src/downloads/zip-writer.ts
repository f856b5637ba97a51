// A streaming zip writer onto any Writable (a download's response, a zip written to disk): local
// header, the bytes, a data descriptor (CRC and sizes known only at the end), then the central
// directory, with ZIP64 records where sizes, offsets or the entry count need them, and UTF-8
// names (flag bit 11).
//
// Why not yazl here: yazl sends every chunk through its checksum Transform, a byte counter and
// a PassThrough with 16 KiB marks before the socket, one entry at a time with no read ahead;
// a stored zip ran at 0.2-0.4x of the same bytes sent bare. Here a stored entry is one read
// into a reused 1 MiB buffer, one native crc32 and one socket write per MiB, the next read in
// flight (the way single downloads are sent); deflated entries are 1 MiB blocks deflated two at a
// time on the thread pool (deflateBlock), written in order.
import { applyPatches, type Patch } from '../core/patches.ts';
import fs from 'node:fs';
import type { Writable } from 'node:stream';
import zlib from 'node:zlib';
import { CHUNK, drained, gone, type ChunkPool } from '../http/range.ts';

const U32 = 0xffffffff;
/** Entries at least this large get ZIP64 sizes (deflate may grow incompressible data a little). */
const ZIP64_SIZE = 0xf0000000;
const FLAGS = 0x0008 | 0x0800; // sizes in a data descriptor; UTF-8 names

interface Central {
  name: Buffer;
  method: number;
  flags: number;
  dos: number;
  unixTime: number;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
  zip64: boolean;
  directory: boolean;
}

/**
 * Deflate blocks run on at most this many threads of libuv's pool at once, process-wide: two
 * cores' worth, and two of the pool's four threads left for the file reads every download needs.
 */
export const DEFLATE_THREADS = 2;
let deflating = 0;
const waitingForThread: Array<() => void> = [];

async function deflateThread(): Promise<() => void> {
  if (deflating >= DEFLATE_THREADS) await new Promise<void>((resolve) => waitingForThread.push(resolve));
  else deflating++;
  return () => {
    const next = waitingForThread.shift();
    if (next) next();
    else deflating--;
  };
}

/** zlib's output pieces (its default 16 KiB meant 8x the trips back from the thread pool). */
const OUT_PIECE = 128 * 1024;

/** Deflate's window: a block is compressed with the 32 KiB before it as its dictionary. */
const WINDOW = 32 * 1024;

/** The last WINDOW bytes of `before` followed by `chunk`, copied (the chunk goes back to a pool). */
function windowAfter(before: Buffer | undefined, chunk: Buffer): Buffer {
  if (chunk.length >= WINDOW || !before) return Buffer.from(chunk.subarray(Math.max(0, chunk.length - WINDOW)));
  const joined = Buffer.concat([before, chunk]);
  return joined.subarray(Math.max(0, joined.length - WINDOW));
}

/**
 * One block of a raw deflate stream, compressed on the thread pool (one call, no stream kept):
 * with the previous block's last 32 KiB as dictionary it matches across the seam as one stream
 * would, and a sync flush ends it on a byte boundary so the blocks of a file concatenate into
 * one valid stream; `last` finishes it. pigz's technique: blocks of one file, or whole files
 * ahead of their turn, deflate on two threads while the answer is written in order.
 */
export async function deflateBlock(
  data: Buffer,
  level: number,
  dictionary: Buffer | undefined,
  last: boolean,
): Promise<Buffer> {
  const release = await deflateThread();
  try {
    const options: zlib.ZlibOptions = {
      level,
      chunkSize: OUT_PIECE,
      finishFlush: last ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH,
    };
    if (dictionary) options.dictionary = dictionary;
    return await new Promise<Buffer>((resolve, reject) =>
      zlib.deflateRaw(data, options, (err, out) => (err ? reject(err) : resolve(out))),
    );
  } finally {
    release();
  }
}

/** Engines unused this long are closed: their ~300 KB of zlib state is not kept at rest. */
const ENGINE_IDLE_MS = 5_000;

/**
 * zlib's output buffers (OUT_PIECE each, its own ArrayBuffer) by how many of their pieces are
 * still wanted. zlib writes on into a new buffer once one is full and never touches a full one
 * again, so a full buffer is freed (detached: at once, not at the next collection) when its last
 * piece has been written or dropped. Why: a zip of 100 MB of text passes ~35 MB of these; left
 * to the collector, that external memory started ~4 full collections of Burrow's ~20 MB heap per
 * zip (~100 ms of CPU of ~1.1 s, mostly on V8's helper threads). Pieces of one buffer may belong
 * to different zips (the engines are shared), hence a count per buffer, taken as zlib hands
 * each piece out, not per file.
 */
const wanted = new WeakMap<ArrayBuffer, number>();
const full = new WeakSet<ArrayBuffer>();

function hold(piece: Buffer): void {
  const whole = piece.buffer as ArrayBuffer;
  // Only zlib's own output buffers (Buffer's shared 8 KiB slabs are never this size).
  if (whole.byteLength !== OUT_PIECE) return;
  wanted.set(whole, (wanted.get(whole) ?? 0) + 1);
  if (piece.byteOffset + piece.length === whole.byteLength) full.add(whole);
}

/** A piece of deflateWhole's output is written (or will never be): see `wanted`. */
export function pieceWritten(piece: Buffer): void {
  const whole = piece.buffer as ArrayBuffer;
  const count = wanted.get(whole);
  if (count === undefined) return;
  if (count > 1) return void wanted.set(whole, count - 1);
  wanted.delete(whole);
  if (full.has(whole)) whole.transfer(0);
}

/**
 * A gzip stream kept from file to file (reset between them) instead of one per file. Why: each
 * new one is ~300 KB of zlib state plus its output buffers and their concatenation, all
 * external memory, and at two deflating threads that churn made V8 start a full collection
 * every ~150 ms of a zip (~5 a zip of 100 text files, 10-25 ms of the main thread each).
 * Reused, a file costs only the output pieces it fills, handed on as they are (not joined).
 */
class GzipEngine {
  readonly level: number;
  // reset() is deflateReset for gzip too (the types declare it for deflate and inflate only).
  private readonly z: zlib.Gzip & zlib.ZlibReset;
  private pieces: Buffer[] = [];
  private failed: Error | null = null;
  constructor(level: number) {
    this.level = level;
    this.z = zlib.createGzip({ level, chunkSize: OUT_PIECE }) as zlib.Gzip & zlib.ZlibReset;
    this.z.on('data', (piece: Buffer) => {
      hold(piece);
      this.pieces.push(piece);
    });
    this.z.on('error', (err: Error) => (this.failed = err));
  }
  /** The gzip member of `data`: every piece zlib wrote, in order (views of its output buffers). */
  run(data: Buffer): Promise<Buffer[]> {
    return new Promise((resolve, reject) => {
      this.z.write(data);
      // Flushed with Z_FINISH: the member ends here and its last pieces are out (the 'data'
      // events come before the flush's callback); reset() starts the next file's member.
      this.z.flush(zlib.constants.Z_FINISH, () => {
        const pieces = this.pieces;
        this.pieces = [];
        if (this.failed) {
          pieces.forEach(pieceWritten);
          return reject(this.failed);
        }
        this.z.reset();
        resolve(pieces);
      });
    });
  }
  get broken(): boolean {
    return this.failed !== null;
  }
  close(): void {
    this.z.close();
  }
}

const idleEngines: GzipEngine[] = [];
let closeIdle: NodeJS.Timeout | undefined;

/** Closes the engines at rest now (as ENGINE_IDLE_MS would): the next file gets a fresh one. */
export function closeIdleEngines(): void {
  clearTimeout(closeIdle);
  for (const e of idleEngines.splice(0)) e.close();
}

function takeEngine(level: number): GzipEngine {
  const at = idleEngines.findIndex((e) => e.level === level);
  return at >= 0 ? idleEngines.splice(at, 1)[0]! : new GzipEngine(level);
}

function putEngine(engine: GzipEngine): void {
  if (engine.broken || idleEngines.length >= DEFLATE_THREADS) return engine.close();
  idleEngines.push(engine);
  clearTimeout(closeIdle);
  closeIdle = setTimeout(closeIdleEngines, ENGINE_IDLE_MS).unref();
}

/**
 * A whole file deflated in one go on the thread pool, with its CRC computed there too: zlib's
 * gzip wrapper checksums the input as deflate reads it (nearly free), where zlib.crc32 on the
 * main thread costs ~0.4 ms a MiB — a tenth of a core beside two deflating threads. The gzip
 * framing (zlib's fixed 10-byte header, CRC and length after the data) is cut off; what is
 * left, in pieces, is the raw deflate stream a zip entry holds. Each piece is to be passed to
 * `pieceWritten` once written (its bytes are freed then; see `wanted`).
 */
export async function deflateWhole(data: Buffer, level: number): Promise<{ crc: number; bytes: Buffer[] }> {
  const release = await deflateThread();
  const engine = takeEngine(level);
  try {
    const gz = await engine.run(data);
    try {
      const total = gz.reduce((n, b) => n + b.length, 0);
      if (total < 18) throw new Error('zlib wrote an unexpected gzip frame');
      const trailer = tail(gz, 8);
      // No name, comment or extra field: the header is exactly 10 bytes (flags byte 0). It may
      // span two pieces: the engine writes each member on where the last one ended in its output
      // buffer, and one that starts < 10 bytes before the buffer's end splits it (taking the first
      // piece for the header failed ~1 % of zips of text, through the executable, 4 side by side).
      const header = Buffer.concat(slicePieces(gz, 0, 10));
      if (header[0] !== 0x1f || header[1] !== 0x8b || header[3] !== 0)
        throw new Error('zlib wrote an unexpected gzip frame');
      if (trailer.readUInt32LE(4) !== data.length >>> 0) throw new Error('zlib wrote an unexpected gzip frame');
      const bytes = slicePieces(gz, 10, total - 8);
      // The views handed on are held before zlib's own pieces (header, trailer and all) are let go.
      bytes.forEach(hold);
      return { crc: trailer.readUInt32LE(0), bytes };
    } finally {
      gz.forEach(pieceWritten);
    }
  } finally {
    putEngine(engine);
    release();
  }
}

/** The last `n` bytes of the pieces, copied. */
function tail(pieces: Buffer[], n: number): Buffer {
  const total = pieces.reduce((sum, b) => sum + b.length, 0);
  return Buffer.concat(slicePieces(pieces, total - n, total));
}

/** Bytes [from, to) of the pieces taken as one, as views of them. */
function slicePieces(pieces: Buffer[], from: number, to: number): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const b of pieces) {
    const start = Math.max(from - at, 0);
    const end = Math.min(to - at, b.length);
    if (end > start) out.push(b.subarray(start, end));
    at += b.length;
  }
  return out;
}

/** Pieces below this (headers, descriptors, small files) are gathered into one socket write. */
const SMALL = 16 * 1024;
const BATCH = 64 * 1024;

/**
 * The output as a byte sink with backpressure; fails once it is destroyed (the client left, the
 * disk refused a write), with the output's own error when it has one.
 */
class Sink {
  offset = 0;
  private readonly res: Writable;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private pendingDone: Array<() => void> = [];
  constructor(res: Writable) {
    this.res = res;
  }
  /** `written` is called once the bytes are no longer needed (the output or a batch has them). */
  async write(buf: Buffer, written?: () => void): Promise<void> {
    if (this.res.destroyed) throw gone(this.res);
    this.offset += buf.length;
    if (buf.length < SMALL) {
      this.pending.push(buf);
      this.pendingBytes += buf.length;
      if (written) this.pendingDone.push(written);
      if (this.pendingBytes >= BATCH) await this.flush();
      return;
    }
    // No cork() around the pair: a response corked before its headers went out never drained.
    if (this.pending.length) this.res.write(this.takeBatch());
    if (!this.res.write(buf, written)) await drained(this.res);
  }
  async flush(): Promise<void> {
    if (!this.pending.length) return;
    if (this.res.destroyed) throw gone(this.res);
    if (!this.res.write(this.takeBatch())) await drained(this.res);
  }
  private takeBatch(): Buffer {
    const batch = this.pending.length === 1 ? Buffer.from(this.pending[0]!) : Buffer.concat(this.pending);
    for (const done of this.pendingDone) done();
    this.pending = [];
    this.pendingBytes = 0;
    this.pendingDone = [];
    return batch;
  }
}

/** DOS date and time (local, 2 s steps, as Info-ZIP writes them) packed as date << 16 | time. */
function dosTime(d: Date): number {
  const year = Math.min(Math.max(d.getFullYear(), 1980), 2107);
  const date = ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate();
  const time = (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1);
  return ((date << 16) | time) >>> 0;
}

/** Info-ZIP's extended timestamp (UTC seconds): exact mtimes for unzip, not DOS local time. */
function timestampExtra(unixTime: number): Buffer {
  const b = Buffer.alloc(9);
  b.writeUInt16LE(0x5455, 0);
  b.writeUInt16LE(5, 2);
  b.writeUInt8(1, 4);
  b.writeUInt32LE(unixTime, 5);
  return b;
}

export class ZipWriter {
  private readonly sink: Sink;
  private readonly pool: ChunkPool;
  private readonly entries: Central[] = [];
  constructor(res: Writable, pool: ChunkPool) {
    this.sink = new Sink(res);
    this.pool = pool;
  }

  private async local(name: string, mtime: Date, method: number, flags: number, zip64: boolean): Promise<Central> {
    const nameBytes = Buffer.from(name, 'utf8');
    const unixTime = Math.min(Math.max(Math.floor(mtime.getTime() / 1000), 0), U32);
    const time = timestampExtra(unixTime);
    const extraLength = time.length + (zip64 ? 20 : 0);
    const h = Buffer.alloc(30 + nameBytes.length + extraLength);
    const dos = dosTime(mtime);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(zip64 ? 45 : 20, 4);
    h.writeUInt16LE(flags, 6);
    h.writeUInt16LE(method, 8);
    h.writeUInt32LE(dos, 10);
    // CRC and sizes 0 here: they follow the data (flag bit 3); ZIP64 marks them as in the extra.
    h.writeUInt32LE(zip64 ? U32 : 0, 18);
    h.writeUInt32LE(zip64 ? U32 : 0, 22);
    h.writeUInt16LE(nameBytes.length, 26);
    h.writeUInt16LE(extraLength, 28);
    nameBytes.copy(h, 30);
    time.copy(h, 30 + nameBytes.length);
    if (zip64) {
      const at = 30 + nameBytes.length + time.length;
      h.writeUInt16LE(0x0001, at);
      h.writeUInt16LE(16, at + 2); // both sizes, zero: the descriptor carries them
    }
    const entry: Central = {
      name: nameBytes,
      method,
      flags,
      dos,
      unixTime,
      crc: 0,
      compressed: 0,
      size: 0,
      offset: this.sink.offset,
      zip64,
      directory: false,
    };
    await this.sink.write(h);
    return entry;
  }

  async directory(name: string, mtime: Date): Promise<void> {
    const entry = await this.local(name.endsWith('/') ? name : `${name}/`, mtime, 0, 0x0800, false);
    entry.directory = true;
    this.entries.push(entry);
  }

  /**
   * One file read through `fd`, exactly `size` bytes (the size of the checked descriptor): a
   * file cut short fails with ESHORT. `head` is its first bytes, already read (a view lent
   * from the pool, or empty).
   */
  async file(
    name: string,
    mtime: Date,
    fd: number,
    size: number,
    level: number,
    head: Buffer,
    /** Bytes in place of the file's after `head` (core/patches.ts; `head` has them already). */
    patches: readonly Patch[] = [],
  ): Promise<void> {
    const zip64 = size >= ZIP64_SIZE;
    const entry = await this.local(name, mtime, level ? 8 : 0, FLAGS, zip64);
    if (level) await this.deflated(entry, fd, size, level, head, patches);
    else await this.stored(entry, fd, size, head, patches);
    await this.descriptor(entry, size);
  }

  private async descriptor(entry: Central, size: number): Promise<void> {
    const zip64 = entry.zip64;
    entry.size = size;
    const d = Buffer.alloc(zip64 ? 24 : 16);
    d.writeUInt32LE(0x08074b50, 0);
    d.writeUInt32LE(entry.crc, 4);
    if (zip64) {
      d.writeBigUInt64LE(BigInt(entry.compressed), 8);
      d.writeBigUInt64LE(BigInt(size), 16);
    } else {
      d.writeUInt32LE(entry.compressed, 8);
      d.writeUInt32LE(size, 12);
    }
    await this.sink.write(d);
    this.entries.push(entry);
  }

  /** Reads bytes [from, size) of fd into pooled buffers, one read ahead of the consumer. */
  private async *chunks(fd: number, from: number, size: number, patches: readonly Patch[]): AsyncGenerator<Buffer> {
    const pool = this.pool;
    const read = (pos: number) =>
      new Promise<[Buffer, number]>((resolve, reject) => {
        const buf = pool.take();
        fs.read(fd, buf, 0, Math.min(CHUNK, size - pos), pos, (err, n) => {
          if (!err) return resolve([buf, n]);
          pool.putBack(buf);
          reject(err);
        });
      });
    let pos = from;
    let next: Promise<[Buffer, number]> | null = pos < size ? read(pos) : null;
    try {
      while (next) {
        const [buf, n] = await next;
        next = null;
        if (n === 0) {
          pool.putBack(buf);
          throw Object.assign(new Error(`the file ended after ${pos} of ${size} bytes`), { code: 'ESHORT' });
        }
        if (patches.length) applyPatches(buf.subarray(0, n), pos, patches);
        pos += n;
        if (pos < size) next = read(pos);
        yield pool.lend(buf, n);
      }
    } finally {
      // A read in flight when the entry failed: let it land before the descriptor is closed.
      if (next)
        await next.then(
          ([buf]) => pool.putBack(buf),
          () => {},
        );
    }
  }

  private async stored(
    entry: Central,
    fd: number,
    size: number,
    head: Buffer,
    patches: readonly Patch[],
  ): Promise<void> {
    let crc = 0;
    if (head.length) {
      crc = zlib.crc32(head);
      await this.sink.write(head, () => this.pool.giveBack(head));
    }
    for await (const chunk of this.chunks(fd, head.length, size, patches)) {
      crc = zlib.crc32(chunk, crc);
      // The buffer goes back to the pool once the socket has taken its bytes.
      await this.sink.write(chunk, () => this.pool.giveBack(chunk));
    }
    entry.crc = crc;
    entry.compressed = size;
  }

  /**
   * Deflated in blocks of one read each (1 MiB), DEFLATE_THREADS blocks at a time on the thread
   * pool, written in order (see deflateBlock): one zlib stream would keep a long text file on
   * one thread.
   */
  private async deflated(
    entry: Central,
    fd: number,
    size: number,
    level: number,
    head: Buffer,
    patches: readonly Patch[],
  ): Promise<void> {
    const pool = this.pool;
    const start = this.sink.offset;
    let crc = 0;
    let fed = 0;
    let dictionary: Buffer | undefined;
    const inFlight: Promise<Buffer>[] = [];
    const feed = (chunk: Buffer) => {
      crc = zlib.crc32(chunk, crc);
      fed += chunk.length;
      const block = deflateBlock(chunk, level, dictionary, fed >= size);
      // zlib reads the chunk on its thread: the pool gets it back once the block is done.
      inFlight.push(block.finally(() => pool.giveBack(chunk)));
      dictionary = windowAfter(dictionary, chunk);
    };
    try {
      if (head.length) feed(head);
      for await (const chunk of this.chunks(fd, head.length, size, patches)) {
        while (inFlight.length >= DEFLATE_THREADS) await this.sink.write(await inFlight.shift()!);
        feed(chunk);
      }
      while (inFlight.length) await this.sink.write(await inFlight.shift()!);
    } finally {
      // Blocks still deflating after a failure hold pool buffers: let them land.
      await Promise.allSettled(inFlight);
    }
    entry.crc = crc;
    entry.compressed = this.sink.offset - start;
  }

  /** A file deflated whole ahead of its turn (deflateWhole): the header, those bytes, the descriptor. */
  async deflatedFile(name: string, mtime: Date, size: number, crc: number, compressed: Buffer[]): Promise<void> {
    const zip64 = size >= ZIP64_SIZE;
    const entry = await this.local(name, mtime, 8, FLAGS, zip64);
    const start = this.sink.offset;
    for (const piece of compressed) await this.sink.write(piece, () => pieceWritten(piece));
    entry.crc = crc;
    entry.compressed = this.sink.offset - start;
    await this.descriptor(entry, size);
  }

  /** The central directory and its end records, all written out (the caller ends the output). */
  async finish(): Promise<void> {
    const start = this.sink.offset;
    const parts: Buffer[] = [];
    for (const e of this.entries) {
      const bigSizes = e.zip64;
      const bigOffset = e.offset >= U32;
      const time = timestampExtra(e.unixTime);
      const z64Length = (bigSizes ? 16 : 0) + (bigOffset ? 8 : 0);
      const extraLength = time.length + (z64Length ? 4 + z64Length : 0);
      const h = Buffer.alloc(46 + e.name.length + extraLength);
      h.writeUInt32LE(0x02014b50, 0);
      h.writeUInt16LE((3 << 8) | 45, 4); // made by Unix, spec 4.5
      h.writeUInt16LE(e.zip64 || bigOffset ? 45 : 20, 6);
      h.writeUInt16LE(e.flags, 8);
      h.writeUInt16LE(e.method, 10);
      h.writeUInt32LE(e.dos, 12);
      h.writeUInt32LE(e.crc, 16);
      h.writeUInt32LE(bigSizes ? U32 : e.compressed, 20);
      h.writeUInt32LE(bigSizes ? U32 : e.size, 24);
      h.writeUInt16LE(e.name.length, 28);
      h.writeUInt16LE(extraLength, 30);
      // comment length, disk, internal attributes: 0
      h.writeUInt32LE((e.directory ? (0o40755 << 16) | 0x10 : 0o100644 << 16) >>> 0, 38);
      h.writeUInt32LE(bigOffset ? U32 : e.offset, 42);
      e.name.copy(h, 46);
      let at = 46 + e.name.length;
      time.copy(h, at);
      at += time.length;
      if (z64Length) {
        h.writeUInt16LE(0x0001, at);
        h.writeUInt16LE(z64Length, at + 2);
        at += 4;
        if (bigSizes) {
          h.writeBigUInt64LE(BigInt(e.size), at);
          h.writeBigUInt64LE(BigInt(e.compressed), at + 8);
          at += 16;
        }
        if (bigOffset) h.writeBigUInt64LE(BigInt(e.offset), at);
      }
      parts.push(h);
      if (parts.length >= 256) await this.sink.write(Buffer.concat(parts.splice(0)));
    }
    if (parts.length) await this.sink.write(Buffer.concat(parts.splice(0)));
    const end = this.sink.offset;
    const count = this.entries.length;
    const cdSize = end - start;
    const zip64 = count >= 0xffff || start >= U32 || cdSize >= U32;
    if (zip64) {
      const r = Buffer.alloc(56 + 20);
      r.writeUInt32LE(0x06064b50, 0);
      r.writeBigUInt64LE(44n, 4);
      r.writeUInt16LE((3 << 8) | 45, 12);
      r.writeUInt16LE(45, 14);
      // this disk, the directory's disk: 0
      r.writeBigUInt64LE(BigInt(count), 24);
      r.writeBigUInt64LE(BigInt(count), 32);
      r.writeBigUInt64LE(BigInt(cdSize), 40);
      r.writeBigUInt64LE(BigInt(start), 48);
      r.writeUInt32LE(0x07064b50, 56); // the locator
      r.writeBigUInt64LE(BigInt(end), 64);
      r.writeUInt32LE(1, 72);
      await this.sink.write(r);
    }
    const e = Buffer.alloc(22);
    e.writeUInt32LE(0x06054b50, 0);
    e.writeUInt16LE(zip64 ? 0xffff : count, 8);
    e.writeUInt16LE(zip64 ? 0xffff : count, 10);
    e.writeUInt32LE(zip64 ? U32 : cdSize, 12);
    e.writeUInt32LE(zip64 ? U32 : start, 16);
    await this.sink.write(e);
    await this.sink.flush();
  }
}
