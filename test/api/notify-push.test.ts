// Web Push and the bell through the real server: the installation's VAPID key made once, a
// browser subscription (as PushManager hands it) for a push-service stand-in on loopback that
// verifies the VAPID JWT and decrypts the aes128gcm payload with the subscription's own keys
// (test/support/push-service.ts, node:crypto — not the encrypting library). The endpoint is a
// URL a client supplies: only the known push services and the origins PUSH_SERVICES lists are
// taken (a metadata, private or other loopback address is refused). A 410 removes the
// subscription. The bell lists the account's events with their read state; another account
// neither sees nor marks them; a cross-site request changes nothing.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { startPushService, type PushService, type PushSubscriber } from '../support/push-service.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const WATCHED = 'Files/Urlaub 2026 – Fotos & Videos';
const PHOTO = 'Strand 🌊 #3 + “Sonnenuntergang” (100%).jpg';

let s: TestServer;
let push: PushService;
let admin: Client;
let alice: Client;
let bob: Client;
let pushId: string;
let phone: PushSubscriber;
let laptop: PushSubscriber;

async function upload(client: Client, folder: string, name: string): Promise<void> {
  const f = new FormData();
  f.append('uploadTo', folder);
  f.append('filedata', new Blob(['sand']), name);
  const r = await client.post('/api/upload', f);
  assert.is(r.status, 201, r.text);
}

test.before(async () => {
  push = await startPushService();
  s = await startServer({ env: { PUSH_SERVICES: push.origin } });
  fs.mkdirSync(path.join(s.dirs.volumes, WATCHED), { recursive: true });
  admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
});

test.after(async () => {
  await s?.close();
  await push?.close();
  if (s) removeDirs(s.dirs);
});

test('the VAPID key is made once; a subscription is taken only for an allowed push service', async () => {
  const added = await admin.post('/api/admin/notify/destinations', { kind: 'push', name: 'Browser & phone' });
  assert.is(added.status, 201, added.text);
  pushId = added.json.destination.id;
  const key = await alice.get('/api/notify/push/key');
  assert.is(key.status, 200, key.text);
  const raw = Buffer.from(key.json.publicKey, 'base64url');
  assert.is(raw.length, 65, 'an uncompressed P-256 point');
  assert.is((await bob.get('/api/notify/push/key')).json.publicKey, key.json.publicKey, 'one key for the installation');

  phone = push.subscriber('alice phone');
  laptop = push.subscriber('alice laptop');
  const keys = phone.subscription.keys;
  const other = new URL(push.origin);
  other.port = String(Number(other.port) === 65535 ? 1 : Number(other.port) + 1);
  for (const endpoint of [
    'http://169.254.169.254/latest/meta-data/',
    'https://10.0.0.1/push/x',
    `${other.origin}/push/x`,
    'http://localhost:3000/api/admin/users',
    'https://fcm.googleapis.com.evil.example/fcm/send/x',
    'https://fcm.googleapis.com:8443/fcm/send/x',
    'http://fcm.googleapis.com/fcm/send/x',
    'file:///etc/passwd',
  ]) {
    const r = await alice.post('/api/notify/push/subscriptions', { endpoint, keys });
    assert.is(r.status, 400, `${endpoint}: ${r.text}`);
    assert.ok(envelope(r).requestId);
  }
  const badKey = await alice.post('/api/notify/push/subscriptions', {
    endpoint: phone.subscription.endpoint,
    keys: { p256dh: 'AAAA', auth: keys.auth },
  });
  assert.is(badKey.status, 400, badKey.text);
  assert.equal((await alice.get('/api/notify/push/subscriptions')).json.subscriptions, [], 'nothing kept');

  // A cross-site page cannot subscribe the account.
  const cross = await alice.post('/api/notify/push/subscriptions', phone.subscription, {
    origin: 'https://evil.example',
  });
  assert.is(cross.status, 403);

  for (const sub of [phone, laptop]) {
    const r = await alice.post('/api/notify/push/subscriptions', sub.subscription);
    assert.is(r.status, 201, r.text);
    assert.is(r.json.subscription.endpoint, sub.subscription.endpoint);
  }
  const mine = (await alice.get('/api/notify/push/subscriptions')).json.subscriptions;
  assert.is(mine.length, 2);
  assert.equal((await bob.get('/api/notify/push/subscriptions')).json.subscriptions, []);
  // Bob cannot remove alice's.
  assert.is((await bob.delete(`/api/notify/push/subscriptions/${mine[0].id}`)).status, 404);
});

