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
import { createUser, me, setupAdmin } from '../support/auth.ts';
import { Client } from '../support/client.ts';
import { startPushService, type PushService } from '../support/push-service.ts';
import { startReceiver, type Receiver } from '../support/receivers.ts';
import { makeDirs, removeDirs, startServer, type TestServer } from '../support/server.ts';
import { decodeWords, startSmtp, type SmtpReceiver } from '../support/smtp.ts';
import { waitFor } from '../support/wait.ts';

const MiB = 1024 * 1024;
const TUS = { 'Tus-Resumable': '1.0.0' };
const b64 = (v: string) => Buffer.from(v, 'utf8').toString('base64');
const ADMIN_MAIL = 'hausmeister+burrow@example.org';
const ALICE_MAIL = 'alice.mueller+fotos@example.org';
const ALBUM = 'Urlaub 2026 – Côte d’Azur & Provence #1';
const DROP = 'Steuer 2025 – Belege (100%) & Quittungen';
const LABEL = 'Archiv “Oma” & Opa 📷';

let s: TestServer;
let smtp: SmtpReceiver;
let push: PushService;
let ntfy: Receiver;
let admin: Client;
let alice: Client;
let bob: Client;
let aliceId: string;
let clockFile: string;
let hostFolder: string;
const dest = { mail: '', push: '', ntfy: '' };

const setClock = (iso: string) => fs.writeFileSync(clockFile, iso);
const inbox = async (c: Client) => (await c.get('/api/notify/inbox')).json as { items: any[]; unread: number };
const mailsTo = (to: string, subject: string) =>
  smtp.mails.filter((m) => m.to.includes(to) && decodeWords(m.headers.get('subject') ?? '') === subject);
const pushes = (title: string) => push.messages.filter((m) => m.payload?.title === title);
const ntfys = (title: string) => ntfy.requests.filter((r) => r.json?.title === title);

/** The same message on each destination and in the bell, once each; the text as the bell shows it. */
async function toldOnce(who: Client, mail: string, title: string): Promise<string> {
  await waitFor(() => mailsTo(mail, title).length && pushes(title).length && ntfys(title).length, {
    what: `“${title}” by mail, push and ntfy`,
    seen: () => ({
      mails: smtp.mails.map((m) => decodeWords(m.headers.get('subject') ?? '')),
      pushes: push.messages.map((m) => m.payload?.title),
      ntfy: ntfy.requests.map((r) => r.json?.title),
    }),
  });
  const items = (await inbox(who)).items.filter((i) => i.title === title);
  assert.is(items.length, 1, JSON.stringify(items));
  assert.is(mailsTo(mail, title).length, 1);
  assert.is(pushes(title).length, 1);
  assert.is(ntfys(title).length, 1);
  assert.ok(mailsTo(mail, title)[0]!.text.includes(items[0].text), mailsTo(mail, title)[0]!.text);
  assert.is(pushes(title)[0]!.payload.body, items[0].text);
  return items[0].text as string;
}

/** Everything the stand-ins received so far: a later step proves nothing more came. */
const counts = () => ({ mails: smtp.mails.length, pushes: push.messages.length, ntfy: ntfy.requests.length });

async function upload(client: Client, folder: string, name: string, bytes: number): Promise<void> {
  const f = new FormData();
  f.append('uploadTo', folder);
  f.append('filedata', new Blob([Buffer.alloc(bytes, 0x5a)]), name);
  const r = await client.post('/api/upload', f);
  assert.is(r.status, 201, r.text);
}

const fannedOut = (action: string) =>
  s.logs.filter((l) => l.msg === 'notification event fanned out' && l.action === action).length;
let folders = 0;
/**
 * Every event raised so far has been fanned out (its bell rows written): bob makes a folder,
 * an event after them all, and the sender has fanned it out.
 */
async function settled(): Promise<void> {
  const n = fannedOut('files.create-folder');
  const r = await bob.post('/api/files/folder', { path: 'Files', name: `Notizen #${++folders} – ça va?` });
  assert.is(r.status, 201, r.text);
  await waitFor(() => fannedOut('files.create-folder'), { what: 'bob’s folder fanned out', until: (k) => k > n });
}
const checkedAt = (iso: string) =>
  waitFor(() => s.logs.find((l) => l.msg === 'volumes checked' && l.at === iso), {
    what: `the volume check at ${iso}`,
  });

