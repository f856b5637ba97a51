// The WOPI host against a stub editing server started here: it serves a discovery document
// and, when the "browser" posts the access token to its editor URL, calls back like a real one
// (CheckFileInfo → GetFile → Lock → PutFile → Unlock) through a small HTTP server that passes
// each request to the plugin's handlers the way the thin routes will.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { createChangeSink } from '../../src/changes.ts';
import { AppError, errorEnvelope } from '../../src/core/errors.ts';
import { silentLogger } from '../../src/core/log.ts';
import type { Caller } from '../../src/core/caller.ts';
import { journalled, recordingJournal } from '../support/journal.ts';
import { createOfficeEditorPlugin, type OfficeEditorPlugin } from '../../src/plugins/officeeditor/index.ts';
import { createLockStore, LOCK_TTL_MS, officeLockProbe } from '../../src/plugins/officeeditor/locks-store.ts';
import { createItemLocks, type LockProbe } from '../../src/files/locks.ts';
import { decodeUtf7, encodeUtf7 } from '../../src/plugins/officeeditor/tokens.ts';
import { fillUrlsrc, parseDiscovery } from '../../src/plugins/officeeditor/discovery.ts';
import type { WopiAnswer } from '../../src/plugins/officeeditor/wopi.ts';
import { unitVersions, unitVolume } from '../support/unit-volume.ts';
import { waitFor } from '../support/wait.ts';

const alice: Caller = { userId: 'u-alice', username: 'alice', roles: ['user'], isAdmin: false, via: 'session' };
const SECRET = 'office-test-secret-0123456789abcdef';
const src = path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'src');

const volume = unitVolume('burrow-wopi-');
const { root, files, db, resolver, own } = volume;
const journal = recordingJournal();
const versions = unitVersions(volume, journal);
const changes = createChangeSink();
const callerFor = (id: string) => (id === alice.userId ? alice : null);
const officeLocks = createLockStore(db);
/** Exclusive WebDAV locks, by the locked file's place: the account holding each. */
const davLocked = new Map<string, string>();
const davLockAt: LockProbe = (item) => {
  const userId = davLocked.get(item.realPath);
  return userId ? [{ kind: 'webdav', userId }] : [];
};
const itemLocks = createItemLocks({ webdav: davLockAt, office: officeLockProbe(officeLocks) });

// ---- the stub editing server ----
let editorBase = '';
const editorLog: string[] = [];
const editor = http.createServer(async (req, res) => {
  const url = new URL(req.url!, editorBase);
  if (url.pathname === '/hosting/discovery') {
    res.setHeader('Content-Type', 'text/xml');
    return res.end(`<?xml version="1.0" encoding="utf-8"?>
<wopi-discovery><net-zone name="external-http">
  <app name="writer" favIconUrl="${editorBase}/fav.ico">
    <action default="true" ext="docx" name="edit" urlsrc="${editorBase}/browser/abc/cool.html?&lt;ui=UI_LLCC&amp;&gt;&lt;rs=DC_LLCC&amp;&gt;&lt;dchat=DISABLE_CHAT&amp;&gt;"/>
    <action ext="docx" name="view" urlsrc="${editorBase}/browser/abc/cool.html?"/>
    <action ext="odt" name="edit" urlsrc="${editorBase}/browser/abc/cool.html?"/>
  </app>
  <app name="Capabilities"><action ext="" name="getinfo" urlsrc="${editorBase}/hosting/capabilities"/></app>
</net-zone><proof-key value="x" modulus="y" exponent="AQAB"/></wopi-discovery>`);
  }
  if (url.pathname === '/browser/abc/cool.html' && req.method === 'POST') {
    // The browser posted the access token; the editing server now opens, edits and saves.
    let form = '';
    for await (const c of req) form += c;
    const token = new URLSearchParams(form).get('access_token')!;
    const content = new URLSearchParams(form).get('new_content')!;
    const src = url.searchParams.get('WOPISrc')!;
    const q = `?access_token=${encodeURIComponent(token)}`;
    const steps: Record<string, unknown> = {};
    const info = await fetch(src + q);
    steps.checkFileInfo = { status: info.status, body: await info.json() };
    editorLog.push('CheckFileInfo');
    const got = await fetch(`${src}/contents${q}`);
    steps.getFile = { status: got.status, body: await got.text(), version: got.headers.get('x-wopi-itemversion') };
    editorLog.push('GetFile');
    const lock = await fetch(src + q, {
      method: 'POST',
      headers: { 'X-WOPI-Override': 'LOCK', 'X-WOPI-Lock': 'stub-lock-1' },
    });
    steps.lock = { status: lock.status };
    editorLog.push('Lock');
    const put = await fetch(`${src}/contents${q}`, {
      method: 'POST',
      headers: { 'X-WOPI-Override': 'PUT', 'X-WOPI-Lock': 'stub-lock-1' },
      body: content,
    });
    steps.putFile = { status: put.status, body: await put.json(), version: put.headers.get('x-wopi-itemversion') };
    editorLog.push('PutFile');
    const unlock = await fetch(src + q, {
      method: 'POST',
      headers: { 'X-WOPI-Override': 'UNLOCK', 'X-WOPI-Lock': 'stub-lock-1' },
    });
    steps.unlock = { status: unlock.status };
    editorLog.push('Unlock');
    res.setHeader('Content-Type', 'application/json');
    return res.end(JSON.stringify(steps));
  }
  res.statusCode = 404;
  res.end();
});

