// Making certificates: the local certificate authority and the server certificate it signs.
// Node's crypto makes and uses keys but builds no X.509; @peculiar/x509 does, over Node's own
// WebCrypto (keys are made and signed natively, ECDSA P-256). It is imported only when a
// certificate is made (first start, renewal): a normal start reads the files with Node's
// X509Certificate. The library is already in the executable for SimpleWebAuthn's attestation checks.
import { webcrypto, X509Certificate, randomBytes } from 'node:crypto';
import net from 'node:net';

export interface Pem {
  cert: string;
  key: string;
}

/** The names and addresses a server certificate covers. */
export interface CertNames {
  dns: readonly string[];
  ips: readonly string[];
}

const DAY = 86_400_000;
/** The authority lives ten years; a server certificate 90 days and is renewed 30 days before. */
export const CA_DAYS = 3650;
export const SERVER_DAYS = 90;
const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;

async function x509() {
  // The library's dependency injection needs the Reflect metadata polyfill (SimpleWebAuthn loads it too).
  await import('reflect-metadata');
  const lib = await import('@peculiar/x509');
  lib.cryptoProvider.set(webcrypto as unknown as Crypto);
  return lib;
}

function serial(): string {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f; // a positive integer
  return b.toString('hex');
}

async function pemKey(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`.replace(
    /\n\n/g,
    '\n',
  );
}

/** A new certificate authority named after this computer. */
export async function makeAuthority(host: string, now: Date): Promise<Pem> {
  const lib = await x509();
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const cert = await lib.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=Burrow local authority (${host.replace(/[,+="\\<>;#]/g, ' ')}), O=Burrow`,
    notBefore: new Date(now.getTime() - DAY),
    notAfter: new Date(now.getTime() + CA_DAYS * DAY),
    signingAlgorithm: SIGN,
    keys: keys as unknown as CryptoKeyPair,
    extensions: [
      new lib.BasicConstraintsExtension(true, 0, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.keyCertSign | lib.KeyUsageFlags.cRLSign, true),
      await lib.SubjectKeyIdentifierExtension.create(keys.publicKey as unknown as CryptoKey),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: await pemKey(keys.privateKey as unknown as CryptoKey) };
}

/** A server certificate for `names`, signed by the authority. */
export async function issueServer(ca: Pem, names: CertNames, now: Date): Promise<Pem> {
  const lib = await x509();
  const caCert = new lib.X509Certificate(ca.cert);
  const caKey = await webcrypto.subtle.importKey(
    'pkcs8',
    Buffer.from(ca.key.replace(/-----[^-]+-----|\s/g, ''), 'base64'),
    EC,
    false,
    ['sign'],
  );
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const first = names.dns[0] ?? names.ips[0] ?? 'burrow.local';
  const cert = await lib.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${first}`,
    issuer: caCert.subject,
    notBefore: new Date(now.getTime() - DAY),
    notAfter: new Date(now.getTime() + SERVER_DAYS * DAY),
    signingAlgorithm: SIGN,
    publicKey: keys.publicKey as unknown as CryptoKey,
    signingKey: caKey as unknown as CryptoKey,
    extensions: [
      new lib.BasicConstraintsExtension(false, undefined, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.digitalSignature, true),
      new lib.ExtendedKeyUsageExtension([lib.ExtendedKeyUsage.serverAuth], false),
      new lib.SubjectAlternativeNameExtension(
        [
          ...names.dns.map((value) => ({ type: 'dns' as const, value })),
          ...names.ips.map((value) => ({ type: 'ip' as const, value })),
        ],
        false,
      ),
      await lib.AuthorityKeyIdentifierExtension.create(caCert, false),
      await lib.SubjectKeyIdentifierExtension.create(keys.publicKey as unknown as CryptoKey),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: await pemKey(keys.privateKey as unknown as CryptoKey) };
}

/** The DNS names and addresses a certificate covers (its subjectAltName). */
export function namesOf(cert: X509Certificate): CertNames {
  const dns: string[] = [];
  const ips: string[] = [];
  for (const part of (cert.subjectAltName ?? '').split(', ')) {
    if (part.startsWith('DNS:')) dns.push(part.slice(4).toLowerCase());
    else if (part.startsWith('IP Address:')) ips.push(canonicalIp(part.slice(11)));
  }
  return { dns, ips };
}

/** An address as one spelling (IPv6 compressed, lower case), so two lists compare. */
export function canonicalIp(ip: string): string {
  if (net.isIPv4(ip)) return ip;
  try {
    return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return ip.toLowerCase();
  }
}
