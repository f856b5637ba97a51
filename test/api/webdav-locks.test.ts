// WebDAV locks as an attacker meets them, through the real server (issue 33): a lock lasts at
// most an hour (Infinite and refreshes included), one account holds at most 200 live locks and 50
// locks that made their empty file; only the lock's account (password or write token) or an
// administrator unlocks — not another account, not a read token. The HTTP API honours an
// exclusive WebDAV lock of another account (editor save, rename, move, delete, replace: 423
// LOCKED, the file untouched), and WebDAV honours the office editor's WOPI lock the same way.
//
// Attacker table: another account (UNLOCK, API writes: refused), a read token (LOCK, UNLOCK:
// refused), one account flooding LOCKs on unmapped URLs (stopped at 50, nothing made past it),
// Timeout: Infinite (an hour), a folder locked with depth infinity (the API cannot delete or move
// what is inside), an administrator (unlocks what anyone locked).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, issueToken, setupAdmin, signIn } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { serveDiscovery } from '../support/office.ts';
import { encodeUtf7 } from '../../src/plugins/officeeditor/tokens.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

const PUBLIC = 'http://files.burrow.test';
const SECRET = 'wopi-secret-for-the-locks-test-0123456789';
let s: TestServer;
let admin: Client;
let bob: Client;
let readToken: string;
let writeToken: string;
let editorBase = '';
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const basic = (user: string, secret: string) => 'Basic ' + Buffer.from(`${user}:${secret}`).toString('base64');
const ALICE = basic('alice', 'alice-password-1');
const BOB = basic('bob', 'bob-password-1');
const ADMIN = basic('admin', 'admin-password-1');
const davPath = (...p: string[]) => '/dav/Files/' + p.map(encodeURIComponent).join('/');

const LOCKINFO =
  '<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope>' +
  '<D:locktype><D:write/></D:locktype><D:owner><D:href>Zoë&apos;s laptop &amp; phone #2</D:href></D:owner></D:lockinfo>';

function dav(method: string, p: string, authorization: string, headers: Record<string, string> = {}, body?: string) {
  return fetch(s.url + p, { method, headers: { authorization, ...headers }, body });
}

async function lock(p: string, authorization = ALICE, headers: Record<string, string> = {}) {
  const r = await dav('LOCK', p, authorization, { 'content-type': 'application/xml', ...headers }, LOCKINFO);
  const text = await r.text();
  return { status: r.status, text, token: /<([^>]+)>/.exec(r.headers.get('lock-token') ?? '')?.[1] ?? '' };
}

const timeoutOf = (xml: string) => Number(/<D:timeout>Second-(\d+)<\/D:timeout>/.exec(xml)?.[1]);

/** The editing server's discovery, so the office editor is configured. */
const editor = http.createServer((req, res) => {
  if (serveDiscovery(req, res, editorBase)) return;
  res.statusCode = 404;
  res.end();
});

test.before(async () => {
  await new Promise<void>((r) => editor.listen(0, '127.0.0.1', r));
  editorBase = `http://127.0.0.1:${(editor.address() as AddressInfo).port}`;
  s = await startServer({ env: { PUBLIC_URL: PUBLIC, OFFICEEDITOR_URL: editorBase, OFFICEEDITOR_SECRET: SECRET } });
  admin = await setupAdmin(s);
  const alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  readToken = await issueToken(alice, 'read', { password: 'alice-password-1' });
  writeToken = await issueToken(alice, 'write', { password: 'alice-password-1' });
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
  await new Promise((r) => editor.close(r));
});

