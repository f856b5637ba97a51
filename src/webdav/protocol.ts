// The WebDAV wire rules Burrow speaks (RFC 4918, class 1 and 2). Each rule sits under the RFC
// sentence it enforces, so a reader can check one against the other. Pure functions over header
// values and URLs: no I/O, no req/res.
//
// Why not a library. Both candidates were installed and read (webdav-server 2.6.3, nephele
// 1.0.0-alpha.67):
// - nephele (Express 5 app, xml2js, cookie-parser; still alpha) runs the protocol itself and only
//   asks an adapter for single-resource steps. DELETE of a collection deletes each member and
//   then the folder (Methods/DELETE.js recursivelyDelete): the trash would hold scattered files
//   instead of one restorable folder, and a crash leaves half a folder. MOVE of a collection is
//   "copy the collection, move each member, delete the source" (Methods/MOVE.js): not a rename,
//   so shares, favourites and versions are not carried, a 50 GB folder is re-created member by
//   member, and a crash leaves it split. Overwrite: T over a collection is that same member-wise
//   delete.
// - webdav-server v2 (callback API, maintenance only) strips scheme and host from Destination
//   without comparing them (commands/Move.js), so a Destination naming another host is acted
//   on locally — the hostile-path rule wants 502; a destination below its source answers 502
//   too. Cross-"filesystem" moves (our volumes would be separate filesystems) fall back to its
//   member-wise standardMove. Locks and dead properties live in in-memory managers persisted by
//   serialising the whole server state to a file, not in our database.
// Neither lets the one resolver, the trash-as-one-item, versions-before-replace and the
// no-overwrite claims be the operation rather than a step inside someone else's loop. So the
// protocol is here, small, and every write goes through the same files/trash/versions services
// as the HTTP API. XML is parsed by @xmldom/xmldom (a namespace-aware W3C DOM: dead properties
// keep their namespaces exactly; fast-xml-parser only strips or keeps prefixes).
import { randomUUID } from 'node:crypto';
import { AppError, type ErrorCode } from '../core/errors.ts';
import { decodeSegment } from '../http/path.ts';

/** Where the protocol is mounted; hrefs are built under it. */
export const DAV_PREFIX = '/dav/';
export const DAV_NS = 'DAV:';

// RFC 4918 §10.1: "This general-header appearing in the response indicates that the resource
// supports the DAV schema and protocol as specified. All DAV-compliant resources MUST return
// the DAV header with compliance-class '1' on all OPTIONS responses. [...] a resource that
// supports class 2 MUST also support class 1."
export const DAV_COMPLIANCE = '1, 2';
export const DAV_METHODS = [
  'OPTIONS',
  'GET',
  'HEAD',
  'PUT',
  'DELETE',
  'MKCOL',
  'COPY',
  'MOVE',
  'PROPFIND',
  'PROPPATCH',
  'LOCK',
  'UNLOCK',
] as const;
export type DavMethod = (typeof DAV_METHODS)[number];

/** Largest XML request body read (PROPFIND, PROPPATCH, LOCK): bounded, never a file. */
export const XML_BODY_LIMIT = 1024 * 1024;

type HeaderValue = string | string[] | undefined;
const single = (v: HeaderValue): string | undefined => (Array.isArray(v) ? v[0] : v)?.trim();

/** A refusal whose RFC precondition or postcondition element goes into a `DAV:error` body. */
export class DavConditionError extends AppError {
  readonly condition: string;
  constructor(code: ErrorCode, message: string, condition: string) {
    super(code, message);
    this.condition = condition;
  }
}

export type Depth = '0' | '1' | 'infinity';

// §10.2: "Depth = "Depth" ":" ("0" | "1" | "infinity")". "If a resource does not support a
// Depth value, it MUST NOT ... process the request" — an unknown value is a bad request.
export function parseDepth(value: HeaderValue, absent: Depth): Depth {
  const v = single(value)?.toLowerCase();
  if (v === undefined || v === '') return absent;
  if (v === '0' || v === '1' || v === 'infinity') return v;
  throw new AppError('DAV_BAD_DEPTH', 'Depth must be 0, 1 or infinity.');
}

// §9.1: "Servers SHOULD treat a request without a Depth header as if a "Depth: infinity"
// header was included." [...] "servers MAY choose to reject such requests [Depth: infinity]
// with [...] the 'propfind-finite-depth' precondition code." Burrow refuses: a walk of a whole
// volume in one answer is a scan in the request path.
export function propfindDepth(value: HeaderValue): '0' | '1' {
  const depth = parseDepth(value, 'infinity');
  if (depth === 'infinity')
    throw new DavConditionError(
      'DAV_INFINITE_DEPTH',
      'PROPFIND with Depth: infinity is not served; ask with Depth 0 or 1.',
      'propfind-finite-depth',
    );
  return depth;
}

