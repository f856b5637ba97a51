// The server's own events through the real server and every destination a person has: a real
// SMTP server (smtp-server, STARTTLS on a test authority), the Web Push stand-in that decrypts
// with the subscription's keys, an ntfy stand-in — and the bell. An account's quota crossing
// 90 % tells that account once (not at every upload past it); an upload refused at placement
// tells its uploader its name, folder and reason (once, not at every retry); a configured
// volume whose folder is gone tells the administrators once until it returns, and once that it
// is back (the volume check runs by NOTIFY_CLOCK_FILE's clock: the test moves it, never sleeps).
// Each reaches only its recipients, and only the kinds they chose.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { me } from '../support/auth.ts';
import type { Client } from '../support/client.ts';
import { ADMIN_MAIL, ALICE_MAIL, startNoticeWorld, type NoticeWorld } from '../support/notice-world.ts';
import { instancesBehind, type TestServer } from '../support/server.ts';

const MiB = 1024 * 1024;
const TUS = { 'Tus-Resumable': '1.0.0' };
const b64 = (v: string) => Buffer.from(v, 'utf8').toString('base64');
const ALBUM = 'Urlaub 2026 – Côte d’Azur & Provence #1';
const DROP = 'Steuer 2025 – Belege (100%) & Quittungen';
const LABEL = 'Archiv “Oma” & Opa 📷';

let w: NoticeWorld;
let s: TestServer;
let admin: Client;
let alice: Client;
let bob: Client;
let aliceId: string;
let hostFolder: string;

async function upload(client: Client, folder: string, name: string, bytes: number): Promise<void> {
  const f = new FormData();
  f.append('uploadTo', folder);
  f.append('filedata', new Blob([Buffer.alloc(bytes, 0x5a)]), name);
  const r = await client.post('/api/upload', f);
  // A refusal says what the quota counted (stored, trash, versions, in flight): CI once saw
  // 17 MiB used of alice's 9 placed here, not reproduced since.
  if (r.status !== 201) assert.is(r.status, 201, `${r.text}\n/api/quota: ${(await client.get('/api/quota')).text}`);
}

test.before(async () => {
  w = await startNoticeWorld(['quota.nearly-full', 'volume.missing', 'upload.failed']);
  ({ s, admin, alice, bob, hostFolder } = w);
  aliceId = (await me(alice)).id;
  assert.is((await alice.post('/api/files/folder', { path: 'personal', name: ALBUM })).status, 201);
  assert.is((await alice.post('/api/files/folder', { path: 'Files', name: DROP })).status, 201);
});

test.after(() => w?.close());

test('a quota crossing 90 %: its account is told once, not at every upload past it; nobody else', async () => {
  const set = await admin.put(`/api/admin/quotas/accounts/${aliceId}`, { limitBytes: 10 * MiB });
  assert.is(set.status, 200, set.text);
  // 8 MiB of 10: below the mark, nothing.
  await upload(alice, `personal/${ALBUM}`, 'Nizza – Promenade des Anglais 🌊.mov', 8 * MiB);
  // 9 MiB: at it.
  await upload(alice, `personal/${ALBUM}`, 'Marché aux fleurs “Cours Saleya”.jpg', 1 * MiB);
  const text = await w.toldOnce(alice, ALICE_MAIL, 'Your storage is nearly full');
  assert.is(text, 'alice uses 9 MiB of 10 MiB (90%) of the quota.');
  // 9.5 MiB and on: past it still — no second message, whichever server places the upload (one
  // upload through each in a row: the told state is the database's, not a server's own).
  const before = w.counts();
  for (let i = 0; i < instancesBehind(s); i++)
    await upload(alice, `personal/${ALBUM}`, `Lavendel + Sonne (${i + 2}).jpg`, (i === 0 ? 0.5 : 0.1) * MiB);
  await w.settled();
  assert.is((await w.inbox(alice)).items.length, 1);
  assert.equal(w.counts(), before);
  assert.is((await w.inbox(admin)).items.length, 0);
  assert.is((await w.inbox(bob)).items.length, 0);
});

