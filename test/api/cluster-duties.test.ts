// The duties every instance of a cluster used to do for itself (issue 31), now done once: the
// sweep of resumable uploads left unfinished and of stale upload parts (`uploads.sweep`) and the
// volume check (`volumes.check`) each run on the one instance holding their lease (GET
// /api/admin/jobs on each instance says who holds it and how often it ran there), and when that
// instance is killed (SIGKILL) another takes them over once the lease lapsed — an expired upload
// is discarded once, by one instance. And an instance starting no longer removes the multipart
// parts in the shared staging folders, nor does the sweep take a part a live request is still
// writing, however long its sender pauses: it may be another live instance's upload in progress.
// Instances in child processes (from source or the executable, as the run is), so they can be
// killed; leases last 1.5 s (CLUSTER_LEASE_MS) and the uploads sweep runs every second (a 4 s
// TUS_INCOMPLETE_UPLOAD_TTL_MS), so every wait is on a state the instances report.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { Client } from '../support/client.ts';
import { startJobCluster, type Instance, type JobCluster } from '../support/job-cluster.ts';
import type { TestDirs } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

/** Resumable uploads and upload parts untouched this long are the sweep's (it runs every second). */
const TTL_MS = 4000;
const FOLDER = 'Entwürfe «2024» & Co #5 + 📦';

let c: JobCluster;
let shared: TestDirs;
let sql: pg.Client;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const boot = () => c.boot();
const jobOn = (i: Instance, name: string) => c.jobOn(i, name);
const alive = () => c.alive();
const states = (name: string) => Promise.all(alive().map((i) => jobOn(i, name)));

/** A resumable upload created through `via`, then made older than the TTL in its row. */
async function expiredUpload(via: Instance, name: string): Promise<{ id: string; part: string }> {
  const r = await fetch(`${via.url}/api/upload/tus`, {
    method: 'POST',
    headers: {
      'tus-resumable': '1.0.0',
      'upload-length': '100',
      'upload-metadata': `uploadTo ${b64('Files/' + FOLDER)},filename ${b64(name)}`,
    },
  });
  assert.is(r.status, 201, await r.text());
  const id = path.basename(new URL(r.headers.get('location')!, via.url).pathname);
  const { rows } = await sql.query<{ staging_path: string }>('SELECT staging_path FROM uploads WHERE id = $1', [id]);
  const part = rows[0]!.staging_path;
  assert.ok(fs.existsSync(part), 'its part file is there');
  await sql.query('UPDATE uploads SET updated_at = 1 WHERE id = $1', [id]);
  return { id, part };
}

/** Every instance names one holder of `name`, and only that one has run it. */
async function runsOnOne(name: string): Promise<Instance> {
  const s = await waitFor(() => states(name), {
    what: `${name} held and run`,
    timeoutMs: 30_000,
    until: (s) => s.some((j) => j.runsHere > 0) && s.every((j) => j.holder && j.holder === s[0]!.holder),
    seen: (s) => JSON.stringify(s),
  });
  const ran = alive().filter((_, k) => s[k]!.runsHere > 0);
  assert.is(ran.length, 1, `one instance runs ${name}: ${JSON.stringify(s)}`);
  assert.is(ran[0]!.id, s[0]!.holder);
  return ran[0]!;
}

test.before(async () => {
  c = await startJobCluster('burrow-duties', FOLDER, {
    AUTH_MODE: 'disabled',
    LOG_LEVEL: 'info',
    HTTPS_PORT: 'off',
    CLUSTER_LEASE_MS: '1500',
    UPLOAD_CHUNKED_ENABLED: 'true',
    TUS_INCOMPLETE_UPLOAD_TTL_MS: String(TTL_MS),
  });
  ({ shared, sql } = c);
});

test.after(() => c?.close());

test('the uploads sweep and the volume check each run on one instance; the others never run them', async () => {
  // Several sweeps and checks' worth of ticks on every instance first.
  await waitFor(() => states('uploads.sweep'), {
    what: 'five sweeps',
    timeoutMs: 30_000,
    until: (s) => s.reduce((n, j) => n + j.runsHere, 0) >= 5,
  });
  await runsOnOne('uploads.sweep');
  await runsOnOne('volumes.check');
  const { rows } = await sql.query(
    "SELECT name FROM cluster_leases WHERE name IN ('job:uploads.sweep', 'job:volumes.check') ORDER BY name",
  );
  assert.equal(
    rows.map((r) => r.name),
    ['job:uploads.sweep', 'job:volumes.check'],
  );
});