// ---- Burrow's side: the thin routes' part, in a few lines ----
let plugin: OfficeEditorPlugin;
let burrowBase = '';
const burrow = http.createServer(async (req, res) => {
  const url = new URL(req.url!, burrowBase);
  const m = /^\/api\/officeeditor\/wopi\/files\/([^/]+)(\/contents)?$/.exec(url.pathname);
  try {
    if (!m) throw new AppError('NOT_FOUND', 'No route.');
    const token = url.searchParams.get('access_token');
    const w = plugin.wopi!;
    const answer: WopiAnswer = m[2]
      ? req.method === 'GET'
        ? await w.getFile(m[1]!, token, req.headers)
        : await w.putFile(m[1]!, token, req.headers, req)
      : req.method === 'GET'
        ? await w.checkFileInfo(m[1]!, token)
        : await w.fileOperation(m[1]!, token, req.headers, req);
    res.writeHead(answer.status, answer.headers);
    if (answer.stream) answer.stream.pipe(res);
    else res.end(answer.json === undefined ? '' : JSON.stringify(answer.json));
  } catch (err) {
    const e = err instanceof AppError ? err : new AppError('INTERNAL', String(err));
    if (!(err instanceof AppError)) console.error(err);
    res.writeHead(e.status, { 'Content-Type': 'application/json', ...e.headers });
    res.end(JSON.stringify(errorEnvelope(e.status, e.message, 'req', e.code)));
  }
});

function makePlugin(over: { tokenTtlMs?: number; discoveryUrl?: string } = {}) {
  return createOfficeEditorPlugin({
    locks: officeLocks,
    itemLocks,
    resolver,
    versions,
    journal,
    changes,
    log: silentLogger,
    callerFor,
    publicUrl: burrowBase,
    wopi: {
      url: editorBase,
      secret: SECRET,
      lang: 'de',
      extensions: [],
      ...(over.discoveryUrl ? { discoveryUrl: over.discoveryUrl } : {}),
    },
    ...(over.tokenTtlMs !== undefined ? { tokenTtlMs: over.tokenTtlMs } : {}),
  });
}

test.before(async () => {
  await new Promise<void>((r) => editor.listen(0, '127.0.0.1', r));
  editorBase = `http://127.0.0.1:${(editor.address() as AddressInfo).port}`;
  await new Promise<void>((r) => burrow.listen(0, '127.0.0.1', r));
  burrowBase = `http://127.0.0.1:${(burrow.address() as AddressInfo).port}`;
  plugin = makePlugin();
});

