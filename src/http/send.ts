// Writing answers. Only whole text files over 32 KB are compressed (spec §4.4 notes):
// brotli when offered, otherwise gzip, always with Vary: Accept-Encoding.
import { pipeline } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { AppError } from '../core/errors.ts';
import { isNotModified } from './conditional.ts';
import type { Logger } from '../core/log.ts';

const GONE_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
  // pipeline() into an answer already destroyed (the client left before the first byte).
  'ERR_STREAM_UNABLE_TO_PIPE',
]);

/** Did this error come from the client leaving (closed tab, cancelled download), not from us? */
export function isClientGone(err: unknown, res: ServerResponse): boolean {
  const socket = res.socket ?? res.req?.socket;
  // Not req.destroyed: a request whose body was read to the end is destroyed too.
  const closed = res.destroyed || !socket || socket.destroyed;
  if (!closed) return false;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code !== undefined && GONE_CODES.has(code)) return true;
  // A refusal nobody will read (the request was cut off: an aborted upload).
  return err instanceof AppError && err.status < 500;
}

/**
 * Streams `source` into the answer. Any error on either side fails this answer only: both
 * streams are destroyed (the client sees a cut answer) and it is logged once — at debug when
 * the client left, otherwise at warn with the error. Never throws, never leaves an 'error'
 * event unhandled. `done` (optional) runs once either way.
 */
export function pipeResponse(
  source: Readable,
  res: ServerResponse,
  log: Logger,
  done?: (err: Error | null) => void,
): void {
  pipeline(source, res, (err) => {
    if (err) {
      const fields = {
        method: res.req?.method,
        path: res.req?.url?.split('?')[0],
        status: res.statusCode,
        code: (err as NodeJS.ErrnoException).code,
      };
      if (isClientGone(err, res)) log.debug('client went away during a streamed answer', fields);
      else log.warn('a streamed answer failed', { ...fields, err });
      if (!res.destroyed) res.destroy();
    }
    try {
      done?.(err ?? null);
    } catch (failure) {
      log.error("a streamed answer's completion failed", { err: failure });
    }
  });
}

/** Sets status and JSON headers; returns the body to write (none for HEAD). */
export function prepareJson(res: ServerResponse, status: number, body: unknown): string | undefined {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  return res.req?.method === 'HEAD' ? undefined : text;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.end(prepareJson(res, status, body));
}

export const COMPRESSION_THRESHOLD = 32 * 1024;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Picks the encoding for a whole-text answer: 'br', 'gzip' or null. */
export function chooseEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | null {
  if (!acceptEncoding) return null;
  const offered = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)).find(Boolean);
    offered.set(name!.trim(), q ? Number(q[1]) : 1);
  }
  const accepts = (name: string) => (offered.get(name) ?? offered.get('*') ?? 0) > 0;
  if (accepts('br')) return 'br';
  if (accepts('gzip')) return 'gzip';
  return null;
}

/**
 * Sends a body that carries a whole text file (JSON with `content`, or the text itself),
 * compressed when it is over the threshold and the client accepts it.
 */
export async function sendWholeText(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  payload: string,
  contentType: string,
  headers: Record<string, string | number | string[]> = {},
): Promise<void> {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Vary', 'Accept-Encoding');
  res.statusCode = status;
  const raw = Buffer.from(payload, 'utf8');
  const encoding = raw.length > COMPRESSION_THRESHOLD ? chooseEncoding(req.headers['accept-encoding']) : null;
  const body =
    encoding === 'br'
      ? await brotli(raw, {
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
        })
      : encoding === 'gzip'
        ? await gzip(raw, { level: 6 })
        : raw;
  if (encoding) res.setHeader('Content-Encoding', encoding);
  res.setHeader('Content-Length', body.length);
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * A whole-text reply (route.ts `wholeText`): its JSON compressed over the threshold as
 * sendWholeText does, or 304 when the client's copy has the reply's ETag.
 */
export async function sendWholeReply(
  req: IncomingMessage,
  res: ServerResponse,
  reply: { status: number; body: unknown; headers: Record<string, string | number | string[]> },
): Promise<void> {
  const etag = reply.headers.ETag;
  if (typeof etag === 'string' && isNotModified(req, { etag })) {
    res.writeHead(304, reply.headers).end();
    return;
  }
  await sendWholeText(
    req,
    res,
    reply.status,
    JSON.stringify(reply.body),
    'application/json; charset=utf-8',
    reply.headers,
  );
}