test.before(async () => {
  [smtp, push, ntfy] = await Promise.all([startSmtp(), startPushService(), startReceiver('ntfy')]);
  const dirs = makeDirs();
  clockFile = path.join(dirs.root, 'now');
  setClock('2026-07-14T09:00:00Z');
  hostFolder = path.join(dirs.root, 'NAS Platte – Familie');
  fs.mkdirSync(path.join(hostFolder, 'Hochzeit 1987'), { recursive: true });
  s = await startServer({
    dirs,
    volumes: ['Files'],
    env: {
      PUSH_SERVICES: push.origin,
      NOTIFY_CLOCK_FILE: clockFile,
      USER_DIR_ENABLED: 'true',
      FOLDER_SIZE_MODE: 'full',
      FOLDER_SIZE_FLUSH_MS: '20',
      UPLOAD_CHUNKED_ENABLED: 'true',
    },
  });
  admin = await setupAdmin(s, { email: ADMIN_MAIL });
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1', email: ALICE_MAIL });
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  aliceId = (await me(alice)).id;
  const add = async (body: Record<string, unknown>) => {
    const r = await admin.post('/api/admin/notify/destinations', body);
    assert.is(r.status, 201, r.text);
    return r.json.destination.id as string;
  };
  dest.mail = await add({
    kind: 'email',
    name: 'Post',
    url: s.url,
    host: '127.0.0.1',
    port: smtp.port,
    security: 'starttls',
    username: smtp.user,
    password: smtp.password,
    tlsCa: smtp.ca,
    from: 'burrow@mail.example.org',
  });
  dest.push = await add({ kind: 'push', name: 'Browser & Telefon' });
  dest.ntfy = await add({ kind: 'ntfy', name: 'ntfy im Keller', url: ntfy.url, topic: 'familie' });
  const all = [dest.mail, dest.push, dest.ntfy];
  for (const [c, name] of [
    [admin, 'admin laptop'],
    [alice, 'alice phone'],
  ] as const) {
    const sub = await c.post('/api/notify/push/subscriptions', push.subscriber(name).subscription);
    assert.is(sub.status, 201, sub.text);
  }
  const kinds = ['quota.nearly-full', 'volume.missing', 'upload.failed'];
  for (const c of [admin, alice, bob]) {
    const r = await c.put('/api/notify/prefs', { kinds, destinations: all, folders: [] });
    assert.is(r.status, 200, r.text);
  }
  assert.is((await alice.post('/api/files/folder', { path: 'personal', name: ALBUM })).status, 201);
  assert.is((await alice.post('/api/files/folder', { path: 'Files', name: DROP })).status, 201);
});

test.after(async () => {
  await s?.close();
  await Promise.all([smtp?.close(), push?.close(), ntfy?.close()]);
  if (s) removeDirs(s.dirs);
});

test('a quota crossing 90 %: its account is told once, not at every upload past it; nobody else', async () => {
  const set = await admin.put(`/api/admin/quotas/accounts/${aliceId}`, { limitBytes: 10 * MiB });
  assert.is(set.status, 200, set.text);
  // 8 MiB of 10: below the mark, nothing.
  await upload(alice, `personal/${ALBUM}`, 'Nizza – Promenade des Anglais 🌊.mov', 8 * MiB);
  // 9 MiB: at it.
  await upload(alice, `personal/${ALBUM}`, 'Marché aux fleurs “Cours Saleya”.jpg', 1 * MiB);
  const text = await toldOnce(alice, ALICE_MAIL, 'Your storage is nearly full');
  assert.is(text, 'alice uses 9 MiB of 10 MiB (90%) of the quota.');
  // 9.5 MiB: past it still — no second message.
  const before = counts();
  await upload(alice, `personal/${ALBUM}`, 'Lavendel + Sonne (2).jpg', 0.5 * MiB);
  await settled();
  assert.is((await inbox(alice)).items.length, 1);
  assert.equal(counts(), before);
  assert.is((await inbox(admin)).items.length, 0);
  assert.is((await inbox(bob)).items.length, 0);
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
  const text = await toldOnce(alice, ALICE_MAIL, title);
  assert.is(text, `“${name}” was uploaded but not placed in Files/${DROP}: the destination folder no longer exists.`);
  const item = (await inbox(alice)).items.find((i) => i.title === title);
  assert.equal(item.paths, [`Files/${DROP}`]);
  // Each HEAD retries the placement; none tells again.
  const before = counts();
  for (let i = 0; i < 2; i++) assert.is((await alice.request('HEAD', url, undefined, TUS)).status, 423);
  await settled();
  assert.is((await inbox(alice)).items.length, 2);
  assert.equal(counts(), before);
  assert.is((await inbox(bob)).items.length, 0);
  assert.is((await inbox(admin)).items.length, 0);
});

test('a configured volume whose folder is gone: the administrators are told once until it returns, then that it is back', async () => {
  const added = await admin.post('/api/admin/volumes', { label: LABEL, path: hostFolder, accessMode: 'readonly' });
  assert.is(added.status, 201, added.text);
  setClock('2026-07-14T09:01:00Z');
  // Unmounted: the folder is not there.
  const away = `${hostFolder} (ausgehängt)`;
  fs.renameSync(hostFolder, away);
  setClock('2026-07-14T09:02:00Z');
  const title = `The volume “${LABEL}” is missing`;
  const text = await toldOnce(admin, ADMIN_MAIL, title);
  assert.is(
    text,
    `The folder of the volume “${LABEL}” cannot be read (its folder is gone): an unmounted disk? Its files are unavailable until it returns.`,
  );
  // Still gone at the next checks: nothing more.
  const before = counts();
  setClock('2026-07-14T09:03:00Z');
  assert.equal((await checkedAt('2026-07-14T09:03:00.000Z')).missing, [LABEL]);
  setClock('2026-07-14T09:04:00Z');
  assert.equal((await checkedAt('2026-07-14T09:04:00.000Z')).missing, [LABEL]);
  await settled();
  assert.is((await inbox(admin)).items.length, 1);
  assert.equal(counts(), before);
  // Back.
  fs.renameSync(away, hostFolder);
  setClock('2026-07-14T09:05:00Z');
  const back = `The volume “${LABEL}” is back`;
  await toldOnce(admin, ADMIN_MAIL, back);
  assert.equal(counts(), { mails: before.mails + 1, pushes: before.pushes + 1, ntfy: before.ntfy + 1 });
  assert.is((await inbox(admin)).items.length, 2);
  // An account that is not an administrator hears of none of it.
  assert.is((await inbox(alice)).items.filter((i) => i.kind === 'volume.missing').length, 0);
  assert.is((await inbox(bob)).items.length, 0);
});

test.run();
