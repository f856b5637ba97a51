// Add from link (POST /api/fetch): a file fetched from a web address lands in a folder as an
// upload does — under the name the other server gives (Content-Disposition, else the address),
// `name (1)` when taken, one activity row — and every address that is not the public internet is
// refused on the address actually connected: loopback and metadata literals, a public-looking
// name that resolves inside (a name server run by the test), a name with one inside answer among
// public ones, a redirect inward. A body over FETCH_MAX_SIZE, declared or not, a remote error, a
// cancelled slow body: each answered with its code and nothing left on disk. Another account, a
// read token and a cross-site request get nowhere. The "public internet" of this test is
// 127.0.0.2, the one address FETCH_ALLOW_NETWORKS lists.
import dgram from 'node:dgram';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, issueToken, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { instancesBehind, removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const MiB = 1024 * 1024;
const PUBLIC = '127.0.0.2';

let s: TestServer;
let admin: Client;
let web: http.Server;
let webPort: number;
let dns: dgram.Socket;
/** Requests the web server saw (path), to prove a refused address was never asked. */
const asked: string[] = [];
/** Slow bodies still open, ended at the end. */
const stalled = new Set<http.ServerResponse>();
const photo = Buffer.alloc(300 * 1024);
for (let i = 0; i < photo.length; i++) photo[i] = (i * 7919) % 251;

/** Names the test's name server answers (A records); anything else is NXDOMAIN. */
const NAMES: Record<string, string[]> = {
  'photos.example.com': [PUBLIC],
  'cdn.example.net': ['127.0.0.1'], // a public-looking name that points at the server itself
  'mixed.example.org': [PUBLIC, '127.0.0.1'], // one answer inside among public ones
};

/** A minimal DNS server: A questions for NAMES, an empty answer for AAAA, NXDOMAIN otherwise. */
function nameServer(): Promise<dgram.Socket> {
  const sock = dgram.createSocket('udp4');
  sock.on('message', (q, rinfo) => {
    let at = 12;
    const labels: string[] = [];
    while (q[at]! > 0) {
      labels.push(q.subarray(at + 1, at + 1 + q[at]!).toString());
      at += q[at]! + 1;
    }
    const question = q.subarray(12, at + 5);
    const type = q.readUInt16BE(at + 1);
    const known = NAMES[labels.join('.').toLowerCase()];
    const answers = type === 1 && known ? known : [];
    const head = Buffer.alloc(12);
    q.copy(head, 0, 0, 2);
    head.writeUInt16BE(known ? 0x8180 : 0x8183, 2);
    head.writeUInt16BE(1, 4);
    head.writeUInt16BE(answers.length, 6);
    const records = answers.map((a) => {
      const r = Buffer.alloc(16);
      r.writeUInt16BE(0xc00c, 0);
      r.writeUInt16BE(1, 2);
      r.writeUInt16BE(1, 4);
      r.writeUInt32BE(0, 6);
      r.writeUInt16BE(4, 10);
      a.split('.').forEach((n, i) => (r[12 + i] = Number(n)));
      return r;
    });
    sock.send(Buffer.concat([head, question, ...records]), rinfo.port, rinfo.address);
  });
  return new Promise((resolve) => sock.bind(0, '127.0.0.1', () => resolve(sock)));
}

/** The other servers on the web, one process: what each path answers. */
function webServer(): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    asked.push(req.url!);
    const url = new URL(req.url!, 'http://x');
    switch (url.pathname) {
      case '/download':
        res.writeHead(200, {
          'content-type': 'image/jpeg',
          'content-length': photo.length,
          'content-disposition': `attachment; filename="fallback.jpg"; filename*=UTF-8''${encodeURIComponent('Été 2025 – plage #1 + amis.jpg')}`,
        });
        return res.end(photo);
      case '/backups/My%20Backup%202024.zip':
        res.writeHead(200, { 'content-type': 'application/zip', 'content-length': photo.length });
        return res.end(photo);
      case '/moved':
        res.writeHead(302, { location: `http://${PUBLIC}:${webPort}/backups/My%20Backup%202024.zip` });
        return res.end();
      case '/inward':
        res.writeHead(301, { location: `http://127.0.0.1:${webPort}/download` });
        return res.end();
      case '/big':
        res.writeHead(200, { 'content-length': 5 * MiB });
        return res.end(Buffer.alloc(5 * MiB));
      case '/big-unannounced': {
        // No Content-Length: chunked, 64 KiB at a time, past the limit.
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        let sent = 0;
        const more = () => {
          while (sent < 6 * MiB) {
            sent += 64 * 1024;
            if (!res.write(Buffer.alloc(64 * 1024))) return void res.once('drain', more);
          }
          res.end();
        };
        res.on('error', () => {});
        return more();
      }
      case '/slow':
        // 64 KiB, then nothing: a transfer someone will cancel.
        res.writeHead(200, { 'content-length': 3 * MiB });
        res.write(Buffer.alloc(64 * 1024));
        stalled.add(res);
        return;
      case '/gone':
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('no such file');
      default:
        res.writeHead(500);
        return res.end();
    }
  });
  return new Promise((resolve) => server.listen(0, '0.0.0.0', () => resolve(server)));
}

