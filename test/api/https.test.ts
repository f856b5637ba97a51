// HTTPS with nothing to set up: on first start Burrow makes its own certificate authority (its
// key sealed in CONFIG_DIR, never served) and a server certificate for burrow.local, localhost,
// this computer's names and every address; a client that trusts the downloaded authority
// (Node's `ca`) connects, one that does not is refused. The Host allow-list and the cross-site
// rule hold over HTTPS. A certificate given by TLS_CERT/TLS_KEY replaces Burrow's own and is read
// again when its files are replaced, without a restart. Plain HTTP from another machine (a
// network namespace) gets a page leading to HTTPS, while its API calls and loopback stay plain.
// The running server (in a network namespace of its own) makes its certificate again, signed by
// the same authority, when the machine got a new address and when the one it has is near its end.
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setupAdmin } from '../support/auth.ts';
import { removeDirs, serverCommand, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { makeNetns } from '../support/netns.ts';
import { makeDirs } from '../support/server.ts';
import { SecretBox } from '../../src/db/secret-box.ts';
import tls from 'node:tls';
import type { ChildProcess } from 'node:child_process';
import { makeAuthority, issueServer, namesOf, canonicalIp } from '../../src/tls/authority.ts';
import { lanAddresses } from '../../src/system/network.ts';
import { lanNames } from '../../src/http/origin.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  cert: PeerCertificate;
}

function request(
  port: number,
  opts: {
    ca?: string;
    path?: string;
    method?: string;
    headers?: Record<string, string>;
    servername?: string;
    body?: string;
  } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path: opts.path ?? '/readyz',
        method: opts.method ?? 'GET',
        headers: { host: `localhost:${port}`, ...opts.headers },
        servername: opts.servername ?? 'localhost',
        agent: false,
        ...(opts.ca ? { ca: opts.ca } : {}),
      },
      (res) => {
        const cert = (res.socket as TLSSocket).getPeerCertificate();
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text, cert }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

async function httpsPort(s: TestServer): Promise<number> {
  const line = await waitFor(() => s.logs.find((l) => l.msg === 'HTTPS is listening'), {
    what: 'the HTTPS listening line',
    timeoutMs: 30_000,
  });
  return line.port as number;
}

const fingerprint = async (port: number, ca: string) => (await request(port, { ca })).cert.fingerprint256;