test.after(async () => {
  await new Promise((r) => editor.close(r));
  await new Promise((r) => burrow.close(r));
  db.close?.();
  fs.rmSync(root, { recursive: true, force: true });
});

test('discovery: actions parsed per extension, placeholders filled with the language', () => {
  const actions = parseDiscovery(
    '<app name="w"><action name="edit" ext="DOCX" urlsrc="https://e/x?&lt;ui=UI_LLCC&amp;&gt;&lt;dchat=DISABLE_CHAT&amp;&gt;"/></app>',
  );
  assert.equal(
    actions.map((a) => [a.ext, a.name]),
    [['docx', 'edit']],
  );
  assert.is(fillUrlsrc(actions[0]!.urlsrc, 'fr'), 'https://e/x?ui=fr&');
  assert.is(fillUrlsrc('https://e/x', 'fr'), 'https://e/x?');
});

test('UTF-7 names round-trip', () => {
  for (const name of ['Report.docx', 'Bericht für Ärzte.docx', 'a+b.docx', '報告.odt'])
    assert.is(decodeUtf7(encodeUtf7(name)), name);
  assert.is(decodeUtf7('Hi Mom -+Jjo--!'), 'Hi Mom -\u263A-!');
});

test('config answers the editor URL from discovery and a token; the native variant carries it in the URL', async () => {
  fs.writeFileSync(path.join(files, 'plan.docx'), 'plan v1');
  const c = await plugin.wopi!.config(alice, { path: 'Files/plan.docx', mode: 'edit' });
  assert.ok(c.urlSrc.startsWith(`${editorBase}/browser/abc/cool.html?ui=de&rs=de&WOPISrc=`), c.urlSrc);
  assert.not.ok(c.urlSrc.includes('dchat'));
  assert.not.ok(c.urlSrc.includes('access_token'));
  assert.is(c.mode, 'edit');
  assert.is(c.accessToken, c.access_token);
  const native = await plugin.wopi!.config(alice, { path: 'Files/plan.docx', mode: 'view' }, { tokenInUrl: true });
  assert.ok(native.urlSrc.includes(`access_token=${encodeURIComponent(native.access_token)}`));
  assert.is(native.mode, 'view');
  // Same file, same id, for every session (co-editing needs one document).
  assert.is(native.fileId, c.fileId);
  await assert_rejects(plugin.wopi!.config(alice, { path: 'Files/none.xyz' }), 404);
  fs.writeFileSync(path.join(files, 'notes.xyz'), 'x');
  await assert_rejects(plugin.wopi!.config(alice, { path: 'Files/notes.xyz' }), 415);
  assert.equal((plugin.features().collabora as { enabled: boolean }).enabled, true);
});

test('the editing server opens, locks, saves and unlocks; the save keeps the replaced content as a version', async () => {
  fs.writeFileSync(path.join(files, 'report.docx'), 'report v1');
  const c = await plugin.wopi!.config(alice, { path: 'Files/report.docx', mode: 'edit' });
  const res = await fetch(c.urlSrc, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ access_token: c.access_token, new_content: 'report v2' }),
  });
  const steps = (await res.json()) as Record<string, { status: number; body?: any; version?: string }>;
  assert.equal(editorLog.slice(-5), ['CheckFileInfo', 'GetFile', 'Lock', 'PutFile', 'Unlock']);
  const info = steps.checkFileInfo!.body;
  assert.is(steps.checkFileInfo!.status, 200);
  assert.is(info.BaseFileName, 'report.docx');
  assert.is(info.Size, 9);
  assert.is(info.UserId, alice.userId);
  assert.is(info.UserCanWrite, true);
  assert.is(info.SupportsLocks, true);
  assert.is(info.SupportsUpdate, true);
  assert.type(info.Version, 'string');
  assert.is(steps.getFile!.status, 200);
  assert.is(steps.getFile!.body, 'report v1');
  assert.is(steps.lock!.status, 200);
  assert.is(steps.putFile!.status, 200, JSON.stringify(steps.putFile));
  assert.is(steps.unlock!.status, 200);
  assert.is(fs.readFileSync(path.join(files, 'report.docx'), 'utf8'), 'report v2');
  const file = await resolver.resolveInside(alice, 'Files/report.docx');
  const kept = versions.list(alice, file);
  assert.is(kept.length, 1);
  const { row } = await versions.find(alice, kept[0]!.id);
  assert.is(fs.readFileSync(row.stored_path, 'utf8'), 'report v1');
  assert.not.ok(
    fs.readdirSync(files).some((n) => n.startsWith('.burrow-tmp-')),
    'a temporary was left behind',
  );
  // The body streamed into a temporary on the work journal: a crash meanwhile leaves it to the next start.
  assert.equal(journalled(journal), ['begin:false end:false'], 'journalled before it existed, ended once placed');
});

