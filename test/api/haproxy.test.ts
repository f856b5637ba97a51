// The README's deployment, for real: Debian's HAProxy with the haproxy.cfg of README.md
// ("Three instances behind HAProxy") — read from the README itself, so the example a person
// copies is the one tested — in front of three Burrow servers on one PostgreSQL and one shared
// volume folder. Only what cannot be the same on one machine is changed: the frontend listens on
// a loopback port without TLS (the bind lines and the HTTPS redirect are left out) and the
// three `server` lines point at the three servers' ports. The health check is the README's
// (GET /readyz naming the public host, which the servers allow through ALLOWED_HOSTS), round
// robin sends consecutive requests to different instances, a session opened through HAProxy
// holds on all three, an upload through one is listed through another, and the live folder
// view's WebSocket (/api/live) passes through HAProxy and hears a change made through another
// instance.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { ADMIN } from '../support/auth.ts';
import { Client } from '../support/client.ts';
import { testPostgres } from '../support/postgres.ts';
import { makeDirs, removeDirs, startServer, type TestDirs, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const README = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'README.md');
const PUBLIC_HOST = 'files.example.org';
const FOLDER = 'Files/Familie Müller & Co #2 + 🦔';
const q = encodeURIComponent;
const url = (p: string) => p.split('/').map(q).join('/');

let shared: TestDirs;
const instances: TestServer[] = [];
let haproxy: ChildProcess;
let haproxyOut = '';
let front: string;

