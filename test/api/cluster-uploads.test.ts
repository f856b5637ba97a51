// Resumable (TUS) uploads across three instances on one PostgreSQL and one shared volume folder
// (issue 31): an upload's PATCHes may reach any instance. Its part file is on the shared volume
// (the space's `.burrow/uploads`), its lock is PostgreSQL's (an advisory lock held for a
// request's lifetime, gone with the connection of an instance that dies) and its offset is the
// row's, recorded after the bytes below it were flushed. Each instance is a process of its own
// (`node src/main.ts`, or the executable), with its own CONFIG_DIR and CACHE_DIR as separate
// machines would have, so one can be killed with SIGKILL mid-PATCH. An upload's quota hold is a
// row every instance counts, until the lease of the instance holding it lapses.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { ADMIN, issueToken } from '../support/auth.ts';
import { startBalancer, type Balancer } from '../support/balancer.ts';
import { Client } from '../support/client.ts';
import { testPostgres } from '../support/postgres.ts';
import { makeDirs, removeDirs, serverCommand, serverEnv, type TestDirs } from '../support/server.ts';
import { leaseKey } from '../../src/uploads/tus/locks.ts';
import { waitFor } from '../support/wait.ts';

const FOLDER = 'Familie Müller & Co #2 + 🦔';
/** A volume with a quota, written only through the instances. */
const QUOTA_VOLUME = 'Kasse & Belege';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Instance {
  url: string;
  dirs: TestDirs;
  child: ChildProcess;
}

let shared: TestDirs;
const instances: Instance[] = [];
let balancer: Balancer;
let token: string;
/** The administrator's session (a row: valid on every instance). */
let adminCookies: Map<string, string>;
let database: string;

async function startInstance(env: Record<string, string>): Promise<Instance> {
  const dirs = makeDirs('burrow-node-');
  dirs.volumes = shared.volumes;
  const command = serverCommand();
  const child = spawn(command.file, command.args, {
    env: { ...command.env, ...serverEnv(dirs), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const m = /"msg":"Burrow is listening"[^\n]*?"port":(\d+)/.exec(out);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    });
    child.stderr!.on('data', (chunk) => {
      out += chunk;
    });
    child.once('exit', (code) => reject(new Error(`an instance exited (${code}):\n${out.slice(-3000)}`)));
  });
  return { url, dirs, child };
}

test.before(async () => {
  database = await (await testPostgres()).database();
  shared = makeDirs('burrow-cluster-uploads-');
  fs.mkdirSync(path.join(shared.volumes, 'Files', FOLDER), { recursive: true });
  fs.mkdirSync(path.join(shared.volumes, QUOTA_VOLUME));
  const env = {
    DATABASE_URL: database,
    CLUSTER_KEY: randomBytes(32).toString('base64url'),
    UPLOAD_CHUNKED_ENABLED: 'true',
    HTTPS_PORT: 'off',
    // Quotas are measured by the folder-size index; a killed instance's holds lapse with its lease.
    FOLDER_SIZE_MODE: 'full',
    CLUSTER_LEASE_MS: '5000',
  };
  // The first migrates the database; the two others find it done.
  instances.push(await startInstance(env));
  instances.push(...(await Promise.all([startInstance(env), startInstance(env)])));
  balancer = await startBalancer(instances.map((i) => i.url));
  const admin = new Client(instances[0]!.url);
  const setup = await admin.post('/api/auth/setup', { ...ADMIN });
  assert.is(setup.status, 201, setup.text);
  token = await issueToken(admin, 'write');
  adminCookies = admin.cookies;
});

test.after(async () => {
  await balancer?.close();
  for (const i of instances) {
    if (i.child.exitCode === null && i.child.signalCode === null) {
      const exited = new Promise((resolve) => i.child.once('exit', resolve));
      i.child.kill('SIGTERM');
      await exited;
    }
    removeDirs(i.dirs);
  }
  if (shared) removeDirs(shared);
});

const tusHeaders = (more: Record<string, string> = {}) => ({
  authorization: `Bearer ${token}`,
  'tus-resumable': '1.0.0',
  ...more,
});

/** The administrator's session, asking `base`. */
function adminOn(base: string): Client {
  const c = new Client(base);
  c.cookies = new Map(adminCookies);
  return c;
}

