// A tar.gz walked for extraction without a buffer per chunk. The compressed bytes are read with
// positioned reads into two buffers used in turn, gunzipped a step at a time into two output
// buffers used in turn (inflater.ts), and the tar inside walked over those (tar-index.ts, as a
// plain tar's headers are): a file's content is handed over as slices of the output buffers,
// each written while the next is gunzipped. Through zlib's stream and tar-stream each 1 MiB of
// output was a fresh buffer, faulted in page by page as zlib filled it and freed only by the
// collector.
import fs from 'node:fs';
import { Handoff, readerError, tooManyEntries, unreadable } from './errors.ts';
import { Inflater } from './inflater.ts';
import type { RawEntry } from './listing.ts';
import { walkTar, type TarBytes } from './tar-index.ts';
import type { ReadCount } from './tar-reader.ts';
import type { ChunkSource } from './zip-reader.ts';

const CHUNK = 1024 * 1024;
const EMPTY = Buffer.alloc(0);

const pread = (fd: number, buf: Buffer, at: number) =>
  new Promise<number>((resolve, reject) =>
    fs.read(fd, buf, 0, buf.length, at, (err, n) => (err ? reject(err) : resolve(n))),
  );

/** A gzip file's decompressed bytes in order, as a tar walk asks for them. */
class GunzipBytes implements TarBytes {
  private readonly fd: number;
  private readonly count: ReadCount | undefined;
  private readonly z = new Inflater('gzip');
  private readonly inputs = [Buffer.allocUnsafeSlow(CHUNK), Buffer.allocUnsafeSlow(CHUNK)] as const;
  private readonly outs = [Buffer.allocUnsafeSlow(CHUNK), Buffer.allocUnsafeSlow(CHUNK)] as const;
  /** The compressed bytes zlib has not taken yet: input[inFrom…]. */
  private input = EMPTY;
  private inFrom = 0;
  private nextInput = 0;
  private readAt = 0;
  private reading: Promise<number> | null = null;
  /** No more compressed bytes to give zlib (the file's end, or the gzip stream ended before it). */
  private inputDone = false;
  private outputDone = false;
  /** The output not walked past yet: chunk[off…] in outs[current], `pos` its position in the tar. */
  private chunk = EMPTY;
  private off = 0;
  private pos = 0;
  private current = 1;
  /** The content being handed over (one `take` in flight), its last chunk in output buffer `takingOn`. */
  private handoff: Handoff | null = null;
  private takingOn = -1;
  private scratch = Buffer.allocUnsafeSlow(4096);

  constructor(fd: number, count?: ReadCount) {
    this.fd = fd;
    this.count = count;
  }

  async more(position: number): Promise<boolean> {
    await this.skipTo(position);
    return this.off < this.chunk.length || this.fill();
  }

  async skipTo(position: number): Promise<void> {
    while (this.pos < position) {
      if (this.off === this.chunk.length && !(await this.fill())) throw unreadable('Unexpected end of data');
      const n = Math.min(position - this.pos, this.chunk.length - this.off);
      this.off += n;
      this.pos += n;
    }
  }

  async at(position: number, length: number): Promise<Buffer> {
    await this.skipTo(position);
    if (this.off + length <= this.chunk.length) {
      const b = this.chunk.subarray(this.off, this.off + length);
      this.off += length;
      this.pos += length;
      return b;
    }
    // Across two output chunks: copied out (a header into the scratch, a long name into its own).
    const buf = length <= this.scratch.length ? this.scratch.subarray(0, length) : Buffer.allocUnsafe(length);
    for (let got = 0; got < length;) {
      if (this.off === this.chunk.length && !(await this.fill())) throw unreadable('Unexpected end of data');
      const n = Math.min(length - got, this.chunk.length - this.off);
      this.chunk.copy(buf, got, this.off, this.off + n);
      this.off += n;
      this.pos += n;
      got += n;
    }
    return buf;
  }

