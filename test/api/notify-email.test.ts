// E-mail notifications through the real server and a real SMTP server on loopback (smtp-server):
// STARTTLS with a certificate of the test's own authority (given to the destination), the
// password sealed, never shown; a test message to the administrator; an upload in a watched
// folder mailed with a plain and an HTML body, its Message-ID the delivery id, RFC 8058 one-click
// unsubscribe (List-Unsubscribe + List-Unsubscribe-Post) that turns off that account's e-mails
// of that kind without signing in. The attacker table: a forged token, an altered one, another
// account's token (turns off that account only), a cross-site POST, opening the link (GET)
// changes nothing; a mailbox the server refuses is dead-lettered with its answer.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, createUser, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { decodeWords, startSmtp, type Mail, type SmtpReceiver } from '../support/smtp.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const WATCHED = 'Files/Famille Müller – Scans & Fotos';
const PHOTO = 'Grand-mère’s 90th #2 + <cake> (100%).jpg.txt';

let s: TestServer;
let smtp: SmtpReceiver;
let admin: Client;
let alice: Client;
let bob: Client;
let mailId: string;

async function upload(client: Client, folder: string, name: string, text = 'hello'): Promise<void> {
  const f = new FormData();
  f.append('uploadTo', folder);
  f.append('filedata', new Blob([text]), name);
  const r = await client.post('/api/upload', f);
  assert.is(r.status, 201, r.text);
}

const mailsTo = (address: string, pred: (m: Mail) => boolean = () => true) =>
  smtp.mails.filter((m) => m.to.includes(address) && pred(m));

/** The one-click address of a message: the URL inside List-Unsubscribe's angle brackets. */
function unsubscribeUrl(m: Mail): string {
  const value = m.headers.get('list-unsubscribe') ?? '';
  const url = /^<(https?:\/\/[^>]+)>$/.exec(value)?.[1];
  assert.ok(url, `List-Unsubscribe is one <URL>: ${value}`);
  return url!;
}

/** What a mail provider sends for a one-click unsubscribe (RFC 8058 §3.2): no cookie, no Origin. */
const oneClick = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: 'List-Unsubscribe=One-Click',
    redirect: 'manual',
  });

test.before(async () => {
  smtp = await startSmtp();
  s = await startServer({ env: { USER_DIR_ENABLED: 'true' } });
  fs.mkdirSync(path.join(s.dirs.volumes, WATCHED), { recursive: true });
  admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1', email: 'alice@example.org' });
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1', email: 'bob+fotos@example.org' });
});

test.after(async () => {
  await s?.close();
  await smtp?.close();
  if (s) removeDirs(s.dirs);
});

test('an e-mail destination: STARTTLS with its own authority, the password sealed and never shown', async () => {
  const base = {
    kind: 'email',
    name: 'Post – Familie Müller',
    url: s.url,
    host: '127.0.0.1',
    port: smtp.port,
    from: 'burrow@mail.example.org',
  };
  // Credentials are never sent in the clear; a sender must be an address.
  for (const [bad, why] of [
    [{ ...base, security: 'none', username: smtp.user, password: smtp.password }, 'credentials without TLS'],
    [{ ...base, security: 'starttls', from: 'not an address' }, 'from'],
    [{ ...base, security: 'ssl' }, 'security'],
    [{ ...base, security: 'tls', tlsCa: 'not a certificate' }, 'CA'],
  ] as const) {
    const r = await admin.post('/api/admin/notify/destinations', bad);
    assert.is(r.status, 400, `${why}: ${r.text}`);
    assert.ok(envelope(r).requestId);
  }
  assert.is((await admin.get('/api/admin/notify/destinations')).json.destinations.length, 0, 'nothing added');

  const added = await admin.post('/api/admin/notify/destinations', {
    ...base,
    security: 'starttls',
    username: smtp.user,
    password: smtp.password,
    tlsCa: smtp.ca,
  });
  assert.is(added.status, 201, added.text);
  mailId = added.json.destination.id;
  assert.is(added.json.secret, null);
  assert.equal(added.json.destination.smtp, {
    host: '127.0.0.1',
    port: smtp.port,
    security: 'starttls',
    username: smtp.user,
    from: 'burrow@mail.example.org',
    hasCa: true,
  });
  assert.is(added.json.destination.hasSecret, true);
  const list = await admin.get('/api/admin/notify/destinations');
  assert.not.ok(list.text.includes(smtp.password), 'the password is never shown');
  // Nor is it in the database's files: sealed under a key kept apart (CONFIG_DIR/keys).
  for (const f of fs.readdirSync(s.dirs.config).filter((n) => /\.(db|sqlite|db-wal)$/.test(n)))
    assert.not.ok(fs.readFileSync(path.join(s.dirs.config, f)).includes(Buffer.from('smtp pässword')), f);
  // Accounts see its name and kind only.
  const choosable = (await alice.get('/api/notify/destinations')).json.destinations;
  assert.equal(choosable, [{ id: mailId, kind: 'email', name: 'Post – Familie Müller' }]);
});

