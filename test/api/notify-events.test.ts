// Events beyond folders and sign-ins, through the real server and the bell (the account's inbox):
// something shared with me reaches the accounts a share names and no one else; a link's first
// opening and its downloads (with their count, one message per ten minutes) reach the link's
// owner, not the holder. Files
// arriving through a file request reach the request's owner; a change in a watched folder reaches
// its watcher, but nothing from a folder hidden from it by an access rule, even under the folder
// it watches; a refused second-factor code and the lockout it leads to reach the account (the
// lockout also its administrators), nobody else.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { generateSync } from 'otplib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, me, setupAdmin } from '../support/auth.ts';
import { Client } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const FOLDER = 'Files/Steuer 2025 – Belege & Quittungen #3';
const FILE = 'Quittung „Bäckerei“ 😀 (100%).pdf';

let s: TestServer;
let admin: Client;
let alice: Client;
let bob: Client;
let carol: Client;
const KINDS = ['share.received', 'link.opened', 'link.downloaded'];

const inbox = async (c: Client) => (await c.get('/api/notify/inbox')).json as { items: any[]; unread: number };

test.before(async () => {
  s = await startServer();
  fs.mkdirSync(path.join(s.dirs.volumes, FOLDER), { recursive: true });
  fs.writeFileSync(path.join(s.dirs.volumes, FOLDER, FILE), 'Brötchen, 3,20 €');
  admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  carol = await createUser(admin, s, { username: 'carol', password: 'carol-password-1' });
  for (const c of [alice, bob, carol]) {
    const r = await c.put('/api/notify/prefs', { kinds: KINDS, destinations: [], folders: [] });
    assert.is(r.status, 200, r.text);
  }
});

test.after(async () => {
  await s?.close();
  if (s) removeDirs(s.dirs);
});

test('something shared with me: the named account is told, the owner and the others are not', async () => {
  const bobId = (await me(bob)).id;
  const r = await alice.post('/api/shares', {
    sourcePath: FOLDER,
    accessMode: 'readonly',
    sharingType: 'users',
    userIds: [bobId],
  });
  assert.is(r.status, 201, r.text);
  const [item] = await waitFor(async () => (await inbox(bob)).items, {
    what: 'bob’s bell',
    until: (items) => items.length === 1,
  });
  assert.is(item.kind, 'share.received');
  assert.is(item.text, 'alice shared “Steuer 2025 – Belege & Quittungen #3” with you.');
  // An anyone link is shared with nobody in particular.
  const link = await alice.post('/api/shares', {
    sourcePath: `${FOLDER}/${FILE}`,
    accessMode: 'readonly',
    sharingType: 'anyone',
    userIds: [],
  });
  assert.is(link.status, 201, link.text);
  const token = link.json.shareToken as string;
  // Opened: the owner is told once.
  const visitor = new Client(s.url);
  assert.is((await visitor.get(`/api/share/${token}/browse/`)).status, 200);
  assert.is((await visitor.get(`/api/share/${token}/browse/`)).status, 200);
  const opened = await waitFor(async () => (await inbox(alice)).items.filter((i) => i.kind === 'link.opened'), {
    what: 'alice told of the opening',
    until: (items) => items.length === 1,
  });
  assert.is(opened[0].text, `Your link to “${FILE}” was opened for the first time.`);
  // Downloaded, with its count.
  const dl = await visitor.get(`/api/share/${token}/file`);
  assert.is(dl.status, 200);
  assert.is(dl.text, 'Brötchen, 3,20 €');
  const downloaded = await waitFor(async () => (await inbox(alice)).items.filter((i) => i.kind === 'link.downloaded'), {
    what: 'alice told of the download',
    until: (items) => items.length === 1,
  });
  assert.is(downloaded[0].text, `“${FILE}” was downloaded through your link (1 download so far).`);
  // Nobody else hears of it: not bob beyond his share, not carol, and alice not of her own share.
  assert.is((await inbox(bob)).items.length, 1);
  assert.is((await inbox(carol)).items.length, 0);
  assert.is((await inbox(alice)).items.filter((i) => i.kind === 'share.received').length, 0);
  // A second opening tells nothing more.
  assert.is((await inbox(alice)).items.filter((i) => i.kind === 'link.opened').length, 1);
  // A second download at once tells nothing more (one message per link every ten minutes; through
  // a cluster, whichever instance it reaches), nor does a third after a restart: the ten minutes
  // are the link's row, not a process's memory. The next message carries the count of all.
  assert.is((await visitor.get(`/api/share/${token}/file`)).status, 200);
  await s.restart();
  assert.is((await new Client(s.url).get(`/api/share/${token}/file`)).status, 200);
  // Ten minutes pass.
  await s.withDatabase((db) =>
    db.run('UPDATE shares SET told_until = ? WHERE token_hash = ?', [
      new Date(Date.now() - 1000).toISOString(),
      createHash('sha256').update(token).digest('hex'),
    ]),
  );
  assert.is((await new Client(s.url).get(`/api/share/${token}/file`)).status, 200);
  const counted = await waitFor(async () => (await inbox(alice)).items.filter((i) => i.kind === 'link.downloaded'), {
    what: 'alice told of the fourth download',
    until: (items) => items.some((i) => i.text.includes('(4 downloads so far)')),
  });
  assert.equal(counted.map((i) => i.text).sort(), [
    `“${FILE}” was downloaded through your link (1 download so far).`,
    `“${FILE}” was downloaded through your link (4 downloads so far).`,
  ]);
});

