// Notifications through the real server: an administrator's webhook and ntfy destinations, an
// account choosing among them and watching a folder; a loopback webhook receiver verifies every
// message with the Standard Webhooks reference library and keeps one copy per webhook-id, an
// ntfy stand-in takes ntfy's JSON publish. Retries honour Retry-After; a refusal is
// dead-lettered and sent again with the same id; a hanging destination holds no request; a
// SIGKILL between the activity row and the acknowledged send loses nothing and, after
// de-duplication, delivers once. Nothing about a folder an account cannot see reaches it; the
// attacker table: another account, a read token, an administrator's token, a cross-site request.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, createUser, issueToken, setupAdmin, signIn } from '../support/auth.ts';
import { kill, startChild } from '../support/child.ts';
import { Client, envelope } from '../support/client.ts';
import { startReceiver, type Receiver } from '../support/receivers.ts';
import { makeDirs, removeDirs, serverEnv, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

/** A client whose requests come through the (trusted, loopback) proxy from `address`. */
class From extends Client {
  address: string;
  constructor(base: string, address: string) {
    super(base);
    this.address = address;
  }
  override request(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
    return super.request(method, p, body, { 'x-forwarded-for': this.address, ...headers });
  }
}

const ALICE = { username: 'alice', password: 'alice-password-1' };
const BOB = { username: 'bob', password: 'bob-password-1' };
const WATCHED = 'Files/Family Photos & Scans';
const PHOTO = 'Grand-mère’s 90th #2 + cake (100%).txt';

let s: TestServer;
let admin: Client;
let alice: Client;
let bob: Client;
let aliceId: string;
let hook: Receiver;
let ntfy: Receiver;
let webhookId: string;
let ntfyId: string;

function form(uploadTo: string, name: string, text: string): FormData {
  const f = new FormData();
  f.append('uploadTo', uploadTo);
  f.append('filedata', new Blob([text]), name);
  return f;
}

async function upload(client: Client, folder: string, name: string, text = 'hello'): Promise<void> {
  const r = await client.post('/api/upload', form(folder, name, text));
  assert.is(r.status, 201, r.text);
}

/** Messages the webhook receiver kept (first verified copy per id) that match. */
const kept = (r: Receiver, pred: (body: any) => boolean) => [...r.unique.values()].filter(pred);

test.before(async () => {
  [hook, ntfy] = await Promise.all([startReceiver('webhook'), startReceiver('ntfy')]);
  s = await startServer({ env: { USER_DIR_ENABLED: 'true', TRUST_PROXY: 'loopback' } });
  fs.mkdirSync(path.join(s.dirs.volumes, 'Files', 'Family Photos & Scans'), { recursive: true });
  fs.mkdirSync(path.join(s.dirs.volumes, 'Files', 'Recipes'), { recursive: true });
  admin = await setupAdmin(s);
  alice = await createUser(admin, s, ALICE);
  bob = await createUser(admin, s, BOB);
  aliceId = (await alice.get('/api/auth/me')).json.user.id;
});

test.after(async () => {
  await s?.close();
  await hook?.close();
  await ntfy?.close();
  if (s) removeDirs(s.dirs);
});

test('destinations: a webhook gets a whsec_ secret shown once, ntfy keeps its token sealed; accounts see names only', async () => {
  const added = await admin.post('/api/admin/notify/destinations', {
    kind: 'webhook',
    name: 'Home Assistant – Küche',
    url: hook.url,
  });
  assert.is(added.status, 201, added.text);
  assert.match(added.json.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  webhookId = added.json.destination.id;
  hook.secret = added.json.secret;
  const topic = await admin.post('/api/admin/notify/destinations', {
    kind: 'ntfy',
    name: 'ntfy on the NAS',
    url: ntfy.url,
    topic: 'burrow-family',
    token: 'tk_family_ntfy_token_0001',
  });
  assert.is(topic.status, 201, topic.text);
  assert.is(topic.json.secret, null);
  ntfyId = topic.json.destination.id;

  const list = await admin.get('/api/admin/notify/destinations');
  assert.is(list.status, 200);
  assert.is(list.json.destinations.length, 2);
  assert.ok(list.json.destinations.every((d: any) => d.hasSecret === true));
  assert.not.ok(list.text.includes(hook.secret!), 'the webhook secret is never shown again');
  assert.not.ok(list.text.includes('tk_family_ntfy_token_0001'));

  const choosable = await alice.get('/api/notify/destinations');
  assert.is(choosable.status, 200);
  assert.equal(
    choosable.json.destinations.map((d: any) => Object.keys(d).sort().join()),
    ['id,kind,name', 'id,kind,name'],
  );

  // Not an http(s) address: refused, nothing added.
  for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'http://user:pw@127.0.0.1/x', 'gopher://x']) {
    const bad = await admin.post('/api/admin/notify/destinations', { kind: 'webhook', name: 'bad', url });
    assert.is(bad.status, 400, url);
  }
  assert.is((await admin.get('/api/admin/notify/destinations')).json.destinations.length, 2);
});