test('send a test: the administrator’s address receives it over STARTTLS, authenticated; the delivery says sent', async () => {
  const sent = await admin.post(`/api/admin/notify/destinations/${mailId}/test`);
  assert.is(sent.status, 202, sent.text);
  const delivery = await waitFor(
    async () => (await admin.get(`/api/admin/notify/deliveries/${sent.json.delivery.id}`)).json.delivery,
    { what: 'the test delivered', until: (d) => d.state !== 'pending', timeoutMs: 15_000 },
  );
  assert.is(delivery.state, 'sent', JSON.stringify(delivery));
  const [mail] = mailsTo(ADMIN.email);
  assert.ok(mail, 'the test message arrived');
  assert.ok(mail!.secure, 'upgraded with STARTTLS before the message');
  assert.is(mail!.user, smtp.user);
  assert.is(mail!.from, 'burrow@mail.example.org');
  assert.is(decodeWords(mail!.headers.get('subject')!), 'Test notification');
  assert.is(mail!.headers.get('message-id'), `<${sent.json.delivery.id}@mail.example.org>`);
  assert.not.ok(mail!.headers.has('list-unsubscribe'), 'a test is not a subscription');
  assert.ok(mail!.text.includes('Burrow can reach this destination.'));
  assert.ok(mail!.html.includes('Burrow can reach this destination.'));
});