const volume = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
/** Every file in the volume, Burrow's own folder included: a refusal leaves nothing anywhere. */
const everything = () =>
  (fs.readdirSync(volume(), { recursive: true }) as string[])
    .filter((f) => !fs.statSync(volume(f)).isDirectory())
    .sort();
/** Part files: in each instance's staging folder (the volume is on the data folder's disk here) or beside the destination. */
const stagingDirs = () => s.configDirs.map((c) => path.join(c, 'files', 'uploads'));
const stagingLeft = () => [
  ...stagingDirs().flatMap((d) => (fs.existsSync(d) ? fs.readdirSync(d) : [])),
  ...everything().filter((f) => /\.part$|\.burrow-tmp-/.test(f)),
];

function clear(): void {
  for (const f of fs.readdirSync(volume())) if (f !== '.burrow') fs.rmSync(volume(f), { recursive: true, force: true });
}

const at = (p: string, host = PUBLIC) => `http://${host}:${webPort}${p}`;

async function finished(client: Client, id: string) {
  let job: any;
  await waitFor(
    async () => {
      job = (await client.get(`/api/fetch/${id}`)).json;
      return job.state !== 'running';
    },
    { what: `fetch ${id} to finish`, timeoutMs: 30_000 },
  );
  return job;
}

/** Cancels a running fetch: it ends cancelled, and neither the volume nor a staging folder keeps a byte of it. */
async function cancelLeavingNothing(id: string): Promise<void> {
  const cancelled = await admin.delete(`/api/fetch/${id}`);
  assert.is(cancelled.status, 200, cancelled.text);
  const ended = await finished(admin, id);
  assert.is(ended.state, 'cancelled');
  assert.is(ended.error.code, 'FETCH_CANCELLED');
  assert.equal(everything(), []);
  assert.equal(stagingLeft(), []);
}

test.before(async () => {
  web = await webServer();
  webPort = (web.address() as AddressInfo).port;
  dns = await nameServer();
  s = await startServer({
    env: {
      FETCH_ALLOW_NETWORKS: `${PUBLIC}/32`,
      FETCH_DNS_SERVER: `127.0.0.1:${(dns.address() as AddressInfo).port}`,
      FETCH_MAX_SIZE: '4M',
      // Quotas count from the folder-size index.
      FOLDER_SIZE_MODE: 'full',
      FOLDER_SIZE_FLUSH_MS: '20',
    },
  });
  admin = await setupAdmin(s);
  const on = await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 30 } });
  assert.is(on.status, 200, on.text);
});
test.after(async () => {
  for (const r of stalled) r.destroy();
  await s.close();
  removeDirs(s.dirs);
  web.closeAllConnections();
  await new Promise((r) => web.close(r));
  dns.close();
});

test('a photo lands under the name the server gives it, whole, with one activity row', async () => {
  clear();
  const name = 'Été 2025 – plage #1 + amis.jpg';
  const r = await admin.post('/api/fetch', { url: `http://photos.example.com:${webPort}/download`, uploadTo: 'Files' });
  assert.is(r.status, 202, r.text);
  assert.is(r.json.name, name);
  assert.is(r.json.total, photo.length);
  const job = await finished(admin, r.json.id);
  assert.is(job.state, 'done', JSON.stringify(job));
  assert.is(job.received, photo.length);
  assert.is(job.item.name, name);
  assert.is(job.item.outcome, 'placed');
  assert.ok(fs.readFileSync(volume(name)).equals(photo));
  assert.equal(stagingLeft(), []);
  const rows = (await admin.get('/api/activity?limit=20')).json.rows;
  const row = rows.find((x: any) => x.action === 'files.upload');
  assert.ok(row, JSON.stringify(rows));
  assert.is(row.detail.method, 'url');
  assert.equal(row.detail.paths, [`Files/${name}`]);
  assert.is(row.detail.source, `http://photos.example.com:${webPort}`);
});