test('a lock lasts at most an hour: Timeout Infinite, a week, and a refresh asking more', async () => {
  fs.mkdirSync(vol('Zeitplan & Fristen'), { recursive: true });
  fs.writeFileSync(vol('Zeitplan & Fristen', 'Plan 2027 – Entwurf.odt'), 'draft');
  const p = davPath('Zeitplan & Fristen', 'Plan 2027 – Entwurf.odt');
  const infinite = await lock(p, ALICE, { Timeout: 'Infinite, Second-4100000000' });
  assert.is(infinite.status, 200, infinite.text);
  assert.ok(timeoutOf(infinite.text) <= 3600 && timeoutOf(infinite.text) > 3500, infinite.text);
  const refresh = await dav('LOCK', p, ALICE, { If: `(<${infinite.token}>)`, Timeout: 'Second-604800' });
  const refreshed = await refresh.text();
  assert.is(refresh.status, 200, refreshed);
  assert.ok(timeoutOf(refreshed) <= 3600, refreshed);
  assert.is((await dav('UNLOCK', p, ALICE, { 'Lock-Token': `<${infinite.token}>` })).status, 204);
  const week = await lock(p, ALICE, { Timeout: 'Second-604800' });
  assert.ok(timeoutOf(week.text) <= 3600, week.text);
  assert.is((await dav('UNLOCK', p, ALICE, { 'Lock-Token': `<${week.token}>` })).status, 204);
});

test('one account makes at most 50 locked empty files and holds at most 200 locks; nothing is made past them', async () => {
  fs.mkdirSync(vol('Flood'), { recursive: true });
  const tokens: { p: string; token: string }[] = [];
  /** Alice locks `count` numbered names, each answered `status`. */
  const lockEach = async (count: number, nameOf: (i: number) => string, status: number) => {
    for (let i = 0; i < count; i++) {
      const r = await lock(nameOf(i));
      assert.is(r.status, status, r.text);
      tokens.push({ p: nameOf(i), token: r.token });
    }
  };
  await lockEach(50, (i) => davPath('Flood', `leer ${i} #.txt`), 201);
  const over = await lock(davPath('Flood', 'one too many.txt'));
  assert.is(over.status, 403, over.text);
  assert.match(over.text, /50 locks/);
  assert.not.ok(fs.existsSync(vol('Flood', 'one too many.txt')), 'no empty file past the limit');
  // Another account is not held back by alice's count.
  const bobs = await lock(davPath('Flood', 'bob notes.txt'), BOB);
  assert.is(bobs.status, 201, bobs.text);
  assert.is(
    (await dav('UNLOCK', davPath('Flood', 'bob notes.txt'), BOB, { 'Lock-Token': `<${bobs.token}>` })).status,
    204,
  );
  // Locks on existing files count toward 200.
  fs.mkdirSync(vol('Many'), { recursive: true });
  for (let i = 0; i < 151; i++) fs.writeFileSync(vol('Many', `Foto ${i} Ü.jpg`), 'x');
  await lockEach(150, (i) => davPath('Many', `Foto ${i} Ü.jpg`), 200);
  const past = await lock(davPath('Many', 'Foto 150 Ü.jpg'));
  assert.is(past.status, 403, past.text);
  assert.match(past.text, /200 locks/);
  // Unlocking one makes room again.
  const first = tokens.pop()!;
  assert.is((await dav('UNLOCK', first.p, ALICE, { 'Lock-Token': `<${first.token}>` })).status, 204);
  const again = await lock(davPath('Many', 'Foto 150 Ü.jpg'));
  assert.is(again.status, 200, again.text);
  tokens.push({ p: davPath('Many', 'Foto 150 Ü.jpg'), token: again.token });
  for (const t of tokens)
    assert.is((await dav('UNLOCK', t.p, ALICE, { 'Lock-Token': `<${t.token}>` })).status, 204, t.p);
});

test("only the lock's account with its password or a write token, or an administrator, unlocks", async () => {
  fs.writeFileSync(vol('Steuer 2026 (final).pdf'), '%PDF-1.4 tax');
  const p = davPath('Steuer 2026 (final).pdf');
  const held = await lock(p);
  assert.is(held.status, 200, held.text);
  const unlockAs = (authorization: string) => dav('UNLOCK', p, authorization, { 'Lock-Token': `<${held.token}>` });
  const byBob = await unlockAs(BOB);
  assert.is(byBob.status, 403, await byBob.text());
  const byRead = await unlockAs(basic('alice', readToken));
  const readText = await byRead.text();
  assert.is(byRead.status, 403, readText);
  assert.match(readText, /read token/);
  // A read token cannot lock either.
  fs.writeFileSync(vol('read only lock.txt'), 'x');
  const readLock = await lock(davPath('read only lock.txt'), basic('alice', readToken));
  assert.is(readLock.status, 403, readLock.text);
  // Still locked: bob's PUT is refused.
  assert.is((await dav('PUT', p, BOB, {}, 'overwritten')).status, 423);
  assert.is(fs.readFileSync(vol('Steuer 2026 (final).pdf'), 'utf8'), '%PDF-1.4 tax');
  // The administrator lifts it; then bob writes.
  assert.is((await unlockAs(ADMIN)).status, 204);
  assert.is((await dav('PUT', p, BOB, {}, 'bob version')).status, 204);
  // Alice's write token unlocks her own lock.
  const mine = await lock(p);
  assert.is((await dav('UNLOCK', p, basic('alice', writeToken), { 'Lock-Token': `<${mine.token}>` })).status, 204);
});