test('forged, expired and other-file tokens answer 401; nothing is changed', async () => {
  fs.writeFileSync(path.join(files, 'guarded.docx'), 'guarded');
  const c = await plugin.wopi!.config(alice, { path: 'Files/guarded.docx' });
  const src = plugin.wopi!.wopiSrc(c.fileId);
  const forged = await new SignJWT({ fid: c.fileId, p: 'Files/guarded.docx', rw: true })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(alice.userId)
    .setAudience('burrow-wopi')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode('another-secret'));
  const expiredPlugin = makePlugin({ tokenTtlMs: -60_000 });
  const expired = (await expiredPlugin.wopi!.config(alice, { path: 'Files/guarded.docx' })).access_token;
  fs.writeFileSync(path.join(files, 'other.docx'), 'other');
  const otherFile = (await plugin.wopi!.config(alice, { path: 'Files/other.docx' })).access_token;
  for (const token of [forged, expired, otherFile, 'not-a-jwt', '']) {
    const r = await fetch(`${src}?access_token=${encodeURIComponent(token)}`);
    assert.is(r.status, 401, token);
    assert.is((await r.json()).error.code, 'OFFICE_TOKEN_INVALID');
    const put = await fetch(`${src}/contents?access_token=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'X-WOPI-Override': 'PUT' },
      body: 'evil',
    });
    assert.is(put.status, 401);
  }
  assert.is(fs.readFileSync(path.join(files, 'guarded.docx'), 'utf8'), 'guarded');
});

test('a lock held by another editing session: 409 with X-WOPI-Lock naming it, for LOCK, PutFile and UNLOCK', async () => {
  fs.writeFileSync(path.join(files, 'shared.docx'), 'shared v1');
  const c = await plugin.wopi!.config(alice, { path: 'Files/shared.docx' });
  const url = `${plugin.wopi!.wopiSrc(c.fileId)}?access_token=${encodeURIComponent(c.access_token)}`;
  const contents = `${plugin.wopi!.wopiSrc(c.fileId)}/contents?access_token=${encodeURIComponent(c.access_token)}`;
  const op = (override: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'X-WOPI-Override': override, ...headers } });
  assert.is((await op('LOCK', { 'X-WOPI-Lock': 'A' })).status, 200);
  const r1 = await op('LOCK', { 'X-WOPI-Lock': 'B' });
  assert.is(r1.status, 409);
  assert.is(r1.headers.get('x-wopi-lock'), 'A');
  const r2 = await fetch(contents, {
    method: 'POST',
    headers: { 'X-WOPI-Override': 'PUT', 'X-WOPI-Lock': 'B' },
    body: 'by B',
  });
  assert.is(r2.status, 409);
  assert.is(r2.headers.get('x-wopi-lock'), 'A');
  assert.is(fs.readFileSync(path.join(files, 'shared.docx'), 'utf8'), 'shared v1');
  const r3 = await op('UNLOCK', { 'X-WOPI-Lock': 'B' });
  assert.is(r3.status, 409);
  assert.is(r3.headers.get('x-wopi-lock'), 'A');
  const get = await op('GET_LOCK');
  assert.is(get.headers.get('x-wopi-lock'), 'A');
  // UnlockAndRelock, RefreshLock with the right lock succeed; then unlocked, a lock-using PutFile on a non-empty file is refused with an empty X-WOPI-Lock.
  assert.is((await op('LOCK', { 'X-WOPI-Lock': 'C', 'X-WOPI-OldLock': 'A' })).status, 200);
  assert.is((await op('REFRESH_LOCK', { 'X-WOPI-Lock': 'C' })).status, 200);
  assert.is((await op('UNLOCK', { 'X-WOPI-Lock': 'C' })).status, 200);
  const r4 = await fetch(contents, {
    method: 'POST',
    headers: { 'X-WOPI-Override': 'PUT', 'X-WOPI-Lock': 'C' },
    body: 'late',
  });
  assert.is(r4.status, 409);
  assert.is(r4.headers.get('x-wopi-lock'), '');
  assert.is((await op('RENAME_FILE', { 'X-WOPI-RequestedName': 'x' })).status, 501);
});

test("another account's WebDAV lock: LOCK, REFRESH_LOCK, relock, PutFile (before and while its body streams) and PutRelativeFile over it answer WOPI's 409, locked by another interface", async () => {
  const doc = path.join(files, 'Angebot Müller & Söhne #3.docx');
  fs.writeFileSync(doc, 'angebot v1');
  const c = await plugin.wopi!.config(alice, { path: 'Files/Angebot Müller & Söhne #3.docx' });
  const url = `${plugin.wopi!.wopiSrc(c.fileId)}?access_token=${encodeURIComponent(c.access_token)}`;
  const op = (override: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'X-WOPI-Override': override, ...headers } });
  const put = (lock: string, body: BodyInit) =>
    fetch(`${plugin.wopi!.wopiSrc(c.fileId)}/contents?access_token=${encodeURIComponent(c.access_token)}`, {
      method: 'POST',
      headers: { 'X-WOPI-Override': 'PUT', 'X-WOPI-Lock': lock },
      body,
      ...(typeof body === 'string' ? {} : { duplex: 'half' }),
    } as RequestInit);
  const byOtherInterface = async (r: Response, what: string) => {
    assert.is(r.status, 409, `${what}: ${await r.text()}`);
    assert.is(r.headers.get('x-wopi-lock'), '', what);
    assert.is(r.headers.get('x-wopi-lockedbyotherinterface'), 'true', what);
    assert.match(r.headers.get('x-wopi-lockfailurereason') ?? '', /WebDAV/, what);
  };
  davLocked.set(doc, 'u-bob');
  await byOtherInterface(await op('LOCK', { 'X-WOPI-Lock': 'S1' }), 'LOCK');
  assert.is((await op('GET_LOCK')).headers.get('x-wopi-lock'), '');
  // Alice's own WebDAV lock does not hold against her editor.
  davLocked.set(doc, alice.userId);
  assert.is((await op('LOCK', { 'X-WOPI-Lock': 'S1' })).status, 200);
  davLocked.set(doc, 'u-bob');
  await byOtherInterface(await op('REFRESH_LOCK', { 'X-WOPI-Lock': 'S1' }), 'REFRESH_LOCK');
  await byOtherInterface(await op('LOCK', { 'X-WOPI-Lock': 'S2', 'X-WOPI-OldLock': 'S1' }), 'UnlockAndRelock');
  await byOtherInterface(await put('S1', 'by the editor'), 'PutFile');
  // Locked while the body streams in: the temporary goes, the file stays.
  davLocked.delete(doc);
  const chunks = ['streamed while ', 'bob locked it'];
  const body = new ReadableStream<Uint8Array>({
    async pull(ctl) {
      const next = chunks.shift();
      if (next === undefined) return ctl.close();
      if (chunks.length === 0) {
        // The save's temporary exists (its checks before the body are behind it): bob locks now.
        await waitFor(() => fs.readdirSync(files).some((n) => n.startsWith('.burrow-tmp-')), {
          what: "the save's temporary",
        });
        davLocked.set(doc, 'u-bob');
      }
      ctl.enqueue(new TextEncoder().encode(next));
    },
  });
  await byOtherInterface(await put('S1', body), 'PutFile, locked mid-body');
  // Save as, over the locked name.
  fs.writeFileSync(path.join(files, 'Kopie.docx'), 'kopie v1');
  davLocked.set(path.join(files, 'Kopie.docx'), 'u-bob');
  const over = await op('PUT_RELATIVE', {
    'X-WOPI-RelativeTarget': encodeUtf7('Kopie.docx'),
    'X-WOPI-OverwriteRelativeTarget': 'true',
  });
  await byOtherInterface(over, 'PutRelativeFile over it');
  assert.is(fs.readFileSync(doc, 'utf8'), 'angebot v1');
  assert.is(fs.readFileSync(path.join(files, 'Kopie.docx'), 'utf8'), 'kopie v1');
  assert.not.ok(fs.readdirSync(files).some((n) => n.startsWith('.burrow-tmp-')));
  // The editor still lets go of its own lock; once bob unlocks, it saves.
  assert.is((await op('UNLOCK', { 'X-WOPI-Lock': 'S1' })).status, 200);
  davLocked.clear();
  assert.is((await op('LOCK', { 'X-WOPI-Lock': 'S3' })).status, 200);
  assert.is((await put('S3', 'angebot v2')).status, 200);
  assert.is(fs.readFileSync(doc, 'utf8'), 'angebot v2');
  assert.is((await op('UNLOCK', { 'X-WOPI-Lock': 'S3' })).status, 200);
});

test('a WOPI lock is found at its document and inside every folder above it, not beside it, and not once expired', () => {
  let now = 5_000_000;
  const store = createLockStore(db, () => now);
  const at = path.join(files, 'Fotos & Texte 2025', 'Ägypten #2', 'Reisebericht.docx');
  store.lock('file-trip', 'T', { userId: 'u-bob', realPath: at });
  assert.equal(store.heldAt(at, false), [{ userId: 'u-bob' }]);
  assert.equal(store.heldAt(path.join(files, 'Fotos & Texte 2025'), true), [{ userId: 'u-bob' }]);
  assert.equal(store.heldAt(path.join(files, 'Fotos & Texte 2025'), false), []);
  // A sibling whose name extends the folder's is not inside it.
  assert.equal(store.heldAt(path.join(files, 'Fotos & Texte 2025', 'Ägypten'), true), []);
  assert.equal(store.heldAt(path.join(files, 'Fotos & Texte'), true), []);
  now += LOCK_TTL_MS + 1;
  assert.equal(store.heldAt(path.join(files, 'Fotos & Texte 2025'), true), []);
});

test('locks are kept in the database and expire after 30 minutes', () => {
  let now = 1_000_000;
  const a = createLockStore(db, () => now);
  assert.equal(a.lock('file-x', 'L', { userId: 'u', realPath: path.join(files, 'x.docx') }), { ok: true });
  const b = createLockStore(db, () => now);
  assert.is(b.current('file-x'), 'L');
  now += LOCK_TTL_MS + 1;
  assert.is(b.current('file-x'), '');
  assert.equal(b.lock('file-x', 'M', { userId: 'u', realPath: path.join(files, 'x.docx') }), { ok: true });
});

test('PutRelativeFile: a suggested name is numbered when taken, a relative one is refused with a valid alternative', async () => {
  fs.writeFileSync(path.join(files, 'memo.docx'), 'memo');
  const c = await plugin.wopi!.config(alice, { path: 'Files/memo.docx' });
  const url = `${plugin.wopi!.wopiSrc(c.fileId)}?access_token=${encodeURIComponent(c.access_token)}`;
  const put = (headers: Record<string, string>, body: string) =>
    fetch(url, { method: 'POST', headers: { 'X-WOPI-Override': 'PUT_RELATIVE', ...headers }, body });
  const r1 = await put({ 'X-WOPI-SuggestedTarget': encodeUtf7('.odt') }, 'as odt');
  assert.is(r1.status, 200);
  const b1 = await r1.json();
  assert.is(b1.Name, 'memo.odt');
  assert.ok(b1.Url.startsWith(`${burrowBase}/api/officeeditor/wopi/files/`));
  const r2 = await put({ 'X-WOPI-SuggestedTarget': encodeUtf7('memo.odt') }, 'again');
  assert.is((await r2.json()).Name, 'memo (1).odt');
  assert.is(fs.readFileSync(path.join(files, 'memo.odt'), 'utf8'), 'as odt');
  const r3 = await put({ 'X-WOPI-RelativeTarget': encodeUtf7('memo.odt') }, 'over');
  assert.is(r3.status, 409);
  assert.is(decodeUtf7(r3.headers.get('x-wopi-validrelativetarget')!), 'memo (2).odt');
  assert.is(fs.readFileSync(path.join(files, 'memo.odt'), 'utf8'), 'as odt');
  const r4 = await put({ 'X-WOPI-RelativeTarget': encodeUtf7('Bericht für Ärzte.docx') }, 'new');
  assert.is((await r4.json()).Name, 'Bericht für Ärzte.docx');
  const r5 = await put(
    { 'X-WOPI-RelativeTarget': encodeUtf7('memo.odt'), 'X-WOPI-OverwriteRelativeTarget': 'true' },
    'replaced',
  );
  assert.is(r5.status, 200);
  assert.is(fs.readFileSync(path.join(files, 'memo.odt'), 'utf8'), 'replaced');
  assert.is(
    versions.list(alice, await resolver.resolveInside(alice, 'Files/memo.odt')).length,
    1,
    'the replaced file was not kept as a version',
  );
  // A relative target that is only an extension names no hidden file: the source's name with it, numbered when taken.
  const r6 = await put({ 'X-WOPI-RelativeTarget': encodeUtf7('.docx') }, 'as docx');
  assert.is(r6.status, 200);
  assert.is((await r6.json()).Name, 'memo (1).docx');
  assert.is(fs.readFileSync(path.join(files, 'memo (1).docx'), 'utf8'), 'as docx');
  const r7 = await put({ 'X-WOPI-RelativeTarget': encodeUtf7(' .pdf') }, 'as pdf');
  assert.is((await r7.json()).Name, 'memo.pdf');
  assert.equal(
    fs.readdirSync(files).filter((n) => n.startsWith('.')),
    [],
    'no hidden file was made',
  );
  const created = await fetch(b1.Url);
  assert.is((await created.json()).BaseFileName, 'memo.odt');
  // Placed, refused (409) or replacing: every temporary was journalled before it existed and ended once gone.
  assert.equal(journal.open(), []);
  assert.ok(
    journalled(journal).every((steps) => steps === 'begin:false end:false'),
    String(journalled(journal)),
  );
});

test('an unreachable discovery document is a clear 502', async () => {
  const p = makePlugin({ discoveryUrl: 'http://127.0.0.1:1/hosting/discovery' });
  fs.writeFileSync(path.join(files, 'x.docx'), 'x');
  const err = await assert_rejects(p.wopi!.config(alice, { path: 'Files/x.docx' }), 502);
  assert.is(err.code, 'OFFICE_DISCOVERY_UNREACHABLE');
});

async function assert_rejects(p: Promise<unknown>, status: number): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, AppError, String(err));
    assert.is((err as AppError).status, status, (err as Error).message);
    return err as AppError;
  }
  assert.unreachable(`expected ${status}`);
  throw new Error('unreachable');
}

test.run();
