// Writing answers. Only whole text files over 32 KB are compressed (spec §4.4 notes):
// brotli when offered, otherwise gzip, always with Vary: Accept-Encoding.
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(res.req?.method === 'HEAD' ? undefined : text);
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
export async function sendWholeText(req: IncomingMessage, res: ServerResponse, status: number, payload: string, contentType: string, headers: Record<string, string> = {}): Promise<void> {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Vary', 'Accept-Encoding');
  res.statusCode = status;
  const raw = Buffer.from(payload, 'utf8');
  const encoding = raw.length > COMPRESSION_THRESHOLD ? chooseEncoding(req.headers['accept-encoding']) : null;
  const body = encoding === 'br'
    ? await brotli(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } })
    : encoding === 'gzip' ? await gzip(raw, { level: 6 }) : raw;
  if (encoding) res.setHeader('Content-Encoding', encoding);
  res.setHeader('Content-Length', body.length);
  res.end(req.method === 'HEAD' ? undefined : body);
}
