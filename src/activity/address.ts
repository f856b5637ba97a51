// Which address the activity log records for a request, and why: lets an administrator check
// TRUST_PROXY against what their proxy actually sends.
import type { IncomingMessage } from 'node:http';
import { forwardedFor, peerAddress, type TrustRule } from '../http/address.ts';
import type { AddressReport } from './wire.ts';

const FORWARDING = [
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-forwarded-port',
  'x-real-ip',
  'forwarded',
  'cf-connecting-ip',
  'true-client-ip',
];

export function addressReport(req: IncomingMessage, recorded: string, trustProxy: TrustRule): AddressReport {
  const peer = peerAddress(req);
  const headers: Record<string, string> = {};
  for (const name of FORWARDING) {
    const value = req.headers[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return {
    recorded,
    peer,
    trustsPeer: trustProxy.trusts(peer),
    trustProxy: trustProxy.text,
    forwardedChain: forwardedFor(req),
    headers,
  };
}