/** The README's haproxy.cfg with this machine's addresses. */
export function readmeConfig(port: number, servers: readonly number[]): string {
  const readme = fs.readFileSync(README, 'utf8');
  const block = /^### Three instances behind HAProxy$[\s\S]*?```haproxy\n([\s\S]*?)```/m.exec(readme)?.[1];
  if (!block) throw new Error('README.md has no haproxy.cfg under "Three instances behind HAProxy"');
  let serverAt = 0;
  const lines = block
    .split('\n')
    .map((l) => l.replace(/^ {3}/, ''))
    .flatMap((l) => {
      // Plain HTTP on loopback: no certificate here, so no TLS bind and no redirect to it.
      if (/^\s*bind /.test(l)) return l.includes(':443') ? [`    bind 127.0.0.1:${port}`] : [];
      if (/^\s*http-request redirect scheme https/.test(l)) return [];
      const server = /^(\s*server \S+ )\S+(.*)$/.exec(l);
      if (server) return [`${server[1]}127.0.0.1:${servers[serverAt++]}${server[2]}`];
      return [l];
    });
  if (serverAt !== servers.length) throw new Error(`the README's backend lists ${serverAt} servers`);
  return lines.join('\n');
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

/** Which instance answered the request whose x-request-id is `id`. */
async function answeredBy(id: string): Promise<number> {
  await Promise.all(instances.map((s) => s.settleLogs()));
  const found = instances.findIndex((s) => s.logs.some((l) => l.msg === 'request' && l.requestId === id));
  assert.ok(found >= 0, `no instance logged request ${id}`);
  return found;
}

test.before(async () => {
  try {
    await boot();
  } catch (err) {
    // uvu reports a failed hook without its error: say it.
    console.error(err);
    throw err;
  }
});

async function boot(): Promise<void> {
  const database = await (await testPostgres()).database();
  shared = makeDirs('burrow-haproxy-');
  fs.mkdirSync(path.join(shared.volumes, FOLDER), { recursive: true });
  const env = {
    DATABASE_URL: database,
    CLUSTER_KEY: crypto.randomBytes(32).toString('base64url'),
    ALLOWED_HOSTS: PUBLIC_HOST,
    HTTPS_PORT: 'off',
  };
  const boot = () => {
    const dirs = makeDirs('burrow-node-');
    dirs.volumes = shared.volumes;
    dirs.users = shared.users;
    return startServer({ dirs, env: { ...env, USER_ROOT: shared.users } });
  };
  instances.push(await boot());
  instances.push(...(await Promise.all([boot(), boot()])));
  const port = await freePort();
  front = `http://127.0.0.1:${port}`;
  const cfg = path.join(shared.root, 'haproxy.cfg');
  fs.writeFileSync(
    cfg,
    readmeConfig(
      port,
      instances.map((s) => Number(new URL(s.url).port)),
    ),
  );
  const check = spawnSync('haproxy', ['-c', '-f', cfg], { encoding: 'utf8' });
  assert.is(check.status, 0, `haproxy -c: ${check.stdout}${check.stderr}`);
  // -db: in the foreground, its log on stdout.
  haproxy = spawn('haproxy', ['-db', '-f', cfg], { stdio: ['ignore', 'pipe', 'pipe'] });
  haproxy.stdout!.on('data', (c) => (haproxyOut += c));
  haproxy.stderr!.on('data', (c) => (haproxyOut += c));
  // Every instance has answered HAProxy's health check (GET /readyz naming the public host) with 200.
  await waitFor(
    () =>
      instances.every((s) => s.logs.some((l) => l.msg === 'request' && l.path === '/readyz' && l.status === 200)) ||
      undefined,
    { what: "HAProxy's health checks on every instance", seen: () => haproxyOut.slice(-2000), timeoutMs: 60_000 },
  );
}

test.after(async () => {
  if (haproxy && haproxy.exitCode === null) {
    haproxy.kill('SIGTERM');
    await new Promise((resolve) => haproxy.once('exit', resolve));
  }
  for (const s of instances) {
    await s.close();
    removeDirs(s.dirs);
  }
  if (shared) removeDirs(shared);
});

test('round robin through HAProxy: consecutive requests reach different instances; a session holds on all three', async () => {
  const admin = new Client(front);
  const setup = await admin.post('/api/auth/setup', {
    email: ADMIN.email,
    username: ADMIN.username,
    password: ADMIN.password,
  });
  assert.is(setup.status, 201, setup.text);
  if (!admin.cookies.size) {
    const login = await admin.post('/api/auth/login', { identifier: ADMIN.username, password: ADMIN.password });
    assert.is(login.status, 200, login.text);
  }
  const ids: string[] = [];
  for (let n = 0; n < 6; n++) {
    const me = await admin.get('/api/auth/me');
    assert.is(me.status, 200, me.text);
    assert.is(me.json.user.username, ADMIN.username);
    ids.push(me.headers.get('x-request-id')!);
  }
  const by = [];
  for (const id of ids) by.push(await answeredBy(id));
  for (let n = 1; n < by.length; n++) assert.is.not(by[n], by[n - 1], `requests ${n - 1} and ${n}: ${by.join(' ')}`);
  assert.equal(new Set(by), new Set([0, 1, 2]), `every instance answered: ${by.join(' ')}`);
});

test('an upload through one instance is listed through another; the live view hears it through HAProxy', async () => {
  const admin = new Client(front);
  assert.is(
    (await admin.post('/api/auth/login', { identifier: ADMIN.username, password: ADMIN.password })).status,
    200,
  );
  const ws = new WebSocket(`${front.replace(/^http/, 'ws')}/api/live`, {
    headers: { cookie: admin.cookieHeader },
    origin: front,
  });
  const messages: any[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`the upgrade answered ${res.statusCode}`)));
  });
  ws.send(JSON.stringify({ type: 'watch', path: FOLDER }));
  await waitFor(() => messages.find((m) => m.type === 'watching' && m.path === FOLDER), {
    what: 'the live view watching the folder',
    seen: () => messages,
  });
  const name = 'Relevé “Ölberg” & Söhne #3 + 50% 📄.pdf';
  const body = `%PDF-1.4 ${crypto.randomBytes(64).toString('hex')}\n`;
  const form = new FormData();
  form.append('filedata', new Blob([body]), name);
  const up = await admin.post(`/api/upload?uploadTo=${q(FOLDER)}`, form);
  assert.is(up.status, 201, up.text);
  const listing = await admin.get(`/api/browse/${url(FOLDER)}`);
  assert.is(listing.status, 200, listing.text);
  assert.is.not(
    await answeredBy(listing.headers.get('x-request-id')!),
    await answeredBy(up.headers.get('x-request-id')!),
    'listed by another instance than the one that took the upload',
  );
  assert.ok(
    listing.json.items.some((i: { name: string }) => i.name === name),
    listing.text,
  );
  await waitFor(
    () =>
      messages
        .filter((m) => m.type === 'changes' && m.path === FOLDER)
        .flatMap((m) => m.events)
        .find((e) => e.type === 'created' && e.name === name),
    { what: 'the live view hearing the upload', seen: () => messages },
  );
  const file = await admin.get(`/api/download/${url(`${FOLDER}/${name}`)}`);
  assert.is(file.status, 200, file.text);
  assert.is(file.text, body);
  ws.close();
});

test.run();
