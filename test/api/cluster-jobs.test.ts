// Background jobs on three instances over one PostgreSQL and one shared folder (issue 31): a
// job runs on the one instance that holds its lease (GET /api/admin/jobs on each instance says
// who holds it and how often it ran there), and when that instance is killed (SIGKILL) another
// takes the job over once the lease lapsed — the trash purge of an expired entry is done once,
// by one instance. Instances in child processes (from source or the executable, as the run is),
// so they can be killed; the purge runs every 100 ms here (TRASH_SWEEP_INTERVAL_MS) and leases
// last 1.5 s (CLUSTER_LEASE_MS), so every wait is on a state the instances report. A file
// written on the shared folder from outside is found by the one instance holding the rescan's
// lease and reaches the others' search through the change stream.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { Client } from '../support/client.ts';
import { startJobCluster, type Instance, type JobCluster } from '../support/job-cluster.ts';
import type { TestDirs } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const FOLDER = 'Belege «2019» & Co #3 + 🧾';

let c: JobCluster;
let shared: TestDirs;
let sql: pg.Client;
let instances: Instance[];
const jobOn = (i: Instance, name: string) => c.jobOn(i, name);
const purgeOn = (i: Instance) => jobOn(i, 'trash.purge');
const alive = () => c.alive();
const purges = () => Promise.all(alive().map(purgeOn));

/** A file in the shared folder, deleted through `via` into the trash, then made older than the retention. */
async function expiredInTrash(via: Instance, name: string): Promise<string> {
  fs.writeFileSync(path.join(shared.volumes, 'Files', FOLDER, name), `the bytes of ${name}`);
  const client = new Client(via.url);
  const del = await client.delete('/api/files', { items: [{ path: `Files/${FOLDER}`, name }] });
  assert.is(del.json.items[0].status, 'deleted', del.text);
  const id = del.json.items[0].trashId as string;
  const { rows } = await sql.query<{ stored_path: string }>('SELECT stored_path FROM trash_items WHERE id = $1', [id]);
  assert.ok(fs.existsSync(rows[0]!.stored_path), 'the entry is stored');
  await sql.query("UPDATE trash_items SET deleted_at = '2001-02-03T04:05:06.000Z' WHERE id = $1", [id]);
  return rows[0]!.stored_path;
}

test.before(async () => {
  c = await startJobCluster('burrow-jobs', FOLDER, {
    AUTH_MODE: 'disabled',
    LOG_LEVEL: 'info',
    CLUSTER_LEASE_MS: '1500',
    TRASH_SWEEP_INTERVAL_MS: '100',
    TRASH_RETENTION_DAYS: '30',
    FOLDER_SIZE_MODE: 'full',
    FOLDER_SIZE_RECONCILE_MS: '200',
    FOLDER_SIZE_FLUSH_MS: '20',
  });
  ({ shared, sql, instances } = c);
});

test.after(() => c?.close());

test('the trash purge runs on one instance at a time: the others never run it', async () => {
  // Thirty runs: with every instance ticking ten times a second, each would have run by then.
  const states = await waitFor(purges, {
    what: 'thirty purge runs across the instances',
    timeoutMs: 30_000,
    until: (s) => s.reduce((n, j) => n + j.runsHere, 0) >= 30,
  });
  const ran = instances.filter((_, k) => states[k]!.runsHere > 0);
  assert.is(ran.length, 1, `one instance ran it: ${JSON.stringify(states)}`);
  // Every instance names that one as the lease's holder.
  for (const s of states) assert.is(s.holder, ran[0]!.id);
  const { rows } = await sql.query("SELECT owner FROM cluster_leases WHERE name = 'job:trash.purge'");
  assert.equal(
    rows.map((r) => r.owner),
    [ran[0]!.id],
  );
});

test('its instance killed: another takes the purge over once the lease lapsed, and each expired entry goes once', async () => {
  const holderId = (await purgeOn(instances[0]!)).holder;
  const holder = instances.find((i) => i.id === holderId)!;
  const other = alive().find((i) => i !== holder)!;
  // Deleted through an instance that does not hold the job: the holder purges it.
  const first = await expiredInTrash(other, 'Rechnung Café Müller 100%.pdf');
  await waitFor(() => !fs.existsSync(first), { what: 'the first expired entry purged' });
  assert.is((await purgeOn(holder)).doneHere, 1, 'the holder purged it');
  for (const i of alive()) if (i !== holder) assert.is((await purgeOn(i)).doneHere, 0);

  await c.kill(holder);
  const second = await expiredInTrash(other, 'Quittung «Bäckerei» #7.pdf');
  const after = await waitFor(purges, {
    what: 'another instance holding the purge and having run it',
    timeoutMs: 30_000,
    until: (s) => s.some((j) => j.runsHere > 0) && s.every((j) => j.holder && j.holder !== holder.id),
  });
  const next = alive().filter((_, k) => after[k]!.runsHere > 0);
  assert.is(next.length, 1, `one survivor runs it: ${JSON.stringify(after)}`);
  await waitFor(() => !fs.existsSync(second), { what: 'the second expired entry purged' });
  const done = (await purges()).map((j) => j.doneHere);
  assert.is(
    done.reduce((a, b) => a + b, 0),
    1,
    `the survivors purged one entry between them: ${JSON.stringify(done)}`,
  );
  const list = await new Client(other.url).get('/api/trash');
  assert.equal(list.json.items, [], 'the trash is empty');
});

test('a file written on the shared folder from outside: one instance rescans, every instance finds it', async () => {
  const name = 'Sonnenuntergang am Meer «Nizza» #4 + 🌅.txt';
  fs.writeFileSync(path.join(shared.volumes, 'Files', FOLDER, name), 'written by a sync tool, not through Burrow');
  for (const i of alive())
    await waitFor(() => new Client(i.url).get(`/api/search?q=${encodeURIComponent('Sonnenuntergang')}`), {
      what: `${i.url}'s search to find the file written from outside`,
      timeoutMs: 30_000,
      until: (r) => r.status === 200 && r.json.items.some((it: { name: string }) => it.name === name),
      seen: (r) => r.text,
    });
  // The sweep records what it found when its run ends: after it told the others and applied
  // it, so every search may find the file before the holder's count says so.
  const rescans = await waitFor(() => Promise.all(alive().map((i) => jobOn(i, 'index.rescan'))), {
    what: 'the rescan to have counted what it found',
    timeoutMs: 30_000,
    until: (s) => s.some((j) => j.doneHere >= 1),
  });
  const ran = rescans.filter((j) => j.runsHere > 0);
  assert.is(ran.length, 1, `one instance rescans: ${JSON.stringify(rescans)}`);
  assert.ok(ran[0]!.doneHere >= 1, 'and it found the file');
  for (const j of rescans) assert.is(j.holder, ran[0]!.holder);
});

test.run();