test('choices: destinations among the enabled ones, folders the account can see', async () => {
  const put = await alice.put('/api/notify/prefs', {
    kinds: ['folder.uploaded', 'folder.deleted', 'signin.new-address'],
    destinations: [webhookId, ntfyId],
    folders: [WATCHED, 'personal'],
  });
  assert.is(put.status, 200, put.text);
  assert.equal(put.json.prefs.folders, [WATCHED, 'personal']);
  assert.equal((await alice.get('/api/notify/prefs')).json.prefs, put.json.prefs);
  // Bob's choices are his own: empty.
  assert.equal((await bob.get('/api/notify/prefs')).json.prefs, {
    kinds: [],
    destinations: [],
    folders: [],
    emailOff: [],
    timeZone: 'UTC',
    quietHours: null,
    dailyAt: '08:00',
    delivery: { destinations: {}, kinds: {} },
  });

  const refused: [unknown, number][] = [
    [{ kinds: [], destinations: ['dst_nosuchdestination01'], folders: [] }, 404],
    [{ kinds: [], destinations: [], folders: ['Files/No such folder'] }, 404],
    [{ kinds: [], destinations: [], folders: ['Files/../../etc'] }, 400],
    [{ kinds: ['test'], destinations: [], folders: [] }, 400],
    [{ kinds: ['folder.uploaded'], destinations: ['../etc'], folders: [] }, 400],
  ];
  for (const [body, status] of refused) {
    const r = await alice.put('/api/notify/prefs', body);
    assert.is(r.status, status, `${JSON.stringify(body)}: ${r.text}`);
    assert.ok(envelope(r).requestId);
  }
  assert.equal((await alice.get('/api/notify/prefs')).json.prefs, put.json.prefs, 'a refused change changes nothing');
});

test('an upload in a watched folder: one signed, versioned message per destination; other folders and others’ private folders send nothing', async () => {
  await upload(bob, 'Files/Recipes', 'Pancakes & syrup.txt');
  await upload(bob, 'personal', `Taxes ${PHOTO}`);
  await upload(bob, WATCHED, PHOTO, 'a birthday');
  const [body] = await waitFor(
    () =>
      kept(hook, (b) => b.kind === 'folder.uploaded').length === 1 && kept(hook, (b) => b.kind === 'folder.uploaded'),
    {
      what: 'the upload’s webhook',
    },
  );
  const request = hook.requests.find((r) => r.json?.id === body.id)!;
  assert.ok(request.verified, 'the Standard Webhooks library verifies the signature');
  assert.is(request.headers['webhook-id'], body.id);
  assert.match(String(request.headers['webhook-timestamp']), /^\d{10}$/);
  assert.is(body.type, 'burrow.event');
  assert.is(body.version, 1);
  assert.equal(body.paths, [`${WATCHED}/${PHOTO}`]);
  assert.equal(body.recipient, { userId: aliceId, username: 'alice' });
  assert.is(body.actor.username, 'bob');
  assert.ok(body.text.includes(PHOTO), body.text);

  const published = await waitFor(() => ntfy.requests.find((r) => r.json?.message?.includes(PHOTO)), {
    what: 'the ntfy publish',
  });
  assert.is(published.json.topic, 'burrow-family');
  assert.is(published.json.title, `${PHOTO} added`);
  assert.is(published.headers.authorization, 'Bearer tk_family_ntfy_token_0001');
  assert.is(published.headers['content-type'], 'application/json');

  // A deletion in the watched folder comes after the two uploads elsewhere in the outbox's order:
  // once it has arrived, those were decided — and sent nothing.
  const del = await bob.delete('/api/files', { items: [{ path: WATCHED, name: PHOTO }] });
  assert.is(del.status, 200, del.text);
  await waitFor(() => kept(hook, (b) => b.kind === 'folder.deleted').length === 1, { what: 'the deletion’s webhook' });
  const all = hook.requests.map((r) => r.text).join('\n') + ntfy.requests.map((r) => r.text).join('\n');
  assert.not.ok(all.includes('Pancakes'), 'an unwatched folder sends nothing');
  assert.not.ok(all.includes('Taxes'), 'another account’s private folder never reaches alice');
  // Alice's own operations are not news to her.
  await upload(alice, WATCHED, 'Alice’s own scan.txt');
  await upload(bob, WATCHED, 'Bob again.txt');
  await waitFor(() => kept(hook, (b) => b.paths?.[0]?.endsWith('Bob again.txt')).length === 1, { what: 'bob again' });
  assert.not.ok(hook.requests.some((r) => r.text.includes('Alice’s own')));
});

