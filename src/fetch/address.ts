// Which addresses "Add from link" may connect to, decided on the address actually connected:
// the name is resolved here (the system resolver, or FETCH_DNS_SERVER), every answer is checked,
// and the socket is handed the checked address — there is no second resolution for a rebinding
// name server to answer differently. A literal address in the URL is checked the same way, and
// the connected socket's remote address once more. Redirects come back through here (remote.ts).
import dns from 'node:dns';
import net from 'node:net';
import { AppError } from '../core/errors.ts';
import { failVariable } from '../config/variables.ts';

/** Not the public internet: refused unless the administrator lists the network. */
const NOT_PUBLIC: [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'], // "this network"
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'], // link-local, and the cloud metadata address 169.254.169.254
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved and broadcast
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'], // NAT64: an IPv4 address inside
  ['64:ff9b:1::', 48, 'ipv6'],
  ['100::', 64, 'ipv6'], // discard
  ['2001:db8::', 32, 'ipv6'],
  ['fc00::', 7, 'ipv6'], // unique local (fd00:ec2::254 is a cloud metadata address)
  ['fe80::', 10, 'ipv6'],
  ['fec0::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

/** What `lan` stands for in FETCH_ALLOW_NETWORKS: the private ranges a home or office uses. */
const LAN: [string, number, 'ipv4' | 'ipv6'][] = [
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['fc00::', 7, 'ipv6'],
];

export type Lookup = (hostname: string) => Promise<string[]>;

export interface AddressPolicy {
  /** Throws FETCH_ADDRESS_REFUSED unless `address` may be connected to. */
  check(address: string, host: string): void;
  /** For http.request's `lookup`: resolves, checks every answer, hands over the first. */
  lookup: net.LookupFunction;
}

/** FETCH_ALLOW_NETWORKS read into a block list (ConfigError on a malformed entry). */
export function allowList(entries: readonly string[]): net.BlockList {
  const allowed = new net.BlockList();
  for (const entry of entries) {
    if (entry.toLowerCase() === 'lan') {
      for (const [a, p, t] of LAN) allowed.addSubnet(a, p, t);
      continue;
    }
    const [address, bits] = entry.split('/');
    const type = net.isIPv4(address ?? '') ? 'ipv4' : net.isIPv6(address ?? '') ? 'ipv6' : null;
    const max = type === 'ipv4' ? 32 : 128;
    const prefix = bits === undefined ? max : Number(bits);
    if (!type || !Number.isInteger(prefix) || prefix < 0 || prefix > max || (bits !== undefined && !/^\d+$/.test(bits)))
      failVariable('FETCH_ALLOW_NETWORKS', entry, 'CIDRs such as 192.168.1.0/24 or fd00::/8, or `lan`');
    allowed.addSubnet(address!, prefix, type!);
  }
  return allowed;
}

/** The name server of FETCH_DNS_SERVER (`address` or `address:port`, `[v6]:port`). */
function resolverAt(server: string): Lookup {
  const resolver = new dns.promises.Resolver({ timeout: 5000, tries: 2 });
  resolver.setServers([server]);
  return async (hostname) => {
    const answers = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const found = answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []));
    if (found.length) return found;
    const failed = answers.find((a) => a.status === 'rejected');
    throw failed ? (failed as PromiseRejectedResult).reason : new Error(`${hostname} has no address`);
  };
}

const systemLookup: Lookup = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export function createAddressPolicy(options: {
  allowNetworks: readonly string[];
  dnsServer: string | null;
}): AddressPolicy {
  const notPublic = new net.BlockList();
  for (const [a, p, t] of NOT_PUBLIC) notPublic.addSubnet(a, p, t);
  const allowed = allowList(options.allowNetworks);
  const resolve = options.dnsServer ? resolverAt(options.dnsServer) : systemLookup;

  function check(address: string, host: string): void {
    const type = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : null;
    if (!type) throw refused(host, address);
    // IPv4 inside IPv6 (::ffff:a.b.c.d) is matched against the IPv4 rules by BlockList itself.
    if (notPublic.check(address, type) && !allowed.check(address, type)) throw refused(host, address);
  }

  return {
    check,
    lookup(hostname, options, callback) {
      const cb = callback as (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void;
      resolve(hostname).then(
        (addresses) => {
          try {
            // Every answer, not only the one used: a name that also points inside is refused.
            for (const a of addresses) check(a, hostname);
          } catch (err) {
            return cb(err as Error, '', 4);
          }
          const first = addresses[0]!;
          const family = net.isIPv6(first) ? 6 : 4;
          if ((options as dns.LookupOptions).all) cb(null, [{ address: first, family }]);
          else cb(null, first, family);
        },
        (err: NodeJS.ErrnoException) =>
          cb(
            new AppError(
              'FETCH_UNREACHABLE',
              `The name ${hostname} could not be resolved (${err.code ?? err.message}).`,
            ),
            '',
            4,
          ),
      );
    },
  };
}

function refused(host: string, address: string): AppError {
  const shown = host === address ? address : `${host} (${address})`;
  return new AppError(
    'FETCH_ADDRESS_REFUSED',
    `${shown} is not on the public internet, so Burrow does not fetch from it. An administrator can allow a network with FETCH_ALLOW_NETWORKS.`,
  );
}
