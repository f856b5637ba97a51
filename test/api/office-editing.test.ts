// Office editing on the real server: a stub editing server started here speaks WOPI discovery
// and, when the "browser" posts the access_token to the editor address, calls back like a real
// one (CheckFileInfo → GetFile → Lock → PutFile → Unlock) through the real routes — with its own
// Origin and WOPI's Authorization: Bearer, as server-to-server calls that no cookie authorises.
// PUBLIC_URL is an address in front of Burrow (as behind a proxy); the stub maps it to the
// server. Also: forged and expired tokens 401, a lock held by another editor 409 + X-WOPI-Lock,
// saves keep versions, the ONLYOFFICE config/download/callback, the native client's collabora
// config, and without configuration the routes are absent (404, not in /api/openapi.json).
// Runs against the source and the built executable (the plugin is imported dynamically).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SignJWT } from 'jose';
import { createUser, setupAdmin } from '../support/auth.ts';
import { envelope, type Client } from '../support/client.ts';
import { startServer, removeDirs, type TestServer } from '../support/server.ts';

const PUBLIC = 'http://files.burrow.test';
const SECRET = 'wopi-secret-for-the-api-test-0123456789';
const OO_SECRET = 'onlyoffice-secret-for-the-api-test-0123';
let s: TestServer;
let admin: Client;
let bob: Client;
let editorBase = '';
let nextContent = '';
const calls: string[] = [];
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const toBurrow = (u: string) => u.replace(PUBLIC, s.url);

/** What the editing server sends along on every call back (a real one sends Origin and Bearer too). */
const wopiHeaders = (token: string, extra: Record<string, string> = {}) => ({
  origin: editorBase,
  authorization: `Bearer ${token}`,
  ...extra,
});

const editor = http.createServer(async (req, res) => {
  const url = new URL(req.url!, editorBase);
  if (url.pathname === '/hosting/discovery') {
    res.setHeader('Content-Type', 'text/xml');
    return res.end(`<?xml version="1.0" encoding="utf-8"?>
<wopi-discovery><net-zone name="external-http">
  <app name="writer"><action default="true" ext="docx" name="edit" urlsrc="${editorBase}/browser/cool.html?&lt;ui=UI_LLCC&amp;&gt;"/>
  <action ext="docx" name="view" urlsrc="${editorBase}/browser/cool.html?"/><action ext="odt" name="edit" urlsrc="${editorBase}/browser/cool.html?"/></app>
</net-zone></wopi-discovery>`);
  }
  if (url.pathname === '/browser/cool.html' && req.method === 'POST') {
    let form = '';
    for await (const c of req) form += c;
    const token = new URLSearchParams(form).get('access_token')!;
    const src = toBurrow(url.searchParams.get('WOPISrc')!);
    const q = `?access_token=${encodeURIComponent(token)}`;
    const steps: Record<string, any> = {};
    const info = await fetch(src + q, { headers: wopiHeaders(token) });
    steps.checkFileInfo = { status: info.status, body: await info.json() };
    calls.push('CheckFileInfo');
    const got = await fetch(`${src}/contents${q}`, { headers: wopiHeaders(token) });
    steps.getFile = { status: got.status, body: await got.text() };
    calls.push('GetFile');
    const lock = await fetch(src + q, {
      method: 'POST',
      headers: wopiHeaders(token, { 'X-WOPI-Override': 'LOCK', 'X-WOPI-Lock': 'stub-lock-1' }),
    });
    steps.lock = { status: lock.status };
    calls.push('Lock');
    const put = await fetch(`${src}/contents${q}`, {
      method: 'POST',
      headers: wopiHeaders(token, {
        'X-WOPI-Override': 'PUT',
        'X-WOPI-Lock': 'stub-lock-1',
        'content-type': 'application/octet-stream',
      }),
      body: nextContent,
    });
    steps.putFile = { status: put.status, text: await put.text() };
    calls.push('PutFile');
    const unlock = await fetch(src + q, {
      method: 'POST',
      headers: wopiHeaders(token, { 'X-WOPI-Override': 'UNLOCK', 'X-WOPI-Lock': 'stub-lock-1' }),
    });
    steps.unlock = { status: unlock.status };
    calls.push('Unlock');
    res.setHeader('Content-Type', 'application/json');
    return res.end(JSON.stringify(steps));
  }
  if (url.pathname === '/cache/edited.docx') return res.end('edited in onlyoffice');
  res.statusCode = 404;
  res.end();
});

