// A disk nearly full (issue 29: "a quota or the disk nearly full"), through the real server and
// every destination a person has — a real SMTP server, the Web Push stand-in that decrypts with
// the subscription's keys, an ntfy stand-in — and the bell. A volume's folder is a small disk of
// its own (a tmpfs); filled past 90 %, the volume check tells the administrators once, names the
// disk by the volume on it and says how much is left; at the following checks, nothing more;
// once room was made and it fills up again, once more. Accounts that are not administrators
// hear nothing, and nothing is told of a disk with room to spare.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '../support/client.ts';
import { mountTmpfs, type Mounted } from '../support/mount.ts';
import { ADMIN_MAIL, startNoticeWorld, type NoticeWorld } from '../support/notice-world.ts';
import type { TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const LABEL = 'USB-Stick “Urlaub” & Fotos 📷';
const KiB = 1024;

let w: NoticeWorld;
let s: TestServer;
let admin: Client;
let alice: Client;
let bob: Client;
let disk: Mounted;

test.before(async () => {
  w = await startNoticeWorld(['quota.nearly-full']);
  ({ s, admin, alice, bob } = w);
  disk = mountTmpfs(path.join(s.dirs.root, 'usb – stick #1'), '4m');
});

test.after(async () => {
  disk?.unmount();
  await w?.close();
});

/** The volume check's log line names this disk among those nearly full (the test machine's own disk is not the test's). */
const onDisk = (line: { nearlyFull: string[] }) => line.nearlyFull.some((d) => d.includes(LABEL));

/** The same title in the account's bell, however many times. */
const titled = async (c: Client, title: string) => (await w.inbox(c)).items.filter((i) => i.title === title);

test('a disk past 90 %: the administrators are told once, and once more after room was made and it filled again', async () => {
  const added = await admin.post('/api/admin/volumes', { label: LABEL, path: disk.dir, accessMode: 'readwrite' });
  assert.is(added.status, 201, added.text);
  // Room to spare: the check runs and tells nothing of this disk.
  w.setClock('2026-07-14T09:01:00Z');
  assert.not.ok(onDisk(await w.checkedAt('2026-07-14T09:01:00.000Z')));

  const photos = path.join(disk.dir, 'Sommer 2025 – Strand (100%).raw');
  fs.writeFileSync(photos, Buffer.alloc(3800 * KiB, 7));
  w.setClock('2026-07-14T09:02:00Z');
  const title = `The disk of the volume “${LABEL}” is nearly full`;
  const text = await w.toldOnce(admin, ADMIN_MAIL, title);
  assert.match(text, /^Only [\d.]+ [KMG]?i?B of 4(\.0)? MiB are left on the disk holding the volume “/);
  assert.match(text, /\((9[0-9]|100)% used\)/);
  assert.ok(onDisk(await w.checkedAt('2026-07-14T09:02:00.000Z')));

  // Still full at the next checks: nothing more.
  const before = w.counts();
  w.setClock('2026-07-14T09:03:00Z');
  await w.checkedAt('2026-07-14T09:03:00.000Z');
  w.setClock('2026-07-14T09:04:00Z');
  await w.checkedAt('2026-07-14T09:04:00.000Z');
  await w.settled();
  assert.is((await titled(admin, title)).length, 1);
  assert.equal(w.counts(), before);

  // Room made (told nothing), then full again: told once more.
  fs.rmSync(photos);
  w.setClock('2026-07-14T09:05:00Z');
  assert.not.ok(onDisk(await w.checkedAt('2026-07-14T09:05:00.000Z')));
  await w.settled();
  assert.equal(w.counts(), before);
  fs.writeFileSync(photos, Buffer.alloc(3800 * KiB, 7));
  w.setClock('2026-07-14T09:06:00Z');
  await w.checkedAt('2026-07-14T09:06:00.000Z');
  await w.settled();
  const twice = await titled(admin, title);
  assert.is(twice.length, 2, JSON.stringify(twice));
  // …by mail too (waited on: the next test counts the mails after this one).
  await waitFor(() => w.counts().mails, { what: 'the second crossing mailed', until: (n) => n === before.mails + 1 });

  // The accounts that are not administrators heard nothing of it.
  assert.is((await w.inbox(alice)).items.length, 0);
  assert.is((await w.inbox(bob)).items.length, 0);
});

test('“send a test” for every kind of destination: the mail, the push (decrypted) and the ntfy topic each receive it', async () => {
  const { destinations } = (await admin.get('/api/admin/notify/destinations')).json;
  assert.equal(destinations.map((d: any) => d.kind).sort(), ['email', 'ntfy', 'push']);
  const before = w.counts();
  for (const d of destinations) {
    const r = await admin.post(`/api/admin/notify/destinations/${d.id}/test`, {});
    assert.is(r.status, 202, `${d.kind}: ${r.text}`);
    // Each test is told as delivered once it went out (the administrator's “Send a test” follows this).
    const sent = await waitFor(
      async () => (await admin.get(`/api/admin/notify/deliveries/${r.json.delivery.id}`)).json,
      {
        what: `the ${d.kind} test delivered`,
        until: (one: any) => one.delivery?.state === 'sent',
      },
    );
    assert.is(sent.delivery.destinationId, d.id);
  }
  const title = 'Test notification';
  const mailed = w.smtp.mails.slice(before.mails);
  assert.is(mailed.length, 1);
  assert.ok(mailed[0]!.to.includes(ADMIN_MAIL), String(mailed[0]!.to));
  assert.ok(mailed[0]!.text.includes('Burrow can reach this destination.'), mailed[0]!.text);
  const pushed = w.push.messages.slice(before.pushes);
  assert.equal(
    pushed.map((m) => m.payload?.title),
    [title],
    'the administrator’s one browser, decrypted with its keys',
  );
  const topics = w.ntfy.requests.slice(before.ntfy);
  assert.equal(
    topics.map((r) => [r.json?.topic, r.json?.title]),
    [['familie', title]],
  );
  // Only the administrator may send one.
  const refused = await alice.post(`/api/admin/notify/destinations/${destinations[0].id}/test`, {});
  assert.is(refused.status, 403, refused.text);
});

test.run();
