// One file, streamed: Range (one range), If-Range, ETag, Last-Modified, If-None-Match,
// If-Modified-Since, Content-Disposition with an RFC 5987 name. 1 MiB reads into reused
// buffers (Node's default 64 KiB halves the rate; a fresh buffer per read costs more again).
// Length, validators and bytes all come from one open descriptor (a replacement racing the
// download cannot give headers of one file and bytes of another).
import type { Stats } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isNotModified } from '../http/conditional.ts';
import { lookup } from 'mrmime';
import type { OpenedFile } from '../files/confined.ts';
import { ChunkPool, sendRange } from './pooled-read.ts';

export { CHUNK } from './pooled-read.ts';

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

/**
 * Streams `file` (an open, checked descriptor; closed here in every case) to `res`. A failed
 * read or a file cut short while it streams ends that response (the socket is destroyed, so
 * the client sees an incomplete answer, not a hang) and never the process; the promise then
 * rejects with the error for the caller's log.
 */
export async function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  file: Pick<OpenedFile, 'fd' | 'stat' | 'close'>,
  name: string,
  disposition: 'attachment' | 'inline' = 'attachment',
  contentType = contentTypeOf(name),
): Promise<void> {
  try {
    await sendHeadersAndBody(req, res, file, name, disposition, contentType);
  } finally {
    // sendRange has no read in flight once it settles: closing now cannot race a read.
    await file.close();
  }
}

async function sendHeadersAndBody(
  req: IncomingMessage,
  res: ServerResponse,
  file: Pick<OpenedFile, 'fd' | 'stat' | 'close'>,
  name: string,
  disposition: 'attachment' | 'inline',
  contentType: string,
): Promise<void> {
  const st = file.stat;
  const etag = etagOf(st);
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
  let range = parseRange(req.headers.range, st.size);
  const ifRange = req.headers['if-range'] as string | undefined;
  if (range && ifRange && ifRange.trim() !== etag && ifRange.trim() !== lastModified) range = null;
  if (range === 'unsatisfiable') {
    res.statusCode = 416;
    res.setHeader('Content-Range', `bytes */${st.size}`);
    res.setHeader('Content-Length', 0);
    res.end();
    return;
  }
  const start = range ? range.start : 0;
  const end = range ? range.end : st.size - 1;
  res.statusCode = range ? 206 : 200;
  if (range) res.setHeader('Content-Range', `bytes ${start}-${end}/${st.size}`);
  res.setHeader('Content-Length', Math.max(0, end - start + 1));
  if (req.method === 'HEAD' || st.size === 0) {
    res.end();
    return;
  }
  // Pooled reads straight to the socket (no fresh buffer per read for the collector to chase,
  // no stream between file and socket), one read ahead: see pooled-read.ts.
  try {
    await sendRange(res, file.fd, start, end, new ChunkPool(4));
  } catch (err) {
    res.destroy();
    throw err;
  }
}