test.before(async () => {
  await new Promise<void>((r) => editor.listen(0, '127.0.0.1', r));
  editorBase = `http://127.0.0.1:${(editor.address() as AddressInfo).port}`;
  s = await startServer({
    env: {
      PUBLIC_URL: PUBLIC,
      OFFICEEDITOR_URL: editorBase,
      OFFICEEDITOR_SECRET: SECRET,
      OFFICEEDITOR_LANG: 'de',
      ONLYOFFICE_URL: editorBase,
      ONLYOFFICE_SECRET: OO_SECRET,
      ONLYOFFICE_FILE_EXTENSIONS: 'docx,xlsx',
    },
  });
  admin = await setupAdmin(s);
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  assert.is((await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 7 } })).status, 200);
});

test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
  await new Promise((r) => editor.close(r));
});

test('features report both integrations with their extensions', async () => {
  const f = (await admin.get('/api/features')).json;
  assert.is(f.collabora.enabled, true);
  assert.ok(f.collabora.extensions.includes('docx'));
  assert.equal(f.onlyoffice, { enabled: true, extensions: ['docx', 'xlsx'] });
});

test('the editing server opens, locks, saves and unlocks through the real routes; the save keeps a version', async () => {
  fs.writeFileSync(vol('report.docx'), 'report v1');
  const c = await admin.post(
    '/api/officeeditor/config',
    { path: 'Files/report.docx', mode: 'edit' },
    { origin: s.url },
  );
  assert.is(c.status, 200, c.text);
  assert.ok(
    c.json.urlSrc.startsWith(
      `${editorBase}/browser/cool.html?ui=de&WOPISrc=${encodeURIComponent(`${PUBLIC}/api/officeeditor/wopi/files/`)}`,
    ),
    c.json.urlSrc,
  );
  assert.not.ok(c.json.urlSrc.includes('access_token'), 'the web page posts the token; it is not in the address');
  assert.is(c.json.mode, 'edit');
  nextContent = 'report v2';
  const res = await fetch(c.json.urlSrc, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ access_token: c.json.access_token, access_token_ttl: String(c.json.access_token_ttl) }),
  });
  const steps = (await res.json()) as Record<string, any>;
  assert.equal(calls.slice(-5), ['CheckFileInfo', 'GetFile', 'Lock', 'PutFile', 'Unlock']);
  assert.is(steps.checkFileInfo.status, 200, JSON.stringify(steps.checkFileInfo));
  assert.is(steps.checkFileInfo.body.BaseFileName, 'report.docx');
  assert.is(steps.checkFileInfo.body.UserCanWrite, true);
  assert.is(steps.checkFileInfo.body.Size, 9);
  assert.is(steps.getFile.body, 'report v1');
  assert.is(steps.lock.status, 200);
  assert.is(steps.putFile.status, 200, steps.putFile.text);
  assert.is(steps.unlock.status, 200);
  assert.is(fs.readFileSync(vol('report.docx'), 'utf8'), 'report v2');
  const versions = (await admin.get('/api/versions?path=Files/report.docx')).json.items;
  assert.is(versions.length, 1);
  assert.is((await admin.get(`/api/versions/${versions[0].id}/text`)).json.content, 'report v1');
});

