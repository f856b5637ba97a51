// The ONLYOFFICE Docs protocol against a stub document server: a signed config, the download
// link, and the callback that fetches the edited document (only from the document server,
// capped) and saves it keeping the replaced content as a version.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SignJWT, jwtVerify } from 'jose';
import { createChangeSink } from '../../src/changes.ts';
import { AppError } from '../../src/core/errors.ts';
import { silentLogger } from '../../src/core/log.ts';
import type { Caller } from '../../src/core/caller.ts';
import { journalled, recordingJournal } from '../support/journal.ts';
import { createOfficeEditorPlugin } from '../../src/plugins/officeeditor/index.ts';
import { createLockStore } from '../../src/plugins/officeeditor/locks-store.ts';
import { createItemLocks, type LockProbe } from '../../src/files/locks.ts';
import { unitVersions, unitVolume } from '../support/unit-volume.ts';

const alice: Caller = { userId: 'u-alice', username: 'alice', roles: ['user'], isAdmin: false, via: 'session' };
const SECRET = 'onlyoffice-test-secret-0123456789';
const key = new TextEncoder().encode(SECRET);
const volume = unitVolume('burrow-oo-');
const { root, files, db, resolver, own } = volume;
const journal = recordingJournal();
const versions = unitVersions(volume, journal);

/** Another account's exclusive WebDAV locks, by the locked file's place. */
const davLocked = new Map<string, string>();
const davLockAt: LockProbe = (item) => {
  const userId = davLocked.get(item.realPath);
  return userId ? [{ kind: 'webdav', userId }] : [];
};

let docBase = '';
const docServer = http.createServer((req, res) => {
  if (req.url === '/cache/files/k1/output.docx') return res.end('edited by onlyoffice');
  // A WebDAV client of another account locks the document while it is fetched.
  if (req.url === '/cache/files/k2/output.docx') {
    davLocked.set(path.join(files, 'Protokoll Ü & Co.docx'), 'u-bob');
    return res.end('edited while locked');
  }
  if (req.url === '/cache/files/big/output.docx') return res.end(Buffer.alloc(4096, 1));
  res.statusCode = 404;
  res.end();
});

const make = () =>
  createOfficeEditorPlugin({
    locks: createLockStore(db),
    itemLocks: createItemLocks({ webdav: davLockAt, office: () => [] }),
    resolver,
    versions,
    journal,
    changes: createChangeSink(),
    log: silentLogger,
    callerFor: (id) => (id === alice.userId ? alice : null),
    publicUrl: 'https://files.example.org/',
    maxFileSize: 1024,
    onlyoffice: { url: docBase, secret: SECRET, lang: 'en', extensions: [], forceSave: true },
  });

test.before(async () => {
  await new Promise<void>((r) => docServer.listen(0, '127.0.0.1', r));
  docBase = `http://127.0.0.1:${(docServer.address() as AddressInfo).port}`;
});
test.after(async () => {
  await new Promise((r) => docServer.close(r));
  fs.rmSync(root, { recursive: true, force: true });
});

const query = (u: string, name: string) => new URL(u).searchParams.get(name);
const fileIdIn = (u: string) => /\/(?:files|callback)\/([^/?]+)/.exec(new URL(u).pathname)![1]!;

test('config: document server URL, editor config signed with the secret, download link that serves the file', async () => {
  fs.writeFileSync(path.join(files, 'letter.docx'), 'letter v1');
  const p = make();
  assert.is(p.wopi, null);
  assert.equal(p.features().onlyoffice, { enabled: true, extensions: p.onlyoffice!.extensions });
  const { documentServerUrl, config } = await p.onlyoffice!.config(alice, { path: 'Files/letter.docx', mode: 'edit' });
  assert.is(documentServerUrl, docBase);
  const { payload } = await jwtVerify(config.token as string, key);
  assert.equal((payload.document as { title: string }).title, 'letter.docx');
  const doc = config.document as { url: string; key: string; fileType: string };
  assert.is(doc.fileType, 'docx');
  assert.is(config.documentType, 'word');
  assert.ok(doc.url.startsWith('https://files.example.org/api/onlyoffice/files/'));
  const answer = await p.onlyoffice!.download(fileIdIn(doc.url), query(doc.url, 'access_token'));
  let body = '';
  for await (const c of answer.stream!) body += c;
  assert.is(body, 'letter v1');
  // The download link is not a callback credential, nor the reverse.
  const cb = (config.editorConfig as { callbackUrl: string }).callbackUrl;
  await rejects(p.onlyoffice!.download(fileIdIn(doc.url), query(cb, 'access_token')), 401);
  await rejects(p.onlyoffice!.download(fileIdIn(doc.url), config.token), 401);
});