test('the HTTP API answers 423 to another account while a WebDAV client holds an exclusive lock; the file is untouched', async () => {
  fs.mkdirSync(vol('Projekte #1 & Co', 'Entwürfe'), { recursive: true });
  fs.writeFileSync(vol('Projekte #1 & Co', 'Angebot 50% + Rabatt.txt'), 'offer v1');
  fs.writeFileSync(vol('Projekte #1 & Co', 'Entwürfe', 'Brief an Café.txt'), 'letter v1');
  fs.writeFileSync(vol('other offer.txt'), 'from bob');
  const file = await lock(davPath('Projekte #1 & Co', 'Angebot 50% + Rabatt.txt'));
  assert.is(file.status, 200, file.text);
  const folder = await lock(davPath('Projekte #1 & Co', 'Entwürfe') + '/', ALICE, { Depth: 'infinity' });
  assert.is(folder.status, 200, folder.text);

  const locked = (r: Awaited<ReturnType<Client['get']>>, what: string) => {
    assert.is(r.status, 423, `${what}: ${r.text.slice(0, 300)}`);
    assert.is(envelope(r).code, 'LOCKED', what);
  };
  const dir = 'Files/Projekte #1 & Co';
  locked(await bob.put('/api/editor', { path: `${dir}/Angebot 50% + Rabatt.txt`, content: 'bob was here' }), 'save');
  locked(
    await bob.post('/api/files/rename', { path: dir, name: 'Angebot 50% + Rabatt.txt', newName: 'renamed.txt' }),
    'rename',
  );
  locked(
    await bob.post('/api/files/move', {
      items: [{ path: dir, name: 'Angebot 50% + Rabatt.txt' }],
      destination: 'Files',
    }),
    'move',
  );
  locked(await bob.delete('/api/files', { items: [{ path: dir, name: 'Angebot 50% + Rabatt.txt' }] }), 'delete');
  // Inside the folder locked with depth infinity, and the folder itself.
  locked(await bob.delete('/api/files', { items: [{ path: dir, name: 'Entwürfe' }] }), 'delete the locked folder');
  locked(
    await bob.post('/api/files/rename', { path: `${dir}/Entwürfe`, name: 'Brief an Café.txt', newName: 'x.txt' }),
    'rename inside',
  );
  // A copy replacing the locked file.
  fs.renameSync(vol('other offer.txt'), vol('Angebot 50% + Rabatt.txt'));
  locked(
    await bob.post('/api/files/copy', {
      items: [{ path: 'Files', name: 'Angebot 50% + Rabatt.txt' }],
      destination: dir,
      conflict: 'replace',
    }),
    'replace',
  );
  assert.is(fs.readFileSync(vol('Projekte #1 & Co', 'Angebot 50% + Rabatt.txt'), 'utf8'), 'offer v1');
  assert.is(fs.readFileSync(vol('Projekte #1 & Co', 'Entwürfe', 'Brief an Café.txt'), 'utf8'), 'letter v1');

  // The lock's own account works on through the API; once unlocked, bob's rename goes through.
  const alice = await signIn(s, 'alice', 'alice-password-1');
  const own = await alice.put('/api/editor', { path: `${dir}/Angebot 50% + Rabatt.txt`, content: 'offer v2' });
  assert.is(own.status, 200, own.text);
  for (const [p, t] of [
    [davPath('Projekte #1 & Co', 'Angebot 50% + Rabatt.txt'), file.token],
    [davPath('Projekte #1 & Co', 'Entwürfe') + '/', folder.token],
  ] as const)
    assert.is((await dav('UNLOCK', p, ALICE, { 'Lock-Token': `<${t}>` })).status, 204);
  const renamed = await bob.post('/api/files/rename', {
    path: dir,
    name: 'Angebot 50% + Rabatt.txt',
    newName: 'Angebot (bob).txt',
  });
  assert.is(renamed.status, 200, renamed.text);
});

