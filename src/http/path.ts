// The request path, read one way for the whole server. The guard judges, and the router
// matches, the normalised path: decoded, lower case, without empty or `.` segments, so the
// token and access rules hold in any spelling (`//API//Users`, `/api%2Fusers`, `%2561pi`).
// What a handler or WebDAV receives is each segment as sent, decoded once (`decodeSegment`),
// so a name holding `%` and two hex digits stays that name and an encoded separator never
// becomes one.
import type { IncomingMessage } from 'node:http';
import { AppError } from '../core/errors.ts';

export interface RequestPath {
  /** The path as sent (before `?`), still encoded. */
  raw: string;
  /** Decoded, lower case, `\` read as `/`, no empty or `.` segments: what the guard judges. */
  normalised: string;
  /** Why the path is refused (not percent-encoding, NUL, `..`): the guard throws it before anything runs. */
  refusal?: AppError;
}

/** The path of a request as sent, without its query string. */
export function rawPathname(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/**
 * The one normaliser. Decodes up to three times, so that double encoding (%252F) cannot hide
 * a segment. Only the path as sent must be valid: once decoded, a name may hold `%` and two hex
 * digits that are no UTF-8 (`100% sure %E9.txt`), which stops the decoding there. A refused
 * path still gets its best reading (`normalised`), so the server can tell an API path from the
 * UI's before the guard refuses it.
 */
export function readPath(raw: string): RequestPath {
  let decoded = raw;
  let refusal: AppError | undefined;
  for (let i = 0; i < 3 && decoded.includes('%') && /%[0-9a-f]{2}/i.test(decoded); i++) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      if (i === 0) refusal = new AppError('BAD_PATH', 'The path is not valid percent-encoding.');
      break;
    }
  }
  if (!refusal && decoded.includes('\0')) refusal = new AppError('BAD_PATH', 'The path contains a NUL byte.');
  const segments = decoded
    .toLowerCase()
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  if (!refusal && segments.includes('..')) refusal = new AppError('BAD_PATH', 'The path may not contain "..".');
  const normalised = '/' + segments.join('/');
  return refusal ? { raw, normalised, refusal } : { raw, normalised };
}

/**
 * One segment of a path as sent, decoded once: a path parameter, a name under `/dav/`. An
 * encoded separator (`%2F`, `%5C`) or NUL is refused, never read as a separator.
 */
export function decodeSegment(segment: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw new AppError('BAD_PATH', 'The path is not valid percent-encoded UTF-8.');
  }
  if (/[/\\\0]/.test(decoded))
    throw new AppError('BAD_PATH', 'A name in the path holds an encoded separator (/ or \\) or NUL.');
  return decoded;
}