test('the name from the address after a redirect; a taken name is kept both; a name asked for wins', async () => {
  clear();
  const first = await admin.post('/api/fetch', { url: at('/moved'), uploadTo: 'Files' });
  assert.is(first.status, 202, first.text);
  assert.is((await finished(admin, first.json.id)).item.name, 'My Backup 2024.zip');
  const again = await admin.post('/api/fetch', { url: at('/moved'), uploadTo: 'Files' });
  const second = await finished(admin, again.json.id);
  assert.is(second.item.name, 'My Backup 2024 (1).zip');
  assert.is(second.item.outcome, 'renamed');
  const named = await admin.post('/api/fetch', { url: at('/download'), uploadTo: 'Files', name: 'Beach & sea.jpg' });
  assert.is((await finished(admin, named.json.id)).item.name, 'Beach & sea.jpg');
  assert.equal(
    everything().filter((f) => !f.startsWith('.burrow')),
    ['Beach & sea.jpg', 'My Backup 2024 (1).zip', 'My Backup 2024.zip'],
  );
});

test('addresses that are not the public internet are refused before any byte, on the address connected', async () => {
  clear();
  const before = asked.length;
  const refusals: [string, string][] = [
    ['loopback', at('/download', '127.0.0.1')],
    ['loopback, another spelling', `http://0x7f000001:${webPort}/download`],
    ['loopback, short form', `http://127.1:${webPort}/download`],
    ['IPv6 loopback', `http://[::1]:${webPort}/download`],
    ['IPv4 inside IPv6', `http://[::ffff:127.0.0.1]:${webPort}/download`],
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data/'],
    ['a private network', 'http://192.168.1.1/'],
    ['a public-looking name resolving to loopback', `http://cdn.example.net:${webPort}/download`],
    ['a name with one inside answer among public ones', `http://mixed.example.org:${webPort}/download`],
  ];
  for (const [what, url] of refusals) {
    const r = await admin.post('/api/fetch', { url, uploadTo: 'Files' });
    assert.is(r.status, 403, `${what}: ${r.text}`);
    assert.is(envelope(r).code, 'FETCH_ADDRESS_REFUSED', what);
    assert.ok(envelope(r).requestId, what);
  }
  // A redirect inward: the public server is asked, the private one never.
  const r = await admin.post('/api/fetch', { url: at('/inward'), uploadTo: 'Files' });
  assert.is(r.status, 403, r.text);
  assert.is(envelope(r).code, 'FETCH_ADDRESS_REFUSED');
  assert.equal(asked.slice(before), ['/inward']);
  assert.equal(everything(), []);
});

test('a server with the defaults refuses the loopback server too', async () => {
  const plain = await startServer();
  try {
    const a = await setupAdmin(plain);
    const r = await a.post('/api/fetch', { url: at('/download'), uploadTo: 'Files' });
    assert.is(r.status, 403, r.text);
    assert.is(envelope(r).code, 'FETCH_ADDRESS_REFUSED');
    assert.match(envelope(r).message, /FETCH_ALLOW_NETWORKS/);
  } finally {
    await plain.close();
    removeDirs(plain.dirs);
  }
});

