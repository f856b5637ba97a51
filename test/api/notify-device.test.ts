// A sign-in from a new device (browser): every sign-in that opens a session sets a long-lived
// device cookie, of which only an HMAC per account is kept. A later sign-in without it, with a
// forged value, or with another account's, on an account that already has a device, is told to
// the account's owner (the bell) with the browser named in plain words; the first device is not
// news, the same cookie again is none, and a new device at a new address is one notification.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { me, setupAdmin } from '../support/auth.ts';
import { Client } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { mailDestination, startSmtp } from '../support/smtp.ts';
import { waitFor } from '../support/wait.ts';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const ALICE = { username: 'zoë_“ß”_&_co', password: 'alice-password-1' };
const BOB = { username: 'bob', password: 'bob-password-1' };

let s: TestServer;
let admin: Client;
/** Alice's first browser: her bell is read through it. */
let laptop: Client;

/** A browser: its own cookie jar, its User-Agent, its address (through the trusted proxy). */
class Browser extends Client {
  ua: string;
  address: string;
  constructor(base: string, ua: string, address = '127.0.0.1') {
    super(base);
    this.ua = ua;
    this.address = address;
  }
  override request(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
    return super.request(method, p, body, { 'user-agent': this.ua, 'x-forwarded-for': this.address, ...headers });
  }
}

const signIn = async (b: Client, who: { username: string; password: string }) => {
  const r = await b.post('/api/auth/login', { identifier: who.username, password: who.password });
  assert.is(r.status, 200, r.text);
  return r;
};
const inbox = async (c: Client) => (await c.get('/api/notify/inbox')).json.items as any[];
const devices = async (c: Client) => (await inbox(c)).filter((i) => i.kind === 'signin.new-device');
test.before(async () => {
  s = await startServer({ env: { TRUST_PROXY: 'loopback' } });
  admin = await setupAdmin(s);
  for (const who of [ALICE, BOB]) {
    const r = await admin.post('/api/users', {
      email: `${who.username === 'bob' ? 'bob' : 'zoe'}@example.org`,
      username: who.username,
      password: who.password,
      roles: [],
    });
    assert.is(r.status, 201, r.text);
  }
});

test.after(async () => {
  await s?.close();
  if (s) removeDirs(s.dirs);
});

test('the first device is not news; the same cookie again is none; another browser is told, named', async () => {
  laptop = new Browser(s.url, FIREFOX);
  const first = await signIn(laptop, ALICE);
  const cookie = first.headers.getSetCookie().find((c) => c.startsWith('burrow_device='))!;
  assert.ok(cookie, 'the device cookie is set');
  assert.match(cookie, /HttpOnly/i);
  assert.match(cookie, /SameSite=Lax/i);
  assert.match(cookie, /Max-Age=34560000/);
  const token = laptop.cookies.get('burrow_device')!;
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  const r = await laptop.put('/api/notify/prefs', { kinds: ['signin.new-device'], destinations: [], folders: [] });
  assert.is(r.status, 200, r.text);
  // The same browser again (a new session, the same device cookie): nothing.
  await laptop.post('/api/auth/logout');
  await signIn(laptop, ALICE);
  assert.is(laptop.cookies.get('burrow_device'), token, 'a known device keeps its token');
  // Another browser: the owner is told, with the browser in plain words and the address.
  const phone = new Browser(s.url, SAFARI);
  await signIn(phone, ALICE);
  const [item] = await waitFor(() => devices(laptop), { what: 'alice told of the phone', until: (i) => i.length >= 1 });
  assert.is(item.title, 'Sign-in from a new device');
  assert.is(item.text, `${ALICE.username} signed in from a device not seen before: Safari on iPhone at 127.0.0.1.`);
  assert.is((await devices(laptop)).length, 1, 'the laptop’s second sign-in was not news');
  // The phone is known now: signing in on it again is not news either; the outbox is read to
  // its end through a marker (a new device of bob's, told to bob) before counting.
  const phoneToken = phone.cookies.get('burrow_device')!;
  assert.is.not(phoneToken, token);
  await phone.post('/api/auth/logout');
  await signIn(phone, ALICE);
  assert.is(phone.cookies.get('burrow_device'), phoneToken);
  const bobLaptop = new Browser(s.url, FIREFOX);
  await signIn(bobLaptop, BOB);
  assert.is(
    (await bobLaptop.put('/api/notify/prefs', { kinds: ['signin.new-device'], destinations: [], folders: [] })).status,
    200,
  );
  await signIn(new Browser(s.url, SAFARI), BOB);
  await waitFor(() => devices(bobLaptop), { what: 'bob told of his phone', until: (i) => i.length === 1 });
  assert.is((await devices(laptop)).length, 1, 'alice’s known phone again, and bob’s devices, are not alice’s news');
});