test("a multipart upload in progress on one instance survives another instance's start", async () => {
  const via = alive()[0]!;
  const name = 'Angebot «Müller & Söhne» #12 + 🧾.bin';
  const bytes = crypto.randomBytes(256 * 1024);
  const boundary = `----burrow${crypto.randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="uploadTo"\r\n\r\nFiles/${FOLDER}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="filedata"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const half = bytes.length / 2;
  const req = http.request(`${via.url}/api/upload`, {
    method: 'POST',
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + bytes.length + tail.length),
    },
  });
  const answer = new Promise<{ status: number; text: string }>((resolve) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', (err) => resolve({ status: 0, text: String(err) }));
  });
  req.write(Buffer.concat([head, bytes.subarray(0, half)]));
  // The part file of the upload in progress, in a staging folder every instance knows.
  const parts = async () => {
    const { rows } = await sql.query<{ dir: string }>('SELECT dir FROM upload_staging_dirs');
    return rows.flatMap((r) =>
      fs.existsSync(r.dir)
        ? fs
            .readdirSync(r.dir)
            .filter((f) => /^mp-.*\.part$/.test(f))
            .map((f) => path.join(r.dir, f))
        : [],
    );
  };
  const [part] = await waitFor(parts, {
    what: 'the multipart part file',
    until: (p) => p.length === 1 && fs.statSync(p[0]!).size >= half,
  });
  // Another instance starts (a machine joining, a container restarted elsewhere).
  await boot();
  // The sender pauses past the TTL, and the uploads sweep runs over the part meanwhile: a part
  // its live request is still writing is not stale, however long the pause.
  await waitFor(() => Date.now() - fs.statSync(part!).mtimeMs, {
    what: 'the part to be older than the TTL',
    timeoutMs: 30_000,
    until: (age) => age > TTL_MS,
  });
  const sweeper = await runsOnOne('uploads.sweep');
  const before = (await jobOn(sweeper, 'uploads.sweep')).runsHere;
  await waitFor(() => jobOn(sweeper, 'uploads.sweep'), {
    what: 'a whole sweep since the part went stale',
    until: (j) => j.runsHere >= before + 2,
  });
  const kept = fs.existsSync(part!);
  req.end(Buffer.concat([bytes.subarray(half), tail]));
  const r = await answer;
  assert.ok(kept, 'the part file of the upload in progress was still there');
  assert.is(r.status, 201, r.text);
  const placed = path.join(shared.volumes, 'Files', FOLDER, name);
  assert.ok(fs.readFileSync(placed).equals(bytes), 'the file has every byte');
});

test('the holder killed: another takes both over once the lease lapsed, and an expired upload is discarded once', async () => {
  const sweeper = await runsOnOne('uploads.sweep');
  const other = alive().find((i) => i !== sweeper)!;
  // Created through an instance that does not sweep: the holder discards it.
  const first = await expiredUpload(other, 'Entwurf «eins» & Co #1.bin');
  await waitFor(() => !fs.existsSync(first.part), { what: 'the first expired upload discarded' });
  // Counted when its run ends.
  await waitFor(() => jobOn(sweeper, 'uploads.sweep'), {
    what: 'the holder to count the discarded upload',
    until: (j) => j.doneHere >= 1,
  });
  for (const i of alive()) if (i !== sweeper) assert.is((await jobOn(i, 'uploads.sweep')).doneHere, 0);

  const checker = await runsOnOne('volumes.check');
  await c.kill(sweeper);
  if (checker !== sweeper) {
    await c.kill(checker);
  }
  const second = await expiredUpload(alive()[0]!, 'Entwurf «zwei» & Co #2.bin');
  const next = await runsOnOne('uploads.sweep');
  assert.is.not(next.id, sweeper.id);
  await waitFor(() => !fs.existsSync(second.part), { what: 'the second expired upload discarded' });
  const { rows } = await sql.query('SELECT id FROM uploads WHERE id = $1', [second.id]);
  assert.equal(rows, [], 'its row is gone');
  const done = (
    await waitFor(() => states('uploads.sweep'), {
      what: 'the survivor to count the discarded upload',
      until: (s) => s.some((j) => j.doneHere > 0),
    })
  ).map((j) => j.doneHere);
  assert.is(
    done.reduce((a, b) => a + b, 0),
    1,
    `the survivors discarded one upload between them: ${JSON.stringify(done)}`,
  );
  const check = await runsOnOne('volumes.check');
  assert.ok(check.id !== sweeper.id && check.id !== checker.id, 'a survivor checks the volumes');
});

test.run();