test('an upload refused at placement: its uploader is told the name, the folder and why — once, not at each retry', async () => {
  const name = 'Quittung „Bäckerei Weiß“ #12 (100%).pdf';
  const body = Buffer.from('%PDF-1.4 Brötchen 3,20 €');
  const created = await alice.request('POST', '/api/upload/tus', undefined, {
    ...TUS,
    'Upload-Length': String(body.length),
    'Upload-Metadata': `filename ${b64(name)},uploadTo ${b64(`Files/${DROP}`)}`,
  });
  assert.is(created.status, 201, created.text);
  const url = new URL(created.headers.get('location')!, s.url).pathname;
  // The folder goes away before the last byte.
  fs.rmSync(path.join(s.dirs.volumes, 'Files', DROP), { recursive: true });
  const last = await alice.request('PATCH', url, body, {
    ...TUS,
    'Upload-Offset': '0',
    'Content-Type': 'application/offset+octet-stream',
  });
  assert.ok(last.status >= 400, `${last.status} ${last.text}`);
  const title = `“${name}” could not be placed`;
  const text = await w.toldOnce(alice, ALICE_MAIL, title);
  assert.is(text, `“${name}” was uploaded but not placed in Files/${DROP}: the destination folder no longer exists.`);
  const item = (await w.inbox(alice)).items.find((i) => i.title === title);
  assert.equal(item.paths, [`Files/${DROP}`]);
  // Each HEAD retries the placement; none tells again.
  const before = w.counts();
  for (let i = 0; i < 2; i++) assert.is((await alice.request('HEAD', url, undefined, TUS)).status, 423);
  await w.settled();
  assert.is((await w.inbox(alice)).items.length, 2);
  assert.equal(w.counts(), before);
  assert.is((await w.inbox(bob)).items.length, 0);
  assert.is((await w.inbox(admin)).items.length, 0);
});

test('a configured volume whose folder is gone: the administrators are told once until it returns, then that it is back', async () => {
  const added = await admin.post('/api/admin/volumes', { label: LABEL, path: hostFolder, accessMode: 'readonly' });
  assert.is(added.status, 201, added.text);
  w.setClock('2026-07-14T09:01:00Z');
  // Unmounted: the folder is not there.
  const away = `${hostFolder} (ausgehängt)`;
  fs.renameSync(hostFolder, away);
  w.setClock('2026-07-14T09:02:00Z');
  const title = `The volume “${LABEL}” is missing`;
  const text = await w.toldOnce(admin, ADMIN_MAIL, title);
  assert.is(
    text,
    `The folder of the volume “${LABEL}” cannot be read (its folder is gone): an unmounted disk? Its files are unavailable until it returns.`,
  );
  // Still gone at the next checks: nothing more.
  const before = w.counts();
  w.setClock('2026-07-14T09:03:00Z');
  assert.equal((await w.checkedAt('2026-07-14T09:03:00.000Z')).missing, [LABEL]);
  w.setClock('2026-07-14T09:04:00Z');
  assert.equal((await w.checkedAt('2026-07-14T09:04:00.000Z')).missing, [LABEL]);
  await w.settled();
  assert.is((await w.inbox(admin)).items.length, 1);
  assert.equal(w.counts(), before);
  // Back.
  fs.renameSync(away, hostFolder);
  w.setClock('2026-07-14T09:05:00Z');
  const back = `The volume “${LABEL}” is back`;
  await w.toldOnce(admin, ADMIN_MAIL, back);
  assert.equal(w.counts(), { mails: before.mails + 1, pushes: before.pushes + 1, ntfy: before.ntfy + 1 });
  assert.is((await w.inbox(admin)).items.length, 2);
  // An account that is not an administrator hears of none of it.
  assert.is((await w.inbox(alice)).items.filter((i) => i.kind === 'volume.missing').length, 0);
  assert.is((await w.inbox(bob)).items.length, 0);
});

test.run();