test('another account’s device cookie, a forged value and garbage each count as a new device', async () => {
  const before = (await devices(laptop)).length;
  // Bob's own laptop cookie, carried into a sign-in of alice's: unknown for alice.
  const bobs = new Browser(s.url, FIREFOX);
  await signIn(bobs, BOB);
  const bobToken = bobs.cookies.get('burrow_device')!;
  const planted = new Browser(s.url, FIREFOX);
  planted.cookies.set('burrow_device', bobToken);
  await signIn(planted, ALICE);
  assert.is.not(planted.cookies.get('burrow_device'), bobToken, 'an unknown token is never adopted');
  const forged = new Browser(s.url, FIREFOX);
  forged.cookies.set('burrow_device', 'A'.repeat(43));
  await signIn(forged, ALICE);
  assert.is.not(forged.cookies.get('burrow_device'), 'A'.repeat(43));
  const garbage = new Browser(s.url, 'curl/8.5.0');
  garbage.cookies.set('burrow_device', '../%00<script>');
  await signIn(garbage, ALICE);
  const items = await waitFor(() => devices(laptop), {
    what: 'alice told of three new devices',
    until: (i) => i.length === before + 3,
  });
  assert.ok(
    items.some((i) => i.text.includes(': curl at 127.0.0.1.')),
    JSON.stringify(items),
  );
  assert.is(items.filter((i) => i.text.includes('Firefox on Linux')).length, 2);
});

test('a new device at a new address is one notification, which says both and reaches a new-address choice', async () => {
  const laptop = new Browser(s.url, FIREFOX);
  await signIn(laptop, BOB);
  const r = await laptop.put('/api/notify/prefs', { kinds: ['signin.new-address'], destinations: [], folders: [] });
  assert.is(r.status, 200, r.text);
  const bobId = (await me(laptop)).id;
  const away = new Browser(s.url, SAFARI, '203.0.113.77');
  await signIn(away, BOB);
  const items = await waitFor(async () => (await inbox(laptop)).filter((i) => i.text.includes('203.0.113.77')), {
    what: 'bob told once',
    until: (i) => i.length >= 1,
  });
  assert.is(items.length, 1);
  assert.is(items[0].kind, 'signin.new-device');
  assert.is(
    items[0].text,
    'bob signed in from a device not seen before: Safari on iPhone at 203.0.113.77, an address not seen before either.',
  );
  assert.ok(bobId);
});

