// The server's own troubles that came after the first set (issue 29), through the real server
// and every destination a person has — a real SMTP server, the Web Push stand-in that decrypts
// with the subscription's keys, an ntfy stand-in — and the bell: a volume mounted read-write
// whose folder cannot be written tells the administrators once until it is writable, and once
// that it is (a volume the administrator mounted read-only tells nothing); a multipart upload
// that arrived whole and was refused where it was going tells its uploader its name, folder and
// why, as a resumable one does. Nobody else hears of either.
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, setupAdmin } from '../support/auth.ts';
import { Client } from '../support/client.ts';
import { startPushService, type PushService } from '../support/push-service.ts';
import { startReceiver, type Receiver } from '../support/receivers.ts';
import { makeDirs, removeDirs, startServer, type TestServer } from '../support/server.ts';
import { decodeWords, startSmtp, type SmtpReceiver } from '../support/smtp.ts';
import { waitFor } from '../support/wait.ts';

const ADMIN_MAIL = 'hausmeister+burrow@example.org';
const ALICE_MAIL = 'alice.mueller+fotos@example.org';
const DROP = 'Steuer 2025 – Belege (100%) & Quittungen';
const LABEL = 'Archiv “Oma” & Opa 📷';
const KEPT = 'Fotoalben – nur lesen #2';

let s: TestServer;
let smtp: SmtpReceiver;
let push: PushService;
let ntfy: Receiver;
let admin: Client;
let alice: Client;
let bob: Client;
let clockFile: string;
let hostFolder: string;
let keptFolder: string;
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
  keptFolder = path.join(dirs.root, KEPT);
  fs.mkdirSync(keptFolder);
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
  const kinds = ['volume.read-only', 'upload.failed'];
  for (const c of [admin, alice, bob]) {
    const r = await c.put('/api/notify/prefs', { kinds, destinations: all, folders: [] });
    assert.is(r.status, 200, r.text);
  }
});

test.after(async () => {
  await s?.close();
  await Promise.all([smtp?.close(), push?.close(), ntfy?.close()]);
  if (s) removeDirs(s.dirs);
});

/**
 * Nothing can be written in `dir` any more, as on a disk mounted read-only: for root (whom
 * permissions do not stop) the folder is made immutable; for anyone else, its mode.
 */
function readOnly(dir: string, on: boolean): void {
  if (process.getuid?.() === 0) execFileSync('chattr', [on ? '+i' : '-i', dir]);
  else fs.chmodSync(dir, on ? 0o555 : 0o755);
}

test('a read-write volume that cannot be written: the administrators are told once until it is writable, then that it is', async () => {
  for (const [label, folder, accessMode] of [
    [LABEL, hostFolder, 'readwrite'],
    [KEPT, keptFolder, 'readonly'],
  ] as const) {
    const added = await admin.post('/api/admin/volumes', { label, path: folder, accessMode });
    assert.is(added.status, 201, added.text);
  }
  setClock('2026-07-14T09:01:00Z');
  await checkedAt('2026-07-14T09:01:00.000Z');
  readOnly(hostFolder, true);
  readOnly(keptFolder, true);
  try {
    setClock('2026-07-14T09:02:00Z');
    const title = `The volume “${LABEL}” is read-only`;
    const text = await toldOnce(admin, ADMIN_MAIL, title);
    assert.is(
      text,
      `Nothing can be written in the volume “${LABEL}” (Burrow may not write in its folder): uploads and changes there are refused until it is writable again.`,
    );
    assert.equal((await checkedAt('2026-07-14T09:02:00.000Z')).readOnly, [LABEL]);
    // Still read-only at the next checks: nothing more.
    const before = counts();
    setClock('2026-07-14T09:03:00Z');
    assert.equal((await checkedAt('2026-07-14T09:03:00.000Z')).readOnly, [LABEL]);
    setClock('2026-07-14T09:04:00Z');
    await checkedAt('2026-07-14T09:04:00.000Z');
    await settled();
    assert.is((await inbox(admin)).items.length, 1);
    assert.equal(counts(), before);
  } finally {
    readOnly(hostFolder, false);
    readOnly(keptFolder, false);
  }
  // Writable again.
  const before = counts();
  setClock('2026-07-14T09:05:00Z');
  await toldOnce(admin, ADMIN_MAIL, `The volume “${LABEL}” is writable again`);
  assert.equal(counts(), { mails: before.mails + 1, pushes: before.pushes + 1, ntfy: before.ntfy + 1 });
  assert.is((await inbox(admin)).items.length, 2);
  // The volume mounted read-only on purpose was never news; the accounts that are not administrators heard nothing.
  assert.not.ok(JSON.stringify((await inbox(admin)).items).includes(KEPT));
  assert.is((await inbox(alice)).items.length, 0);
  assert.is((await inbox(bob)).items.length, 0);
});

/** The part files of multipart uploads, anywhere in the server's folders. */
function multipartParts(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/^mp-.*\.part$/.test(e.name)) out.push(p);
    }
  };
  walk(s.dirs.root);
  return out;
}

test('a multipart upload refused at placement: its uploader is told the name, the folder and why', async () => {
  assert.is((await alice.post('/api/files/folder', { path: 'Files', name: DROP })).status, 201);
  // One request, two files: the first takes the name "Belege" as a file; the second was to go
  // into a folder of that name — both checked when they arrived, the second refused where it goes.
  const folderName = 'Belege & Rechnungen';
  const name = 'Rechnung „Café Müller“ #7 (100%) 🧾.pdf';
  const f = new FormData();
  f.append('uploadTo', `Files/${DROP}`);
  f.append('relativePath', folderName);
  f.append('filedata', new Blob(['not a folder']), folderName);
  f.append('relativePath', `${folderName}/${name}`);
  f.append('filedata', new Blob(['%PDF-1.4 Brötchen 3,20 €']), name);
  const refused = await alice.post('/api/upload', f);
  assert.ok(refused.status >= 400, `${refused.status} ${refused.text}`);
  const title = `“${name}” could not be placed`;
  const text = await toldOnce(alice, ALICE_MAIL, title);
  const reason = refused.json.error.message.charAt(0).toLowerCase() + refused.json.error.message.slice(1);
  assert.is(text, `“${name}” was uploaded but not placed in Files/${DROP}/${folderName}: ${reason}`);
  const item = (await inbox(alice)).items.find((i) => i.title === title);
  assert.equal(item.paths, [`Files/${DROP}/${folderName}`]);
  // Nothing of the request is left: not the first file, not a part file.
  assert.equal(fs.readdirSync(path.join(s.dirs.volumes, 'Files', DROP)), []);
  assert.equal(multipartParts(), []);
  await settled();
  assert.is((await inbox(alice)).items.length, 1);
  assert.is((await inbox(bob)).items.length, 0);
  assert.is((await inbox(admin)).items.filter((i) => i.kind === 'upload.failed').length, 0);
});

test.run();
