// Quiet hours and digests through the real server, with the peers the other notification tests
// use: a real SMTP server (smtp-server, STARTTLS on a test authority), the Web Push stand-in
// that decrypts with the subscription's keys, an ntfy stand-in and a verifying webhook receiver.
// Time is the server's NOTIFY_CLOCK_FILE, written by the test (never a sleep). An account in
// Europe/Berlin with quiet hours 22:00–07:00: uploads at 22:30 reach the bell at once, wait in
// the database across a restart, and at 07:00 go out as one digest per destination (one mail
// listing them, one push and one ntfy message "3 events"); another restart sends none of them
// again. Hourly and daily digests chosen by destination, a kind's choice winning over its
// destination's; webhooks (programs) get each event at once. Bad settings are refused whole.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { startPushService, type PushService, type PushSubscriber } from '../support/push-service.ts';
import { startReceiver, type Receiver } from '../support/receivers.ts';
import { makeDirs, removeDirs, startServer, type TestServer } from '../support/server.ts';
import { decodeWords, mailDestination, startSmtp, type SmtpReceiver } from '../support/smtp.ts';
import { waitFor } from '../support/wait.ts';

const WATCHED = 'Files/Familie Weiß – Fotos & Scans #2026';
const NIGHT = ['Zeugnis “Ämelie” (100%).pdf', 'Strand 🌊 + Sonne.jpg', 'Über den Wolken – Flug #12.mov'];
const ALICE_MAIL = 'alice.weiss+burrow@example.org';

let s: TestServer;
let smtp: SmtpReceiver;
let push: PushService;
let ntfy: Receiver;
let hook: Receiver;
let admin: Client;
let alice: Client;
let bob: Client;
let phone: PushSubscriber;
let clockFile: string;
const ids = { mail: '', push: '', ntfy: '', hook: '' };

/** The server's now, as the wall clock in Berlin shows it (CET, +01:00, in early March 2026). */
const setClock = (berlin: string) => fs.writeFileSync(clockFile, `${berlin}+01:00`);

async function upload(client: Client, name: string): Promise<void> {
  const f = new FormData();
  f.append('uploadTo', WATCHED);
  f.append('filedata', new Blob([`contents of ${name}`]), name);
  const r = await client.post('/api/upload', f);
  assert.is(r.status, 201, r.text);
}

const mails = (pred: (subject: string, text: string) => boolean = () => true) =>
  smtp.mails.filter((m) => m.to.includes(ALICE_MAIL) && pred(decodeWords(m.headers.get('subject') ?? ''), m.text));
const pushes = (title: string) => push.messages.filter((m) => m.payload?.title === title);
const ntfys = (title: string) => ntfy.requests.filter((r) => r.json?.title === title);
const deliveries = async (state: string) =>
  (await admin.get(`/api/admin/notify/deliveries?state=${state}`)).json.deliveries as any[];
const unread = async () => (await alice.get('/api/notify/inbox')).json.unread as number;

test.before(async () => {
  [smtp, push, ntfy, hook] = await Promise.all([
    startSmtp(),
    startPushService(),
    startReceiver('ntfy'),
    startReceiver('webhook'),
  ]);
  const dirs = makeDirs();
  clockFile = path.join(dirs.root, 'now');
  setClock('2026-03-02T21:00:00');
  s = await startServer({ dirs, env: { PUSH_SERVICES: push.origin, NOTIFY_CLOCK_FILE: clockFile } });
  fs.mkdirSync(path.join(s.dirs.volumes, WATCHED), { recursive: true });
  admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1', email: ALICE_MAIL });
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  const add = async (body: Record<string, unknown>) => {
    const r = await admin.post('/api/admin/notify/destinations', body);
    assert.is(r.status, 201, r.text);
    return r.json;
  };
  ids.mail = (await add(mailDestination(smtp, s.url))).destination.id;
  ids.push = (await add({ kind: 'push', name: 'Browser & Telefon' })).destination.id;
  ids.ntfy = (await add({ kind: 'ntfy', name: 'ntfy im Keller', url: ntfy.url, topic: 'familie' })).destination.id;
  const added = await add({ kind: 'webhook', name: 'Home Assistant', url: hook.url });
  ids.hook = added.destination.id;
  hook.secret = added.secret;
  phone = push.subscriber('alice phone');
  const sub = await alice.post('/api/notify/push/subscriptions', phone.subscription);
  assert.is(sub.status, 201, sub.text);
});

test.after(async () => {
  await s?.close();
  await Promise.all([smtp?.close(), push?.close(), ntfy?.close(), hook?.close()]);
  if (s) removeDirs(s.dirs);
});