test('a lock held by another editor answers 409 with X-WOPI-Lock, and nothing is written', async () => {
  fs.writeFileSync(vol('locked.docx'), 'locked v1');
  const c = (await admin.post('/api/officeeditor/config', { path: 'Files/locked.docx' })).json;
  const src = `${s.url}/api/officeeditor/wopi/files/${c.fileId}?access_token=${encodeURIComponent(c.access_token)}`;
  const contents = `${s.url}/api/officeeditor/wopi/files/${c.fileId}/contents?access_token=${encodeURIComponent(c.access_token)}`;
  assert.is(
    (
      await fetch(src, {
        method: 'POST',
        headers: wopiHeaders(c.access_token, { 'X-WOPI-Override': 'LOCK', 'X-WOPI-Lock': 'editor-A' }),
      })
    ).status,
    200,
  );
  const other = await fetch(src, {
    method: 'POST',
    headers: wopiHeaders(c.access_token, { 'X-WOPI-Override': 'LOCK', 'X-WOPI-Lock': 'editor-B' }),
  });
  assert.is(other.status, 409);
  assert.is(other.headers.get('x-wopi-lock'), 'editor-A');
  const put = await fetch(contents, {
    method: 'POST',
    headers: wopiHeaders(c.access_token, { 'X-WOPI-Override': 'PUT', 'X-WOPI-Lock': 'editor-B' }),
    body: 'overwritten',
  });
  assert.is(put.status, 409);
  assert.is(put.headers.get('x-wopi-lock'), 'editor-A');
  assert.is(fs.readFileSync(vol('locked.docx'), 'utf8'), 'locked v1');
  const get = await fetch(src, {
    method: 'POST',
    headers: wopiHeaders(c.access_token, { 'X-WOPI-Override': 'GET_LOCK' }),
  });
  assert.is(get.headers.get('x-wopi-lock'), 'editor-A');
  assert.is(
    (
      await fetch(src, {
        method: 'POST',
        headers: wopiHeaders(c.access_token, { 'X-WOPI-Override': 'UNLOCK', 'X-WOPI-Lock': 'editor-A' }),
      })
    ).status,
    200,
  );
});

test('forged, expired and other-file tokens answer 401; a cookie alone opens nothing', async () => {
  fs.writeFileSync(vol('guarded.docx'), 'guarded');
  const c = (await admin.post('/api/officeeditor/config', { path: 'Files/guarded.docx' })).json;
  const claims = JSON.parse(Buffer.from(c.access_token.split('.')[1], 'base64url').toString());
  const forged = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode('not-the-secret'));
  const expired = await new SignJWT({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(SECRET));
  fs.writeFileSync(vol('other.docx'), 'other');
  const otherFile = (await admin.post('/api/officeeditor/config', { path: 'Files/other.docx' })).json;
  for (const [what, token] of [
    ['forged', forged],
    ['expired', expired],
    ['other file', otherFile.access_token],
    ['none', ''],
  ] as const) {
    const r = await fetch(`${s.url}/api/officeeditor/wopi/files/${c.fileId}?access_token=${encodeURIComponent(token)}`);
    assert.is(r.status, 401, what);
    const put = await fetch(
      `${s.url}/api/officeeditor/wopi/files/${c.fileId}/contents?access_token=${encodeURIComponent(token)}`,
      { method: 'POST', headers: { 'X-WOPI-Override': 'PUT' }, body: 'x' },
    );
    assert.is(put.status, 401, what);
  }
  const withCookie = await fetch(`${s.url}/api/officeeditor/wopi/files/${c.fileId}/contents`, {
    headers: { cookie: admin.cookieHeader },
  });
  assert.is(withCookie.status, 401);
  assert.is(fs.readFileSync(vol('guarded.docx'), 'utf8'), 'guarded');
});

test("the native client's collabora config carries the token in urlSrc and under both names", async () => {
  const c = await admin.post('/api/collabora/config', { path: 'Files/report.docx', mode: 'view' });
  assert.is(c.status, 200, c.text);
  assert.is(c.json.accessToken, c.json.access_token);
  assert.ok(c.json.urlSrc.includes(`access_token=${encodeURIComponent(c.json.access_token)}`));
  assert.is(c.json.mode, 'view');
  const info = await fetch(
    `${s.url}/api/officeeditor/wopi/files/${c.json.fileId}?access_token=${encodeURIComponent(c.json.access_token)}`,
  );
  assert.is((await info.json()).UserCanWrite, false);
  const bad = await admin.post('/api/collabora/config', { path: 'Files/none.docx' });
  assert.is(bad.status, 404);
  envelope(bad);
});