test('a new device at a new address, taken by a new-address choice, is delivered under that choice: its e-mail switch, the mail’s reason and stop link, the delivery list', async () => {
  const smtp = await startSmtp();
  try {
    const added = await admin.post('/api/admin/notify/destinations', mailDestination(smtp, s.url));
    assert.is(added.status, 201, added.text);
    const laptop = new Browser(s.url, FIREFOX);
    await signIn(laptop, BOB);
    const prefs = (emailOff: string[]) =>
      laptop.put('/api/notify/prefs', {
        kinds: ['signin.new-address'],
        destinations: [added.json.destination.id],
        folders: [],
        emailOff,
      });
    assert.is((await prefs(['signin.new-address'])).status, 200);
    const bobsMails = () => smtp.mails.filter((m) => m.to.includes('bob@example.org'));
    // A new browser at a new address: in bob's bell, by e-mail not (he turned new addresses' mail off).
    await signIn(new Browser(s.url, SAFARI, '203.0.113.88'), BOB);
    await waitFor(async () => (await inbox(laptop)).filter((i) => i.text.includes('203.0.113.88')), {
      what: 'bob told of 203.0.113.88 in his bell',
      until: (i) => i.length === 1,
    });
    // The mail on again: the next one is mailed — the marker that the outbox went past the first.
    assert.is((await prefs([])).status, 200);
    await signIn(new Browser(s.url, SAFARI, '203.0.113.99'), BOB);
    await waitFor(async () => bobsMails(), { what: 'the marker mailed to bob', until: (m) => m.length >= 1 });
    const texts = bobsMails().map((m) => m.text);
    assert.is(texts.length, 1, texts.join('\n---\n'));
    assert.ok(texts[0]!.includes('203.0.113.99'), texts[0]);
    // The mail says the choice it came under, new addresses (not new devices, which bob never chose).
    const [mail] = bobsMails();
    assert.ok(mail!.text.includes('because of your choice “Sign-ins from a new address”'), mail!.text);
    assert.ok(mail!.html.includes('because of your choice “Sign-ins from a new address”'), mail!.html);
    assert.not.ok(mail!.text.includes('Sign-ins from a new device'), mail!.text);
    // The administrator's list names that kind too (once sent: the mail arrives before it is marked).
    const bobId = (await me(laptop)).id;
    const listed = async (states = ['held', 'pending', 'sent', 'dead', 'digested']) => {
      const rows: any[] = [];
      for (const state of states)
        rows.push(...(await admin.get(`/api/admin/notify/deliveries?state=${state}`)).json.deliveries);
      return rows.filter((d) => d.userId === bobId);
    };
    const sent = await waitFor(() => listed(['sent']), {
      what: 'bob’s mail listed as sent',
      until: (d) => d.length > 0,
    });
    assert.equal(
      sent.map((d) => d.kind),
      ['signin.new-address'],
    );
    // Its stop link (one click, as a mail provider sends it) turns off new addresses' mail.
    const link = /^<(https?:\/\/[^>]+)>$/.exec(mail!.headers.get('list-unsubscribe') ?? '')?.[1];
    assert.ok(link?.startsWith(`${s.url}/api/notify/unsubscribe/signin.new-address/`), link);
    assert.ok(mail!.text.includes(`Stop these e-mails: ${link}`), mail!.text);
    const stopped = await fetch(link!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    assert.is(stopped.status, 200, await stopped.clone().text());
    assert.equal((await laptop.get('/api/notify/prefs')).json.prefs.emailOff, ['signin.new-address']);
    // The next new address: in his bell, and no delivery was made for it (fanned out with the bell
    // in one transaction), so no mail will come.
    await signIn(new Browser(s.url, SAFARI, '203.0.113.111'), BOB);
    await waitFor(async () => (await inbox(laptop)).filter((i) => i.text.includes('203.0.113.111')), {
      what: 'bob told of 203.0.113.111 in his bell',
      until: (i) => i.length === 1,
    });
    assert.is((await listed()).length, 1);
    assert.is(bobsMails().length, 1);
  } finally {
    await smtp.close();
  }
});

test('the device cookie is never stored in the clear', async () => {
  const b = new Browser(s.url, FIREFOX);
  await signIn(b, ALICE);
  const token = b.cookies.get('burrow_device')!;
  const bytes = Buffer.concat(
    ['burrow.db', 'burrow.db-wal']
      .map((f) => path.join(s.dirs.config, f))
      .filter((f) => fs.existsSync(f))
      .map((f) => fs.readFileSync(f)),
  );
  assert.ok(bytes.includes(Buffer.from('sign_in_devices')), 'the database holds the devices table');
  assert.not.ok(bytes.includes(Buffer.from(token)), 'the token is not in the database');
  assert.not.ok(bytes.includes(Buffer.from(Buffer.from(token, 'base64url').toString('hex'))), 'nor its bytes in hex');
});

test.run();
