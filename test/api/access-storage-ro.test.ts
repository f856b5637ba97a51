// A volume whose storage is mounted read-only (a disk remounted read-only after errors, a
// read-only snapshot, a bind mount made `ro`): the explainer says what every request then meets
// (`level: read`, `decidedBy: volume`, `limit: storage-read-only` — the rules still give manage),
// and every way of writing into it answers 403 READ_ONLY with the disk as it was: a multipart
// upload, a resumable (TUS) upload, a new folder, a new file, a rename, a delete, an editor save
// and a WebDAV PUT, MKCOL and DELETE. A folder the host does not let Burrow write says
// `not-writable-here` and refuses the same way (made with the immutable flag: root, which the
// tests run as, passes any chmod).
//
// The storage is a real read-only mount: a small tmpfs mounted inside the volume's host folder,
// filled, then remounted read-only (and a second tmpfs for the immutable folder). That needs
// root, which CI's runner is: this file fails (it never skips) when it is not run as root.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { setupAdmin, ADMIN } from '../support/auth.ts';

const VOLUME = 'Archiv „Scheibe“ & Co #2';
const FOLDER = 'Berichte 50% + Rück­blick é';
const FILE = 'Q1 résumé & "final" 🧾.txt';
const CONTENT = 'the bytes of the report, kept as they are\n';
const WORKSHOP = 'Werkstatt + Lager';
const LOCKED = 'Gesperrt – „nicht anfassen“ #4';

let s: TestServer;
let admin: Client;
let host: string;
let disk: string;
let workshop: string;
const mounted: string[] = [];

const q = (p: string) => encodeURIComponent(p);
const enc = (p: string) => p.split('/').map(q).join('/');
const b64 = (v: string) => Buffer.from(v, 'utf8').toString('base64');

