// A background job that keeps failing tells the administrators (issue 29): the trash purge
// fails for real — a disk is mounted inside a folder in the trash (removing its mount point
// fails with EBUSY, root or not) — and at the third failure in a row each administrator who
// chose `job.failed` finds one event in the bell, however many failures follow; once the disk
// is unmounted and the purge works again, one more event says so. An account that is not an
// administrator gets neither (and may not read the jobs' state). The purge runs every 100 ms
// here (TRASH_SWEEP_INTERVAL_MS); every wait is on the state the server reports.
import path from 'node:path';
import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, setupAdmin } from '../support/auth.ts';
import { Client } from '../support/client.ts';
import { mountTmpfs, type Mounted } from '../support/mount.ts';
import { makeDirs, removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const FOLDER = 'Fotos «Oma» & Opa #1 + 📷';
const STICK = 'USB-Stick 100% Café';

let s: TestServer;
let admin: Client;
let alice: Client;
let stick: Mounted | undefined;

const bell = async (c: Client) =>
  ((await c.get('/api/notify/inbox')).json.items as { kind: string; title: string; text: string }[]).filter(
    (i) => i.kind === 'job.failed',
  );
async function purge(): Promise<{ runsHere: number; failuresInRow: number; lastError: string | null }> {
  const r = await admin.get('/api/admin/jobs');
  assert.is(r.status, 200, r.text);
  return r.json.jobs.find((j: { name: string }) => j.name === 'trash.purge');
}

test.before(async () => {
  s = await startServer({
    dirs: makeDirs('burrow-job-failed-'),
    env: { TRASH_SWEEP_INTERVAL_MS: '100', TRASH_RETENTION_DAYS: '30' },
  });
  admin = await setupAdmin(s);
  alice = await createUser(admin, s, {
    username: 'Alice.Müller',
    email: 'alice.mueller+fotos@example.org',
    password: 'a long passphrase 1',
  });
  for (const c of [admin, alice]) {
    const r = await c.put('/api/notify/prefs', { kinds: ['job.failed'], destinations: [], folders: [] });
    assert.is(r.status, 200, r.text);
  }
});

test.after(async () => {
  try {
    stick?.unmount();
  } catch {
    /* unmounted by the test */
  }
  await s?.close();
  if (s) removeDirs(s.dirs);
});

test('the trash purge failing again and again: the administrators are told once, and once when it works again', async () => {
  fs.mkdirSync(path.join(s.dirs.volumes, 'Files', FOLDER, STICK), { recursive: true });
  const del = await admin.delete('/api/files', { items: [{ path: 'Files', name: FOLDER }] });
  assert.is(del.json.items[0].status, 'deleted', del.text);
  const id = del.json.items[0].trashId as string;
  // While the server is stopped: the entry made older than the retention, and a disk mounted inside it.
  const stored = await s.withDatabase((db) => {
    const row = db.get<{ stored_path: string }>('SELECT stored_path FROM trash_items WHERE id = ?', [id])!;
    db.run("UPDATE trash_items SET deleted_at = '2001-02-03T04:05:06.000Z' WHERE id = ?", [id]);
    stick = mountTmpfs(path.join(row.stored_path, STICK), '1m');
    return row.stored_path;
  });

  const failing = await waitFor(purge, {
    what: 'six failed purges in a row',
    timeoutMs: 20_000,
    until: (j) => j?.failuresInRow >= 6,
  });
  assert.match(failing.lastError ?? '', /EBUSY|busy/i);
  const told = await waitFor(() => bell(admin), { what: 'the event in the bell', until: (b) => b.length > 0 });
  assert.is(told.length, 1, JSON.stringify(told));
  assert.ok(told[0]!.title.includes('trash.purge'), told[0]!.title);
  assert.match(told[0]!.text, /3 times in a row/);
  // Three failures more, still one event.
  const more = failing.failuresInRow + 3;
  await waitFor(purge, { what: 'three failures more', until: (j) => j.failuresInRow >= more });
  assert.is((await bell(admin)).length, 1, 'never a second event while it keeps failing');
  assert.equal(await bell(alice), [], 'not an administrator: not told');
  assert.is((await alice.get('/api/admin/jobs')).status, 403);

  stick!.unmount();
  stick = undefined;
  await waitFor(() => !fs.existsSync(stored), { what: 'the entry purged once the disk is gone' });
  const both = await waitFor(() => bell(admin), { what: 'the recovery in the bell', until: (b) => b.length === 2 });
  assert.ok(
    both.some((i) => i.title.includes('works again')),
    JSON.stringify(both),
  );
  const runs = (await purge()).runsHere;
  await waitFor(purge, { what: 'ten good runs more', until: (j) => j.runsHere >= runs + 10 && j.failuresInRow === 0 });
  assert.is((await bell(admin)).length, 2, 'nothing more once it works');
  assert.equal(await bell(alice), []);
  assert.equal((await admin.get('/api/trash')).json.items, []);
});

test.run();