test('bad settings are refused whole: an unknown time zone, quiet hours that never start, 24:00', async () => {
  const base = { kinds: ['folder.uploaded'], destinations: [ids.mail], folders: [WATCHED] };
  assert.is((await alice.put('/api/notify/prefs', base)).status, 200);
  const before = (await alice.get('/api/notify/prefs')).json.prefs;
  assert.is(before.timeZone, 'UTC');
  assert.is(before.quietHours, null);
  assert.equal(before.delivery, { destinations: {}, kinds: {} });
  for (const [bad, why] of [
    [{ timeZone: 'Mars/Olympus_Mons' }, 'time zone'],
    [{ timeZone: 'Europe/Berlin', quietHours: { from: '22:00', to: '22:00' } }, 'empty quiet hours'],
    [{ quietHours: { from: '22:00', to: '24:00' } }, '24:00'],
    [{ dailyAt: '7:00' }, 'H:MM'],
    [{ delivery: { destinations: { [ids.mail]: 'weekly' }, kinds: {} } }, 'weekly'],
    [{ delivery: { destinations: {}, kinds: { test: 'daily' } } }, 'a kind nobody chooses'],
  ] as const) {
    const r = await alice.put('/api/notify/prefs', { ...base, kinds: ['folder.changed'], ...bad });
    assert.is(r.status, 400, `${why}: ${r.text}`);
    assert.ok(envelope(r).requestId);
  }
  assert.equal((await alice.get('/api/notify/prefs')).json.prefs, before, 'nothing changed');
  // A page on another site cannot set them either.
  const cross = await alice.put(
    '/api/notify/prefs',
    { ...base, quietHours: { from: '00:00', to: '23:59' } },
    { origin: 'https://evil.example' },
  );
  assert.is(cross.status, 403);
  assert.equal((await alice.get('/api/notify/prefs')).json.prefs, before);
});

test('quiet hours: events wait (the bell has them), survive a restart, and go out as one digest per destination', async () => {
  const put = await alice.put('/api/notify/prefs', {
    kinds: ['folder.uploaded'],
    destinations: [ids.mail, ids.push, ids.ntfy, ids.hook],
    folders: [WATCHED],
    timeZone: 'Europe/Berlin',
    quietHours: { from: '22:00', to: '07:00' },
  });
  assert.is(put.status, 200, put.text);
  assert.equal(put.json.prefs.quietHours, { from: '22:00', to: '07:00' });
  // Bob's own settings are his: alice's schedule is not his.
  assert.is((await bob.get('/api/notify/prefs')).json.prefs.quietHours, null);

  setClock('2026-03-02T22:30:00');
  for (const name of NIGHT) await upload(bob, name);
  await waitFor(unread, { what: 'the bell has the three uploads', until: (n) => n === 3 });
  // The bell's rows and the held deliveries are written in one transaction: they are held now.
  const held = await deliveries('held');
  assert.is(held.length, 9, JSON.stringify(held));
  assert.equal([...new Set(held.map((d) => d.destinationId))].sort(), [ids.mail, ids.push, ids.ntfy].sort());
  // A webhook is read by a program: each event at once, quiet hours or not.
  await waitFor(() => hook.unique.size, { what: 'the webhook’s three events', until: (n) => n === 3 });
  assert.is(mails().length, 0, 'no mail in the night');
  assert.is(push.messages.length, 0, 'no push in the night');
  assert.is(ntfy.requests.length, 0, 'no ntfy message in the night');

  await s.restart();
  assert.is((await deliveries('held')).length, 9, 'held across a restart');
  assert.is(mails().length + push.messages.length + ntfy.requests.length, 0);

  setClock('2026-03-03T07:00:20');
  const [mail] = await waitFor(() => mails((subject) => subject === '3 events'), {
    what: 'the morning’s digest mail',
    until: (m) => m.length === 1,
    timeoutMs: 15_000,
  });
  for (const name of NIGHT) assert.ok(mail!.text.includes(`bob added ${WATCHED}/${name}.`), mail!.text);
  assert.ok(mail!.html.includes('Familie Weiß – Fotos &amp; Scans #2026'), mail!.html);
  assert.ok(mail!.secure);
  const [pushed] = await waitFor(() => pushes('3 events'), { what: 'the digest push', until: (m) => m.length === 1 });
  assert.is(pushed!.payload.kind, 'digest');
  assert.ok(pushed!.vapid.ok);
  for (const name of NIGHT) assert.ok(pushed!.payload.body.includes(name), pushed!.payload.body);
  const [published] = await waitFor(() => ntfys('3 events'), {
    what: 'the digest on ntfy',
    until: (m) => m.length === 1,
  });
  assert.is(published!.json.topic, 'familie');
  for (const name of NIGHT) assert.ok(published!.json.message.includes(name), published!.json.message);
  // One message each, nothing else: the nine held ones went out inside the three digests.
  await waitFor(async () => (await deliveries('digested')).length, { what: 'nine digested', until: (n) => n === 9 });
  assert.is((await deliveries('held')).length, 0);
  await waitFor(async () => (await deliveries('sent')).filter((d) => d.kind === 'digest').length, {
    what: 'three digests sent',
    until: (n) => n === 3,
  });
  assert.is(mails().length, 1);
  assert.is(push.messages.length, 1);
  assert.is(ntfy.requests.length, 1);

  // A restart after the digests: nothing goes out twice. The next event (daytime) goes at once —
  // by the time it has arrived, a digest sent again would have arrived too.
  await s.restart();
  setClock('2026-03-03T07:05:00');
  await upload(bob, 'Frühstück 🥐.jpg');
  await waitFor(() => mails((subject) => subject === 'Frühstück 🥐.jpg added'), {
    what: 'the daytime mail at once',
    until: (m) => m.length === 1,
  });
  await waitFor(() => ntfys('Frühstück 🥐.jpg added').length + pushes('Frühstück 🥐.jpg added').length, {
    what: 'the daytime push and ntfy message',
    until: (n) => n === 2,
  });
  assert.is(mails((subject) => subject === '3 events').length, 1, 'the digest mail once');
  assert.is(pushes('3 events').length, 1);
  assert.is(ntfys('3 events').length, 1);
  assert.is(await unread(), 4);
});