test("WebDAV answers 423 to another account while the office editor holds a document's WOPI lock", async () => {
  fs.writeFileSync(vol('Jahresbericht Ü.docx'), 'report v1');
  const c = (await admin.post('/api/officeeditor/config', { path: 'Files/Jahresbericht Ü.docx', mode: 'edit' })).json;
  assert.ok(c.fileId, JSON.stringify(c));
  const src = `${s.url}/api/officeeditor/wopi/files/${c.fileId}?access_token=${encodeURIComponent(c.access_token)}`;
  const wopi = (override: string) =>
    fetch(src, {
      method: 'POST',
      headers: {
        origin: editorBase,
        authorization: `Bearer ${c.access_token}`,
        'X-WOPI-Override': override,
        'X-WOPI-Lock': 'editor-session-1',
      },
    });
  assert.is((await wopi('LOCK')).status, 200);
  const p = davPath('Jahresbericht Ü.docx');
  assert.is((await dav('PUT', p, BOB, {}, 'bob overwrote it')).status, 423);
  assert.is((await dav('DELETE', p, BOB)).status, 423);
  assert.is((await dav('MOVE', p, BOB, { Destination: `${s.url}${davPath('moved.docx')}` })).status, 423);
  const bobLock = await lock(p, BOB);
  assert.is(bobLock.status, 423, bobLock.text);
  // The API too, for another account.
  const del = await bob.delete('/api/files', { items: [{ path: 'Files', name: 'Jahresbericht Ü.docx' }] });
  assert.is(del.status, 423, del.text);
  assert.is(fs.readFileSync(vol('Jahresbericht Ü.docx'), 'utf8'), 'report v1');
  // Unlocked by the editor: bob writes.
  assert.is((await wopi('UNLOCK')).status, 200);
  assert.is((await dav('PUT', p, BOB, {}, 'bob v2')).status, 204);
});

/** The office editor's WOPI calls for `file`, as the editing server makes them with admin's token. */
async function officeSession(file: string) {
  const c = (await admin.post('/api/officeeditor/config', { path: file, mode: 'edit' })).json;
  assert.ok(c.fileId, JSON.stringify(c));
  const src = `${s.url}/api/officeeditor/wopi/files/${c.fileId}`;
  const q = `?access_token=${encodeURIComponent(c.access_token)}`;
  const headers = (h: Record<string, string>) => ({ origin: editorBase, ...h });
  return {
    op: (override: string, h: Record<string, string> = {}) =>
      fetch(src + q, { method: 'POST', headers: headers({ 'X-WOPI-Override': override, ...h }) }),
    put: (body: string, h: Record<string, string> = {}) =>
      fetch(`${src}/contents${q}`, { method: 'POST', headers: headers({ 'X-WOPI-Override': 'PUT', ...h }), body }),
  };
}

