// The file responder: one file, streamed: Range (one range), If-Range, ETag, Last-Modified,
// If-None-Match, If-Modified-Since, Content-Disposition with an RFC 5987 name. The Range
// decision (rangeFor, writeRangeHead) is also that of any other answer of known length (an
// archive's entry). 1 MiB reads into reused
// buffers (Node's default 64 KiB halves the rate; a fresh buffer per read costs more again).
// Length, validators and bytes all come from one open descriptor (a replacement racing the
// download cannot give headers of one file and bytes of another).
import type { Patch } from '../core/patches.ts';
import fs, { type Stats } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { isNotModified } from './conditional.ts';
import { lookup } from 'mrmime';
import { ChunkPool, CHUNK, sendRange } from './range.ts';

/** An open file to send: its descriptor, its fstat (the bytes' size and times), and its close. */
export interface OpenFile {
  fd: number;
  stat: Stats;
  close(): Promise<void>;
}

export function etagOf(st: Pick<Stats, 'size' | 'mtimeMs' | 'ino'>): string {
  return `"${st.ino.toString(36)}-${st.size.toString(36)}-${Math.floor(st.mtimeMs * 1000).toString(36)}"`;
}

/** `attachment; filename="ascii"; filename*=UTF-8''percent-encoded` */
export function contentDisposition(name: string, type: 'attachment' | 'inline' = 'attachment'): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export function contentTypeOf(name: string): string {
  const type = lookup(name) || 'application/octet-stream';
  return /^text\/|javascript|json|xml/.test(type) ? `${type}; charset=utf-8` : type;
}

/** Parses one `bytes=` range; null = serve whole, 'unsatisfiable' = 416. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | 'unsatisfiable' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return null;
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}

/** What a request asks of `size` bytes: the whole (200), one range of it (206), or nothing it has (416). */
export type RangeAnswer = { status: 200 | 206; start: number; end: number } | { status: 416 };

/**
 * The answer to the request's Range for `size` bytes. With `validators`, an If-Range that names
 * neither of them asks for the whole (the client's copy is not this one).
 */
export function rangeFor(
  req: IncomingMessage,
  size: number,
  validators?: { etag: string; lastModified: string },
): RangeAnswer {
  let range = parseRange(req.headers.range, size);
  const ifRange = req.headers['if-range'] as string | undefined;
  if (
    range &&
    validators &&
    ifRange &&
    ifRange.trim() !== validators.etag &&
    ifRange.trim() !== validators.lastModified
  )
    range = null;
  if (range === 'unsatisfiable') return { status: 416 };
  return range ? { status: 206, ...range } : { status: 200, start: 0, end: size - 1 };
}

/** Status, Content-Range and Content-Length of a Range answer; a 416 is ended here (false: nothing to send). */
export function writeRangeHead(
  res: ServerResponse,
  answer: RangeAnswer,
  size: number,
): answer is RangeAnswer & { status: 200 | 206 } {
  res.statusCode = answer.status;
  if (answer.status === 416) {
    res.setHeader('Content-Range', `bytes */${size}`);
    res.setHeader('Content-Length', 0);
    res.end();
    return false;
  }
  if (answer.status === 206) res.setHeader('Content-Range', `bytes ${answer.start}-${answer.end}/${size}`);
  res.setHeader('Content-Length', Math.max(0, answer.end - answer.start + 1));
  return true;
}

/**
 * Streams `file` (an open, checked descriptor; closed here in every case) to `res`; with
 * `patches`, their bytes are sent in place of the file's (the same length: core/patches.ts). A failed
 * read or a file cut short while it streams ends that response (the socket is destroyed, so
 * the client sees an incomplete answer, not a hang) and never the process; the promise then
 * rejects with the error for the caller's log.
 */
export async function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  file: OpenFile,
  name: string,
  disposition: 'attachment' | 'inline' = 'attachment',
  contentType = contentTypeOf(name),
  patches?: readonly Patch[],
): Promise<void> {
  try {
    await sendHeadersAndBody(req, res, file, name, disposition, contentType, patches);
  } finally {
    // sendRange has no read in flight once it settles: closing now cannot race a read.
    await file.close();
  }
}

async function sendHeadersAndBody(
  req: IncomingMessage,
  res: ServerResponse,
  file: OpenFile,
  name: string,
  disposition: 'attachment' | 'inline',
  contentType: string,
  patches: readonly Patch[] | undefined,
): Promise<void> {
  const st = file.stat;
  // Other bytes (a photo's location taken out: metadata/location.ts) are another entity.
  const etag = patches?.length ? etagOf(st).replace(/"$/, '-h"') : etagOf(st);
  const lastModified = new Date(Math.floor(st.mtimeMs / 1000) * 1000).toUTCString();
  res.setHeader('ETag', etag);
  res.setHeader('Last-Modified', lastModified);
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('Cache-Control', 'private, no-cache');
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Disposition', contentDisposition(name, disposition));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (isNotModified(req, { etag, lastModified })) {
    res.statusCode = 304;
    res.end();
    return;
  }
  const range = rangeFor(req, st.size, { etag, lastModified });
  if (!writeRangeHead(res, range, st.size)) return;
  const { start, end } = range;
  if (req.method === 'HEAD' || st.size === 0) {
    res.end();
    return;
  }
  // Pooled reads straight to the socket (no fresh buffer per read for the collector to chase,
  // no stream between file and socket), one read ahead: see range.ts.
  try {
    await sendRange(res, file.fd, start, end, new ChunkPool(4), patches);
  } catch (err) {
    res.destroy();
    throw err;
  }
}

/**
 * A cached thumbnail: its name changes with the picture and the settings, so its bytes never do.
 * `cache`: how long a browser keeps it — for ever at its own name; revalidated (its name as the
 * ETag) at an address that names the file instead (a link holder's row).
 */
export async function sendCachedPicture(
  res: ServerResponse,
  opened: OpenFile,
  cache = 'private, max-age=31536000, immutable',
): Promise<void> {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'image/webp');
  res.setHeader('Content-Length', opened.stat.size);
  res.setHeader('Cache-Control', cache);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', 'sandbox');
  // The stream owns the descriptor; a failed read fails this answer only (rejected for the log).
  const source = fs.createReadStream('', { fd: opened.fd, highWaterMark: CHUNK, autoClose: true });
  await new Promise<void>((resolve, reject) =>
    pipeline(source, res, (err) => (err ? (res.destroy(), reject(err)) : resolve())),
  );
}
