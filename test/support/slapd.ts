// A real OpenLDAP directory for tests: slapd started in a temporary folder with its own config
// (slapd.conf through -f), its own database and a test certificate authority, listening on
// loopback for ldap:// (StartTLS too) and ldaps://. The memberof overlay keeps `memberOf` on the
// people, as a directory with it configured would. `stop()` takes it down mid-test, `start()`
// brings it back on the same ports with the same data.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { issueServer, makeAuthority } from '../../src/tls/authority.ts';

export const SUFFIX = 'dc=example,dc=org';
export const SERVICE_DN = `cn=burrow,ou=services,${SUFFIX}`;
export const SERVICE_PASSWORD = 'service secret: ümlaut & +';
const ROOT_DN = `cn=admin,${SUFFIX}`;
const ROOT_PASSWORD = 'root-secret';

/** The directory's people and groups (organizational units under SUFFIX). */
export const PEOPLE = `ou=people,${SUFFIX}`;
export const GROUPS = `ou=groups,${SUFFIX}`;

/** An LDIF line; values beyond ASCII go base64 (`::`), as LDIF wants. */
export const ldifLine = (name: string, value: string) =>
  /^[\x20-\x7e]*$/.test(value) && !value.startsWith(' ') && !value.startsWith(':')
    ? `${name}: ${value}`
    : `${name}:: ${Buffer.from(value, 'utf8').toString('base64')}`;

/** A person's DN under PEOPLE. */
export const personDn = (p: { uid: string }) => `uid=${p.uid},${PEOPLE}`;

/** A person's entry (inetOrgPerson) with their password, as LDIF. */
export const personLdif = (p: { uid: string; password: string; cn: string; mail: string }) =>
  [
    ldifLine('dn', personDn(p)),
    'objectClass: inetOrgPerson',
    ldifLine('uid', p.uid),
    ldifLine('cn', p.cn),
    ldifLine('sn', p.cn.split(' ').pop()!),
    ldifLine('displayName', p.cn),
    ldifLine('mail', p.mail),
    ldifLine('userPassword', p.password),
    '',
  ].join('\n');

/** A group (groupOfNames) under GROUPS with these member DNs, as LDIF. */
export const groupLdif = (cn: string, members: string[]) =>
  [
    ldifLine('dn', `cn=${cn},${GROUPS}`),
    'objectClass: groupOfNames',
    ldifLine('cn', cn),
    ...members.map((m) => ldifLine('member', m)),
    '',
  ].join('\n');

export interface TestDirectory {
  url: string;
  ldapsUrl: string;
  caFile: string;
  dir: string;
  /** Applies LDIF changes (add, modify, delete) as the directory's administrator. */
  modify(ldif: string): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function until(what: string, ok: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`slapd: ${what} did not happen`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Starts slapd with `ldif` (entries below dc=example,dc=org) loaded. */
export async function startDirectory(ldif: string): Promise<TestDirectory> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-slapd-'));
  const db = path.join(dir, 'db');
  fs.mkdirSync(db);
  const now = new Date();
  const ca = await makeAuthority('test directory', now);
  const server = await issueServer(ca, { dns: ['localhost'], ips: ['127.0.0.1'] }, now);
  const caFile = path.join(dir, 'ca.pem');
  fs.writeFileSync(caFile, ca.cert);
  fs.writeFileSync(path.join(dir, 'server.pem'), server.cert);
  fs.writeFileSync(path.join(dir, 'server.key'), server.key, { mode: 0o600 });
  const conf = path.join(dir, 'slapd.conf');
  fs.writeFileSync(
    conf,
    [
      'include /etc/ldap/schema/core.schema',
      'include /etc/ldap/schema/cosine.schema',
      'include /etc/ldap/schema/inetorgperson.schema',
      'include /etc/ldap/schema/nis.schema',
      'modulepath /usr/lib/ldap',
      'moduleload back_mdb',
      'moduleload memberof',
      `pidfile ${path.join(dir, 'slapd.pid')}`,
      `TLSCACertificateFile ${caFile}`,
      `TLSCertificateFile ${path.join(dir, 'server.pem')}`,
      `TLSCertificateKeyFile ${path.join(dir, 'server.key')}`,
      'database mdb',
      `suffix "${SUFFIX}"`,
      `rootdn "${ROOT_DN}"`,
      `rootpw ${ROOT_PASSWORD}`,
      `directory ${db}`,
      'maxsize 67108864',
      'overlay memberof',
      'memberof-group-oc groupOfNames',
      'memberof-member-ad member',
      'memberof-memberof-ad memberOf',
      'memberof-refint true',
      'access to attrs=userPassword by anonymous auth by self write by * none',
      'access to * by users read by * none',
      '',
    ].join('\n'),
  );
  const base = [
    `dn: ${SUFFIX}`,
    'objectClass: dcObject',
    'objectClass: organization',
    'o: Example',
    'dc: example',
    '',
    `dn: ou=services,${SUFFIX}`,
    'objectClass: organizationalUnit',
    'ou: services',
    '',
    `dn: ${SERVICE_DN}`,
    'objectClass: person',
    'cn: burrow',
    'sn: service',
    `userPassword: ${SERVICE_PASSWORD}`,
    '',
  ].join('\n');
  const [port, tlsPort] = [await freePort(), await freePort()];
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = `ldaps://127.0.0.1:${tlsPort}`;
  let child: ChildProcess | null = null;

  const start = async () => {
    // -d 0: stays in the foreground (its own process to stop), logging nothing.
    child = spawn('/usr/sbin/slapd', ['-f', conf, '-h', `${url}/ ${ldapsUrl}/`, '-d', '0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const running = child;
    let exited = false;
    running.once('exit', () => (exited = true));
    await until('listening', async () => {
      if (exited) throw new Error(`slapd exited: ${err}`);
      return (await connects(port)) && (await connects(tlsPort));
    });
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const gone = new Promise((r) => running.once('exit', r));
    running.kill('SIGTERM');
    await gone;
  };
  const modify = (changes: string) => {
    execFileSync('/usr/bin/ldapmodify', ['-x', '-H', url, '-D', ROOT_DN, '-w', ROOT_PASSWORD], {
      input: changes,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
  };
  await start();
  execFileSync('/usr/bin/ldapadd', ['-x', '-H', url, '-D', ROOT_DN, '-w', ROOT_PASSWORD], {
    input: base + '\n' + ldif,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  return {
    url,
    ldapsUrl,
    caFile,
    dir,
    modify,
    start,
    stop,
    close: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