test('an upload in a watched folder is pushed to each browser: VAPID verified, payload decrypted', async () => {
  const put = await alice.put('/api/notify/prefs', {
    kinds: ['folder.uploaded'],
    destinations: [pushId],
    folders: [WATCHED],
  });
  assert.is(put.status, 200, put.text);
  await upload(bob, WATCHED, PHOTO);
  const messages = await waitFor(() => push.messages.filter((m) => m.payload?.title === `${PHOTO} added`), {
    what: 'both browsers’ pushes',
    until: (m) => m.length === 2,
  });
  const publicKey = (await alice.get('/api/notify/push/key')).json.publicKey;
  for (const m of messages) {
    assert.ok(m.vapid.ok, JSON.stringify(m.vapid));
    assert.is(m.vapid.aud, push.origin);
    assert.is(m.vapid.key, publicKey);
    assert.is(m.headers['content-encoding'], 'aes128gcm');
    assert.ok(Number(m.headers.ttl) > 0);
    assert.is(m.payload.body, `bob added ${WATCHED}/${PHOTO}.`);
    assert.equal(m.payload.paths, [`${WATCHED}/${PHOTO}`]);
    assert.is(m.payload.kind, 'folder.uploaded');
  }
  assert.equal(messages.map((m) => m.endpoint).sort(), [phone, laptop].map((p) => p.subscription.endpoint).sort());
});

test('the bell: the account’s events with read state; another account neither sees nor marks them', async () => {
  const inbox = (await alice.get('/api/notify/inbox')).json;
  assert.is(inbox.unread, 1);
  assert.is(inbox.items.length, 1);
  const [item] = inbox.items;
  assert.is(item.title, `${PHOTO} added`);
  assert.is(item.read, false);
  assert.equal(item.paths, [`${WATCHED}/${PHOTO}`]);
  const bobs = (await bob.get('/api/notify/inbox')).json;
  assert.equal(bobs, { items: [], unread: 0 });
  // Bob marking alice's item changes nothing; a cross-site mark neither.
  assert.is((await bob.post('/api/notify/inbox/read', { ids: [item.id] })).json.marked, 0);
  assert.is(
    (await alice.post('/api/notify/inbox/read', { ids: [item.id] }, { origin: 'https://evil.example' })).status,
    403,
  );
  assert.is((await alice.get('/api/notify/inbox')).json.unread, 1);
  const marked = await alice.post('/api/notify/inbox/read', { ids: [item.id] });
  assert.is(marked.status, 200, marked.text);
  assert.is(marked.json.marked, 1);
  const after = (await alice.get('/api/notify/inbox')).json;
  assert.is(after.unread, 0);
  assert.is(after.items[0].read, true);
});

test('a push service answering 410 removes that subscription; the other keeps receiving', async () => {
  push.gone.set(phone.subscription.endpoint, 410);
  await upload(bob, WATCHED, 'Muscheln.jpg');
  await waitFor(() => push.messages.filter((m) => m.payload?.title === 'Muscheln.jpg added').length === 2, {
    what: 'the pushes of Muscheln.jpg',
  });
  const left = await waitFor(async () => (await alice.get('/api/notify/push/subscriptions')).json.subscriptions, {
    what: 'the gone subscription removed',
    until: (subs: any[]) => subs.length === 1,
  });
  assert.is(left[0].endpoint, laptop.subscription.endpoint);
  // Alice removes the other herself.
  assert.is((await alice.delete(`/api/notify/push/subscriptions/${left[0].id}`)).status, 204);
  assert.equal((await alice.get('/api/notify/push/subscriptions')).json.subscriptions, []);
});

test.run();
