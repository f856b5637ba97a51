// An uncompressed tar listed by its headers alone: each 512-byte header says how long the
// content after it is, so the listing reads a header, skips the content by position and reads
// the next (through the descriptor that was checked). A 1 GB tar of a few big files lists
// from kilobytes; tar-stream would have read the whole gigabyte to find the same headers.
// Headers are decoded exactly as tar-stream decodes them (its decoder is not exported), so the
// names listed here are the names extraction and entry reads find when tar-stream walks the
// same archive: ustar prefix, GNU long names, pax path/linkpath/size, base-256 sizes.
import fs from 'node:fs';
import { promisify } from 'node:util';
import { Passed, readerError, tooManyEntries, unreadable } from './errors.ts';
import type { RawEntry } from './listing.ts';
import { kindOf } from './tar-reader.ts';

const read = promisify(fs.read);
const BLOCK = 512;
/** Read ahead when headers are close together (many small files): few reads for many headers. */
const DENSE_WINDOW = 64 * 1024;
/** Read ahead after skipping a large content: the next header is alone, do not read its neighbour's content. */
const SPARSE_WINDOW = 4 * 1024;
const MAX_LONG_HEADER = 4 * 1024 * 1024; // tar-stream's bound for pax and GNU long-name contents

interface Header {
  name: string;
  size: number;
  mtime: Date;
  type: string | null;
  linkname: string | null;
}

/**
 * Where a tar's bytes come from: at positions through its descriptor (a plain tar, contents
 * skipped unread) or in order out of its decompressor (gunzip-walk.ts). The walk asks for
 * positions that never go back.
 */
export interface TarBytes {
  /** Whether the archive goes on at `position`. */
  more(position: number): Promise<boolean>;
  /** `length` bytes at `position`, valid until the next call ('Unexpected end of data' short of them). */
  at(position: number, length: number, ahead: number): Promise<Buffer>;
  /** On to `position` (a content skipped; 'Unexpected end of data' where the archive ends first). */
  skipTo(position: number): Promise<void>;
}

/** Reads the archive at positions, keeping the last window read. */
class Positioned implements TarBytes {
  private window = Buffer.alloc(0);
  private start = 0;
  private readonly fd: number;
  private readonly size: number;

  constructor(fd: number, size: number) {
    this.fd = fd;
    this.size = size;
  }

  async more(position: number): Promise<boolean> {
    return position < this.size;
  }

  async skipTo(position: number): Promise<void> {
    if (position > this.size) throw unreadable('Unexpected end of data');
  }