  /** The next `size` bytes handed to `take` a slice at a time, each written while the next is gunzipped. */
  async content(size: number, take: (chunk: Buffer) => Promise<void>): Promise<void> {
    const handoff = new Handoff(take);
    this.handoff = handoff;
    try {
      for (let left = size; left > 0;) {
        if (this.off === this.chunk.length && !(await this.fill())) throw unreadable('Unexpected end of data');
        const n = Math.min(left, this.chunk.length - this.off);
        const piece = this.chunk.subarray(this.off, this.off + n);
        this.off += n;
        this.pos += n;
        left -= n;
        await handoff.hand(piece);
        this.takingOn = this.current;
      }
      await handoff.drain();
    } catch (err) {
      await handoff.settled();
      throw readerError(err);
    } finally {
      this.handoff = null;
      this.takingOn = -1;
    }
  }

  /** No read left running (the caller closes the descriptor next). */
  async close(): Promise<void> {
    await this.reading?.catch(() => {});
    this.z.close();
  }

  /** More output into the other buffer (once no `take` holds it): false at the end of the stream. */
  private async fill(): Promise<boolean> {
    if (this.outputDone) return false;
    const target = this.current ^ 1;
    if (this.takingOn === target) await this.handoff?.drain();
    const out = this.outs[target]!;
    for (;;) {
      if (this.inFrom === this.input.length && !this.inputDone) await this.readInput();
      let wrote: number;
      if (this.inFrom < this.input.length) {
        const step = this.z.step(this.input, this.inFrom, out);
        this.inFrom += step.read;
        // Nothing taken or given: the gzip stream ended, what follows it (zeros) is left unread.
        if (!step.read && !step.wrote) this.inputDone = true;
        wrote = step.wrote;
      } else {
        wrote = this.z.finish(out);
        if (!wrote) this.outputDone = true;
      }
      if (wrote) {
        this.chunk = out.subarray(0, wrote);
        this.off = 0;
        this.current = target;
        return true;
      }
      if (this.outputDone) return false;
    }
  }

  private async readInput(): Promise<void> {
    const buf = this.inputs[this.nextInput]!;
    const n = await (this.reading ?? pread(this.fd, buf, this.readAt));
    this.reading = null;
    if (n === 0) {
      this.inputDone = true;
      this.input = EMPTY;
      this.inFrom = 0;
      return;
    }
    this.readAt += n;
    if (this.count) this.count.bytes += n;
    this.input = buf.subarray(0, n);
    this.inFrom = 0;
    // The next read runs while zlib takes this one (it holds nothing of a buffer between steps).
    this.nextInput ^= 1;
    this.reading = pread(this.fd, this.inputs[this.nextInput]!, this.readAt);
    this.reading.catch(() => {});
  }
}

/**
 * A tar.gz's entries in order (as scanTar walks them), a file's content as a chunk source whose
 * chunks are reused once `take` resolves; content a visitor leaves unread is skipped. Answering
 * 'stop' ends the walk. Errors of the archive are ARCHIVE_UNREADABLE; the visitor's are its own.
 */
export async function walkTarGz(
  fd: number,
  visit: (raw: RawEntry, data: ChunkSource) => Promise<'stop' | void>,
  count?: ReadCount,
): Promise<void> {
  const bytes = new GunzipBytes(fd, count);
  try {
    await walkTar(bytes, (raw) => visit(raw, { pump: (take) => bytes.content(raw.size ?? 0, take) }));
  } finally {
    await bytes.close();
  }
}

/** A tar.gz's entries, as listTar lists them through tar-stream (every content skipped). */
export async function listTarGz(fd: number, maxEntries: number): Promise<RawEntry[]> {
  const out: RawEntry[] = [];
  await walkTarGz(fd, async (raw) => {
    if (out.length >= maxEntries) throw tooManyEntries(maxEntries);
    out.push(raw);
  });
  return out;
}