test('bad addresses, a remote error, a body over the limit (declared or not), a cancelled slow body: nothing kept', async () => {
  clear();
  for (const url of [
    'file:///etc/passwd',
    'ftp://photos.example.com/x',
    'not an address',
    `http://me:pw@${PUBLIC}:${webPort}/download`,
  ]) {
    const r = await admin.post('/api/fetch', { url, uploadTo: 'Files' });
    assert.is(r.status, 400, `${url}: ${r.text}`);
    assert.is(envelope(r).code, 'FETCH_BAD_URL', url);
  }
  const gone = await admin.post('/api/fetch', { url: at('/gone'), uploadTo: 'Files' });
  assert.is(gone.status, 502, gone.text);
  assert.is(envelope(gone).code, 'FETCH_REMOTE_STATUS');
  assert.match(envelope(gone).message, /404/);
  const unknown = await admin.post('/api/fetch', { url: `http://nowhere.example.com:${webPort}/x`, uploadTo: 'Files' });
  assert.is(unknown.status, 502, unknown.text);
  assert.is(envelope(unknown).code, 'FETCH_UNREACHABLE');

  const declared = await admin.post('/api/fetch', { url: at('/big'), uploadTo: 'Files' });
  assert.is(declared.status, 413, declared.text);
  assert.is(envelope(declared).code, 'FETCH_TOO_LARGE');

  const unannounced = await admin.post('/api/fetch', { url: at('/big-unannounced'), uploadTo: 'Files' });
  assert.is(unannounced.status, 202, unannounced.text);
  const over = await finished(admin, unannounced.json.id);
  assert.is(over.state, 'failed');
  assert.is(over.error.code, 'FETCH_TOO_LARGE');
  assert.ok(over.received <= 4 * MiB, String(over.received));

  const slow = await admin.post('/api/fetch', { url: at('/slow'), uploadTo: 'Files' });
  assert.is(slow.status, 202, slow.text);
  await waitFor(async () => (await admin.get(`/api/fetch/${slow.json.id}`)).json.received > 0, {
    what: 'the first bytes of the slow body',
  });
  assert.is(stagingLeft().length, 1, 'the part file while it runs');
  await cancelLeavingNothing(slow.json.id);
  // The list has them, newest first; forgetting a finished one removes it.
  const list = (await admin.get('/api/fetch')).json.jobs;
  assert.is(list[0].id, slow.json.id);
  assert.is((await admin.delete(`/api/fetch/${slow.json.id}`)).status, 200);
  assert.is((await admin.get(`/api/fetch/${slow.json.id}`)).status, 404);
});

test('a fetch is followed and cancelled through any instance (through a cluster: the cancel reaches another instance than the one receiving it)', async () => {
  clear();
  const slow = await admin.post('/api/fetch', {
    url: at('/slow'),
    uploadTo: 'Files',
    name: 'Ünïcode & 100% #slow.bin',
  });
  assert.is(slow.status, 202, slow.text);
  // Asked this many times in a row, every instance has answered (round robin).
  for (let i = 0; i < instancesBehind(s); i++) {
    const seen = await admin.get(`/api/fetch/${slow.json.id}`);
    assert.is(seen.status, 200, `ask ${i}: ${seen.text}`);
    assert.is(seen.json.state, 'running');
    assert.is(seen.json.name, 'Ünïcode & 100% #slow.bin');
    const listed = (await admin.get('/api/fetch')).json.jobs as { id: string }[];
    assert.ok(
      listed.some((j) => j.id === slow.json.id),
      `listed on ask ${i}`,
    );
  }
  // The instance that started it is past: this DELETE reaches the next one.
  await cancelLeavingNothing(slow.json.id);
  // Finished, it is forgotten through any instance.
  assert.is((await admin.delete(`/api/fetch/${slow.json.id}`)).status, 200);
  for (let i = 0; i < instancesBehind(s); i++) assert.is((await admin.get(`/api/fetch/${slow.json.id}`)).status, 404);
});