/** Every name, kind and content under `dir`, sorted: the disk as a value. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out.push(`${r}/`);
        walk(path.join(d, e.name), r);
      } else out.push(`${r} = ${fs.readFileSync(path.join(d, e.name), 'utf8')}`);
    }
  };
  walk(dir, '');
  return out.sort();
}

test.before(async () => {
  if (process.getuid?.() !== 0)
    throw new Error(
      'access-storage-ro mounts a read-only tmpfs and must run as root (CI does); run it as root, it does not skip.',
    );
  host = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-storage-ro-'));
  disk = path.join(host, 'disk');
  workshop = path.join(host, 'workshop');
  for (const d of [disk, workshop]) {
    fs.mkdirSync(d, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0755', 'tmpfs', d]);
    mounted.push(d);
  }
  fs.mkdirSync(path.join(workshop, LOCKED));
  fs.writeFileSync(path.join(workshop, LOCKED, FILE), CONTENT);
  execFileSync('chattr', ['+i', path.join(workshop, LOCKED)]);
  fs.mkdirSync(path.join(disk, FOLDER));
  fs.writeFileSync(path.join(disk, FOLDER, FILE), CONTENT);
  fs.writeFileSync(path.join(disk, 'top level.md'), '# kept\n');
  execFileSync('mount', ['-o', 'remount,ro', disk]);
  assert.throws(() => fs.writeFileSync(path.join(disk, 'probe'), 'x'), /EROFS/);

  s = await startServer({ volumes: ['Home'], env: { WEBDAV_ENABLED: 'true', UPLOAD_CHUNKED_ENABLED: 'true' } });
  admin = await setupAdmin(s);
  for (const [label, p] of [
    [VOLUME, disk],
    [WORKSHOP, workshop],
  ]) {
    const added = await admin.post('/api/admin/volumes', { label, path: p, accessMode: 'readwrite' });
    assert.is(added.status, 201, added.text);
  }
});

test.after(async () => {
  await s?.close();
  if (s) removeDirs(s.dirs);
  if (workshop && fs.existsSync(path.join(workshop, LOCKED)))
    execFileSync('chattr', ['-i', path.join(workshop, LOCKED)]);
  for (const d of mounted) execFileSync('umount', [d]);
  if (host) fs.rmSync(host, { recursive: true, force: true });
});

test('the explainer: read, decided by the volume, limit storage-read-only — the rules would give manage', async () => {
  for (const p of [VOLUME, `${VOLUME}/${FOLDER}`]) {
    const e = await admin.get(`/api/access/explain?path=${q(p)}`);
    assert.is(e.status, 200, e.text);
    assert.is(e.json.level, 'read', p);
    assert.is(e.json.ruleLevel, 'manage', p);
    assert.is(e.json.decidedBy, 'volume', p);
    assert.is(e.json.limit, 'storage-read-only', p);
    assert.equal(
      [e.json.can.see, e.json.can.download, e.json.can.write, e.json.can.delete],
      [true, true, false, false],
      p,
    );
  }
  // What it says is what a read meets: the folder lists, the file downloads.
  const listing = await admin.get(`/api/browse/${enc(`${VOLUME}/${FOLDER}`)}`);
  assert.is(listing.status, 200, listing.text);
  assert.ok(listing.json.items.some((i: { name: string }) => i.name === FILE));
  const read = await admin.get(`/api/raw?path=${q(`${VOLUME}/${FOLDER}/${FILE}`)}`);
  assert.is(read.status, 200);
  assert.is(read.text, CONTENT);
});

test('every way of writing answers 403 READ_ONLY and leaves the disk as it was', async () => {
  const before = tree(disk);
  const folder = `${VOLUME}/${FOLDER}`;
  const refusals: [string, () => Promise<{ status: number; text: string; json?: any }>][] = [
    [
      'multipart upload',
      () => {
        const form = new FormData();
        form.append('filedata', new Blob(['new bytes']), 'neu & frisch #1.txt');
        return admin.post(`/api/upload?uploadTo=${q(folder)}`, form);
      },
    ],
    [
      'TUS creation',
      () =>
        admin.request('POST', '/api/upload/tus', undefined, {
          'Tus-Resumable': '1.0.0',
          'Upload-Length': '9',
          'Upload-Metadata': `filename ${b64('tus & co #2.txt')},uploadTo ${b64(folder)}`,
        }),
    ],
    ['new folder', () => admin.post('/api/files/folder', { path: folder, name: 'Neuer Ordner + 1' })],
    ['new file', () => admin.post('/api/files/file', { path: folder, name: 'neu.txt', content: 'x' })],
    ['rename', () => admin.post('/api/files/rename', { path: folder, name: FILE, newName: 'umbenannt.txt' })],
    ['editor save', () => admin.put('/api/editor', { path: `${folder}/${FILE}`, content: 'overwritten' })],
  ];
  for (const [what, attempt] of refusals) {
    const r = await attempt();
    assert.is(r.status, 403, `${what}: ${r.text}`);
    const e = envelope(r as any);
    assert.is(e.code, 'READ_ONLY', what);
    assert.ok(e.requestId, what);
    assert.equal(tree(disk), before, `${what}: the disk is unchanged`);
  }
  // A delete answers per item: not deleted, and why.
  const del = await admin.delete('/api/files', { items: [{ path: folder, name: FILE }] });
  assert.is(del.status, 403, del.text);
  assert.equal(tree(disk), before, 'delete: the disk is unchanged');
  // WebDAV: a PUT, a MKCOL and a DELETE through the same volume.
  const basic = { authorization: `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}` };
  for (const [method, p, body] of [
    ['PUT', `/dav/${enc(`${folder}/dav neu #3.txt`)}`, 'dav bytes'],
    ['PUT', `/dav/${enc(`${folder}/${FILE}`)}`, 'overwritten by dav'],
    ['MKCOL', `/dav/${enc(`${folder}/DAV Ordner`)}`, undefined],
    ['DELETE', `/dav/${enc(`${folder}/${FILE}`)}`, undefined],
  ] as const) {
    const r = await fetch(s.url + p, { method, headers: basic, body });
    const text = await r.text();
    assert.is(r.status, 403, `WebDAV ${method} ${p}: ${text}`);
    assert.equal(tree(disk), before, `WebDAV ${method}: the disk is unchanged`);
  }
});

test('a folder the host does not let Burrow write: not-writable-here, and the same refusals; beside it, writing works', async () => {
  const folder = `${WORKSHOP}/${LOCKED}`;
  const e = await admin.get(`/api/access/explain?path=${q(folder)}`);
  assert.is(e.status, 200, e.text);
  assert.equal(
    [e.json.level, e.json.ruleLevel, e.json.decidedBy, e.json.limit, e.json.can.write],
    ['read', 'manage', 'volume', 'not-writable-here', false],
  );
  const before = tree(workshop);
  for (const [what, r, code] of [
    ['new file', await admin.post('/api/files/file', { path: folder, name: 'neu.txt', content: 'x' }), 'READ_ONLY'],
    ['new folder', await admin.post('/api/files/folder', { path: folder, name: 'Unterordner' }), 'READ_ONLY'],
    // The file itself is not immutable: the save is tried (a temporary beside it, then a rename)
    // and the host's refusal is answered as such.
    [
      'editor save',
      await admin.put('/api/editor', { path: `${folder}/${FILE}`, content: 'overwritten' }),
      'PERMISSION',
    ],
  ] as const) {
    assert.is(r.status, 403, `${what}: ${r.text}`);
    assert.is(envelope(r).code, code, what);
  }
  assert.equal(tree(workshop), before);
  // The volume itself is writable: the explainer says manage there, and a new file lands.
  const top = await admin.get(`/api/access/explain?path=${q(WORKSHOP)}`);
  assert.equal([top.json.level, top.json.limit ?? null], ['manage', null]);
  const made = await admin.post('/api/files/file', { path: WORKSHOP, name: 'frei & offen.txt', content: 'ok' });
  assert.is(made.status, 201, made.text);
  assert.is(fs.readFileSync(path.join(workshop, 'frei & offen.txt'), 'utf8'), 'ok');
});

test.run();