/** Creates an upload of `length` bytes named `name` in FOLDER; answers its path (`/api/upload/tus/<id>`). */
async function create(base: string, name: string, length: number): Promise<string> {
  const r = await fetch(`${base}/api/upload/tus`, {
    method: 'POST',
    headers: tusHeaders({
      'upload-length': String(length),
      'upload-metadata': `uploadTo ${b64('Files/' + FOLDER)},filename ${b64(name)}`,
    }),
  });
  assert.is(r.status, 201, await r.text());
  return new URL(r.headers.get('location')!, base).pathname;
}

async function offsetOn(base: string, upload: string): Promise<number> {
  const r = await fetch(base + upload, { method: 'HEAD', headers: tusHeaders() });
  assert.is(r.status, 200, `HEAD on ${base}`);
  return Number(r.headers.get('upload-offset'));
}

async function patch(base: string, upload: string, offset: number, bytes: Uint8Array<ArrayBuffer>) {
  const r = await fetch(base + upload, {
    method: 'PATCH',
    headers: tusHeaders({ 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) }),
    body: bytes,
  });
  const text = await r.text();
  const error = text ? JSON.parse(text).error : undefined;
  return { status: r.status, headers: r.headers, code: error?.code as string | undefined, error, text };
}

/**
 * A PATCH of `rest` whose first `sent` bytes go at once; the others wait for `finish()` (the
 * sender on a slow line). Its answer (or the error of a connection cut) is `answer`.
 */
function slowPatch(base: string, upload: string, offset: number, rest: Buffer, sent: number) {
  const req = http.request(base + upload, {
    method: 'PATCH',
    headers: tusHeaders({
      'content-type': 'application/offset+octet-stream',
      'upload-offset': String(offset),
      'content-length': String(rest.length),
    }),
  });
  const answer = new Promise<{ status: number } | { error: Error }>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode! }));
    });
    req.on('error', (error) => resolve({ error }));
  });
  req.write(rest.subarray(0, sent));
  return { answer, finish: () => req.end(rest.subarray(sent)) };
}

/**
 * The offset the upload's row holds (what was flushed and recorded), read from PostgreSQL: a
 * HEAD would take the upload's lock for a moment, and the PATCH it waits on could find it taken.
 */
async function recorded(upload: string): Promise<number> {
  const c = new pg.Client(database);
  await c.connect();
  try {
    const r = await c.query('SELECT upload_offset FROM uploads WHERE id = $1', [path.basename(upload)]);
    return Number(r.rows[0].upload_offset);
  } finally {
    await c.end();
  }
}

const partPath = (upload: string) =>
  path.join(shared.volumes, 'Files', '.burrow', 'uploads', `tus-${path.basename(upload)}.part`);
/** Part files left on the shared volume. */
const partsLeft = () => {
  const dir = path.join(shared.volumes, 'Files', '.burrow', 'uploads');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};
/** Part files in an instance's own data folder (where one instance alone would stage them). */
const ownParts = (i: Instance) => {
  const dir = path.join(i.dirs.config, 'files', 'uploads');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};
/** The entries of FOLDER named like `name` (itself, or `name (1)`…). */
const placed = (name: string) => {
  const stem = name.replace(/\.[^.]+$/, '');
  return fs.readdirSync(path.join(shared.volumes, 'Files', FOLDER)).filter((n) => n.startsWith(stem));
};
const onDisk = (name: string) => fs.readFileSync(path.join(shared.volumes, 'Files', FOLDER, name));

test('a TUS upload whose PATCHes go to a different instance each time completes with the right bytes', async () => {
  const name = 'Ferienfilm Åre “Sommer” & Söhne #1 + 50% 🎬.bin';
  const data: Buffer<ArrayBuffer> = randomBytes(7 * 65536 + 1234);
  const from = balancer.sentTo.length;
  const upload = await create(balancer.url, name, data.length);
  let offset = 0;
  const staged: { shared: boolean; own: string[] }[] = [];
  for (let n = 0; offset < data.length; n++) {
    const chunk = data.subarray(offset, offset + 65536);
    const r = await patch(balancer.url, upload, offset, chunk);
    assert.is(r.status, 204, `PATCH ${n} at ${offset}: ${r.text}`);
    offset = Number(r.headers.get('upload-offset'));
    assert.is(offset, Math.min(data.length, (n + 1) * 65536));
    if (offset < data.length)
      staged.push({ shared: fs.existsSync(partPath(upload)), own: instances.flatMap((i) => ownParts(i)) });
  }
  // Where every instance sees it: the shared volume, not the data folder of the one that made it.
  for (const s of staged) assert.equal(s, { shared: true, own: [] });
  const went = balancer.sentTo.slice(from);
  assert.is(went.length, 9);
  for (let k = 1; k < went.length; k++) assert.is.not(went[k], went[k - 1], 'each request on another instance');
  assert.equal(placed(name), [name]);
  assert.is(sha(onDisk(name)), sha(data));
  assert.equal(partsLeft(), []);
  // Every instance answers it complete.
  for (const i of instances) assert.is(await offsetOn(i.url, upload), data.length);
});

