// The names and addresses the server certificate must cover: the announced name
// (`burrow.local`), localhost, this computer's names on the LAN, ALLOWED_HOSTS, PUBLIC_URL's
// host, and every address of every interface. Read again at each renewal check: a new
// address from the router makes a new certificate.
import net from 'node:net';
import { canonicalIp, type CertNames } from './authority.ts';
import { lanNames } from '../http/origin.ts';
import { lanAddresses } from '../system/network.ts';

export interface NameSources {
  /** The names announced on the LAN (mDNS), first the one people type. */
  announced: () => readonly string[];
  allowedHosts: readonly string[];
  publicUrl: string | null;
  listenHost: string;
  hostname?: () => string;
  interfaces?: () => NodeJS.Dict<import('node:os').NetworkInterfaceInfo[]>;
}

const DNS_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

export function wantedNames(src: NameSources): CertNames {
  const dns = new Set<string>();
  const ips = new Set<string>(['127.0.0.1', '::1']);
  const add = (name: string) => {
    const n = name.trim().toLowerCase().replace(/\.$/, '');
    if (net.isIP(n)) ips.add(canonicalIp(n));
    else if (DNS_NAME.test(n)) dns.add(n);
  };
  for (const n of src.announced()) add(n);
  add('localhost');
  for (const n of lanNames(src.hostname?.())) add(n);
  for (const n of src.allowedHosts) add(n);
  if (src.publicUrl) add(new URL(src.publicUrl).hostname.replace(/^\[|\]$/g, ''));
  if (src.listenHost !== '0.0.0.0' && src.listenHost !== '::') add(src.listenHost);
  for (const a of lanAddresses(src.interfaces?.())) ips.add(canonicalIp(a.address));
  return { dns: [...dns], ips: [...ips] };
}

/** Whether `have` covers every name and address of `want`. */
export function covers(have: CertNames, want: CertNames): boolean {
  const dns = new Set(have.dns);
  const ips = new Set(have.ips);
  return want.dns.every((n) => dns.has(n)) && want.ips.every((a) => ips.has(a));
}