test("the office editor's saves and locks answer WOPI's lock mismatch while another account's WebDAV client holds the document", async () => {
  fs.mkdirSync(vol('Haushalt & Steuern'), { recursive: true });
  fs.writeFileSync(vol('Haushalt & Steuern', 'Budget 2026 – 50% + Reserve.docx'), 'budget v1');
  fs.writeFileSync(vol('Haushalt & Steuern', 'Vorlage.docx'), 'template');
  const p = davPath('Haushalt & Steuern', 'Budget 2026 – 50% + Reserve.docx');
  const held = await lock(p);
  assert.is(held.status, 200, held.text);
  const budget = await officeSession('Files/Haushalt & Steuern/Budget 2026 – 50% + Reserve.docx');
  const mismatch = async (r: Response, what: string) => {
    assert.is(r.status, 409, `${what}: ${await r.text()}`);
    assert.is(r.headers.get('x-wopi-lock'), '', what);
    assert.is(r.headers.get('x-wopi-lockedbyotherinterface'), 'true', what);
  };
  await mismatch(await budget.op('LOCK', { 'X-WOPI-Lock': 'collabora-1' }), 'LOCK');
  await mismatch(await budget.put('admin overwrote it'), 'PutFile');
  // "Save as" from another document, over the locked name.
  const template = await officeSession('Files/Haushalt & Steuern/Vorlage.docx');
  await mismatch(
    await template.op('PUT_RELATIVE', {
      'X-WOPI-RelativeTarget': encodeUtf7('Budget 2026 – 50% + Reserve.docx'),
      'X-WOPI-OverwriteRelativeTarget': 'true',
    }),
    'PutRelativeFile',
  );
  assert.is(fs.readFileSync(vol('Haushalt & Steuern', 'Budget 2026 – 50% + Reserve.docx'), 'utf8'), 'budget v1');
  assert.equal(fs.readdirSync(vol('Haushalt & Steuern')).sort(), ['Budget 2026 – 50% + Reserve.docx', 'Vorlage.docx']);
  // Unlocked by alice's client: the editor locks and saves.
  assert.is((await dav('UNLOCK', p, ALICE, { 'Lock-Token': `<${held.token}>` })).status, 204);
  assert.is((await budget.op('LOCK', { 'X-WOPI-Lock': 'collabora-1' })).status, 200);
  assert.is((await budget.put('budget v2', { 'X-WOPI-Lock': 'collabora-1' })).status, 200);
  assert.is(fs.readFileSync(vol('Haushalt & Steuern', 'Budget 2026 – 50% + Reserve.docx'), 'utf8'), 'budget v2');
  assert.is((await budget.op('UNLOCK', { 'X-WOPI-Lock': 'collabora-1' })).status, 200);
});

test('a folder holding a document open in the office editor is not moved, renamed or deleted by another account (API, WebDAV)', async () => {
  const day = ['Holiday 2025', 'Tag 1 – Ankunft & Café'];
  fs.mkdirSync(vol(...day), { recursive: true });
  fs.writeFileSync(vol(...day, 'Reisekosten #2 (geteilt).docx'), 'costs v1');
  fs.writeFileSync(vol('Holiday 2025', 'Packliste.txt'), 'socks');
  const costs = await officeSession(`Files/${day.join('/')}/Reisekosten #2 (geteilt).docx`);
  assert.is((await costs.op('LOCK', { 'X-WOPI-Lock': 'collabora-trip' })).status, 200);

  const locked = (r: Awaited<ReturnType<Client['get']>>, what: string) => {
    assert.is(r.status, 423, `${what}: ${r.text.slice(0, 300)}`);
    assert.is(envelope(r).code, 'LOCKED', what);
    assert.match(envelope(r).message, /office editor/, what);
  };
  for (const [folder, parent, name] of [
    ['Holiday 2025', 'Files', 'Holiday 2025'],
    ['Tag 1', 'Files/Holiday 2025', day[1]!],
  ] as const) {
    locked(await bob.delete('/api/files', { items: [{ path: parent, name }] }), `delete ${folder}`);
    locked(await bob.post('/api/files/rename', { path: parent, name, newName: 'Urlaub' }), `rename ${folder}`);
    locked(
      await bob.post('/api/files/move', { items: [{ path: parent, name }], destination: 'Files/Flood' }),
      `move ${folder}`,
    );
  }
  const folder = davPath('Holiday 2025') + '/';
  assert.is((await dav('DELETE', folder, BOB)).status, 423);
  assert.is((await dav('MOVE', folder, BOB, { Destination: `${s.url}${davPath('Urlaub')}/` })).status, 423);
  const deep = await lock(folder, BOB, { Depth: 'infinity' });
  assert.is(deep.status, 423, deep.text);
  assert.ok(fs.existsSync(vol(...day, 'Reisekosten #2 (geteilt).docx')));
  // What is beside the document is not held.
  const beside = await bob.post('/api/files/rename', {
    path: 'Files/Holiday 2025',
    name: 'Packliste.txt',
    newName: 'Packliste (bob).txt',
  });
  assert.is(beside.status, 200, beside.text);
  // The editor lets go: bob renames the folder.
  assert.is((await costs.op('UNLOCK', { 'X-WOPI-Lock': 'collabora-trip' })).status, 200);
  const renamed = await bob.post('/api/files/rename', { path: 'Files', name: 'Holiday 2025', newName: 'Urlaub 2025' });
  assert.is(renamed.status, 200, renamed.text);
  assert.is(fs.readFileSync(vol('Urlaub 2025', day[1]!, 'Reisekosten #2 (geteilt).docx'), 'utf8'), 'costs v1');
});