test('two PATCHes of one upload at once on two instances: the second is refused 409, the bytes stay right', async () => {
  const [one, two] = [instances[1]!.url, instances[2]!.url];
  const name = 'Tagebuch “Zoë” – Notizen & Pläne #3 + 😀.txt';
  const data: Buffer<ArrayBuffer> = randomBytes(600_000);
  const upload = await create(one, name, data.length);
  const first = slowPatch(one, upload, 0, data, 200_000);
  // The first PATCH is under way (the bytes sent so far recorded): it holds the upload, and a
  // HEAD on instance 2 answers what it recorded.
  await waitFor(() => recorded(upload), {
    what: 'the bytes instance 1 is receiving to be recorded',
    until: (o) => o === 200_000,
    timeoutMs: 30_000,
  });
  const at = await offsetOn(two, upload);
  assert.is(at, 200_000);
  const second = await patch(two, upload, at, data.subarray(at));
  assert.is(second.status, 409, second.text);
  assert.is(second.code, 'TUS_BUSY');
  assert.ok(second.error.requestId, 'the error envelope names its request');
  assert.is(second.headers.get('tus-resumable'), '1.0.0');
  assert.is(await offsetOn(two, upload), at, 'the refused PATCH wrote nothing');
  first.finish();
  assert.equal(await first.answer, { status: 204 });
  assert.equal(placed(name), [name]);
  assert.is(sha(onDisk(name)), sha(data));
  assert.equal(partsLeft(), []);
});

test('an expired upload another connection holds (an instance sweeping it, between its part and its row) is 404 on every instance', async () => {
  const [one, two] = [instances[1]!.url, instances[2]!.url];
  const upload = await create(one, 'Urlaub “Sylt” 2025 & mehr #1.mov', 50);
  assert.is((await patch(one, upload, 0, new Uint8Array(20))).status, 204);
  const id = path.basename(upload);
  const c = new pg.Client(database);
  await c.connect();
  try {
    // Untouched for longer than TUS_INCOMPLETE_UPLOAD_TTL_MS, and held as the sweep holds it.
    await c.query('UPDATE uploads SET updated_at = updated_at - $1 WHERE id = $2', [2 * 24 * 3600_000, id]);
    await c.query('SELECT pg_advisory_lock(CAST($1 AS BIGINT))', [leaseKey(id)]);
    for (const base of [one, two]) {
      const r = await fetch(base + upload, { method: 'HEAD', headers: tusHeaders() });
      assert.is(r.status, 404, `HEAD on ${base} while the upload is held elsewhere`);
    }
    await c.query('SELECT pg_advisory_unlock(CAST($1 AS BIGINT))', [leaseKey(id)]);
    const r = await fetch(two + upload, { method: 'HEAD', headers: tusHeaders() });
    assert.is(r.status, 404, 'HEAD once nobody holds it');
    assert.is((await c.query('SELECT 1 FROM uploads WHERE id = $1', [id])).rowCount, 0, 'its row is gone');
  } finally {
    await c.end();
  }
  assert.not.ok(fs.existsSync(partPath(upload)), 'its part file is gone');
});