test("the volume's quota holds a fetch: a Content-Length over it refused before a byte, a body without one stopped", async () => {
  clear();
  const quota = (limitBytes: number | null) => admin.put('/api/admin/quotas/volumes/Files', { limitBytes });
  const used = (await admin.get('/api/admin/quotas')).json.volumes.find((v: any) => v.volume === 'Files').usedBytes;
  try {
    const set = await quota(used + 100 * 1024);
    assert.is(set.status, 200, set.text);
    const declared = await admin.post('/api/fetch', { url: at('/download'), uploadTo: 'Files' });
    assert.is(declared.status, 507, declared.text);
    assert.is(envelope(declared).code, 'QUOTA_EXCEEDED');
    assert.is(declared.json.error.details.neededBytes, photo.length);
    const unannounced = await admin.post('/api/fetch', { url: at('/big-unannounced'), uploadTo: 'Files' });
    assert.is(unannounced.status, 202, unannounced.text);
    const over = await finished(admin, unannounced.json.id);
    assert.is(over.state, 'failed');
    assert.is(over.error.code, 'QUOTA_EXCEEDED');
    assert.ok(over.received <= 100 * 1024, String(over.received));
    assert.equal(everything(), []);
    assert.equal(stagingLeft(), []);
  } finally {
    assert.is((await quota(null)).status, 200);
  }
  // Nothing is held after the refusals: the same photo fits once the quota is its size again.
  await waitFor(
    async () =>
      (await admin.get('/api/admin/quotas')).json.volumes.find((v: any) => v.volume === 'Files').usedBytes === used,
    { what: 'the usage back to where it was' },
  );
  assert.is((await quota(used + photo.length)).status, 200);
  try {
    const fits = await admin.post('/api/fetch', { url: at('/download'), uploadTo: 'Files' });
    assert.is(fits.status, 202, fits.text);
    assert.is((await finished(admin, fits.json.id)).state, 'done');
  } finally {
    assert.is((await quota(null)).status, 200);
  }
});

test('attackers: another account, a read token, a cross-site request, a folder the caller may not write', async () => {
  clear();
  const mine = await admin.post('/api/fetch', { url: at('/slow'), uploadTo: 'Files' });
  assert.is(mine.status, 202, mine.text);
  const lena = await createUser(admin, s, { username: 'lena', password: 'lena-password-1' });
  for (const [method, answer] of [
    ['GET', await lena.get(`/api/fetch/${mine.json.id}`)],
    ['DELETE', await lena.delete(`/api/fetch/${mine.json.id}`)],
  ] as const) {
    assert.is(answer.status, 404, `${method}: ${answer.text}`);
    assert.is(envelope(answer).code, 'FETCH_NOT_FOUND');
  }
  assert.equal((await lena.get('/api/fetch')).json.jobs, []);
  assert.is((await admin.get(`/api/fetch/${mine.json.id}`)).json.state, 'running');
  // A folder Lena may only read: refused before the other server is asked.
  fs.mkdirSync(volume('Family archive'));
  const rule = await admin.patch('/api/settings', {
    access: { rules: [{ id: 'ro', path: 'Files/Family archive', recursive: true, permissions: 'ro' }] },
  });
  assert.is(rule.status, 200, rule.text);
  const before = asked.length;
  const into = await lena.post('/api/fetch', { url: at('/download'), uploadTo: 'Files/Family archive' });
  assert.is(into.status, 403, into.text);
  assert.is(envelope(into).code, 'READ_ONLY');
  assert.is(asked.length, before);
  // A path out of the volume, and a folder that is a link to a place outside it: refused, never asked.
  const outside = path.join(s.dirs.root, 'Outside – not a volume');
  fs.mkdirSync(outside, { recursive: true });
  fs.symlinkSync(outside, volume('Holiday 2025 → elsewhere'));
  for (const uploadTo of ['Files/../../config', 'Files/%2e%2e/%2e%2e', 'Files/Holiday 2025 → elsewhere']) {
    const r = await admin.post('/api/fetch', { url: at('/download'), uploadTo });
    assert.ok(r.status === 400 || r.status === 403 || r.status === 404, `${uploadTo}: ${r.text}`);
    assert.ok(envelope(r).requestId, uploadTo);
  }
  assert.is(asked.length, before, 'the web server was never asked');
  assert.equal(fs.readdirSync(outside), []);
  fs.rmSync(volume('Holiday 2025 → elsewhere'));
  const nowhere = await lena.post('/api/fetch', { url: at('/download'), uploadTo: 'Files/No such folder' });
  assert.is(nowhere.status, 404, nowhere.text);

  const reader = new Client(s.url, await issueToken(admin, 'read'));
  const read = await reader.post('/api/fetch', { url: at('/download'), uploadTo: 'Files' });
  assert.is(read.status, 403, read.text);
  const cross = await admin.post(
    '/api/fetch',
    { url: at('/download'), uploadTo: 'Files' },
    { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
  );
  assert.is(cross.status, 403, cross.text);
  assert.is(envelope(cross).code, 'CROSS_SITE_REFUSED');
  await admin.delete(`/api/fetch/${mine.json.id}`);
  await finished(admin, mine.json.id);
  assert.equal(everything(), []);
});

test.run();
