// HTTPS's certificate. Either Burrow's own: a local certificate authority made on first start
// (CONFIG_DIR/tls/ca.crt, its private key sealed under CONFIG_DIR/keys/tls-key and never
// served) signs a server certificate for the names of names.ts, renewed 30 days before it
// expires and as soon as a name or address is missing from it. Or the administrator's
// (TLS_CERT/TLS_KEY), read again when either file changes; a pair that does not match (one
// file written, the other not yet) is not taken, the one in use stays.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SecretBox } from '../db/secret-box.ts';
import { periodicJob } from '../core/periodic.ts';
import type { Logger } from '../core/log.ts';
import { issueServer, makeAuthority, namesOf, type CertNames, type Pem } from './authority.ts';
import { covers } from './names.ts';

const DAY = 86_400_000;
/** A certificate closer than this to its end is replaced. */
export const RENEW_BEFORE_MS = 30 * DAY;
/** The folder of CONFIG_DIR with the certificates. */
export const TLS_DIR = 'tls';

export interface CertificateInfo {
  source: 'generated' | 'given';
  names: CertNames;
  notBefore: string;
  notAfter: string;
  /** SHA-256 of the server certificate. */
  fingerprint: string;
  /** SHA-256 of the authority's certificate (generated only): what a person compares when trusting it. */
  authorityFingerprint: string | null;
}

export interface TlsOptions {
  configDir: string;
  /** TLS_CERT and TLS_KEY, or null for Burrow's own. */
  given: { cert: string; key: string } | null;
  wanted: () => CertNames;
  log: Logger;
  now?: () => Date;
  /** How often the names and expiry are looked at (and a given pair's files). */
  checkEveryMs?: number;
}

export interface Tls {
  /** The certificate in use (after `ready`). */
  current(): Pem;
  /** Resolves once a certificate is there (made in the background on a first start). */
  ready(): Promise<Pem>;
  /** The authority's certificate (PEM), or null with a given certificate. */
  authority(): string | null;
  info(): CertificateInfo | null;
  /** Makes a new certificate when the current one is near its end or misses a name; true when it did. */
  renew(): Promise<boolean>;
  /** Told of each new certificate. */
  onChange(listener: (pem: Pem) => void): void;
  start(): void;
  stop(): Promise<void>;
}

function writeAtomic(file: string, text: string, mode: number): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode });
  fs.renameSync(tmp, file);
}

