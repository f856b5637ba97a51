// The work journal on several instances over one PostgreSQL and one shared folder (issue 31):
// each row names the instance that wrote it, and an instance finishes only rows whose instance
// is not alive (its lease lapsed). A starting instance leaves a live instance's half-built
// temporary alone (the PUT it belongs to still completes); an instance killed mid-PUT has its
// temporary removed by another, live one once its lease lapsed — no restart needed.
// Instances in child processes (from source or the executable, as the run is), so they can be killed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { kill, startChild } from '../support/child.ts';
import { testPostgres } from '../support/postgres.ts';
import { makeDirs, removeDirs, serverEnv, type TestDirs } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const FOLDER = 'Bericht «Q3» & Co #2 + 🦔';
const NAME = 'Café Müller 100% "final".bin';
const LEASE_MS = '1500';

type Child = Awaited<ReturnType<typeof startChild>>;

let shared: TestDirs;
let database: string;
let sql: pg.Client;
const children: Child[] = [];
const nodeDirs: TestDirs[] = [];
let clusterKey: string;

function boot(): Promise<Child> {
  const dirs = makeDirs('burrow-journal-node-');
  nodeDirs.push(dirs);
  dirs.volumes = shared.volumes;
  return startChild({
    ...serverEnv(dirs),
    AUTH_MODE: 'disabled',
    LOG_LEVEL: 'info',
    DATABASE_URL: database,
    CLUSTER_KEY: clusterKey,
    CLUSTER_LEASE_MS: LEASE_MS,
    // "Add from link" may fetch from this test's web server on loopback.
    FETCH_ALLOW_NETWORKS: '127.0.0.1/32',
  }).then((c) => {
    children.push(c);
    return c;
  });
}

const folder = () => path.join(shared.volumes, 'Files', FOLDER);
const temporaries = () => fs.readdirSync(folder()).filter((n) => n.startsWith('.burrow-tmp-'));
const journalRows = async () =>
  (await sql.query<{ owner: string; temp_path: string }>('SELECT owner, temp_path FROM file_op_journal')).rows;

/** A WebDAV PUT of `size` bytes that sends `first` of them and stalls, as a slow link would. */
function slowPut(url: string, size: number, first: Buffer) {
  let answered!: (status: number) => void;
  const status = new Promise<number>((resolve) => (answered = resolve));
  const req = http.request(`${url}/dav/Files/${encodeURIComponent(FOLDER)}/${encodeURIComponent(NAME)}`, {
    method: 'PUT',
    headers: { 'content-length': String(size) },
  });
  req.on('response', (res) => {
    res.resume();
    answered(res.statusCode ?? 0);
  });
  req.on('error', () => answered(0));
  req.write(first);
  return { req, status };
}