// §9.8.3: "The COPY method on a collection without a Depth header MUST act as if a Depth
// header with value "infinity" was included. A client may submit a Depth header on a COPY on a
// collection with a value of "0" or "infinity"."
export function copyDepth(value: HeaderValue): '0' | 'infinity' {
  const depth = parseDepth(value, 'infinity');
  if (depth === '1') throw new AppError('DAV_BAD_DEPTH', 'COPY takes Depth 0 or infinity.');
  return depth;
}

// §9.9.2: "The MOVE method on a collection MUST act as if a "Depth: infinity" header was used
// on it. A client MUST NOT submit a Depth header on a MOVE on a collection with any value but
// "infinity"." §9.6.1 says the same of DELETE.
export function infiniteOnly(value: HeaderValue, method: string): void {
  if (parseDepth(value, 'infinity') !== 'infinity')
    throw new AppError(
      'DAV_BAD_DEPTH',
      `${method} of a collection always applies to all of it; send Depth: infinity or no Depth.`,
    );
}

// §10.6: "Overwrite = "Overwrite" ":" ("T" | "F")" [...] "If the overwrite header is not
// included in a COPY or MOVE request, then the resource MUST treat the request as if it has an
// overwrite header of value "T"."
export function parseOverwrite(value: HeaderValue): boolean {
  const v = single(value);
  if (v === undefined || v === '') return true;
  if (v === 'T' || v === 't') return true;
  if (v === 'F' || v === 'f') return false;
  throw new AppError('DAV_BAD_OVERWRITE', 'Overwrite must be T or F.');
}

/**
 * A request path under the mount → the resolver's virtual path. Segments are decoded one by
 * one, so an encoded slash or NUL can never become a separator; the resolver then refuses
 * `..`, `.` and the rest of its table.
 */
export function virtualFromDavPath(pathname: string): string {
  const prefix = DAV_PREFIX.slice(0, -1);
  if (pathname !== prefix && !pathname.startsWith(DAV_PREFIX)) throw new AppError('NOT_FOUND', 'Not a WebDAV path.');
  const rest = pathname.slice(DAV_PREFIX.length).replace(/\/+$/, '');
  if (rest === '') return '';
  // Kept as sent so the resolver sees (and refuses) "", "." and ".." itself.
  return rest.split('/').map(decodeSegment).join('/');
}

/** The href of a virtual path: each segment percent-encoded, collections ending in "/". */
export function hrefOf(virtualPath: string, isCollection: boolean): string {
  const encoded =
    virtualPath === ''
      ? ''
      : virtualPath
          .split('/')
          .map((s) => encodeURIComponent(s))
          .join('/');
  if (encoded === '') return DAV_PREFIX;
  return DAV_PREFIX + encoded + (isCollection ? '/' : '');
}

// §10.3: "Destination = "Destination" ":" Simple-ref" [...] "If the Destination value is an
// absolute-URI, it may name a different server (or different port or scheme)." §9.8.5 and
// §9.9.4: "502 (Bad Gateway) - This may occur when the destination is on another server,
// repository, or URL namespace." Burrow serves only itself, under its own mount.
export function parseDestination(value: HeaderValue, requestHost: string | undefined): string {
  const v = single(value);
  if (!v) throw new AppError('DAV_NO_DESTINATION', 'COPY and MOVE need a Destination header.');
  let url: URL;
  try {
    url = new URL(v, `http://${requestHost ?? 'localhost'}`);
  } catch {
    throw new AppError('DAV_BAD_DESTINATION', 'The Destination header is not a URI.');
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(v)) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new AppError('DAV_OTHER_SERVER', 'The Destination is not on this server.');
    if (!requestHost || url.host.toLowerCase() !== requestHost.toLowerCase())
      throw new AppError('DAV_OTHER_SERVER', 'The Destination names another server.');
  }
  if (url.search || url.hash)
    throw new AppError('DAV_BAD_DESTINATION', 'The Destination may not carry a query or fragment.');
  // URL() removes dot segments; judge the path as it was sent.
  const raw = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/[^?#]*)?/i.exec(v)?.[1] ?? v.split(/[?#]/)[0]!;
  if (!raw.startsWith(DAV_PREFIX))
    throw new AppError('DAV_OTHER_SERVER', 'The Destination lies outside the WebDAV mount.');
  return virtualFromDavPath(raw);
}

// §10.7: "TimeOut = "Timeout" ":" 1#TimeType; TimeType = ("Second-" DAVTimeOutVal |
// "Infinite")" [...] "The timeout value for TimeType "Second" MUST NOT be greater than 2^32-1."
// "Clients MAY include Timeout request headers in their LOCK requests. However, the server is
// not required to honor or even consider these requests." Burrow grants what is asked within
// [1 s, MAX_LOCK_SECONDS]; Infinite becomes the maximum (a lock must expire, or a crashed
// client keeps a file locked for ever). One hour, refresh included: what Office and Windows ask
// (Second-3600) is granted as asked, Finder asks 600 and refreshes; a client that went away
// holds nobody's file longer than that (it was 7 days: any writer could hold a folder a week).
export const DEFAULT_LOCK_SECONDS = 3600;
export const MAX_LOCK_SECONDS = 3600;
/**
 * Live locks per account: all of them, and those whose LOCK made an empty file at an unmapped
 * URL. Clients lock the file they work on (Windows and Finder: LOCK, PUT, UNLOCK one file after
 * the other), so these leave every client room and stop one account from making thousands of
 * locked empty files (3,000 in 23 s before).
 */