  async at(position: number, length: number, ahead: number): Promise<Buffer> {
    if (position >= this.start && position + length <= this.start + this.window.length)
      return this.window.subarray(position - this.start, position - this.start + length);
    if (position + length > this.size) throw unreadable('Unexpected end of data');
    const want = Math.min(Math.max(length, ahead), this.size - position);
    const buf = Buffer.allocUnsafe(want);
    let got = 0;
    while (got < want) {
      const { bytesRead } = await read(this.fd, buf, got, want - got, position + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    this.window = buf.subarray(0, got);
    this.start = position;
    if (got < length) throw unreadable('Unexpected end of data');
    return this.window.subarray(0, length);
  }
}

export async function listPlainTar(fd: number, size: number, maxEntries: number): Promise<RawEntry[]> {
  const out: RawEntry[] = [];
  await walkTar(new Positioned(fd, size), async (raw) => {
    if (out.length >= maxEntries) throw tooManyEntries(maxEntries);
    out.push(raw);
  });
  return out;
}

/**
 * A tar's entries in order, decoded as tar-stream decodes them, each visited with the position
 * of its content (`raw.size` bytes for a file); the walk then goes on past it, whatever the
 * visitor read of it. Answering 'stop' ends the walk.
 */
export async function walkTar(
  bytes: TarBytes,
  visit: (raw: RawEntry, content: number) => Promise<'stop' | void>,
): Promise<void> {
  let position = 0;
  let ahead = DENSE_WINDOW;
  let pax: Record<string, string> | null = null;
  let paxGlobal: Record<string, string> | null = null;
  let longPath: string | null = null;
  let longLink: string | null = null;
  try {
    while (await bytes.more(position)) {
      const h = decodeHeader(await bytes.at(position, BLOCK, ahead));
      position += BLOCK;
      if (!h) continue; // a zero block: tar-stream reads on past the end marker, and so do we
      if (
        h.type === 'gnu-long-path' ||
        h.type === 'gnu-long-link-path' ||
        h.type === 'pax-global-header' ||
        h.type === 'pax-header'
      ) {
        if (h.size > MAX_LONG_HEADER) throw unreadable('Header exceeds max size');
        const body = await bytes.at(position, h.size, DENSE_WINDOW);
        if (h.type === 'gnu-long-path') longPath = decodeStr(body, 0, body.length);
        else if (h.type === 'gnu-long-link-path') longLink = decodeStr(body, 0, body.length);
        else if (h.type === 'pax-global-header') paxGlobal = decodePax(body);
        else pax = paxGlobal === null ? decodePax(body) : { ...paxGlobal, ...decodePax(body) };
        position += padded(h.size);
        await bytes.skipTo(position);
        continue;
      }
      if (longPath) h.name = longPath;
      if (longLink) h.linkname = longLink;
      longPath = longLink = null;
      if (pax) {
        if (pax.path) h.name = pax.path;
        if (pax.linkpath) h.linkname = pax.linkpath;
        if (pax.size) h.size = parseInt(pax.size, 10);
        pax = null;
      }
      if (!(h.size >= 0)) throw unreadable('Invalid header');
      const kind = kindOf(h.type);
      const raw: RawEntry = {
        stored: h.name,
        kind,
        size: kind === 'file' ? h.size : null,
        mtime: h.mtime,
        encrypted: false,
        linkTarget: h.linkname ?? undefined,
      };
      let answer: 'stop' | void;
      try {
        answer = await visit(raw, position);
      } catch (err) {
        throw new Passed(err);
      }
      if (answer === 'stop') return;
      // A folder's size field is not skipped over (tar-stream reads the next header right after it).
      if (h.type === 'directory') continue;
      const skip = padded(h.size);
      position += skip;
      await bytes.skipTo(position);
      ahead = skip >= DENSE_WINDOW ? SPARSE_WINDOW : DENSE_WINDOW;
    }
  } catch (err) {
    throw readerError(err);
  }
}

const padded = (n: number) => n + ((BLOCK - (n % BLOCK)) % BLOCK);

const TYPES: Record<number, string> = {
  0: 'file',
  1: 'link',
  2: 'symlink',
  3: 'character-device',
  4: 'block-device',
  5: 'directory',
  6: 'fifo',
  7: 'contiguous-file',
  72: 'pax-header',
  55: 'pax-global-header',
  27: 'gnu-long-link-path',
  28: 'gnu-long-path',
  30: 'gnu-long-path',
};

/** One header block, or null for a zero block (tar-stream's headers.decode, without the fields we do not keep). */
function decodeHeader(buf: Buffer): Header | null {
  let typeflag = buf[156] === 0 ? 0 : buf[156]! - 48;
  let name = decodeStr(buf, 0, 100);
  const size = decodeOct(buf, 124, 12);
  const mtime = decodeOct(buf, 136, 12);
  const linkname = buf[157] === 0 ? null : decodeStr(buf, 157, 100);
  let sum = 8 * 32;
  for (let i = 0; i < 148; i++) sum += buf[i]!;
  for (let i = 156; i < BLOCK; i++) sum += buf[i]!;
  if (sum === 8 * 32) return null;
  if (sum !== decodeOct(buf, 148, 8))
    throw new Error('Invalid tar header. Maybe the tar is corrupted or it needs to be gunzipped?');
  const magic = buf.toString('latin1', 257, 263);
  if (magic === 'ustar\0') {
    if (buf[345]) name = `${decodeStr(buf, 345, 155)}/${name}`;
  } else if (!(magic === 'ustar ' && buf[263] === 0x20 && buf[264] === 0)) {
    throw new Error('Invalid tar header: unknown format.');
  }
  if (typeflag === 0 && name && name.endsWith('/')) typeflag = 5;
  return { name, size, mtime: new Date(1000 * mtime), type: TYPES[typeflag] ?? null, linkname };
}

function decodeStr(buf: Buffer, offset: number, length: number): string {
  let end = offset;
  while (end < offset + length && buf[end] !== 0) end++;
  return buf.toString('utf8', offset, end);
}

function decodeOct(buf: Buffer, offset: number, length: number): number {
  const val = buf.subarray(offset, offset + length);
  if (val[0]! & 0x80) return parse256(val);
  let i = 0;
  while (i < val.length && val[i] === 32) i++;
  let end = val.indexOf(32, i);
  if (end < 0) end = val.length;
  while (i < end && val[i] === 0) i++;
  if (end === i) return 0;
  return parseInt(val.toString('latin1', i, end), 8);
}

/** GNU base-256 numbers (sizes of 8 GiB and more). */
function parse256(val: Buffer): number {
  const positive = val[0] === 0x80;
  if (!positive && val[0] !== 0xff) return NaN;
  let sum = 0;
  for (let i = val.length - 1, scale = 1; i > 0; i--, scale *= 256)
    sum += (positive ? val[i]! : 0xff - val[i]!) * scale;
  return positive ? sum : -sum;
}

function decodePax(buf: Buffer): Record<string, string> {
  const result: Record<string, string> = {};
  while (buf.length) {
    let i = 0;
    while (i < buf.length && buf[i] !== 32) i++;
    const len = parseInt(buf.toString('utf8', 0, i), 10);
    if (!len) return result;
    const b = buf.toString('utf8', i + 1, len - 1);
    const key = b.indexOf('=');
    if (key === -1) return result;
    result[b.slice(0, key)] = b.slice(key + 1);
    buf = buf.subarray(len);
  }
  return result;
}