test('a sign-in from a new address reaches the account; the same address again does not', async () => {
  // Alice's own browser (its device cookie) at a new address: a new address only.
  const from = new From(s.url, '203.0.113.9');
  from.cookies.set('burrow_device', alice.cookies.get('burrow_device')!);
  assert.is((await from.post('/api/auth/login', { identifier: 'alice', password: ALICE.password })).status, 200);
  const [msg] = await waitFor(
    () => {
      const m = kept(hook, (b) => b.kind === 'signin.new-address');
      return m.length ? m : undefined;
    },
    { what: 'the new-address message' },
  );
  assert.is(msg.address, '203.0.113.9');
  assert.is(msg.recipient.userId, aliceId);
  const again = new From(s.url, '203.0.113.9');
  again.cookies.set('burrow_device', from.cookies.get('burrow_device')!);
  assert.is((await again.post('/api/auth/login', { identifier: 'alice', password: ALICE.password })).status, 200);
  await upload(bob, WATCHED, 'After the second sign-in.txt');
  await waitFor(() => kept(hook, (b) => b.paths?.[0]?.endsWith('After the second sign-in.txt')).length === 1, {
    what: 'the marker',
  });
  assert.is(kept(hook, (b) => b.kind === 'signin.new-address').length, 1);
});

test('a 503 with Retry-After is tried again with the same id, and delivered once', async () => {
  hook.behaviour = { kind: 'status', status: 503, headers: { 'retry-after': '1' } };
  await upload(bob, WATCHED, 'Retry me — été.txt');
  const first = await waitFor(() => hook.requests.find((r) => r.text.includes('Retry me') && r.answered === 503), {
    what: 'the refused attempt',
  });
  hook.behaviour = { kind: 'ok' };
  await waitFor(() => hook.unique.has(first.json.id), { what: 'the retried message' });
  const attempts = hook.requests.filter((r) => r.json?.id === first.json.id);
  assert.ok(attempts.length >= 2);
  assert.ok(attempts.every((r) => r.verified));
});

test('a Retry-After of an hour is kept: the message waits that long, not the first backoff’s five seconds', async () => {
  hook.behaviour = { kind: 'status', status: 503, headers: { 'retry-after': '3600' } };
  const before = Date.now();
  await upload(bob, WATCHED, 'Parked for an hour – Ölbild.txt');
  const parked = await waitFor(
    async () =>
      (await admin.get('/api/admin/notify/deliveries?state=pending')).json.deliveries.find(
        (d: any) => d.destinationId === webhookId && d.title.includes('Parked for an hour'),
      ),
    { what: 'the refused attempt recorded', until: (d: any) => d?.attempts === 1 },
  );
  hook.behaviour = { kind: 'ok' };
  assert.is(parked.lastStatus, 503);
  // When it is due (behind the API: the database, read while the server is stopped).
  const nextAt = await s.withDatabase(
    (db) => db.get<{ next_at: number }>('SELECT next_at FROM notify_deliveries WHERE id = ?', [parked.id])!.next_at,
  );
  assert.ok(nextAt >= before + 3_600_000, `due ${nextAt - before} ms after the upload`);
});