test('a read-only viewer gets a view token: saving through it is refused', async () => {
  fs.writeFileSync(vol('shared.docx'), 'shared v1');
  const c = (await bob.post('/api/officeeditor/config', { path: 'Files/shared.docx', mode: 'view' })).json;
  const put = await fetch(
    `${s.url}/api/officeeditor/wopi/files/${c.fileId}/contents?access_token=${encodeURIComponent(c.access_token)}`,
    { method: 'POST', headers: { 'X-WOPI-Override': 'PUT' }, body: 'changed' },
  );
  assert.is(put.status, 403);
  assert.is(fs.readFileSync(vol('shared.docx'), 'utf8'), 'shared v1');
});

test('ONLYOFFICE: signed config, the document server downloads and calls back; the save keeps a version', async () => {
  fs.writeFileSync(vol('oo.docx'), 'oo v1');
  const c = await admin.post('/api/onlyoffice/config', { path: 'Files/oo.docx', mode: 'edit' });
  assert.is(c.status, 200, c.text);
  assert.is(c.json.documentServerUrl, editorBase);
  const config = c.json.config;
  assert.type(config.token, 'string');
  const download = await fetch(toBurrow(config.document.url), { headers: { origin: editorBase } });
  assert.is(download.status, 200);
  assert.is(await download.text(), 'oo v1');
  const body = { key: config.document.key, status: 2, url: `${editorBase}/cache/edited.docx`, users: ['x'] };
  const jwt = await new SignJWT({ payload: body })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(OO_SECRET));
  const callback = await fetch(toBurrow(config.editorConfig.callbackUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}`, origin: editorBase },
    body: JSON.stringify(body),
  });
  assert.is(callback.status, 200, await callback.clone().text());
  assert.equal(await callback.json(), { error: 0 });
  assert.is(fs.readFileSync(vol('oo.docx'), 'utf8'), 'edited in onlyoffice');
  assert.is((await admin.get('/api/versions?path=Files/oo.docx')).json.items.length, 1);
  // Unsigned, or pointing elsewhere: refused, nothing written.
  const unsigned = await fetch(toBurrow(config.editorConfig.callbackUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.is(unsigned.status, 401);
  const elsewhere = { ...body, url: 'http://127.0.0.1:9/evil.docx' };
  const jwt2 = await new SignJWT({ payload: elsewhere })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(new TextEncoder().encode(OO_SECRET));
  const foreign = await fetch(toBurrow(config.editorConfig.callbackUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt2}` },
    body: JSON.stringify(elsewhere),
  });
  assert.is(foreign.status, 400);
  assert.is(fs.readFileSync(vol('oo.docx'), 'utf8'), 'edited in onlyoffice');
});

test("the editing servers' saves are on the activity log as the person who opened the document", async () => {
  const rows = (await admin.get('/api/activity?action=office.save')).json.rows;
  const seen = rows.map((r: any) => `${r.username} ${r.detail.via} ${r.detail.path}${r.detail.as ? ' new' : ''}`);
  assert.ok(seen.includes('admin WOPI Files/report.docx'), seen.join('\n'));
  assert.ok(seen.includes('admin ONLYOFFICE Files/oo.docx'), seen.join('\n'));
  // Refused saves (locked, view token, unsigned callback) wrote no row.
  assert.not.ok(
    seen.some((s: string) => /locked|guarded|viewer/.test(s)),
    seen.join('\n'),
  );
});

test('without configuration the office routes are absent: 404 and not described', async () => {
  const plain = await startServer();
  try {
    const a = await setupAdmin(plain);
    for (const p of ['/api/officeeditor/config', '/api/collabora/config', '/api/onlyoffice/config']) {
      const r = await a.post(p, { path: 'Files/x.docx' });
      assert.is(r.status, 404, p);
      envelope(r);
    }
    assert.is((await fetch(`${plain.url}/api/officeeditor/wopi/files/abc?access_token=x`)).status, 404);
    const doc = (await a.get('/api/openapi.json')).json;
    const described = Object.keys(doc.paths).filter((p) => /officeeditor|onlyoffice|collabora/.test(p));
    assert.equal(described, []);
    const f = (await a.get('/api/features')).json;
    assert.equal(f.collabora, { enabled: false, extensions: [] });
    assert.equal(f.onlyoffice, { enabled: false, extensions: [] });
  } finally {
    await plain.close();
    removeDirs(plain.dirs);
  }
});

test.run();
