// The bell, live (issue 29): an account's new notifications arrive on its pages' live socket
// (/api/live, message `inbox`), each item exactly as GET /api/notify/inbox lists it, to every
// page of that account and to no other account's. What an account may not see (a folder hidden
// from it by an access rule for that account) never reaches its socket; a read on one page sets the count on the
// others; a link holder has no socket to hear on. Real `ws` clients against the real server.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { createUser, me, setupAdmin } from '../support/auth.ts';
import { Client } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
let admin: Client;
let alice: Client;
let bob: Client;

const FOLDER = 'Files/Family photos & "Trips" #2';
const SECRET = 'Files/Gehälter 2024 – „vertraulich“ 100%';
const BOBS = 'Media/Bobs Ecke + Werkstatt';
const PHOTO = 'Strand am Abend – été #3 😀 (100%).jpg';
const PAYSLIP = 'Lohnzettel März – Zoë & Åsa.pdf';

interface Live {
  ws: WebSocket;
  messages: any[];
  inbox(): any[];
}

function connect(client: Client | null, cookie?: string): Promise<Live> {
  const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}/api/live`, {
    headers: cookie ? { cookie } : client ? { cookie: client.cookieHeader } : {},
    origin: s.url,
  });
  const messages: any[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
  const live = { ws, messages, inbox: () => messages.filter((m) => m.type === 'inbox') };
  return new Promise((resolve, reject) => {
    ws.on('open', () => resolve(live));
    ws.on('unexpected-response', (_req, res) =>
      reject(Object.assign(new Error('refused'), { status: res.statusCode })),
    );
    ws.on('error', reject);
  });
}

const inbox = async (c: Client) => {
  const r = await c.get('/api/notify/inbox');
  assert.is(r.status, 200, r.text);
  return r.json as { items: any[]; unread: number };
};

async function upload(c: Client, folder: string, name: string, text: string) {
  const f = new FormData();
  f.append('uploadTo', folder);
  f.append('filedata', new Blob([text]), name);
  const r = await c.post('/api/upload', f);
  assert.is(r.status, 201, r.text);
}

test.before(async () => {
  s = await startServer({ volumes: ['Files', 'Media'] });
  for (const d of [FOLDER, SECRET, BOBS]) fs.mkdirSync(path.join(s.dirs.volumes, d), { recursive: true });
  admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  // Alice watches the whole of one volume; Bob a folder of his own in another.
  for (const [c, folders] of [
    [alice, ['Files']],
    [bob, [BOBS]],
  ] as const) {
    const r = await c.put('/api/notify/prefs', { kinds: ['folder.uploaded'], destinations: [], folders });
    assert.is(r.status, 200, r.text);
  }
  // The payroll folder is hidden from Alice.
  const rule = await admin.put('/api/access/rules', {
    path: SECRET,
    subject: { kind: 'account', id: (await me(alice)).id },
    level: 'hidden',
  });
  assert.is(rule.status, 200, rule.text);
});

test.after(async () => {
  await s?.close();
  if (s) removeDirs(s.dirs);
});

test('a new event reaches every page of its account at once, as the inbox lists it; no other account hears it', async () => {
  const [a1, a2, b] = [await connect(alice), await connect(alice), await connect(bob)];
  // First a file in the folder hidden from Alice, then one in a folder she sees: she hears the second only.
  await upload(admin, SECRET, PAYSLIP, 'netto 2.345,67 €');
  await upload(admin, FOLDER, PHOTO, 'jpeg bytes');
  for (const page of [a1, a2]) {
    const [m] = await waitFor(() => page.inbox(), {
      what: 'alice’s page told of the upload',
      until: (msgs) => msgs.length > 0,
      seen: () => page.messages,
    });
    assert.is(m.unread, 1);
    assert.is(m.items.length, 1);
    const listed = await inbox(alice);
    assert.equal(m.items, listed.items);
    assert.is(m.items[0].kind, 'folder.uploaded');
    assert.equal(m.items[0].paths, [`${FOLDER}/${PHOTO}`]);
    assert.is(m.items[0].text, `admin added ${FOLDER}/${PHOTO}.`);
    assert.is(m.items[0].read, false);
  }
  // Then something for Bob: his socket's first news is his own, never Alice's.
  await upload(admin, BOBS, 'Schraube M6 × 40.txt', 'zwölf Stück');
  const [bm] = await waitFor(() => b.inbox(), {
    what: 'bob’s page told of the upload in his folder',
    until: (msgs) => msgs.length > 0,
    seen: () => b.messages,
  });
  assert.equal(
    b.inbox().flatMap((m) => m.items.map((i: any) => i.paths)),
    [[`${BOBS}/Schraube M6 × 40.txt`]],
  );
  assert.is(bm.unread, 1);
  // Nothing about the hidden folder anywhere Alice or Bob can look.
  for (const page of [a1, a2, b]) {
    const said = JSON.stringify(page.messages);
    assert.not.ok(said.includes('Lohnzettel') || said.includes('Gehälter'), said);
  }
  assert.not.ok(JSON.stringify(await inbox(alice)).includes('Lohnzettel'));
  assert.is(a1.inbox().length, 1);
  assert.is(a2.inbox().length, 1);
  for (const page of [a1, a2, b]) page.ws.close();
});

test('read on one page: the account’s other pages take the count; another account’s do not', async () => {
  const [a1, a2, b] = [await connect(alice), await connect(alice), await connect(bob)];
  assert.is((await inbox(alice)).unread, 1);
  const r = await alice.post('/api/notify/inbox/read', {});
  assert.is(r.status, 200, r.text);
  for (const page of [a1, a2]) {
    const [m] = await waitFor(() => page.inbox(), {
      what: 'alice’s page told of the read',
      until: (msgs) => msgs.length > 0,
      seen: () => page.messages,
    });
    assert.equal(m, { type: 'inbox', items: [], unread: 0 });
  }
  // Bob's next news is his own read.
  assert.is((await bob.post('/api/notify/inbox/read', {})).status, 200);
  await waitFor(() => b.inbox(), { what: 'bob’s read', until: (m) => m.length > 0, seen: () => b.messages });
  assert.equal(b.inbox(), [{ type: 'inbox', items: [], unread: 0 }]);
  for (const page of [a1, a2, b]) page.ws.close();
});

test('a link holder has no socket: its upgrade is refused, whatever cookies the link gave it', async () => {
  const link = await alice.post('/api/shares', {
    sourcePath: FOLDER,
    accessMode: 'readonly',
    sharingType: 'anyone',
    userIds: [],
  });
  assert.is(link.status, 201, link.text);
  const visitor = new Client(s.url);
  assert.is((await visitor.get(`/api/share/${link.json.shareToken}/browse/`)).status, 200);
  const refused = await connect(visitor).then(
    (l) => {
      l.ws.close();
      return null;
    },
    (err: { status?: number }) => err.status,
  );
  assert.is(refused, 401);
  // And the inbox is an account's: the link holder has none.
  assert.is((await visitor.get('/api/notify/inbox')).status, 401);
});

test.run();
