// Request bodies and query strings. Queries keep a literal `+` (native clients send file
// names with `+` unencoded), so URLSearchParams, which turns `+` into a space, is not used.
import type { IncomingMessage } from 'node:http';
import { AppError } from '../core/errors.ts';

export function parseQuery(search: string): Record<string, string> {
  const out: Record<string, string> = {};
  const text = search.startsWith('?') ? search.slice(1) : search;
  if (!text) return out;
  for (const pair of text.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const key = decodeComponent(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decodeComponent(pair.slice(eq + 1));
    if (!(key in out)) out[key] = value;
  }
  return out;
}

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new AppError('INVALID_QUERY', 'The query string is not valid percent-encoding.');
  }
}

/**
 * Reads a JSON body up to `limit` bytes; an empty body reads as `{}`. An oversized body is
 * refused without reading it further: the error answer (http/server.ts) reads the rest away.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  const tooLarge = () => new AppError('BODY_TOO_LARGE', `The request body is larger than ${limit} bytes.`);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early must not destroy the request (and with it the socket the answer needs).
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('INVALID_JSON');
  }
}