test('Administration lists every lock and breaks one; another account, a read token and a cross-site request cannot', async () => {
  fs.mkdirSync(vol('Familie & Freunde'), { recursive: true });
  fs.writeFileSync(vol('Familie & Freunde', 'Geburtstag – Oma 90 🎂.txt'), 'plan');
  const p = davPath('Familie & Freunde', 'Geburtstag – Oma 90 🎂.txt');
  const held = await lock(p);
  assert.is(held.status, 200, held.text);
  const list = await admin.get('/api/admin/locks');
  assert.is(list.status, 200, list.text);
  const row = list.json.locks.find((l: { token: string }) => l.token === held.token);
  assert.ok(row, list.text);
  assert.is(row.username, 'alice');
  assert.is(row.client, "Zoë's laptop & phone #2");
  assert.is(row.scope, 'exclusive');
  assert.is(row.path, vol('Familie & Freunde', 'Geburtstag – Oma 90 🎂.txt'));
  assert.ok(Date.parse(row.expiresAt) - Date.now() <= 3600_000);
  const at = `/api/admin/locks/${encodeURIComponent(held.token)}`;
  /** Neither the list nor the break, with exactly this refusal. */
  const refused = async (who: Client, status: number, code: string) => {
    for (const r of [await who.get('/api/admin/locks'), await who.delete(at)]) {
      assert.is(r.status, status, `${code}: ${r.text.slice(0, 200)}`);
      assert.is(envelope(r).code, code);
    }
  };
  await refused(bob, 403, 'ADMIN_ONLY');
  // Tokens never reach Administration: an administrator's read token, alice's write token.
  const readAdmin = await issueToken(admin, 'read', { password: 'admin-password-1' });
  await refused(new Client(s.url, readAdmin), 403, 'AUTH_TOKEN_NOT_ALLOWED');
  await refused(new Client(s.url, writeToken), 403, 'AUTH_TOKEN_NOT_ALLOWED');
  // A link holder: the visitor session of alice's password link to the folder, and the link's token.
  const alice = await signIn(s, 'alice', 'alice-password-1');
  const link = await alice.post('/api/shares', {
    sourcePath: 'Files/Familie & Freunde',
    sharingType: 'anyone',
    password: 'Kuchen & Kerzen',
  });
  assert.is(link.status, 201, link.text);
  const holder = new Client(s.url);
  assert.is(
    (await holder.post(`/api/share/${link.json.shareToken}/access`, { password: 'Kuchen & Kerzen' })).status,
    204,
  );
  assert.is((await holder.get(`/api/share/${link.json.shareToken}/browse/`)).status, 200);
  await refused(holder, 401, 'AUTH_REQUIRED');
  await refused(new Client(s.url, link.json.shareToken), 403, 'AUTH_TOKEN_NOT_ALLOWED');
  const crossSite = await fetch(s.url + at, {
    method: 'DELETE',
    headers: { cookie: admin.cookieHeader, origin: 'https://evil.example' },
  });
  assert.is(crossSite.status, 403);
  // Still held: bob's rename is refused.
  const rename = { path: 'Files/Familie & Freunde', name: 'Geburtstag – Oma 90 🎂.txt', newName: 'Oma.txt' };
  assert.is((await bob.post('/api/files/rename', rename)).status, 423);
  assert.is((await admin.delete(at)).status, 204);
  assert.not.ok(
    (await admin.get('/api/admin/locks')).json.locks.some((l: { token: string }) => l.token === held.token),
  );
  assert.is((await admin.delete(at)).status, 404);
  // Broken: bob renames; alice's client, still sending its token, is told the lock is gone.
  assert.is((await bob.post('/api/files/rename', rename)).status, 200);
  const stale = await dav('PUT', davPath('Familie & Freunde', 'Oma.txt'), ALICE, { If: `(<${held.token}>)` }, 'x');
  assert.is(stale.status, 412);
});