test('files through a file request reach its owner; a watched folder’s change does, a hidden folder’s never', async () => {
  const HIDDEN = 'Files/Vorstand – vertraulich & geheim #9';
  const WATCHED = 'Files/Projekt „Zoë“ 2025';
  fs.mkdirSync(path.join(s.dirs.volumes, HIDDEN), { recursive: true });
  fs.mkdirSync(path.join(s.dirs.volumes, WATCHED), { recursive: true });
  const carolId = (await me(carol)).id;
  const hidden = await admin.put('/api/access/rules', {
    path: HIDDEN,
    subject: { kind: 'account', id: carolId },
    level: 'hidden',
  });
  assert.is(hidden.status, 200, hidden.text);
  // Carol watches the whole volume: the hidden folder is under it.
  const prefs = await carol.put('/api/notify/prefs', {
    kinds: [...KINDS, 'files.arrived', 'folder.uploaded', 'folder.changed', 'folder.deleted'],
    destinations: [],
    folders: ['Files'],
  });
  assert.is(prefs.status, 200, prefs.text);
  const before = (await inbox(carol)).items.length;
  assert.is(before, 0);

  // Bob works in the hidden folder (upload, new folder, rename, delete), then in the watched one.
  const form = new FormData();
  form.append('uploadTo', HIDDEN);
  form.append('filedata', new Blob(['Gehälter']), 'Gehälter 2025 (100%).txt');
  assert.is((await bob.post('/api/upload', form)).status, 201);
  assert.is((await bob.post('/api/files/folder', { path: HIDDEN, name: 'Protokolle' })).status, 201);
  const renamed = await bob.post('/api/files/rename', { path: HIDDEN, name: 'Protokolle', newName: 'Protokolle 2025' });
  assert.ok(renamed.status < 300, renamed.text);
  const gone = await bob.delete('/api/files', { items: [{ path: HIDDEN, name: 'Protokolle 2025' }] });
  assert.is(gone.status, 200, gone.text);
  const made = await bob.post('/api/files/folder', { path: WATCHED, name: 'Entwürfe & Skizzen' });
  assert.is(made.status, 201, made.text);
  const changed = await waitFor(async () => (await inbox(carol)).items.slice(before), {
    what: 'carol told of the change in the watched folder',
    until: (items) => items.some((i) => i.kind === 'folder.changed'),
  });
  // The watched folder's change came after all of the hidden folder's: those were decided — and told nothing.
  assert.equal(
    changed.map((i) => [i.kind, i.text]),
    [['folder.changed', `bob changed ${WATCHED}/Entwürfe & Skizzen.`]],
  );
  assert.not.ok(JSON.stringify((await inbox(carol)).items).includes('Vorstand'), 'nothing of the hidden folder');

  // Alice asks for files into her folder; a stranger sends one.
  const hers = await alice.put('/api/notify/prefs', {
    kinds: [...KINDS, 'files.arrived'],
    destinations: [],
    folders: [],
  });
  assert.is(hers.status, 200, hers.text);
  const request = await alice.post('/api/shares', {
    sourcePath: FOLDER,
    sharingType: 'anyone',
    fileRequest: { maxFiles: 3 },
    label: 'Belege für März',
  });
  assert.is(request.status, 201, request.text);
  const drop = new FormData();
  drop.append('uploadTo', `share/${request.json.shareToken}`);
  drop.append('filedata', new Blob(['Kassenbon']), 'Kassenbon Café “Müller” #7.pdf');
  const sent = await fetch(`${s.url}/api/share/${request.json.shareToken}/upload`, { method: 'POST', body: drop });
  assert.is(sent.status, 201, await sent.text());
  const arrived = await waitFor(async () => (await inbox(alice)).items.filter((i) => i.kind === 'files.arrived'), {
    what: 'alice told of the arrival',
    until: (items) => items.length === 1,
  });
  assert.is(arrived[0].text, 'Kassenbon Café “Müller” #7.pdf arrived through your file request “Belege für März”.');
  // The arrival is the request owner's: carol, watching the whole volume, is not told of it as files.arrived.
  assert.is((await inbox(carol)).items.filter((i) => i.kind === 'files.arrived').length, 0);
  assert.is((await inbox(bob)).items.filter((i) => i.kind === 'files.arrived').length, 0);
});