test('the generated authority is trusted by a client that adds it; the certificate covers every name; the key is never served', async () => {
  const s = await startServer();
  try {
    const port = await httpsPort(s);
    const download = await fetch(`${s.url}/api/tls/ca.crt`);
    assert.is(download.status, 200);
    assert.is(download.headers.get('content-type'), 'application/x-x509-ca-cert');
    assert.match(download.headers.get('content-disposition') ?? '', /attachment; filename="Burrow local CA\.crt"/);
    const ca = await download.text();
    assert.match(ca, /^-----BEGIN CERTIFICATE-----/);
    assert.not.match(ca, /PRIVATE KEY/);
    const authority = new X509Certificate(ca);
    assert.ok(authority.ca, 'a certificate authority');

    // Not trusted: refused. Trusted: the same request answers.
    const refused = await request(port).then(
      () => null,
      (err: NodeJS.ErrnoException) => err.code,
    );
    assert.ok(
      refused === 'SELF_SIGNED_CERT_IN_CHAIN' ||
        refused === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' ||
        refused === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
      String(refused),
    );
    const ok = await request(port, { ca });
    assert.is(ok.status, 200);
    assert.equal(JSON.parse(ok.text), { status: 'ok' });

    // Its names: burrow.local, localhost, this computer's names, loopback and each LAN address.
    const names = namesOf(new X509Certificate(ok.cert.raw));
    for (const n of ['burrow.local', 'localhost', ...lanNames()])
      assert.ok(names.dns.includes(n), `${n} in ${names.dns}`);
    for (const a of ['127.0.0.1', '::1', ...lanAddresses().map((a) => canonicalIp(a.address))])
      assert.ok(names.ips.includes(a), `${a} in ${names.ips}`);
    // Each name verifies as the browser checks it (servername = the name typed).
    for (const servername of ['burrow.local', lanNames()[0]!])
      assert.is((await request(port, { ca, servername, headers: { host: 'localhost' } })).status, 200, servername);

    // On disk: the authority's key only sealed, the folder private.
    const tlsDir = path.join(s.dirs.config, 'tls');
    for (const f of fs.readdirSync(tlsDir))
      assert.not.match(fs.readFileSync(path.join(tlsDir, f), 'utf8'), /PRIVATE KEY/, f);
    assert.is(fs.statSync(path.join(tlsDir, 'ca.key.sealed')).mode & 0o077, 0);

    // What the settings screen reads: the names, the end, the authority's fingerprint.
    const admin = await setupAdmin(s);
    const info = (await admin.get('/api/tls')).json;
    assert.is(info.enabled, true);
    assert.is(info.port, port);
    assert.is(info.source, 'generated');
    assert.ok(info.names.includes('burrow.local') && info.names.includes('127.0.0.1'), String(info.names));
    assert.is(info.authorityFingerprint, authority.fingerprint256);
    assert.is(info.authorityUrl, '/api/tls/ca.crt');
    const days = (Date.parse(info.notAfter) - Date.now()) / 86_400_000;
    assert.ok(days > 80 && days <= 90, String(days));
    assert.is((await fetch(`${s.url}/api/tls`)).status, 401);
    const features = (await (await fetch(`${s.url}/api/features`)).json()) as any;
    assert.equal(features.https, { enabled: true, port, authority: true });

    // A restart keeps the authority (devices trusted it) and the certificate.
    const before = ok.cert.fingerprint256;
    await s.restart();
    const again = await waitFor(() => s.logs.filter((l) => l.msg === 'HTTPS is listening'), {
      what: 'HTTPS again',
      until: (lines) => lines.length === 2,
    });
    assert.is(await (await fetch(`${s.url}/api/tls/ca.crt`)).text(), ca);
    assert.is(await fingerprint(again[1]!.port, ca), before);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('over HTTPS the Host allow-list and the cross-site rule hold', async () => {
  const s = await startServer();
  try {
    const port = await httpsPort(s);
    const ca = await (await fetch(`${s.url}/api/tls/ca.crt`)).text();
    // A rebinding name: refused before anything runs.
    const rebound = await request(port, { ca, path: '/api/features', headers: { host: `evil.example:${port}` } });
    assert.is(rebound.status, 421);
    assert.is(JSON.parse(rebound.text).error.code, 'HOST_NOT_ALLOWED');
    // The first setup from another site's page: refused, and no account is made.
    const body = JSON.stringify({ email: 'eve@example.org', username: 'eve', password: 'eve-password-1' });
    const cross = await request(port, {
      ca,
      path: '/api/auth/setup',
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
    });
    assert.is(cross.status, 403);
    assert.is(JSON.parse(cross.text).error.code, 'CROSS_SITE_REFUSED');
    // The HTTP origin of the same host is another origin too.
    const downgraded = await request(port, {
      ca,
      path: '/api/auth/setup',
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', origin: `http://localhost:${port}` },
    });
    assert.is(downgraded.status, 403);
    // The page's own HTTPS origin works.
    const own = await request(port, {
      ca,
      path: '/api/auth/setup',
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', origin: `https://localhost:${port}` },
    });
    assert.is(own.status, 201, own.text);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('TLS_CERT/TLS_KEY replace the generated certificate and are read again when replaced on disk', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow tls given & co '));
  const ca = await makeAuthority('Ägypten & Co', new Date());
  const first = await issueServer(ca, { dns: ['files.home.arpa', 'localhost'], ips: ['127.0.0.1'] }, new Date());
  const second = await issueServer(
    ca,
    { dns: ['files.home.arpa', 'localhost', 'nas.home.arpa'], ips: ['127.0.0.1'] },
    new Date(),
  );
  const cert = path.join(dir, 'fullchain.pem');
  const key = path.join(dir, 'privkey.pem');
  fs.writeFileSync(cert, first.cert);
  fs.writeFileSync(key, first.key, { mode: 0o600 });
  const s = await startServer({ env: { TLS_CERT: cert, TLS_KEY: key } });
  try {
    const port = await httpsPort(s);
    assert.is(await fingerprint(port, ca.cert), new X509Certificate(first.cert).fingerprint256);
    // No authority of its own is offered, and none was made.
    assert.is((await fetch(`${s.url}/api/tls/ca.crt`)).status, 404);
    assert.not.ok(fs.existsSync(path.join(s.dirs.config, 'tls', 'ca.crt')));

    // Half a renewal (the certificate written, its key not yet): the one in use stays.
    fs.writeFileSync(`${cert}.new`, second.cert);
    fs.renameSync(`${cert}.new`, cert);
    await waitFor(() => s.logs.find((l) => l.msg.startsWith('TLS_CERT/TLS_KEY changed but cannot be used')), {
      what: 'the mismatched pair noticed',
    });
    assert.is(await fingerprint(port, ca.cert), new X509Certificate(first.cert).fingerprint256);
    // The key follows (as certbot's renewal does): the new certificate is served, no restart.
    fs.writeFileSync(`${key}.new`, second.key, { mode: 0o600 });
    fs.renameSync(`${key}.new`, key);
    await waitFor(() => fingerprint(port, ca.cert), {
      what: 'the new certificate served',
      until: (f) => f === new X509Certificate(second.cert).fingerprint256,
    });
    assert.is((await request(port, { ca: ca.cert, servername: 'nas.home.arpa' })).status, 200);
    assert.ok(s.logs.some((l) => l.msg === 'HTTPS certificate read again from TLS_CERT'));
  } finally {
    await s.close();
    removeDirs(s.dirs);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('plain HTTP from another machine: a page leading to HTTPS; its API calls and this computer stay plain', async () => {
  const ns = makeNetns('https');
  const s = await startServer({ env: { HOST: '0.0.0.0' } });
  try {
    const port = await httpsPort(s);
    const httpPort = new URL(s.url).port;
    const ca = await (await fetch(`${s.url}/api/tls/ca.crt`)).text();
    const there = `http://${ns.hostAddress}:${httpPort}`;
    const page = await ns.run([
      'curl',
      '-sS',
      '-H',
      'Accept: text/html',
      '-H',
      'Sec-Fetch-Mode: navigate',
      `${there}/Files/Fotos%20%26%20Filme?view=grid`,
    ]);
    assert.is(page.status, 0, page.stderr);
    const target = `https://${ns.hostAddress}:${port}/Files/Fotos%20%26%20Filme?view=grid`;
    assert.ok(page.stdout.includes(`href="${target.replace(/&/g, '&#38;')}"`), page.stdout);
    assert.ok(page.stdout.includes(`${there}/api/tls/ca.crt`), 'links the authority');
    for (const os of ['Windows', 'macOS', 'iPhone', 'Android', 'Linux', 'Firefox'])
      assert.ok(page.stdout.includes(os), os);
    // The authority downloads over plain HTTP (a phone needs it before it trusts HTTPS), and then HTTPS works from there.
    const caThere = await ns.run(['curl', '-sS', `${there}/api/tls/ca.crt`]);
    assert.is(caThere.stdout, ca);
    const caFile = path.join(s.dirs.cache, 'ca from the phone.crt');
    fs.writeFileSync(caFile, caThere.stdout);
    const secure = await ns.run(['curl', '-sS', '--cacert', caFile, `https://${ns.hostAddress}:${port}/readyz`]);
    assert.is(secure.status, 0, secure.stderr);
    assert.is(secure.stdout, '{"status":"ok"}');
    // A script's API call over plain HTTP still answers JSON.
    const api = await ns.run(['curl', '-sS', `${there}/api/features`]);
    assert.match(api.stdout, /^\{"version"/);
    // From this computer (loopback) the page is the app, not the notice.
    const local = await fetch(`${s.url}/`, { headers: { accept: 'text/html', 'sec-fetch-mode': 'navigate' } });
    assert.not.match(await local.text(), /secure address/);
  } finally {
    await s.close();
    removeDirs(s.dirs);
    ns.remove();
  }
});

test('doctor names the certificate, its names and its end', async () => {
  const s = await startServer();
  try {
    await httpsPort(s);
    await s.close();
    const c = serverCommand();
    const r = spawnSync(c.file, [...c.args, 'doctor'], {
      encoding: 'utf8',
      timeout: 90_000,
      env: {
        ...c.env,
        HOST: '127.0.0.1',
        CONFIG_DIR: s.dirs.config,
        CACHE_DIR: s.dirs.cache,
        VOLUME_ROOT: s.dirs.volumes,
        PORT: '0',
      },
    });
    const line = r.stdout.split('\n').find((l) => /^\s*ok\s+HTTPS /.test(l));
    assert.ok(line, r.stdout + r.stderr);
    assert.match(line!, /Burrow's own certificate authority/);
    assert.match(line!, /burrow\.local, localhost/);
    assert.match(line!, /127\.0\.0\.1/);
    assert.match(line!, /ends \d{4}-\d\d-\d\d \((89|90) days\)/);
  } finally {
    removeDirs(s.dirs);
  }
});

/** The certificate a TLS client is shown at `host:port` for `servername`, verified against `ca`. */
function served(host: string, port: number, ca: string, servername: string): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host, port, servername, ca }, () => {
      const cert = socket.getPeerX509Certificate()!;
      socket.end();
      resolve(cert);
    });
    socket.on('error', reject);
  });
}

test('a new address on the machine, and a certificate near its end, make a new one from the same authority', async () => {
  const ns = makeNetns('renew');
  const dirs = makeDirs('burrow-tls-renew-');
  let child: ChildProcess | null = null;
  const logs: Record<string, any>[] = [];
  const start = async () => {
    const c = serverCommand();
    const from = logs.length;
    child = ns.spawn([c.file, ...c.args], {
      ...c.env,
      HOST: '0.0.0.0',
      PORT: '0',
      LOG_LEVEL: 'info',
      MDNS_ENABLED: 'false',
      CONFIG_DIR: dirs.config,
      CACHE_DIR: dirs.cache,
      VOLUME_ROOT: dirs.volumes,
    });
    let partial = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop()!;
      for (const l of parts) {
        try {
          logs.push(JSON.parse(l));
        } catch {
          /* not a log line */
        }
      }
    });
    const line = await waitFor(() => logs.slice(from).find((l) => l.msg === 'HTTPS is listening'), {
      what: 'HTTPS listening',
      timeoutMs: 60_000,
      seen: () => logs.slice(-10),
    });
    return { port: line.port as number, lines: () => logs.slice(from) };
  };
  const stop = async () => {
    const p = child!;
    p.kill('SIGTERM');
    await waitFor(() => p.exitCode !== null || p.signalCode !== null, { what: 'the server ended' });
    assert.is(p.exitCode, 0);
  };
  try {
    let run = await start();
    const ca = fs.readFileSync(path.join(dirs.config, 'tls', 'ca.crt'), 'utf8');
    const first = await served(ns.address, run.port, ca, 'burrow.local');
    assert.ok(namesOf(first).ips.includes(ns.address), namesOf(first).ips.join(' '));
    await stop();

    // The router hands the machine another address: the next start makes a certificate that
    // covers it, from the authority devices already trust.
    const inside = (await ns.run(['ip', '-o', 'link', 'show'])).stdout
      .split('\n')
      .map((l) => /^\d+: ([^:@]+)/.exec(l)?.[1])
      .find((n) => n && n !== 'lo')!;
    const added = await ns.run(['ip', 'addr', 'add', '10.231.254.77/32', 'dev', inside]);
    assert.is(added.status, 0, added.stderr);
    run = await start();
    const made = run.lines().find((l) => l.msg === 'made the HTTPS certificate');
    assert.is(made?.reason, 'a name or address is missing', JSON.stringify(run.lines().slice(-10)));
    const second = await served(ns.address, run.port, ca, 'burrow.local');
    assert.ok(namesOf(second).ips.includes('10.231.254.77'), namesOf(second).ips.join(' '));
    assert.is.not(second.fingerprint256, first.fingerprint256);
    assert.ok(second.verify(new X509Certificate(ca).publicKey), 'signed by the same authority');
    await stop();

    // Its certificate 5 days from its end (made 85 days ago by the same authority): the next
    // start makes a new one for 90 days.
    const box = SecretBox.fromConfigDir(dirs.config, 'tls-key');
    const caKey = box.open(fs.readFileSync(path.join(dirs.config, 'tls', 'ca.key.sealed'), 'utf8').trim(), 'tls:ca');
    const old = await issueServer({ cert: ca, key: caKey }, namesOf(second), new Date(Date.now() - 85 * 86_400_000));
    fs.writeFileSync(path.join(dirs.config, 'tls', 'server.crt'), old.cert);
    fs.writeFileSync(path.join(dirs.config, 'tls', 'server.key.sealed'), box.seal(old.key, 'tls:server') + '\n');
    run = await start();
    const renewed = run.lines().find((l) => l.msg === 'made the HTTPS certificate');
    assert.is(renewed?.reason, 'near its end');
    const third = await served(ns.address, run.port, ca, 'burrow.local');
    assert.is.not(third.fingerprint256, new X509Certificate(old.cert).fingerprint256);
    const days = (third.validToDate.getTime() - Date.now()) / 86_400_000;
    assert.ok(days > 88 && days <= 90, String(days));
    assert.ok(third.verify(new X509Certificate(ca).publicKey), 'signed by the same authority');
    // The authority itself is the one devices trusted at the first start.
    assert.is(fs.readFileSync(path.join(dirs.config, 'tls', 'ca.crt'), 'utf8'), ca);
    await stop();
  } finally {
    const p = child as ChildProcess | null;
    if (p && p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    ns.remove();
    removeDirs(dirs);
  }
});

test.run();