function readOr(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** A certificate and key that belong together, or the reason they do not. */
export function checkPair(pem: Pem): X509Certificate {
  const cert = new X509Certificate(pem.cert);
  if (!cert.checkPrivateKey(createPrivateKey(pem.key))) throw new Error('the key does not belong to the certificate');
  return cert;
}

export function describe(pem: Pem, source: CertificateInfo['source'], authority: string | null): CertificateInfo {
  const cert = new X509Certificate(pem.cert);
  return {
    source,
    names: namesOf(cert),
    notBefore: cert.validFromDate.toISOString(),
    notAfter: cert.validToDate.toISOString(),
    fingerprint: cert.fingerprint256,
    authorityFingerprint: authority ? new X509Certificate(authority).fingerprint256 : null,
  };
}

export function createTls(options: TlsOptions): Tls {
  const now = options.now ?? (() => new Date());
  const log = options.log;
  const listeners: ((pem: Pem) => void)[] = [];
  let pem: Pem | null = null;
  let ca: Pem | null = null;
  let readyPromise: Promise<Pem> | null = null;
  const dir = path.join(options.configDir, TLS_DIR);
  const files = {
    ca: path.join(dir, 'ca.crt'),
    caKey: path.join(dir, 'ca.key.sealed'),
    cert: path.join(dir, 'server.crt'),
    key: path.join(dir, 'server.key.sealed'),
  };
  let box: SecretBox | null = null;
  const sealer = () => (box ??= SecretBox.fromConfigDir(options.configDir, 'tls-key'));

  const use = (next: Pem) => {
    pem = next;
    for (const l of listeners) l(next);
  };

  /** The authority from disk, or a new one (also when it is near its own end). */
  async function authority(): Promise<Pem> {
    if (ca) return ca;
    const cert = readOr(files.ca);
    const sealed = readOr(files.caKey);
    if (cert && sealed) {
      const key = sealer().open(sealed.trim(), 'tls:ca');
      const x = checkPair({ cert, key });
      if (x.validToDate.getTime() - now().getTime() > RENEW_BEFORE_MS) return (ca = { cert, key });
      log.warn('the HTTPS certificate authority is near its end: a new one is made (devices must trust it again)');
    }
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const made = await makeAuthority(os.hostname(), now());
    writeAtomic(files.caKey, sealer().seal(made.key, 'tls:ca') + '\n', 0o600);
    writeAtomic(files.ca, made.cert, 0o644);
    log.info('made the HTTPS certificate authority', { file: files.ca });
    return (ca = made);
  }

  function saved(): Pem | null {
    const cert = readOr(files.cert);
    const sealed = readOr(files.key);
    if (!cert || !sealed) return null;
    try {
      const key = sealer().open(sealed.trim(), 'tls:server');
      checkPair({ cert, key });
      return { cert, key };
    } catch (err) {
      log.warn('the saved HTTPS certificate cannot be used: a new one is made', { err });
      return null;
    }
  }

  /** Why the certificate must be made again, or null. */
  function staleness(current: Pem, authorityPem: Pem): string | null {
    const x = new X509Certificate(current.cert);
    if (!x.verify(new X509Certificate(authorityPem.cert).publicKey)) return 'not signed by this authority';
    if (x.validToDate.getTime() - now().getTime() < RENEW_BEFORE_MS) return 'near its end';
    if (!covers(namesOf(x), options.wanted())) return 'a name or address is missing';
    return null;
  }

  async function renewGenerated(): Promise<boolean> {
    const authorityPem = await authority();
    const current = pem ?? saved();
    const reason = current ? staleness(current, authorityPem) : 'none yet';
    if (!reason) {
      if (!pem) use(current!);
      return false;
    }
    const names = options.wanted();
    const made = await issueServer(authorityPem, names, now());
    writeAtomic(files.key, sealer().seal(made.key, 'tls:server') + '\n', 0o600);
    writeAtomic(files.cert, made.cert, 0o644);
    log.info('made the HTTPS certificate', { reason, names, notAfter: new X509Certificate(made.cert).validTo });
    use(made);
    return true;
  }

  function readGiven(): boolean {
    const g = options.given!;
    let next: Pem;
    try {
      next = { cert: fs.readFileSync(g.cert, 'utf8'), key: fs.readFileSync(g.key, 'utf8') };
      checkPair(next);
    } catch (err) {
      if (!pem) throw new Error(`TLS_CERT/TLS_KEY cannot be used: ${(err as Error).message}`);
      log.warn('TLS_CERT/TLS_KEY changed but cannot be used (yet): the certificate in use stays', {
        err: (err as Error).message,
      });
      return false;
    }
    if (pem && pem.cert === next.cert && pem.key === next.key) return false;
    const first = !pem;
    use(next);
    if (!first) log.info('HTTPS certificate read again from TLS_CERT', { ...describe(next, 'given', null) });
    return true;
  }

  const renew = async () => (options.given ? readGiven() : renewGenerated());
  // A given pair is watched by polling its files' stats (editors and certbot replace files by
  // rename, which a watch on the old inode misses); Burrow's own is looked at for its names.
  const job = periodicJob({
    everyMs: options.checkEveryMs ?? (options.given ? 2_000 : 60_000),
    first: 'later',
    log,
    failed: 'the HTTPS certificate check failed',
    run: renew,
  });

  return {
    current() {
      if (!pem) throw new Error('no certificate yet');
      return pem;
    },
    ready() {
      return (readyPromise ??= renew().then(() => pem!));
    },
    authority: () => (options.given ? null : (ca?.cert ?? readOr(files.ca))),
    info: () =>
      pem ? describe(pem, options.given ? 'given' : 'generated', options.given ? null : (ca?.cert ?? null)) : null,
    renew,
    onChange: (l) => void listeners.push(l),
    start: job.start,
    stop: job.stop,
  };
}
