// Conditional requests (RFC 9110 §13.1.1, §13.1.2, §13.1.3, §13.2.2): one reading of If-Match (a
// change only over the copy the client has), If-None-Match and
// If-Modified-Since for every route that sends validators, so a client's cache behaves the
// same on listings, the editor and downloads.
import type { IncomingMessage } from 'node:http';

/** Entity tags of an If-None-Match or If-Match list (`*` stays `*`); a bare unquoted token counts as itself. */
export function parseEtagList(header: string): string[] {
  const tags: string[] = [];
  // Quoted tags may contain commas, so they are taken whole before splitting what is left.
  const re = /\s*(\*|(?:W\/)?"[^"]*"|[^,\s]+)\s*(?:,|$)/gy;
  let m: RegExpExecArray | null;
  while (re.lastIndex < header.length && (m = re.exec(header))) tags.push(m[1]!);
  return tags;
}

const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

/** If-None-Match uses the weak comparison: W/"x" matches "x"; `*` matches any current representation. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const want = opaque(etag);
  return parseEtagList(header).some((tag) => tag === '*' || opaque(tag) === want);
}

/**
 * If-Match (RFC 9110 §13.1.1) on a change: `*` holds when the target exists, a list of tags when
 * one of them is the current ETag by the strong comparison (a weak tag never matches).
 */
export function ifMatchHolds(header: string, etag: string | null): boolean {
  if (etag === null) return false;
  return parseEtagList(header).some((tag) => tag === '*' || (!tag.startsWith('W/') && tag === etag));
}

/**
 * Would the client's copy still do? If-None-Match decides when sent; otherwise
 * If-Modified-Since against Last-Modified (whole seconds), when both are known.
 */
export function isNotModified(req: IncomingMessage, validators: { etag: string; lastModified?: string }): boolean {
  const inm = req.headers['if-none-match'];
  if (inm !== undefined) return etagMatches(inm, validators.etag);
  const ims = req.headers['if-modified-since'];
  if (!ims || !validators.lastModified) return false;
  const since = Date.parse(ims);
  return Number.isFinite(since) && since >= Date.parse(validators.lastModified);
}
