// Cross-site writes. A browser attaches the session cookie to a form or fetch sent from any
// page, and SameSite=Lax does not stop a page on the same site (a sibling subdomain, another
// app on the NAS's host name). So an unsafe request without a bearer token is refused when
// the browser says it came from elsewhere: its Origin (or, when absent, Sec-Fetch-Site, then
// Referer) must be this server's own origin or PUBLIC_URL. A request that names no origin at
// all (curl, scripts, server-to-server callbacks) is not a browser's cross-site request.
import type { IncomingMessage } from 'node:http';
import { AppError } from '../core/errors.ts';
import { peerAddress, type TrustRule } from './address.ts';

export const CROSS_SITE_REFUSED = 'CROSS_SITE_REFUSED';

export interface OriginPolicy {
  trustProxy: TrustRule;
  /** PUBLIC_URL, or null. */
  publicUrl: string | null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isSafeMethod(method: string | undefined): boolean {
  return SAFE_METHODS.has((method ?? 'GET').toUpperCase());
}

/** `scheme://host[:port]` in canonical form, or null when `text` is not an http(s) URL. */
function originOf(text: string): string | null {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

function firstValue(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header[0] : header;
  const first = text?.split(',')[0]?.trim();
  return first ? first : undefined;
}

/** The origins this request may come from: the one it was addressed to, and PUBLIC_URL. */
export function ownOrigins(req: IncomingMessage, policy: OriginPolicy): string[] {
  const out: string[] = [];
  const trusted = policy.trustProxy.trusts(peerAddress(req));
  const encrypted = Boolean((req.socket as { encrypted?: boolean }).encrypted);
  const proto =
    (trusted ? firstValue(req.headers['x-forwarded-proto'])?.toLowerCase() : undefined) ??
    (encrypted ? 'https' : 'http');
  const host = (trusted ? firstValue(req.headers['x-forwarded-host']) : undefined) ?? req.headers.host;
  if (host && (proto === 'http' || proto === 'https')) {
    const own = originOf(`${proto}://${host}`);
    if (own) out.push(own);
  }
  if (policy.publicUrl) {
    const pub = originOf(policy.publicUrl);
    if (pub) out.push(pub);
  }
  return out;
}

/** Where the browser says the request came from: an origin, 'same' (Sec-Fetch-Site vouches), 'foreign', or null when it says nothing. */
function claimedSource(req: IncomingMessage): string | null {
  const origin = firstValue(req.headers.origin);
  if (origin !== undefined) return originOf(origin) ?? 'foreign'; // `null` (sandboxed, file:) is never ours
  const site = firstValue(req.headers['sec-fetch-site'])?.toLowerCase();
  if (site !== undefined) return site === 'same-origin' || site === 'none' ? 'same' : 'foreign';
  const referer = firstValue(req.headers.referer);
  if (referer !== undefined) return originOf(referer) ?? 'foreign';
  return null;
}

/** Throws 403 CROSS_SITE_REFUSED for an unsafe request a browser sent from another origin. */
export function assertSameOrigin(req: IncomingMessage, policy: OriginPolicy): void {
  if (isSafeMethod(req.method)) return;
  const source = claimedSource(req);
  if (source === null || source === 'same') return;
  if (source !== 'foreign' && ownOrigins(req, policy).includes(source)) return;
  throw new AppError(
    CROSS_SITE_REFUSED,
    'This change was sent from another site and was refused. Open Burrow at its own address; behind a proxy, set PUBLIC_URL to that address.',
  );
}