test('callback status 2 saves the edited document from the document server, keeping a version; unsigned, foreign or oversize ones change nothing', async () => {
  fs.writeFileSync(path.join(files, 'minutes.docx'), 'minutes v1');
  const p = make();
  const { config } = await p.onlyoffice!.config(alice, { path: 'Files/minutes.docx', mode: 'edit' });
  const cb = (config.editorConfig as { callbackUrl: string }).callbackUrl;
  const id = fileIdIn(cb);
  const token = query(cb, 'access_token');
  const sign = (body: Record<string, unknown>) => new SignJWT(body).setProtectedHeader({ alg: 'HS256' }).sign(key);
  const edited = { key: 'k1', status: 2, url: `${docBase}/cache/files/k1/output.docx` };

  await rejects(p.onlyoffice!.callback(id, token, edited, undefined), 401);
  const forged = await new SignJWT(edited).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('wrong'));
  await rejects(p.onlyoffice!.callback(id, token, { ...edited, token: forged }, undefined), 401);
  const foreign = { ...edited, url: 'http://127.0.0.1:9/cache/files/k1/output.docx' };
  await rejects(p.onlyoffice!.callback(id, token, { token: await sign(foreign) }, undefined), 400);
  const big = { ...edited, url: `${docBase}/cache/files/big/output.docx` };
  await rejects(p.onlyoffice!.callback(id, token, { token: await sign(big) }, undefined), 413);
  assert.is(fs.readFileSync(path.join(files, 'minutes.docx'), 'utf8'), 'minutes v1');
  assert.not.ok(fs.readdirSync(files).some((n) => n.startsWith('.burrow-tmp-')));

  assert.equal(
    await p.onlyoffice!.callback(
      id,
      token,
      { status: 1, key: 'k1', token: await sign({ status: 1, key: 'k1' }) },
      undefined,
    ),
    { error: 0 },
  );
  // The header form: Authorization: Bearer <jwt> with the body under `payload`.
  const bearer = await sign({ payload: edited });
  assert.equal(await p.onlyoffice!.callback(id, token, edited, `Bearer ${bearer}`), { error: 0 });
  assert.is(fs.readFileSync(path.join(files, 'minutes.docx'), 'utf8'), 'edited by onlyoffice');
  const kept = versions.list(alice, await resolver.resolveInside(alice, 'Files/minutes.docx'));
  assert.is(kept.length, 1);
  assert.is(fs.readFileSync((await versions.find(alice, kept[0]!.id)).row.stored_path, 'utf8'), 'minutes v1');
  // The download went into a temporary on the work journal: written before it existed, ended once placed.
  assert.equal(journal.open(), []);
  assert.equal(journalled(journal), ['begin:false end:false']);
});

test("another account's WebDAV lock holds against the callback's save: 423 LOCKED, before the fetch and after it; nothing saved or left", async () => {
  const doc = path.join(files, 'Protokoll Ü & Co.docx');
  fs.writeFileSync(doc, 'protokoll v1');
  const p = make();
  const { config } = await p.onlyoffice!.config(alice, { path: 'Files/Protokoll Ü & Co.docx', mode: 'edit' });
  const cb = (config.editorConfig as { callbackUrl: string }).callbackUrl;
  const save = async (k: string) => {
    const body = { key: k, status: 2, url: `${docBase}/cache/files/${k}/output.docx` };
    const signed = await new SignJWT(body).setProtectedHeader({ alg: 'HS256' }).sign(key);
    return p.onlyoffice!.callback(fileIdIn(cb), query(cb, 'access_token'), { token: signed }, undefined);
  };
  davLocked.set(doc, 'u-bob');
  await rejects(save('k1'), 423);
  // Alice's own WebDAV lock does not hold against her editor.
  davLocked.set(doc, alice.userId);
  assert.equal(await save('k1'), { error: 0 });
  assert.is(fs.readFileSync(doc, 'utf8'), 'edited by onlyoffice');
  // Locked by bob while the edited document streams in: the temporary goes, the file stays.
  davLocked.delete(doc);
  await rejects(save('k2'), 423);
  assert.is(fs.readFileSync(doc, 'utf8'), 'edited by onlyoffice');
  assert.not.ok(fs.readdirSync(files).some((n) => n.startsWith('.burrow-tmp-')));
  davLocked.delete(doc);
});

test('a view-mode config gives a callback that may not save', async () => {
  fs.writeFileSync(path.join(files, 'ro.docx'), 'ro');
  const p = make();
  const { config } = await p.onlyoffice!.config(alice, { path: 'Files/ro.docx', mode: 'view' });
  assert.is((config.editorConfig as { mode: string }).mode, 'view');
  const cb = (config.editorConfig as { callbackUrl: string }).callbackUrl;
  const body = { key: 'k1', status: 2, url: `${docBase}/cache/files/k1/output.docx` };
  const signed = await new SignJWT(body).setProtectedHeader({ alg: 'HS256' }).sign(key);
  await rejects(p.onlyoffice!.callback(fileIdIn(cb), query(cb, 'access_token'), { token: signed }, undefined), 403);
  assert.is(fs.readFileSync(path.join(files, 'ro.docx'), 'utf8'), 'ro');
});

async function rejects(p: Promise<unknown>, status: number) {
  try {
    await p;
  } catch (err) {
    assert.instance(err, AppError, String(err));
    assert.is((err as AppError).status, status, (err as Error).message);
    return;
  }
  assert.unreachable(`expected ${status}`);
}

test.run();