/** A web server whose one file sends 64 KiB of its 3 MiB and then nothing: a fetch that stays running. */
let web: http.Server | undefined;
const stalled = new Set<http.ServerResponse>();
async function slowWeb(): Promise<string> {
  web = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-length': String(3 * 1024 * 1024) });
    res.write(Buffer.alloc(64 * 1024, 7));
    stalled.add(res);
  });
  await new Promise<void>((resolve) => web!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(web.address() as { port: number }).port}/Bericht%20Q3.bin`;
}

test.before(async () => {
  database = await (await testPostgres()).database();
  sql = new pg.Client({ connectionString: database });
  await sql.connect();
  clusterKey = crypto.randomBytes(32).toString('base64url');
  shared = makeDirs('burrow-journal-');
  fs.mkdirSync(folder(), { recursive: true });
});

test.after(async () => {
  for (const r of stalled) r.destroy();
  web?.closeAllConnections();
  web?.close();
  for (const c of children) await kill(c.child).catch(() => {});
  await sql?.end();
  for (const d of nodeDirs) removeDirs(d);
  if (shared) removeDirs(shared);
});

test("an instance starting while another builds a temporary leaves it alone: the other's PUT completes", async () => {
  const a = await boot();
  const body = crypto.randomBytes(2 * 1024 * 1024);
  const put = slowPut(a.url, body.length, body.subarray(0, 1024 * 1024));
  await waitFor(() => temporaries().length === 1, {
    what: "A's PUT under a temporary name",
    seen: () => temporaries(),
  });
  const [row] = await waitFor(journalRows, { what: "A's journal row", until: (r) => r.length === 1 });
  assert.ok(row!.owner, 'the row names its instance');
  const temp = temporaries()[0]!;

  // B starts: its start finishes the rows of instances that are not alive — A is.
  const b = await boot();
  assert.equal(temporaries(), [temp], "B's start left A's temporary");
  assert.equal(
    (await journalRows()).map((r) => r.owner),
    [row!.owner],
    "A's row is still A's",
  );
  // And B's sweep every lease time does not take it either while A lives (two sweeps go by:
  // B's own lease, renewed a third of a lease apart, shows its timer ran).
  const renewed = async () =>
    (await sql.query<{ expires_at: string }>("SELECT expires_at FROM cluster_leases WHERE name LIKE 'instance:%'"))
      .rows;
  const before = new Map((await renewed()).map((r) => [r.expires_at, true]));
  await waitFor(renewed, {
    what: 'both leases renewed twice over',
    until: (rows) => rows.length === 2 && rows.every((r) => !before.has(r.expires_at)),
  });
  assert.equal(temporaries(), [temp], "A's temporary is still there");

  put.req.end(body.subarray(1024 * 1024));
  const status = await put.status;
  assert.ok(status === 201 || status === 204, `the PUT completed (${status})`);
  assert.ok(fs.readFileSync(path.join(folder(), NAME)).equals(body), 'every byte placed');
  assert.equal(temporaries(), []);
  assert.equal(await journalRows(), []);
  await kill(b.child);
  children.splice(children.indexOf(b), 1);
});

test('an instance killed mid-PUT: another, live one removes its temporary once its lease lapsed', async () => {
  const a = children[0]!;
  const b = await boot();
  const body = crypto.randomBytes(2 * 1024 * 1024);
  const put = slowPut(a.url, body.length, body.subarray(0, 1024 * 1024));
  await waitFor(() => temporaries().length === 1, { what: "A's second PUT under a temporary name" });
  await waitFor(journalRows, { what: "A's journal row", until: (r) => r.length === 1 });
  await kill(a.child);
  children.splice(children.indexOf(a), 1);
  put.req.destroy();
  // B was running all along: nothing restarts; its sweep takes A's row once A's lease lapsed.
  await waitFor(async () => temporaries().length === 0 && (await journalRows()).length === 0, {
    what: "A's temporary and row gone",
    timeoutMs: 30_000,
    seen: () => temporaries(),
  });
  assert.ok(fs.readFileSync(path.join(folder(), NAME)).length > 0, 'the file placed before is untouched');
  const res = await fetch(`${b.url}/api/browse/Files/${encodeURIComponent(FOLDER)}`);
  assert.equal(
    ((await res.json()) as { items: { name: string }[] }).items.map((i) => i.name),
    [NAME],
    'B lists the placed file only',
  );
});

test("a fetch's instance killed: another answers it failed (FETCH_INTERRUPTED) once the lease lapsed, and its part file goes", async () => {
  const a = await boot();
  const b = children.find((c) => c !== a)!;
  const started = await fetch(`${a.url}/api/fetch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: await slowWeb(), uploadTo: `Files/${FOLDER}` }),
  });
  assert.is(started.status, 202, await started.clone().text());
  const { id } = (await started.json()) as { id: string };
  const onB = async () => (await (await fetch(`${b.url}/api/fetch/${id}`)).json()) as any;
  // B answers A's fetch, with the bytes A received so far.
  await waitFor(onB, { what: "A's fetch received bytes, seen through B", until: (j) => j.received > 0 });
  const parts = journalRows;
  const [part] = await waitFor(parts, { what: "the fetch's part on the journal", until: (r) => r.length === 1 });
  assert.ok(fs.existsSync(part!.temp_path), 'the part file while it runs');
  await kill(a.child);
  children.splice(children.indexOf(a), 1);
  const ended = await waitFor(onB, {
    what: "A's fetch failed through B",
    until: (j) => j.state !== 'running',
    timeoutMs: 30_000,
  });
  assert.is(ended.state, 'failed');
  assert.is(ended.error.code, 'FETCH_INTERRUPTED');
  await waitFor(async () => (await parts()).length === 0 && !fs.existsSync(part!.temp_path), {
    what: "the dead instance's part file and its journal row gone",
    timeoutMs: 30_000,
  });
  assert.equal(temporaries(), []);
});

test.run();