test('an instance killed (SIGKILL) mid-PATCH: another resumes at the recorded offset, the file is placed once with the right bytes', async () => {
  const [dead, other, third] = instances as [Instance, Instance, Instance];
  const name = 'Relevé “Café Ölberg” & Söhne #4 + 50% 🧾.pdf';
  const data: Buffer<ArrayBuffer> = randomBytes(900_000);
  const upload = await create(dead.url, name, data.length);
  const cut = slowPatch(dead.url, upload, 0, data, 300_000);
  await waitFor(() => recorded(upload), {
    what: 'the bytes instance 0 is receiving to be recorded',
    until: (o) => o === 300_000,
    timeoutMs: 30_000,
  });
  assert.is(await offsetOn(other.url, upload), 300_000, 'a HEAD elsewhere answers it while the PATCH runs');
  const exited = new Promise((resolve) => dead.child.once('exit', resolve));
  dead.child.kill('SIGKILL');
  await exited;
  assert.ok('error' in (await cut.answer), 'the killed instance answered nothing');
  // Its machine is gone with it: nothing of its own folders is there to resume from.
  fs.rmSync(dead.dirs.config, { recursive: true, force: true });
  fs.rmSync(dead.dirs.cache, { recursive: true, force: true });
  // What was flushed and recorded before the kill: where the sender goes on.
  const offset = await offsetOn(third.url, upload);
  assert.is(offset, 300_000);
  // PostgreSQL lets go of the dead instance's lock once it sees its connection closed.
  const resumed = await waitFor(() => patch(third.url, upload, offset, data.subarray(offset)), {
    what: 'the resumed PATCH to be taken',
    until: (r) => r.code !== 'TUS_BUSY',
    seen: (r) => r.text,
    timeoutMs: 30_000,
  });
  assert.is(resumed.status, 204, resumed.text);
  assert.is(resumed.headers.get('upload-offset'), String(data.length));
  assert.equal(placed(name), [name]);
  assert.is(sha(onDisk(name)), sha(data));
  assert.equal(partsLeft(), []);
  assert.is(await offsetOn(other.url, upload), data.length);
});

test("a quota hold is counted by every instance, and a killed instance's holds stop counting once its lease lapses", async () => {
  const alive = instances.filter((i) => i.child.exitCode === null && i.child.signalCode === null);
  const [holder, witness] = alive as [Instance, Instance];
  const admin = adminOn(witness.url);
  const volume = encodeURIComponent(QUOTA_VOLUME);
  const set = await admin.put(`/api/admin/quotas/volumes/${volume}`, { limitBytes: 1_000_000 });
  assert.is(set.status, 200, set.text);
  const figures = async () =>
    (await admin.get('/api/admin/quotas')).json.volumes.find((v: any) => v.volume === QUOTA_VOLUME);
  await waitFor(figures, { what: 'the empty volume measured', until: (v) => v?.storedBytes === 0 });
  const createIn = (base: string, name: string, length: number) =>
    fetch(`${base}/api/upload/tus`, {
      method: 'POST',
      headers: tusHeaders({
        'upload-length': String(length),
        'upload-metadata': `uploadTo ${b64(QUOTA_VOLUME)},filename ${b64(name)}`,
      }),
    });
  // Created through one instance, the upload holds its length; another counts it and refuses
  // what no longer fits beside it.
  const held = await createIn(holder.url, 'Kassenbuch 2025 „final“ #3.pdf', 700_000);
  assert.is(held.status, 201, await held.text());
  const upload = new URL(held.headers.get('location')!, holder.url).pathname;
  assert.is((await figures()).reservedBytes, 700_000);
  const over = await createIn(witness.url, 'Belege Q4 & Q1 (Kopie).zip', 400_000);
  assert.is(over.status, 507);
  const refusal = await over.json();
  assert.is(refusal.error.code, 'QUOTA_EXCEEDED');
  assert.is(refusal.error.details.usedBytes, 700_000);
  // The holder dies: its hold counts until its lease lapses, then never again.
  const exited = new Promise((resolve) => holder.child.once('exit', resolve));
  holder.child.kill('SIGKILL');
  await exited;
  await waitFor(figures, {
    what: "the killed instance's hold to stop counting (its lease lapsed)",
    until: (v) => v.reservedBytes === 0,
    timeoutMs: 60_000,
  });
  const fits = await createIn(witness.url, 'Belege Q4 & Q1 (Kopie).zip', 400_000);
  assert.is(fits.status, 201, await fits.text());
  assert.is((await figures()).reservedBytes, 400_000);
  // The dead instance's upload resumes elsewhere only by taking its hold again: no room now.
  const resumed = await patch(witness.url, upload, 0, new Uint8Array(1000));
  assert.is(resumed.status, 507, resumed.text);
  assert.is(resumed.code, 'QUOTA_EXCEEDED');
  assert.is((await figures()).reservedBytes, 400_000);
});

test.run();
