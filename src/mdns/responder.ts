// Burrow on the LAN by name (RFC 6762 multicast DNS, RFC 6763 DNS-SD): `burrow.local` (MDNS_NAME)
// answers with this computer's addresses (A/AAAA), and the services `_https._tcp`, `_http._tcp`,
// `_webdav._tcp` and `_webdavs._tcp` point at it, so file managers find the drive. The name is
// probed first (three queries 250 ms apart); a device already answering for it makes Burrow take
// the next (`burrow-2.local`, `-3`, …). On stop every record is withdrawn (a goodbye: TTL 0).
// multicast-dns does the socket and the packet format (dns-packet): a small, long-kept library
// that Node has no counterpart for; the protocol's rules are here.
import os from 'node:os';
import { createRequire } from 'node:module';
import type makeMdns from 'multicast-dns';
import type { Logger } from '../core/log.ts';

type Record = { name: string; type: string; ttl: number; data: unknown; class?: string; flush?: boolean };

export interface MdnsOptions {
  /** The name wanted, without `.local` (`burrow`). */
  name: string;
  httpPort: () => number | null;
  httpsPort: () => number | null;
  webdav: boolean;
  log: Logger;
  interfaces?: () => NodeJS.Dict<os.NetworkInterfaceInfo[]>;
}

export interface Mdns {
  /** The announced `<name>.local`, or null before (or without) it. */
  announced(): string | null;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const TTL = 120;
const PROBE_MS = 250;

/** `burrow`, `burrow-2`, `burrow-3`, … */
export function nextName(base: string, n: number): string {
  return n === 1 ? base : `${base}-${n}`;
}

export function createMdns(options: MdnsOptions): Mdns {
  const log = options.log;
  let mdns: ReturnType<typeof makeMdns> | null = null;
  let host: string | null = null;
  let probing: string | null = null;
  let conflict = false;

  const addresses = (): Record[] => {
    const out: Record[] = [];
    for (const list of Object.values((options.interfaces ?? os.networkInterfaces)())) {
      for (const a of list ?? []) {
        if (a.internal) continue;
        out.push({ name: host!, type: a.family === 'IPv4' ? 'A' : 'AAAA', ttl: TTL, data: a.address, flush: true });
      }
    }
    return out;
  };

  const instance = `Burrow on ${os.hostname().split('.')[0]}`;
  const services = (): { type: string; port: number; txt: string[] }[] => {
    const http = options.httpPort();
    const https = options.httpsPort();
    const out: { type: string; port: number; txt: string[] }[] = [];
    if (https !== null) out.push({ type: '_https._tcp.local', port: https, txt: ['path=/'] });
    if (http !== null) out.push({ type: '_http._tcp.local', port: http, txt: ['path=/'] });
    if (options.webdav && http !== null) out.push({ type: '_webdav._tcp.local', port: http, txt: ['path=/dav/'] });
    if (options.webdav && https !== null) out.push({ type: '_webdavs._tcp.local', port: https, txt: ['path=/dav/'] });
    return out;
  };

  const serviceRecords = (type: string | null): Record[] => {
    const out: Record[] = [];
    for (const s of services()) {
      if (type !== null && type !== s.type) continue;
      const full = `${instance}.${s.type}`;
      out.push(
        { name: s.type, type: 'PTR', ttl: TTL, data: full },
        {
          name: full,
          type: 'SRV',
          ttl: TTL,
          data: { port: s.port, target: host!, priority: 0, weight: 0 },
          flush: true,
        },
        { name: full, type: 'TXT', ttl: TTL, data: s.txt, flush: true },
      );
    }
    return out;
  };

  const all = (): Record[] => [
    ...addresses(),
    ...services().map((s) => ({ name: '_services._dns-sd._udp.local', type: 'PTR', ttl: TTL, data: s.type })),
    ...serviceRecords(null),
  ];

  function onQuery(query: { questions: { name: string; type: string }[] }) {
    if (!host || !mdns) {
      // While probing, another prober asking for the same name: it is theirs only if it answers.
      return;
    }
    const answers: Record[] = [];
    for (const q of query.questions ?? []) {
      const name = q.name.toLowerCase();
      if (name === host) answers.push(...addresses().filter((r) => q.type === 'ANY' || r.type === q.type));
      else if (name === '_services._dns-sd._udp.local' && (q.type === 'PTR' || q.type === 'ANY'))
        answers.push(...all().filter((r) => r.name === '_services._dns-sd._udp.local'));
      else if (services().some((s) => s.type === name)) answers.push(...serviceRecords(name));
      else if (services().some((s) => `${instance}.${s.type}`.toLowerCase() === name))
        answers.push(...serviceRecords(null).filter((r) => r.name.toLowerCase() === name));
    }
    if (answers.length) mdns.respond({ answers: answers as never });
  }

  function onResponse(response: { answers?: { name: string; type: string }[] }) {
    if (!probing) return;
    if ((response.answers ?? []).some((a) => a.name.toLowerCase() === probing)) conflict = true;
  }

  async function probe(name: string): Promise<boolean> {
    probing = name;
    conflict = false;
    for (let i = 0; i < 3 && !conflict; i++) {
      mdns!.query({ questions: [{ name, type: 'ANY' }] } as never);
      await new Promise((r) => setTimeout(r, PROBE_MS));
    }
    // A late answer to the last probe.
    await new Promise((r) => setTimeout(r, PROBE_MS));
    probing = null;
    return !conflict;
  }

  return {
    announced: () => host,
    async start() {
      // Loaded when the responder starts (issue 33: not on the heap of a server without mDNS).
      mdns = (createRequire(import.meta.url)('multicast-dns') as typeof makeMdns)({ reuseAddr: true });
      mdns.on('error', (err: Error) => log.warn('mDNS failed', { err: err.message }));
      mdns.on('query', onQuery as never);
      mdns.on('response', onResponse as never);
      await new Promise<void>((resolve) => mdns!.once('ready', () => resolve()));
      for (let n = 1; n < 100 && mdns; n++) {
        const name = `${nextName(options.name, n)}.local`;
        if (await probe(name)) {
          host = name;
          break;
        }
        log.info('another device answers for this name on the network: trying the next', { name });
      }
      if (!host || !mdns) return;
      mdns.respond({ answers: all() as never });
      setTimeout(() => mdns?.respond({ answers: all() as never }), 1000).unref();
      log.info('announced on the network (mDNS)', { name: host, services: services().map((s) => s.type) });
    },
    async stop() {
      const m = mdns;
      mdns = null;
      if (!m) return;
      if (host) {
        const goodbye = all().map((r) => ({ ...r, ttl: 0 }));
        await new Promise<void>((resolve) => m.respond({ answers: goodbye as never }, () => resolve()));
        log.info('withdrawn from the network (mDNS)', { name: host });
      }
      host = null;
      await new Promise<void>((resolve) => m.destroy(() => resolve()));
    },
  };
}
