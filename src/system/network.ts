// Where this server can be reached, as /api/features `network` tells a page. A page opened at a
// loopback address (localhost, 127.0.0.1, [::1]) makes links that name that address, which no
// other device can open; while PUBLIC_URL is unset the page offers the LAN addresses instead
// and says why. They are told only to a request from this computer itself (a loopback peer, a
// loopback Host, no forwarding headers): a visitor from elsewhere, or through a proxy, learns
// nothing of the interfaces.
import net from 'node:net';
import os from 'node:os';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { peerAddress } from '../http/address.ts';
import type { NetworkSection } from './wire.ts';

export interface LanAddress {
  name: string;
  address: string;
  family: 'IPv4' | 'IPv6';
}

/** Addresses other devices can use: every non-loopback interface (IPv6 link-local addresses need a zone and are left out). */
export function lanAddresses(interfaces = os.networkInterfaces()): LanAddress[] {
  const out: LanAddress[] = [];
  for (const [name, list] of Object.entries(interfaces)) {
    for (const a of list ?? []) {
      if (a.internal || (a.family === 'IPv6' && /^fe80:/i.test(a.address))) continue;
      out.push({ name, address: a.address, family: a.family as 'IPv4' | 'IPv6' });
    }
  }
  return out.sort((a, b) => (a.family === b.family ? 0 : a.family === 'IPv4' ? -1 : 1));
}

const isLoopbackIp = (address: string) => (net.isIPv4(address) && address.startsWith('127.')) || address === '::1';

/** `localhost`, `*.localhost`, 127.0.0.0/8 or [::1] (RFC 6761: localhost names resolve to loopback). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || isLoopbackIp(h);
}

const FORWARDING = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-real-ip'];

/** A request from a browser on this computer, to a loopback address, not relayed by a proxy. */
function fromThisComputer(req: IncomingMessage): boolean {
  if (FORWARDING.some((h) => req.headers[h] !== undefined)) return false;
  if (!isLoopbackIp(peerAddress(req))) return false;
  const host = req.headers.host;
  if (!host) return false;
  try {
    return isLoopbackHost(new URL(`http://${host}`).hostname);
  } catch {
    return false;
  }
}

export interface NetworkDeps {
  publicUrl: string | null;
  /** The address the server listens on (null before it listens). */
  address: () => AddressInfo | string | null;
  /** The name announced on the LAN as an origin (https://burrow.local:3443), or null. */
  announced?: () => string | null;
  interfaces?: () => NodeJS.Dict<os.NetworkInterfaceInfo[]>;
}

export function networkSection(req: IncomingMessage, deps: NetworkDeps): NetworkSection {
  const bound = deps.address();
  const address = bound && typeof bound === 'object' ? bound : null;
  const all = address ? address.address === '0.0.0.0' || address.address === '::' : false;
  const reachable = address ? !isLoopbackIp(address.address) : false;
  const loopback = fromThisComputer(req);
  let lanOrigins: string[] = [];
  if (loopback && !deps.publicUrl && address && reachable) {
    const hosts = all
      ? lanAddresses(deps.interfaces?.())
          .filter((a) => address.address === '::' || a.family === 'IPv4')
          .map((a) => a.address)
      : [address.address];
    lanOrigins = hosts.map((h) => `http://${net.isIPv6(h) ? `[${h}]` : h}:${address.port}`);
  }
  const announced = deps.publicUrl ? null : (deps.announced?.() ?? null);
  return { enabled: true, publicUrl: deps.publicUrl, loopback, reachable, lanOrigins, announced };
}
