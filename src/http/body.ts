// Request bodies (query strings: http/query.ts).
import type { IncomingMessage } from 'node:http';
import { AppError } from '../core/errors.ts';

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