test('Administration through a symlink swap: the lock listed and broken is the one the API checks, whatever name reaches the file', async () => {
  fs.mkdirSync(vol('Kalender & Co'), { recursive: true });
  fs.mkdirSync(vol('Echte Termine'), { recursive: true });
  fs.writeFileSync(vol('Kalender & Co', 'Termine 2026 #1.txt'), 'swapped away');
  fs.writeFileSync(vol('Echte Termine', 'Termine 2026 #1.txt'), 'the real one');
  const swapped = await lock(davPath('Kalender & Co', 'Termine 2026 #1.txt'));
  const real = await lock(davPath('Echte Termine', 'Termine 2026 #1.txt'));
  assert.is(swapped.status, 200, swapped.text);
  assert.is(real.status, 200, real.text);
  // From outside, on the disk: the folder becomes a link to the other one.
  fs.renameSync(vol('Kalender & Co'), vol('Kalender & Co (alt)'));
  fs.symlinkSync('Echte Termine', vol('Kalender & Co'));
  const listed = async () =>
    new Map<string, string>(
      (await admin.get('/api/admin/locks')).json.locks.map((l: { token: string; path: string }) => [l.token, l.path]),
    );
  const before = await listed();
  assert.is(before.get(swapped.token), vol('Kalender & Co', 'Termine 2026 #1.txt'));
  assert.is(before.get(real.token), vol('Echte Termine', 'Termine 2026 #1.txt'));
  // The break takes the lock the list named, and only it.
  assert.is((await admin.delete(`/api/admin/locks/${encodeURIComponent(swapped.token)}`)).status, 204);
  const after = await listed();
  assert.not.ok(after.has(swapped.token));
  assert.ok(after.has(real.token));
  // The real file's lock still holds, by its own name and through the link's.
  const aliasPath = 'Files/Kalender & Co/Termine 2026 #1.txt';
  const locked = (r: Awaited<ReturnType<Client['get']>>, what: string) => {
    assert.is(r.status, 423, `${what}: ${r.text.slice(0, 300)}`);
    assert.is(envelope(r).code, 'LOCKED', what);
  };
  locked(await bob.put('/api/editor', { path: aliasPath, content: 'bob through the link' }), 'save through the link');
  locked(
    await bob.post('/api/files/rename', { path: 'Files/Echte Termine', name: 'Termine 2026 #1.txt', newName: 'x.txt' }),
    'rename by its name',
  );
  locked(
    await bob.post('/api/files/move', {
      items: [{ path: 'Files/Kalender & Co', name: 'Termine 2026 #1.txt' }],
      destination: 'Files',
    }),
    'move through the link',
  );
  // Bob's WebDAV client through the link's name too.
  const throughLink = davPath('Kalender & Co', 'Termine 2026 #1.txt');
  assert.is((await dav('PUT', throughLink, BOB, {}, 'bob via WebDAV')).status, 423);
  assert.is((await lock(throughLink, BOB)).status, 423);
  assert.is(fs.readFileSync(vol('Echte Termine', 'Termine 2026 #1.txt'), 'utf8'), 'the real one');
  // Once alice's client unlocks, bob saves through either name.
  const p = davPath('Echte Termine', 'Termine 2026 #1.txt');
  assert.is((await dav('UNLOCK', p, ALICE, { 'Lock-Token': `<${real.token}>` })).status, 204);
  const saved = await bob.put('/api/editor', { path: aliasPath, content: 'bob through the link' });
  assert.is(saved.status, 200, saved.text);
  assert.is(fs.readFileSync(vol('Echte Termine', 'Termine 2026 #1.txt'), 'utf8'), 'bob through the link');
});

test.run();