test('a refused second-factor code and the lockout: the account is told, the lockout also its administrators', async () => {
  const KINDS2 = ['signin.second-factor-failed', 'signin.lockout'];
  for (const c of [admin, carol, bob]) {
    const r = await c.put('/api/notify/prefs', { kinds: KINDS2, destinations: [], folders: [] });
    assert.is(r.status, 200, r.text);
  }
  const started = await carol.post('/api/auth/totp/start');
  assert.is(started.status, 200, started.text);
  const secret = started.json.secret as string;
  const right = () => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) });
  const confirmed = await carol.post('/api/auth/totp/confirm', { code: right() });
  assert.is(confirmed.status, 200, confirmed.text);
  const told = async (c: Client, kind: string) => (await inbox(c)).items.filter((i) => i.kind === kind);

  // The right password, then a code that is not the right one (whatever the clock says).
  const browser = new Client(s.url);
  const held = await browser.post('/api/auth/login', { identifier: 'carol', password: 'carol-password-1' });
  assert.equal(held.json, { totpRequired: true }, held.text);
  const wrong = String((Number(right()) + 500_000) % 1_000_000).padStart(6, '0');
  assert.is((await browser.post('/api/auth/login/totp', { code: wrong })).status, 401);
  const refused = await waitFor(() => told(carol, 'signin.second-factor-failed'), {
    what: 'carol told of the refused code',
    until: (items) => items.length === 1,
  });
  assert.is(refused[0].text, 'Someone gave the right password for carol but a wrong code.');

  // Four wrong passwords more: the fifth failure locks the account.
  for (let i = 0; i < 4; i++) {
    const r = await new Client(s.url).post('/api/auth/login', { identifier: 'carol', password: `guess ${i}` });
    assert.is(r.status, 401, r.text);
  }
  const locked = await waitFor(() => told(carol, 'signin.lockout'), {
    what: 'carol told of the lockout',
    until: (items) => items.length === 1,
  });
  assert.is(locked[0].text, 'carol was locked after too many failed sign-ins.');
  await waitFor(() => told(admin, 'signin.lockout'), {
    what: 'the administrator told of the lockout',
    until: (items) => items.length === 1,
  });
  // Bob, no administrator, hears of neither; nobody but carol of her refused code.
  assert.is((await told(bob, 'signin.lockout')).length, 0);
  assert.is((await told(bob, 'signin.second-factor-failed')).length, 0);
  assert.is((await told(admin, 'signin.second-factor-failed')).length, 0);
});

test.run();
