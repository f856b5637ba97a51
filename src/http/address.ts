// Which address a request came from, under the TRUST_PROXY rule. The rule is parsed once;
// X-Forwarded-For is only believed from peers the rule trusts.
import net from 'node:net';
import type { IncomingMessage } from 'node:http';

export interface TrustRule {
  readonly text: string;
  trusts(address: string): boolean;
  /** Hop count when the rule is a number. */
  readonly hops: number | null;
}

const LOOPBACK = ['127.0.0.0/8', '::1/128'];

function normalise(address: string): string {
  return address.startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
}

function blockList(entries: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const entry of entries) {
    const [ip, bits] = entry.split('/');
    const type = net.isIPv6(ip!) ? 'ipv6' : 'ipv4';
    if (!net.isIP(ip!)) throw new Error(`TRUST_PROXY entry ${JSON.stringify(entry)} is not an address or CIDR`);
    if (bits === undefined) list.addAddress(ip!, type);
    else list.addSubnet(ip!, Number(bits), type);
  }
  return list;
}

export function parseTrustProxy(text: string): TrustRule {
  const value = text.trim().toLowerCase();
  if (value === '' || value === 'false' || value === '0') return { text: 'false', hops: null, trusts: () => false };
  if (value === 'true') return { text: 'true', hops: null, trusts: () => true };
  if (/^\d+$/.test(value)) return { text: value, hops: Number(value), trusts: () => true };
  const entries = value
    .split(/[\s,]+/)
    .filter(Boolean)
    .flatMap((e) => (e === 'loopback' ? LOOPBACK : [e]));
  const list = blockList(entries);
  return {
    text: value,
    hops: null,
    trusts: (address) => {
      const a = normalise(address);
      return net.isIP(a) ? list.check(a, net.isIPv6(a) ? 'ipv6' : 'ipv4') : false;
    },
  };
}

export function peerAddress(req: IncomingMessage): string {
  return normalise(req.socket.remoteAddress ?? '');
}

export function forwardedFor(req: IncomingMessage): string[] {
  const header = req.headers['x-forwarded-for'];
  const joined = Array.isArray(header) ? header.join(',') : (header ?? '');
  return joined
    .split(',')
    .map((s) => normalise(s.trim()))
    .filter(Boolean);
}

/** The client address: the peer, or the forwarded chain walked from the right past trusted hops. */
export function clientAddress(req: IncomingMessage, rule: TrustRule): string {
  const peer = peerAddress(req);
  if (!rule.trusts(peer)) return peer;
  const chain = forwardedFor(req);
  if (chain.length === 0) return peer;
  if (rule.text === 'true') return chain[0]!;
  if (rule.hops !== null) return chain[Math.max(0, chain.length - rule.hops)] ?? peer;
  for (let i = chain.length - 1; i >= 0; i--) if (!rule.trusts(chain[i]!)) return chain[i]!;
  return chain[0]!;
}
