// Cross-site writes. A browser attaches the session cookie to a form or fetch sent from any
// page, and SameSite=Lax does not stop a page on the same site (a sibling subdomain, another
// app on the NAS's host name). So an unsafe request without a bearer token is refused when
// the browser says it came from elsewhere: its Origin (or, when absent, Sec-Fetch-Site, then
// Referer) must be this server's own origin or PUBLIC_URL. A request that names no origin at
// all (curl, scripts, server-to-server callbacks) is not a browser's cross-site request.
//
// DNS rebinding. A page on a name the attacker controls (evil.example) may have that name
// answer with this server's LAN address: the browser then sends the page's requests here with
// `Host: evil.example`, and counts them same-origin — its Origin matches its Host, so a check
// trusting the request's own Host let it write (and read whatever needs no sign-in: a first
// setup, AUTH_MODE=disabled). So every request (API, UI, WebDAV, the terminal's WebSocket) must
// name a host this server answers for: an IP address (a rebinding needs a name), `localhost`,
// the listen address, PUBLIC_URL's host, ALLOWED_HOSTS, and the names it has on the LAN — this
// computer's host name and `<host name>.local` (mDNS), plus the names an announcer adds
// (`announcedNames`). Behind a trusted proxy the host the client used is its X-Forwarded-Host.
import os from 'node:os';
import net from 'node:net';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../core/errors.ts';
import { peerAddress, type TrustRule } from './address.ts';

export const CROSS_SITE_REFUSED = 'CROSS_SITE_REFUSED';

export interface HostPolicy {
  trustProxy: TrustRule;
  publicUrl: string | null;
  /** HOST: a name there is one this server answers for (an address is accepted anyway). */
  listenHost: string;
  /** ALLOWED_HOSTS: more names this server answers for (a proxy's upstream name, a router's DNS name). */
  allowedHosts: readonly string[];
  /** Names announced on the LAN (an mDNS responder's `burrow.local`): the one place they plug in. */
  announcedNames?: () => readonly string[];
}

/** A Host header's name alone: lower case, no port, no IPv6 brackets, no final dot. */
export function hostName(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[')) h = h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  else if (h.lastIndexOf(':') > 0 && h.indexOf(':') === h.lastIndexOf(':')) h = h.slice(0, h.lastIndexOf(':'));
  return h.replace(/\.$/, '');
}

/** This computer's names on the LAN: its host name (short and full) and `<short name>.local`. */
export function lanNames(hostname = os.hostname()): string[] {
  const full = hostName(hostname);
  const short = full.split('.')[0]!;
  return [...new Set([full, short, `${short}.local`])].filter(Boolean);
}

/** The names a request may be addressed to; addresses (and `localhost`) are judged apart. */
export function answeredNames(policy: HostPolicy): Set<string> {
  const names = new Set(['localhost', ...lanNames(), ...policy.allowedHosts.map(hostName)]);
  names.add(hostName(policy.listenHost));
  if (policy.publicUrl) {
    try {
      names.add(hostName(new URL(policy.publicUrl).host));
    } catch {
      /* PUBLIC_URL is checked at startup */
    }
  }
  for (const n of policy.announcedNames?.() ?? []) names.add(hostName(n));
  return names;
}

/**
 * Throws 421 HOST_NOT_ALLOWED unless the request names a host this server answers for. A
 * request without a Host (HTTP/1.0) names nothing a rebinding could use.
 */
export function assertKnownHost(req: IncomingMessage, policy: HostPolicy, names = answeredNames(policy)): void {
  const trusted = policy.trustProxy.trusts(peerAddress(req));
  const host = (trusted ? firstValue(req.headers['x-forwarded-host']) : undefined) ?? req.headers.host;
  if (host === undefined || host === '') return;
  const name = hostName(host);
  if (net.isIP(name) !== 0 || names.has(name) || name.endsWith('.localhost')) return;
  throw new AppError(
    'HOST_NOT_ALLOWED',
    `Burrow does not answer for the host name "${name}". Open it at an address of this computer, its name (${lanNames()[0] ?? 'localhost'}) or PUBLIC_URL; to use this name, add it to ALLOWED_HOSTS.`,
  );
}

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

/** The scheme the client used: the socket's, or a trusted proxy's X-Forwarded-Proto. */
export function requestProtocol(req: IncomingMessage, trustProxy: TrustRule): string {
  const trusted = trustProxy.trusts(peerAddress(req));
  const encrypted = Boolean((req.socket as { encrypted?: boolean }).encrypted);
  return (
    (trusted ? firstValue(req.headers['x-forwarded-proto'])?.toLowerCase() : undefined) ??
    (encrypted ? 'https' : 'http')
  );
}

/** The origins this request may come from: the one it was addressed to, and PUBLIC_URL. */
export function ownOrigins(req: IncomingMessage, policy: OriginPolicy): string[] {
  const out: string[] = [];
  const trusted = policy.trustProxy.trusts(peerAddress(req));
  const proto = requestProtocol(req, policy.trustProxy);
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

/**
 * Whether a WebSocket upgrade may go on: a browser always names the page's Origin on one (and
 * sends the cookies whatever the page), so a named Origin must be this server's own; a client
 * that names none (a script) is not a page of another site.
 */
export function sameOriginUpgrade(req: IncomingMessage, policy: OriginPolicy): boolean {
  const origin = firstValue(req.headers.origin);
  if (origin === undefined) return true;
  const own = originOf(origin);
  return own !== null && ownOrigins(req, policy).includes(own);
}

/**
 * Throws 403 CROSS_SITE_REFUSED for a read that costs the server work (a video conversion) when
 * the browser says another site's page asked for it (Sec-Fetch-Site): a page elsewhere may name
 * our URL in a `<video>` and have the visitor's browser start ffmpeg with their cookie. Our own
 * pages, a typed address and clients that say nothing (curl, the app) are served.
 */
export function assertNotForeignFetch(req: IncomingMessage): void {
  const site = firstValue(req.headers['sec-fetch-site'])?.toLowerCase();
  if (site === 'cross-site' || site === 'same-site')
    throw new AppError(CROSS_SITE_REFUSED, 'This video was asked for by another site and was refused.');
}
