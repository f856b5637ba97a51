// Three instances on one PostgreSQL and one shared volume folder, behind a balancer that sends
// every request to the next instance in turn (no sticky sessions) — issue 31's cluster: the
// secrets every instance signs with come from the database (a session opened on one is good on
// the others; signed out on one, refused on the others), failed sign-ins count across instances,
// concurrent uploads of one name through all three get distinct names, a WebDAV lock taken on
// one holds on another, a change made through one reaches another's search, folder sizes
// and live folder view through the change stream (LISTEN/NOTIFY), and so does an outside change
// one instance's index found (a forged finding makes each instance read the path again, no more). Each instance has its own
// CONFIG_DIR and CACHE_DIR, as separate machines would.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import WebSocket from 'ws';
import { ADMIN, createUser, me, setupAdmin } from '../support/auth.ts';
import { startBalancer, type Balancer } from '../support/balancer.ts';
import { Client, envelope } from '../support/client.ts';
import { testPostgres } from '../support/postgres.ts';
import { makeDirs, removeDirs, startServer, type TestDirs, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const ZOE = { username: 'Zoë.Ångström', email: 'zoe.angstrom@example.org', password: 'a long passphrase 1' };
const FOLDER = 'Familie Müller & Co #2 + 🦔';
const INES = { username: 'ines.müller', email: 'ines@example.org', password: 'another long passphrase 2' };
const BO = { username: 'bo', email: 'bo@example.org', password: 'bo’s long passphrase 3' };
const q = encodeURIComponent;
const url = (p: string) => p.split('/').map(q).join('/');

let shared: TestDirs;
let database: string;
const instances: TestServer[] = [];
let balancer: Balancer;
let admin: Client;

/** A client on instance `i` carrying `from`'s cookies (the same browser reaching another instance). */
function on(i: number, from: Client): Client {
  const c = new Client(instances[i]!.url);
  c.cookies = new Map(from.cookies);
  return c;
}

function upload(client: Client, folder: string, name: string, body: string | Uint8Array<ArrayBuffer>) {
  const form = new FormData();
  form.append('filedata', new Blob([body]), name);
  return client.post(`/api/upload?uploadTo=${q(folder)}`, form);
}

test.before(async () => {
  database = await (await testPostgres()).database();
  shared = makeDirs('burrow-cluster-');
  fs.mkdirSync(path.join(shared.volumes, 'Files', FOLDER), { recursive: true });
  const env = {
    DATABASE_URL: database,
    CLUSTER_KEY: crypto.randomBytes(32).toString('base64url'),
    FOLDER_SIZE_MODE: 'full',
    FOLDER_SIZE_FLUSH_MS: '20',
    AUTH_MAX_FAILED: '5',
  };
  const boot = () => {
    const dirs = makeDirs('burrow-node-');
    dirs.volumes = shared.volumes;
    return startServer({ dirs, env });
  };
  instances.push(await boot());
  instances.push(...(await Promise.all([boot(), boot()])));
  balancer = await startBalancer(instances.map((s) => s.url));
  admin = await setupAdmin(instances[0]!);
  await createUser(admin, instances[0]!, ZOE);
});

test.after(async () => {
  await balancer?.close();
  for (const s of instances) {
    await s.close();
    removeDirs(s.dirs);
  }
  if (shared) removeDirs(shared);
});

test('a session opened through the balancer holds on every instance; signed out on one, refused on the others', async () => {
  const zoe = new Client(balancer.url);
  assert.is((await zoe.post('/api/auth/login', { identifier: ZOE.username, password: ZOE.password })).status, 200);
  const from = balancer.sentTo.length;
  for (let n = 0; n < 6; n++) {
    const me = await zoe.get('/api/auth/me');
    assert.is(me.status, 200, me.text);
    assert.is(me.json.user.username, ZOE.username);
  }
  assert.equal(new Set(balancer.sentTo.slice(from)), new Set([0, 1, 2]), 'every instance answered');
  // Signed out on instance 1: refused on 0 and 2 (every request reads the session's row).
  assert.is((await on(1, zoe).post('/api/auth/logout')).status, 204);
  for (const i of [0, 2]) {
    const me = await on(i, zoe).get('/api/auth/me');
    assert.is(me.json.user, null, `instance ${i}: ${me.text}`);
    assert.is((await on(i, zoe).get('/api/volumes')).status, 401, `instance ${i}`);
  }
});

test('failed sign-ins count across instances: five wrong passwords at once through three instances lock the account', async () => {
  const tries = await Promise.all(
    Array.from({ length: 5 }, () =>
      new Client(balancer.url).post('/api/auth/login', { identifier: ZOE.username, password: 'wrong, sorry' }),
    ),
  );
  for (const t of tries) assert.ok([401, 429].includes(t.status), t.text);
  for (const i of [0, 1, 2]) {
    const right = await new Client(instances[i]!.url).post('/api/auth/login', {
      identifier: ZOE.username,
      password: ZOE.password,
    });
    assert.is(right.status, 429, `instance ${i}: ${right.text}`);
    assert.is(envelope(right).code, 'AUTH_ACCOUNT_LOCKED');
  }
});

test('20 concurrent uploads of one name through three instances give 20 distinct names, every byte kept', async () => {
  const client = new Client(balancer.url);
  client.cookies = new Map(admin.cookies);
  const name = 'Relevé de compte – Café “Ölberg” & Söhne #3 + 50% 📄.pdf';
  const bodies = Array.from({ length: 20 }, (_, n) => `%PDF-1.4 statement ${n} ${'x'.repeat(1000 * n)}\n`);
  const answers = await Promise.all(bodies.map((b) => upload(client, 'Files/' + FOLDER, name, b)));
  for (const a of answers) assert.is(a.status, 201, a.text);
  const names = answers.map((a) => a.json[0].name as string);
  assert.is(new Set(names).size, 20, names.join(' | '));
  const onDisk = fs.readdirSync(path.join(shared.volumes, 'Files', FOLDER)).filter((n) => n.endsWith('.pdf'));
  assert.is(onDisk.length, 20, onDisk.join(' | '));
  const contents = new Set(onDisk.map((n) => fs.readFileSync(path.join(shared.volumes, 'Files', FOLDER, n), 'utf8')));
  assert.equal(contents, new Set(bodies));
});

test('a name another instance is placing an entry under counts as taken until it lets go', async () => {
  const client = on(2, admin);
  const name = 'Kontoauszug März & Söhne #4 + 🧾.pdf';
  const target = path.join(shared.volumes, 'Files', FOLDER, name);
  const key = crypto.createHash('sha256').update(target, 'utf8').digest('hex');
  const sql = async (text: string, values: unknown[]) => {
    const c = new pg.Client(database);
    await c.connect();
    try {
      await c.query(text, values);
    } finally {
      await c.end();
    }
  };
  // As instance 0 would hold it between its claim and its link onto the shared folder.
  await sql('INSERT INTO name_claims (path_hash, owner, expires_at) VALUES ($1, $2, $3)', [
    key,
    'another instance',
    new Date(Date.now() + 60_000).toISOString(),
  ]);
  const first = await upload(client, 'Files/' + FOLDER, name, '%PDF-1.4 März\n');
  assert.is(first.status, 201, first.text);
  assert.is(first.json[0].name, 'Kontoauszug März & Söhne #4 + 🧾 (1).pdf');
  assert.not.ok(fs.existsSync(target), 'the held name was left alone');
  await sql('DELETE FROM name_claims WHERE path_hash = $1', [key]);
  const second = await upload(client, 'Files/' + FOLDER, name, '%PDF-1.4 April\n');
  assert.is(second.status, 201, second.text);
  assert.is(second.json[0].name, name);
});

test('a WebDAV LOCK taken on one instance is honoured on another', async () => {
  const auth = 'Basic ' + Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64');
  const file = `/dav/Files/${url(FOLDER)}/${q('Notizen für Jürgen & Ana #1.txt')}`;
  const put = (i: number, headers: Record<string, string> = {}) =>
    fetch(instances[i]!.url + file, {
      method: 'PUT',
      headers: { authorization: auth, ...headers },
      body: 'Hallo 👋\n',
    });
  assert.is((await put(0)).status, 201);
  const lock = await fetch(instances[0]!.url + file, {
    method: 'LOCK',
    headers: { authorization: auth, 'content-type': 'application/xml', Timeout: 'Second-600' },
    body:
      '<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope>' +
      '<D:locktype><D:write/></D:locktype><D:owner><D:href>Zoë&apos;s laptop</D:href></D:owner></D:lockinfo>',
  });
  assert.is(lock.status, 200, await lock.text());
  const token = /<([^>]+)>/.exec(lock.headers.get('lock-token') ?? '')?.[1];
  assert.ok(token);
  for (const i of [1, 2]) assert.is((await put(i)).status, 423, `instance ${i} without the token`);
  assert.is((await put(2, { If: `(<${token}>)` })).status, 204, 'instance 2 with the token');
});

test('a change through one instance reaches another one’s search, folder size and live folder view', async () => {
  const [a, b] = [on(0, admin), on(1, admin)];
  const folder = `Files/${FOLDER}/Fotos Åre 2024`;
  assert.is((await a.post('/api/files/folder', { path: `Files/${FOLDER}`, name: 'Fotos Åre 2024' })).status, 201);
  const before = await waitFor(() => b.get(`/api/folder-size/${url(folder)}`), {
    what: 'the new folder indexed on instance 1',
    until: (r) => r.status === 200 && r.json.indexed === true,
    seen: (r) => r.text,
  });
  assert.is(before.json.sizeBytes, 0);

  const ws = new WebSocket(`${instances[1]!.url.replace(/^http/, 'ws')}/api/live`, {
    headers: { cookie: b.cookieHeader },
    origin: instances[1]!.url,
  });
  const messages: any[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
  await new Promise((resolve, reject) => ws.on('open', resolve).on('error', reject));
  ws.send(JSON.stringify({ type: 'watch', path: folder }));
  await waitFor(() => messages.find((m) => m.type === 'watching'), { what: 'watching', seen: () => messages });

  const photo = 'Sonnenuntergang über dem Åresjön #7 + Freunde 🌅.jpg';
  const bytes = crypto.randomBytes(4321);
  assert.is((await upload(a, folder, photo, bytes)).status, 201);

  await waitFor(() => messages.flatMap((m) => (m.type === 'changes' ? m.events : [])).find((e) => e.name === photo), {
    what: 'instance 1’s live view to hear the upload made through instance 0',
    seen: () => messages,
  });
  await waitFor(() => b.get(`/api/folder-size/${url(folder)}`), {
    what: 'instance 1’s folder size to count the upload',
    until: (r) => r.status === 200 && r.json.sizeBytes === bytes.length,
    seen: (r) => r.text,
  });
  await waitFor(() => b.get(`/api/search?q=${q('Sonnenuntergang')}`), {
    what: 'instance 1’s search to find the upload',
    until: (r) => r.status === 200 && r.json.items.some((i: any) => i.name === photo),
    seen: (r) => r.text,
  });
  ws.close();
});

/** Instance `i`'s folder-size record of `p` once it is final (indexed, nothing left to apply), meeting `until`. */
function finalSize(i: number, p: string, what: string, until: (r: any) => boolean = () => true) {
  return waitFor(() => on(i, admin).get(`/api/folder-size/${url(p)}`), {
    what: `instance ${i}: ${what}`,
    until: (r) => r.status === 200 && r.json.indexed === true && r.json.complete === true && until(r.json),
    seen: (r) => r.text,
  }).then((r) => r.json);
}

const ARCHIVE = 'Archiv – Zoë 2009 #1';
const archiveDisk = (...p: string[]) => path.join(shared.volumes, 'Files', FOLDER, ARCHIVE, ...p);

test('an outside change one instance’s index finds (a folder on screen read again) is every instance’s: search and folder sizes', async () => {
  const archive = `Files/${FOLDER}/${ARCHIVE}`;
  assert.is((await on(0, admin).post('/api/files/folder', { path: `Files/${FOLDER}`, name: ARCHIVE })).status, 201);
  await finalSize(0, archive, 'the new folder indexed');
  // Every instance agrees on the volume, the new folder in it. Instances 1 and 2 are not asked
  // about the archive itself: each folder asked about is read again there (a moment later).
  const volume = await finalSize(0, 'Files', 'the volume with the new folder');
  for (const i of [1, 2])
    await finalSize(
      i,
      'Files',
      'the volume as instance 0 has it',
      (r) => r.sizeBytes === volume.sizeBytes && r.entryCount === volume.entryCount,
    );

  // Written on the shared folder from outside (no instance hears it: inotify does not see a
  // network mount). Only instance 0 is asked about the archive, so only its index reads it again.
  const name = 'Kontoauszug März 2024 + Zinsen & „Ü“ 50% ☂.txt';
  const bytes = Buffer.from('quokkaledger of the year\n'.repeat(40));
  fs.writeFileSync(archiveDisk(name), bytes);
  await finalSize(0, archive, 'the outside file counted', (r) => r.sizeBytes === bytes.length);

  // Instances 1 and 2 are asked only about the volume: reading its folder again finds nothing
  // there (the file is two folders down). What instance 0 found reaches their indexes — before,
  // they answered the volume final without the file, for as long as nothing read the archive there.
  for (const i of [1, 2]) {
    await finalSize(
      i,
      'Files',
      'the volume with the outside file',
      (r) => r.sizeBytes === volume.sizeBytes + bytes.length,
    );
    await waitFor(() => on(i, admin).get(`/api/search?q=${q('Kontoauszug')}`), {
      what: `instance ${i}'s search to find the outside file`,
      until: (r) => r.status === 200 && r.json.items.some((it: any) => it.name === name),
      seen: (r) => r.text,
    });
  }
});

test('a forged finding on the channel: each instance reads the paths named again and trusts nothing else', async () => {
  const known = 'Kontoauszug März 2024 + Zinsen & „Ü“ 50% ☂.txt';
  // The file said gone below is on the disk (an earlier test wrote it).
  assert.ok(fs.statSync(archiveDisk(known)).size > 0);
  const volume = await finalSize(0, 'Files', 'the volume');
  for (const i of [1, 2])
    await finalSize(i, 'Files', 'the volume as instance 0 has it', (r) => r.sizeBytes === volume.sizeBytes);
  const later = 'Quittung #2 + 100%.txt';
  const laterBytes = Buffer.alloc(777, 'q');
  fs.writeFileSync(archiveDisk(later), laterBytes);
  const c = new pg.Client(database);
  await c.connect();
  try {
    // A file on disk said gone, a path outside every volume, a malformed one, then — last, so
    // once it is counted everywhere the others were heard before it — a real file said created.
    for (const m of [
      { i: 'forged', f: { type: 'deleted', path: archiveDisk(known), isDirectory: false } },
      { i: 'forged', f: { type: 'created', path: '/etc/passwd', isDirectory: false } },
      { i: 'forged', f: { type: 'deleted', path: { $gt: '' } } },
      { i: 'forged', f: { type: 'created', path: archiveDisk(later), isDirectory: false } },
    ])
      await c.query('SELECT pg_notify($1, $2)', ['burrow_changes', JSON.stringify(m)]);
  } finally {
    await c.end();
  }
  for (const i of [0, 1, 2]) {
    // The file said created is read from the disk (it is there); the one said gone is still counted.
    await finalSize(
      i,
      'Files',
      'the volume read again where the forged findings pointed',
      (r) => r.sizeBytes === volume.sizeBytes + laterBytes.length,
    );
    const found = await on(i, admin).get(`/api/search?q=${q('Kontoauszug')}`);
    assert.ok(
      found.json.items.some((it: any) => it.name === known),
      `instance ${i} still finds the file said gone`,
    );
    assert.equal((await on(i, admin).get(`/api/search?q=passwd`)).json.items, [], 'nothing outside a volume');
  }
});

test('installation settings changed through one instance are what the others answer at once', async () => {
  // Each instance has read the sections before the change (a cache would hold the old ones).
  const before = await Promise.all([0, 1, 2].map((i) => on(i, admin).get('/api/settings')));
  for (const b of before) assert.is(b.status, 200, b.text);
  const activity = { enabled: !before[0]!.json.activity.enabled, retentionDays: 11 };
  const branding = { appName: 'Müller & Söhne #2 — Dateien 🦔' };
  const changed = await on(0, admin).patch('/api/settings', { activity, branding });
  assert.is(changed.status, 200, changed.text);
  for (const i of [1, 2]) {
    const after = await on(i, admin).get('/api/settings');
    assert.equal(after.json.activity, activity, `instance ${i}: ${after.text}`);
    assert.is(after.json.branding.appName, branding.appName, `instance ${i}`);
  }
});

test('an access rule set through one instance holds on the very next request through each of the others', async () => {
  const ines = await createUser(admin, instances[0]!, INES);
  const inesId = (await me(ines)).id;
  const secret = `Files/${FOLDER}/Gehälter 2024 – „vertraulich“ 100%`;
  assert.is(
    (await on(0, admin).post('/api/files/folder', { path: `Files/${FOLDER}`, name: secret.split('/').pop() })).status,
    201,
  );
  const sees = async (i: number) => {
    const r = await on(i, ines).get(`/api/browse/${url(`Files/${FOLDER}`)}`);
    assert.is(r.status, 200, `instance ${i}: ${r.text}`);
    return r.json.items.some((e: any) => e.name === secret.split('/').pop());
  };
  // Each instance has read the rules (and would keep them, were they cached without the version).
  for (const i of [0, 1, 2]) assert.ok(await sees(i), `instance ${i} before the rule`);
  for (const [setOn, level] of [
    [0, 'hidden'],
    [1, 'read'],
    [2, 'hidden'],
  ] as const) {
    const rule = await on(setOn, admin).put('/api/access/rules', {
      path: secret,
      subject: { kind: 'account', id: inesId },
      level,
    });
    assert.is(rule.status, 200, rule.text);
    for (const i of [0, 1, 2].filter((n) => n !== setOn))
      assert.is(await sees(i), level !== 'hidden', `instance ${i}, right after the rule (${level}) set on ${setOn}`);
    const direct = await on((setOn + 1) % 3, ines).get(`/api/browse/${url(secret)}`);
    assert.is(direct.status, level === 'hidden' ? 404 : 200, direct.text);
  }
});

test('a change whose NOTIFY an instance missed (its stream reconnecting) still holds there on the next request: the version row', async () => {
  const ines = new Client(instances[0]!.url);
  assert.is((await ines.post('/api/auth/login', { identifier: INES.username, password: INES.password })).status, 200);
  const inesId = (await me(ines)).id;
  const folder = `Files/${FOLDER}/Protokolle – Ärger & Co #9`;
  assert.is(
    (await on(0, admin).post('/api/files/folder', { path: `Files/${FOLDER}`, name: folder.split('/').pop() })).status,
    201,
  );
  const status = async (i: number) => (await on(i, ines).get(`/api/browse/${url(folder)}`)).status;
  const c = new pg.Client(database);
  await c.connect();
  const streams = async () =>
    Number(
      (
        await c.query(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'burrow-stream' AND datname = current_database()",
        )
      ).rows[0].n,
    );
  try {
    assert.is(await streams(), 3);
    // Every instance's LISTEN connection is cut: each reconnects after a second.
    await c.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'burrow-stream' AND datname = current_database()",
    );
    await waitFor(streams, { what: 'the streams cut', until: (n) => n === 0 });
    for (const i of [1, 2]) assert.is(await status(i), 200, `instance ${i} reads the rules while its stream is away`);
    const rule = await on(0, admin).put('/api/access/rules', {
      path: folder,
      subject: { kind: 'account', id: inesId },
      level: 'hidden',
    });
    assert.is(rule.status, 200, rule.text);
    for (const i of [1, 2]) assert.is(await status(i), 404, `instance ${i}, its stream away when the rule was set`);
    await waitFor(streams, { what: 'the streams back', until: (n) => n === 3 });
  } finally {
    await c.end();
  }
});

test('the bell: an event caused through one instance reaches the account’s pages on every instance; never another account’s; a forged NOTIFY is read again from the database', async () => {
  const ines = new Client(instances[0]!.url);
  assert.is((await ines.post('/api/auth/login', { identifier: INES.username, password: INES.password })).status, 200);
  const bo = await createUser(admin, instances[0]!, BO);
  const [inesId, boId] = [(await me(ines)).id, (await me(bo)).id];
  const inesFolder = `Files/${FOLDER}/Rechnungen Ines – März #3`;
  const boFolder = `Files/${FOLDER}/Bo’s Werkstatt + Ölwechsel`;
  for (const f of [inesFolder, boFolder])
    assert.is(
      (await on(0, admin).post('/api/files/folder', { path: `Files/${FOLDER}`, name: f.split('/').pop() })).status,
      201,
    );
  for (const [c, folder] of [
    [ines, inesFolder],
    [bo, boFolder],
  ] as const) {
    const r = await c.put('/api/notify/prefs', { kinds: ['folder.uploaded'], destinations: [], folders: [folder] });
    assert.is(r.status, 200, r.text);
  }
  // A page of each account on each instance.
  const page = async (i: number, c: Client) => {
    const ws = new WebSocket(`${instances[i]!.url.replace(/^http/, 'ws')}/api/live`, {
      headers: { cookie: on(i, c).cookieHeader },
      origin: instances[i]!.url,
    });
    const messages: any[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
    await new Promise((resolve, reject) => ws.on('open', resolve).on('error', reject));
    return { ws, messages, inbox: () => messages.filter((m) => m.type === 'inbox') };
  };
  const inesPages = await Promise.all([0, 1, 2].map((i) => page(i, ines)));
  const boPages = await Promise.all([0, 1, 2].map((i) => page(i, bo)));

  // The upload goes through the balancer; the event is fanned out by whichever instance runs the sender.
  const client = new Client(balancer.url);
  client.cookies = new Map(admin.cookies);
  const name = 'Rechnung Nr. 17 – Café „Zur Post“ & Söhne 50% 🧾.pdf';
  assert.is((await upload(client, inesFolder, name, '%PDF-1.4 Rechnung\n')).status, 201);
  const items = [];
  for (const [i, p] of inesPages.entries()) {
    const [m] = await waitFor(() => p.inbox(), {
      what: `Ines’s page on instance ${i} told of the upload`,
      until: (msgs) => msgs.length > 0,
      seen: () => p.messages,
    });
    assert.is(m.items.length, 1, JSON.stringify(m));
    assert.equal(m.items[0].paths, [`${inesFolder}/${name}`]);
    assert.is(m.unread, 1);
    items.push(m.items[0]);
  }
  const listed = (await on(2, ines).get('/api/notify/inbox')).json;
  for (const item of items) assert.equal(item, listed.items[0]);
  const inesItem = items[0].id as string;

  // Forged NOTIFYs on the stream's channel: Ines's item in Bo's name, a made-up item, and a
  // count for Ines. Each instance reads what they name again and trusts nothing else.
  const c = new pg.Client(database);
  await c.connect();
  try {
    for (const p of [
      { u: boId, ids: [inesItem] },
      { u: inesId, ids: ['forged-item'], items: [{ id: 'forged-item', title: 'forged' }] },
      { u: inesId, ids: [], unread: 999, items: [{ id: 'x', title: 'forged' }] },
    ])
      await c.query('SELECT pg_notify($1, $2)', ['burrow_changes', JSON.stringify({ i: 'forged', s: 'bell', p })]);
  } finally {
    await c.end();
  }
  // Then Bo's own event: every page of his hears it, and it is the first thing they hear.
  assert.is((await upload(client, boFolder, 'Ölwechsel Quittung #2.txt', 'fünf Liter')).status, 201);
  for (const [i, p] of boPages.entries()) {
    await waitFor(() => p.inbox(), {
      what: `Bo’s page on instance ${i} told of his upload`,
      until: (msgs) => msgs.length > 0,
      seen: () => p.messages,
    });
    assert.equal(
      p.inbox().flatMap((m) => m.items.map((it: any) => it.paths)),
      [[`${boFolder}/Ölwechsel Quittung #2.txt`]],
      `instance ${i}: ${JSON.stringify(p.messages)}`,
    );
  }
  // Ines's pages: her item once, and the forged count answered with her real one.
  for (const [i, p] of inesPages.entries()) {
    const said = JSON.stringify(p.messages);
    assert.not.ok(
      said.includes('forged') || said.includes('Ölwechsel') || p.messages.some((m: any) => m.unread === 999),
      `instance ${i}: ${said}`,
    );
  }
  // A read through instance 1: her pages on the others take the count.
  assert.is((await on(1, ines).post('/api/notify/inbox/read', {})).status, 200);
  for (const [i, p] of inesPages.entries())
    await waitFor(() => p.inbox(), {
      what: `Ines’s page on instance ${i} told of the read`,
      until: (msgs) => msgs.some((m) => m.items.length === 0 && m.unread === 0),
      seen: () => p.messages,
    });
  for (const p of [...inesPages, ...boPages]) p.ws.close();
});

test('a forged configuration NOTIFY on the channel only drops the caches: no instance answers otherwise, the version row does not move', async () => {
  const ines = new Client(instances[0]!.url);
  assert.is((await ines.post('/api/auth/login', { identifier: INES.username, password: INES.password })).status, 200);
  const inesId = (await me(ines)).id;
  const hidden = `Files/${FOLDER}/Gehälter 2025 – „vertraulich“ & #1`;
  const open = `Files/${FOLDER}/Urlaub + Fotos 50%`;
  for (const f of [hidden, open])
    assert.is(
      (await on(0, admin).post('/api/files/folder', { path: `Files/${FOLDER}`, name: f.split('/').pop() })).status,
      201,
    );
  const rule = await on(0, admin).put('/api/access/rules', {
    path: hidden,
    subject: { kind: 'account', id: inesId },
    level: 'hidden',
  });
  assert.is(rule.status, 200, rule.text);
  /** What every instance answers: Ines at both folders, and the administrator's settings. */
  const answers = async () =>
    Promise.all(
      [0, 1, 2].map(async (i) => ({
        hidden: (await on(i, ines).get(`/api/browse/${url(hidden)}`)).status,
        open: (await on(i, ines).get(`/api/browse/${url(open)}`)).status,
        settings: (await on(i, admin).get('/api/settings')).json,
      })),
    );
  const before = await answers();
  for (const a of before) assert.equal([a.hidden, a.open], [404, 200]);
  const c = new pg.Client(database);
  await c.connect();
  const version = async () =>
    (await c.query("SELECT version FROM cluster_config_version WHERE name = 'config'")).rows[0].version;
  try {
    const versionBefore = await version();
    // What the database's own trigger sends, and payloads that claim a change or carry values.
    for (const m of [
      { s: 'config' },
      { i: 'forged', s: 'config', p: { version: Number(versionBefore) + 1000 } },
      { s: 'config', p: { rules: [], settings: { activity: { enabled: false }, terminal: { enabled: true } } } },
      { s: 'config', p: { path: hidden, subject: { kind: 'account', id: inesId }, level: 'manage' } },
    ])
      await c.query('SELECT pg_notify($1, $2)', ['burrow_changes', JSON.stringify(m)]);
    await c.query('SELECT pg_notify($1, $2)', ['burrow_changes', 'config']);
    // Each instance's stream has heard them once its own NOTIFY round trip (a bell for nobody) is back.
    await c.query('SELECT pg_notify($1, $2)', [
      'burrow_changes',
      JSON.stringify({ i: 'forged', s: 'bell', p: { u: 'nobody', ids: [] } }),
    ]);
    assert.equal(await answers(), before);
    assert.is(await version(), versionBefore, 'a NOTIFY moves no version');
    // A real change still holds on the very next request through every instance.
    const lifted = await on(1, admin).request('DELETE', `/api/access/rules/${rule.json.rule.id}`);
    assert.is(lifted.status, 204, lifted.text);
    for (const i of [0, 1, 2]) assert.is((await on(i, ines).get(`/api/browse/${url(hidden)}`)).status, 200);
  } finally {
    await c.end();
  }
});

test.run();
