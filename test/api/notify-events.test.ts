// Events beyond folders and sign-ins, through the real server and the bell (the account's inbox):
// something shared with me reaches the accounts a share names and no one else; a link's first
// opening and its downloads (with their count) reach the link's owner, not the holder.
import fs from 'node:fs';
import path from 'node:path';
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
});

test.run();