test('a refusal is dead-lettered; the administrator sends it again with the same id', async () => {
  hook.behaviour = { kind: 'status', status: 410 };
  await upload(bob, WATCHED, 'Dead letter – Brief an Oma.txt');
  const dead = await waitFor(
    async () =>
      (await admin.get('/api/admin/notify/deliveries?state=dead')).json.deliveries.find(
        (d: any) => d.destinationId === webhookId,
      ),
    { what: 'the dead letter' },
  );
  assert.is(dead.lastStatus, 410);
  assert.is(dead.attempts, 1);
  assert.ok(dead.title.includes('Dead letter'));
  hook.behaviour = { kind: 'ok' };
  const again = await admin.post(`/api/admin/notify/deliveries/${dead.id}/retry`, {});
  assert.is(again.status, 200, again.text);
  assert.is(again.json.delivery.state, 'pending');
  await waitFor(() => hook.unique.has(dead.id), { what: 'the message sent again' });
  assert.is(hook.unique.get(dead.id).paths[0], `${WATCHED}/Dead letter – Brief an Oma.txt`);
  assert.is((await admin.post(`/api/admin/notify/deliveries/${dead.id}/retry`, {})).status, 409);
  assert.is((await admin.post('/api/admin/notify/deliveries/msg_nosuchmessage0000/retry', {})).status, 404);
});

test('send a test: through the outbox to the one destination, for the administrator', async () => {
  const r = await admin.post(`/api/admin/notify/destinations/${webhookId}/test`, {});
  assert.is(r.status, 202, r.text);
  const id = r.json.delivery.id;
  await waitFor(() => hook.unique.has(id), { what: 'the test message' });
  assert.is(hook.unique.get(id).kind, 'test');
  assert.is(hook.unique.get(id).recipient.username, ADMIN.username);
  const sent = await waitFor(
    async () =>
      (await admin.get('/api/admin/notify/deliveries?state=sent')).json.deliveries.find((d: any) => d.id === id),
    { what: 'the test delivery marked sent' },
  );
  assert.is(sent.lastStatus, 200);
});

test('a destination that never answers holds no request', async () => {
  hook.behaviour = { kind: 'hang' };
  const before = hook.requests.length;
  for (let i = 0; i < 6; i++) await upload(bob, WATCHED, `Held ${i} – ñandú.txt`);
  await waitFor(() => hook.requests.length > before, { what: 'the hanging destination reached' });
  // Requests go on being answered while the destination holds its connections.
  for (let i = 0; i < 6; i++) await upload(bob, 'Files/Recipes', `Still fast ${i}.txt`);
  assert.is((await bob.get('/api/browse/Files/Recipes')).status, 200);
  hook.behaviour = { kind: 'ok' };
});

test('attacker table: another account, tokens and a cross-site request change no destination and read no secret', async () => {
  const adminRows: [string, string, unknown?][] = [
    ['GET', '/api/admin/notify/destinations'],
    ['POST', '/api/admin/notify/destinations', { kind: 'webhook', name: 'evil', url: 'http://127.0.0.1:9/x' }],
    ['PATCH', `/api/admin/notify/destinations/${webhookId}`, { url: 'http://127.0.0.1:9/steal' }],
    ['DELETE', `/api/admin/notify/destinations/${webhookId}`],
    ['POST', `/api/admin/notify/destinations/${webhookId}/test`, {}],
    ['GET', '/api/admin/notify/deliveries?state=sent'],
    ['POST', '/api/admin/notify/deliveries/msg_nosuchmessage0000/retry', {}],
  ];
  const aliceToken = new Client(s.url, await issueToken(alice, 'write', { password: ALICE.password }));
  const aliceRead = new Client(s.url, await issueToken(alice, 'read', { password: ALICE.password }));
  const adminRead = new Client(s.url, await issueToken(admin, 'read'));
  for (const [method, p, body] of adminRows) {
    const a = await alice.request(method, p, body);
    assert.is(a.status, 403, `${method} ${p} as alice`);
    assert.is(envelope(a).code, 'ADMIN_ONLY');
    for (const t of [aliceToken, adminRead]) {
      const r = await t.request(method, p, body);
      assert.is(r.status, 403, `${method} ${p} with a token`);
      assert.is(envelope(r).code, 'AUTH_TOKEN_NOT_ALLOWED');
    }
  }
  const readPut = await aliceRead.put('/api/notify/prefs', { kinds: [], destinations: [], folders: [], emailOff: [] });
  assert.is(readPut.status, 403);
  assert.is(envelope(readPut).code, 'AUTH_TOKEN_READ_ONLY');
  assert.is((await aliceRead.get('/api/notify/prefs')).json.prefs.destinations.length, 2);
  const anonymous = new Client(s.url);
  assert.is((await anonymous.get('/api/notify/prefs')).status, 401);
  assert.is((await anonymous.get('/api/notify/destinations')).status, 401);

  const cross = { origin: 'https://evil.example' };
  const c1 = await alice.request('PUT', '/api/notify/prefs', { kinds: [], destinations: [], folders: [] }, cross);
  assert.is(envelope(c1).code, 'CROSS_SITE_REFUSED');
  const c2 = await admin.request(
    'POST',
    '/api/admin/notify/destinations',
    { kind: 'webhook', name: 'evil', url: 'http://127.0.0.1:9/x' },
    cross,
  );
  assert.is(envelope(c2).code, 'CROSS_SITE_REFUSED');
  const c3 = await admin.request(
    'PATCH',
    `/api/admin/notify/destinations/${webhookId}`,
    { url: 'http://127.0.0.1:9/x' },
    cross,
  );
  assert.is(envelope(c3).code, 'CROSS_SITE_REFUSED');

  const list = (await admin.get('/api/admin/notify/destinations')).json.destinations;
  assert.is(list.length, 2);
  assert.is(list.find((d: any) => d.id === webhookId).url, hook.url);
  assert.is((await alice.get('/api/notify/prefs')).json.prefs.destinations.length, 2);
});