test('an upload in a watched folder: plain and HTML bodies, one-click unsubscribe headers', async () => {
  for (const c of [alice, bob]) {
    const put = await c.put('/api/notify/prefs', {
      kinds: ['folder.uploaded', 'folder.deleted'],
      destinations: [mailId],
      folders: [WATCHED],
    });
    assert.is(put.status, 200, put.text);
    assert.equal(put.json.prefs.emailOff, []);
  }
  await upload(bob, WATCHED, PHOTO, 'a birthday');
  const [mail] = await waitFor(() => mailsTo('alice@example.org', (m) => m.text.includes(PHOTO)), {
    what: 'alice’s e-mail',
    until: (m) => m.length === 1,
  });
  assert.is(decodeWords(mail!.headers.get('subject')!), `${PHOTO} added`);
  assert.match(mail!.headers.get('message-id')!, /^<msg_[A-Za-z0-9_-]{32}@mail\.example\.org>$/);
  assert.is(mail!.headers.get('list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
  assert.is(mail!.headers.get('auto-submitted'), 'auto-generated');
  assert.match(mail!.headers.get('content-type')!, /^multipart\/alternative/);
  assert.ok(mail!.text.includes(`bob added ${WATCHED}/${PHOTO}.`), mail!.text);
  // The HTML body names the file escaped: the name's < > & are text, not markup.
  assert.ok(mail!.html.includes('Grand-mère’s 90th #2 + &lt;cake&gt; (100%).jpg.txt'), mail!.html);
  assert.not.ok(mail!.html.includes('<cake>'));
  assert.ok(mail!.html.includes('Famille Müller – Scans &amp; Fotos'));
  const url = unsubscribeUrl(mail!);
  assert.ok(url.startsWith(`${s.url}/api/notify/unsubscribe/folder.uploaded/`), url);
  assert.ok(mail!.text.includes(url) && mail!.html.includes(url), 'the link is in both bodies too');
});

test('one-click unsubscribe: only that account’s e-mails of that kind; forged, altered, cross-site and GET change nothing', async () => {
  const aliceMail = mailsTo('alice@example.org', (m) => m.text.includes(PHOTO))[0]!;
  await upload(alice, WATCHED, 'Alice’s scan 📷.txt');
  const [toBob] = await waitFor(() => mailsTo('bob+fotos@example.org', (m) => m.text.includes('Alice’s scan')), {
    what: 'bob’s e-mail about alice’s upload',
    until: (m) => m.length === 1,
  });
  // Bob uploaded the photo himself: his own operations are not news to him.
  assert.is(mailsTo('bob+fotos@example.org', (m) => m.text.includes(PHOTO)).length, 0);
  const aliceUrl = unsubscribeUrl(aliceMail);
  const bobUrl = unsubscribeUrl(toBob!);
  assert.is.not(aliceUrl, bobUrl, 'each account has its own token');
  const emailOff = async (c: Client) => (await c.get('/api/notify/prefs')).json.prefs.emailOff;

  const token = aliceUrl.split('/').pop()!;
  const forged = aliceUrl.replace(token, 'A'.repeat(43));
  const altered = aliceUrl.replace(token, token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'));
  for (const u of [forged, altered]) {
    const r = await oneClick(u);
    assert.is(r.status, 404, u);
    assert.ok((await r.json()).error.requestId);
  }
  // Another kind than the message's: the schema's kinds only ('test' is none).
  assert.is((await oneClick(aliceUrl.replace('/folder.uploaded/', '/test/'))).status, 400);
  // A page on another site posting the form: refused, whatever the token.
  for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }] as Record<
    string,
    string
  >[]) {
    const r = await oneClick(aliceUrl, headers);
    assert.is(r.status, 403, JSON.stringify(headers));
    assert.is((await r.json()).error.code, 'CROSS_SITE_REFUSED');
  }
  // Opening the link shows a page and changes nothing (link scanners open every link).
  const page = await fetch(aliceUrl);
  assert.is(page.status, 200);
  assert.match(page.headers.get('content-type')!, /^text\/html/);
  assert.match(page.headers.get('content-security-policy')!, /default-src 'none'/);
  const html = await page.text();
  assert.ok(html.includes('<form method="post">') && html.includes('Uploads in watched folders'), html);
  assert.not.ok(html.includes('<script'));
  assert.equal(await emailOff(alice), []);
  assert.equal(await emailOff(bob), []);

  // Bob's link turns off bob's e-mails only.
  const byBob = await oneClick(bobUrl);
  assert.is(byBob.status, 200);
  assert.equal(await byBob.json(), { unsubscribed: { kind: 'folder.uploaded', title: 'Uploads in watched folders' } });
  assert.equal(await emailOff(bob), ['folder.uploaded']);
  assert.equal(await emailOff(alice), []);

  // Alice's, from the link's page in her browser (same origin, no sign-in): back to the page, done.
  const fromPage = await oneClick(aliceUrl, { origin: s.url, accept: 'text/html' });
  assert.is(fromPage.status, 303);
  assert.is(fromPage.headers.get('location'), '?done=1');
  const done = await (await fetch(`${aliceUrl}?done=1`)).text();
  assert.ok(done.includes('E-mails are off'), done);
  assert.equal(await emailOff(alice), ['folder.uploaded']);

  // Now an upload sends alice nothing by e-mail, a deletion (still on) does; the deletion comes
  // later in the outbox's order, so once it has arrived the upload was decided.
  const before = smtp.mails.length;
  await upload(bob, WATCHED, 'After unsubscribing.txt');
  const del = await bob.delete('/api/files', { items: [{ path: WATCHED, name: 'After unsubscribing.txt' }] });
  assert.is(del.status, 200, del.text);
  await waitFor(
    () => mailsTo('alice@example.org', (m) => decodeWords(m.headers.get('subject')!).endsWith('deleted')).length === 1,
    { what: 'the deletion’s e-mail' },
  );
  assert.equal(
    smtp.mails.slice(before).map((m) => `${m.to} ${decodeWords(m.headers.get('subject')!)}`),
    ['alice@example.org After unsubscribing.txt deleted'],
  );

  // Settings turn it on again; leaving emailOff out of a change keeps it as it is.
  const kept = await alice.put('/api/notify/prefs', {
    kinds: ['folder.uploaded', 'folder.deleted'],
    destinations: [mailId],
    folders: [WATCHED],
  });
  assert.equal(kept.json.prefs.emailOff, ['folder.uploaded']);
  const on = await alice.put('/api/notify/prefs', { ...kept.json.prefs, emailOff: [] });
  assert.equal(on.json.prefs.emailOff, []);
});

test('a mailbox the server refuses (550) is dead-lettered with the server’s answer', async () => {
  smtp.refuse.add('alice@example.org');
  await upload(bob, WATCHED, 'Refused mailbox.txt');
  const dead = await waitFor(
    async () =>
      (await admin.get('/api/admin/notify/deliveries?state=dead')).json.deliveries.find(
        (d: any) => d.destinationId === mailId,
      ),
    { what: 'the refused e-mail dead-lettered' },
  );
  assert.is(dead.lastStatus, 550);
  assert.match(dead.lastError, /No such mailbox here/);
  assert.is(dead.attempts, 1, 'a 5xx is not retried');
  smtp.refuse.clear();
  const again = await admin.post(`/api/admin/notify/deliveries/${dead.id}/retry`);
  assert.is(again.status, 200, again.text);
  await waitFor(() => mailsTo('alice@example.org', (m) => m.text.includes('Refused mailbox.txt')).length === 1, {
    what: 'sent again',
  });
});

test.run();