export const LOCK_LIMITS = { held: 200, created: 50 } as const;
export function parseTimeout(value: HeaderValue): number {
  const v = single(value);
  if (!v) return DEFAULT_LOCK_SECONDS;
  for (const part of v.split(',')) {
    const t = part.trim();
    if (/^infinite$/i.test(t)) return MAX_LOCK_SECONDS;
    const m = /^second-(\d{1,10})$/i.exec(t);
    if (m) return Math.min(MAX_LOCK_SECONDS, Math.max(1, Number(m[1])));
  }
  return DEFAULT_LOCK_SECONDS;
}

// §6.5: "The lock token is a type of state token describing a lock [...] Lock token URIs MUST
// be unique across all resources for all time." §20.7 points to UUID URNs.
export const newLockToken = () => `urn:uuid:${randomUUID()}`;

// §10.5: "Lock-Token = "Lock-Token" ":" Coded-URL" with Coded-URL = "<" absolute-URI ">".
export function parseLockTokenHeader(value: HeaderValue): string {
  const m = /^<([^<>\s]+)>$/.exec(single(value) ?? '');
  if (!m) throw new AppError('DAV_BAD_LOCK_TOKEN', 'UNLOCK needs a Lock-Token header: <token>.');
  return m[1]!;
}

export interface IfCondition {
  not: boolean;
  token?: string;
  etag?: string;
}
export interface IfList {
  /** virtual path of a tagged list; undefined = the request URI */ resource?: string;
  conditions: IfCondition[];
}

// §10.4.2: "If = "If" ":" ( 1*No-tag-list | 1*Tagged-list ); No-tag-list = List; Tagged-list =
// Resource-Tag 1*List; List = "(" 1*Condition ")"; Condition = ["Not"] (State-token |
// "[" entity-tag "]"); State-token = Coded-URL; Resource-Tag = "<" Simple-ref ">"".
// A header that does not parse is a malformed request (400). A Resource-Tag outside this
// mount cannot name one of our resources, so its lists are simply false.
export function parseIf(value: HeaderValue, requestHost: string | undefined): IfList[] | null {
  const text = single(value);
  if (text === undefined || text === '') return null;
  const lists: IfList[] = [];
  let i = 0;
  let tag: string | undefined;
  let tagged: boolean | undefined;
  const bad = () => new AppError('DAV_BAD_IF', 'The If header is malformed.');
  const skip = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  while (true) {
    skip();
    if (i >= text.length) break;
    if (text[i] === '<') {
      const end = text.indexOf('>', i);
      if (end < 0) throw bad();
      if (tagged === false) throw bad();
      tagged = true;
      const ref = text.slice(i + 1, end);
      i = end + 1;
      try {
        tag = parseDestination(ref, requestHost);
      } catch {
        tag = '\0'; // names nothing here: its lists are false
      }
      skip();
      if (text[i] !== '(') throw bad();
      continue;
    }
    if (text[i] !== '(') throw bad();
    if (tagged === undefined) tagged = false;
    i++;
    const conditions: IfCondition[] = [];
    while (true) {
      skip();
      if (text[i] === ')') {
        i++;
        break;
      }
      let not = false;
      if (/^not\b/i.test(text.slice(i, i + 4))) {
        not = true;
        i += 3;
        skip();
      }
      if (text[i] === '<') {
        const end = text.indexOf('>', i);
        if (end < 0) throw bad();
        conditions.push({ not, token: text.slice(i + 1, end) });
        i = end + 1;
      } else if (text[i] === '[') {
        const end = text.indexOf(']', i);
        if (end < 0) throw bad();
        conditions.push({ not, etag: text.slice(i + 1, end).trim() });
        i = end + 1;
      } else {
        throw bad();
      }
    }
    if (conditions.length === 0) throw bad();
    lists.push({ ...(tagged ? { resource: tag } : {}), conditions });
  }
  if (lists.length === 0) throw bad();
  return lists;
}

/** Every state token named in an If header (RFC 4918 §6.4: these are the ones "submitted"). */
export function submittedTokens(lists: IfList[] | null): Set<string> {
  const out = new Set<string>();
  for (const l of lists ?? []) for (const c of l.conditions) if (c.token && !c.not) out.add(c.token);
  return out;
}

/** An If header's entity-tag condition (RFC 4918 §10.4) against the current ETag: the tag itself, or its weak form. If-Match and If-None-Match are http/conditional.ts's. */
export function etagMatches(condition: string, current: string | null): boolean {
  if (!current) return false;
  return condition === current || condition === `W/${current}`;
}