test('the webhook body is described, versioned, in /api/openapi.json', async () => {
  const doc = (await new Client(s.url).get('/api/openapi.json')).json;
  const hookDoc = doc.webhooks['burrow.event'].post;
  assert.equal(
    hookDoc.parameters.map((p: any) => p.name),
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
  );
  const schema = hookDoc.requestBody.content['application/json'].schema;
  assert.is(schema.properties.version.const, 1);
  assert.ok(schema.properties.kind.enum.includes('folder.uploaded'));
  assert.ok(doc.paths['/api/admin/notify/destinations'].post);
});

test('secrets are sealed: the database holds neither the webhook secret nor the ntfy token', async () => {
  const text = await s.withDatabase((db) => JSON.stringify(db.all('SELECT * FROM notify_destinations')));
  assert.not.ok(text.includes(hook.secret!.slice('whsec_'.length, 30)));
  assert.not.ok(text.includes('tk_family_ntfy_token_0001'));
});

test('SIGKILL between the activity row and the acknowledged send: after a restart, delivered again with the same id — once after de-duplication', async () => {
  const dirs = makeDirs();
  fs.mkdirSync(path.join(dirs.volumes, 'Files', 'Family Photos & Scans'), { recursive: true });
  const receiver = await startReceiver('webhook');
  let run = await startChild(serverEnv(dirs));
  try {
    const root = await setupAdmin({ url: run.url } as TestServer);
    const mia = await createUser(root, { url: run.url } as TestServer, { username: 'mia', password: 'mia-password-1' });
    const d = await root.post('/api/admin/notify/destinations', {
      kind: 'webhook',
      name: 'Receiver',
      url: receiver.url,
    });
    receiver.secret = d.json.secret;
    const prefs = await mia.put('/api/notify/prefs', {
      kinds: ['folder.uploaded'],
      destinations: [d.json.destination.id],
      folders: [WATCHED],
    });
    assert.is(prefs.status, 200, prefs.text);
    receiver.behaviour = { kind: 'hang' };
    await upload(root, WATCHED, 'Killed mid-send – Zoë.txt');
    const held = await waitFor(() => receiver.requests.find((r) => r.text.includes('Killed mid-send')), {
      what: 'the attempt in flight',
    });
    await kill(run.child);
    receiver.behaviour = { kind: 'ok' };
    run = await startChild(serverEnv(dirs));
    await waitFor(() => receiver.unique.has(held.json.id), { what: 'the message after the restart' });
    // A second change after the restart: once it has arrived, the first had all its chances to repeat.
    await upload(await signIn({ url: run.url } as TestServer, ADMIN.username, ADMIN.password), WATCHED, 'After.txt');
    await waitFor(() => [...receiver.unique.values()].some((b) => b.paths[0].endsWith('After.txt')), { what: 'after' });
    assert.is(receiver.requests.filter((r) => r.json?.id === held.json.id).length, 2, 'sent once more, not more');
    assert.is([...receiver.unique.values()].filter((b) => b.paths[0].includes('Killed mid-send')).length, 1);
  } finally {
    await kill(run.child);
    await receiver.close();
    removeDirs(dirs);
  }
});

test.run();