test('hourly and daily digests by destination; a kind’s choice wins; one held event goes out as itself', async () => {
  const base = {
    kinds: ['folder.uploaded'],
    destinations: [ids.mail, ids.push, ids.ntfy],
    folders: [WATCHED],
  };
  const put = await alice.put('/api/notify/prefs', {
    ...base,
    dailyAt: '18:30',
    delivery: { destinations: { [ids.mail]: 'daily', [ids.ntfy]: 'hourly' }, kinds: {} },
  });
  assert.is(put.status, 200, put.text);
  assert.is(put.json.prefs.timeZone, 'Europe/Berlin', 'left out: kept');
  assert.equal(put.json.prefs.quietHours, { from: '22:00', to: '07:00' });

  setClock('2026-03-03T09:10:00');
  const morning = ['Rechnung Nr. 42 & Mahnung.pdf', 'Ökotest „Müsli“.png'];
  for (const name of morning) await upload(bob, name);
  // Push is at once (no choice named): each event its own message.
  await waitFor(() => morning.every((n) => pushes(`${n} added`).length === 1), { what: 'two pushes at once' });
  const held = await waitFor(() => deliveries('held'), { what: 'four held', until: (d) => d.length === 4 });
  assert.equal(held.map((d) => d.destinationId).sort(), [ids.mail, ids.mail, ids.ntfy, ids.ntfy].sort());

  setClock('2026-03-03T10:00:05');
  const [hourly] = await waitFor(() => ntfys('2 events'), { what: 'the hourly digest', until: (m) => m.length === 1 });
  for (const n of morning) assert.ok(hourly!.json.message.includes(n), hourly!.json.message);
  const stillHeld = await deliveries('held');
  assert.equal(
    stillHeld.map((d) => d.destinationId),
    [ids.mail, ids.mail],
    'the mail waits for 18:30',
  );
  assert.is(mails((subject) => subject === '2 events').length, 0);

  setClock('2026-03-03T18:30:01');
  const [daily] = await waitFor(() => mails((subject) => subject === '2 events'), {
    what: 'the daily digest mail',
    until: (m) => m.length === 1,
  });
  for (const n of morning) assert.ok(daily!.text.includes(n), daily!.text);
  // Not a subscription of its own: no unsubscribe link, the settings named instead.
  assert.not.ok(daily!.headers.has('list-unsubscribe'));
  assert.ok(daily!.text.includes(`${s.url}/settings/notifications`));

  // The kind's choice (at once) wins over the mail's daily digest.
  const kind = await alice.put('/api/notify/prefs', {
    ...base,
    delivery: { destinations: { [ids.mail]: 'daily', [ids.ntfy]: 'hourly' }, kinds: { 'folder.uploaded': 'now' } },
  });
  assert.is(kind.status, 200, kind.text);
  setClock('2026-03-03T19:00:00');
  await upload(bob, 'Abendbrot.jpg');
  await waitFor(() => mails((subject) => subject === 'Abendbrot.jpg added'), {
    what: 'the mail at once',
    until: (m) => m.length === 1,
  });

  // One event held alone goes out as itself at the end of the quiet hours, not as "1 events".
  await alice.put('/api/notify/prefs', { ...base, delivery: { destinations: {}, kinds: {} } });
  setClock('2026-03-03T23:15:00');
  await upload(bob, 'Nachtzug 🚆.jpg');
  await waitFor(() => deliveries('held'), { what: 'three held', until: (d) => d.length === 3 });
  setClock('2026-03-04T07:00:00');
  await waitFor(() => mails((subject) => subject === 'Nachtzug 🚆.jpg added'), {
    what: 'the one held mail',
    until: (m) => m.length === 1,
  });
  await waitFor(() => ntfys('Nachtzug 🚆.jpg added').length + pushes('Nachtzug 🚆.jpg added').length, {
    what: 'the one held push and ntfy message',
    until: (n) => n === 2,
  });
  assert.is(mails((subject) => subject === '1 events').length, 0);
});

test.run();
