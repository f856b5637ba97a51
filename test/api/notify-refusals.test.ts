// The server's own troubles that came after the first set (issue 29), through the real server
// and every destination a person has — a real SMTP server, the Web Push stand-in that decrypts
// with the subscription's keys, an ntfy stand-in — and the bell: a volume mounted read-write
// whose folder cannot be written tells the administrators once until it is writable, and once
// that it is (a volume the administrator mounted read-only tells nothing); a multipart upload
// that arrived whole and was refused where it was going tells its uploader its name, folder and
// why, as a resumable one does. Nobody else hears of either.
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '../support/client.ts';
import { ADMIN_MAIL, ALICE_MAIL, startNoticeWorld, type NoticeWorld } from '../support/notice-world.ts';
import type { TestServer } from '../support/server.ts';

const DROP = 'Steuer 2025 – Belege (100%) & Quittungen';
const LABEL = 'Archiv “Oma” & Opa 📷';
const KEPT = 'Fotoalben – nur lesen #2';

let w: NoticeWorld;
let s: TestServer;
let admin: Client;
let alice: Client;
let bob: Client;
let hostFolder: string;
let keptFolder: string;

test.before(async () => {
  w = await startNoticeWorld(['volume.read-only', 'upload.failed']);
  ({ s, admin, alice, bob, hostFolder } = w);
  keptFolder = path.join(s.dirs.root, KEPT);
  fs.mkdirSync(keptFolder);
});

test.after(() => w?.close());

/**
 * Nothing can be written in `dir` any more, as on a disk mounted read-only: for root (whom
 * permissions do not stop) the folder is made immutable; for anyone else, its mode.
 */
function readOnly(dir: string, on: boolean): void {
  if (process.getuid?.() === 0) execFileSync('chattr', [on ? '+i' : '-i', dir]);
  else fs.chmodSync(dir, on ? 0o555 : 0o755);
}

test('a read-write volume that cannot be written: the administrators are told once until it is writable, then that it is', async () => {
  for (const [label, folder, accessMode] of [
    [LABEL, hostFolder, 'readwrite'],
    [KEPT, keptFolder, 'readonly'],
  ] as const) {
    const added = await admin.post('/api/admin/volumes', { label, path: folder, accessMode });
    assert.is(added.status, 201, added.text);
  }
  w.setClock('2026-07-14T09:01:00Z');
  await w.checkedAt('2026-07-14T09:01:00.000Z');
  readOnly(hostFolder, true);
  readOnly(keptFolder, true);
  try {
    w.setClock('2026-07-14T09:02:00Z');
    const title = `The volume “${LABEL}” is read-only`;
    const text = await w.toldOnce(admin, ADMIN_MAIL, title);
    assert.is(
      text,
      `Nothing can be written in the volume “${LABEL}” (Burrow may not write in its folder): uploads and changes there are refused until it is writable again.`,
    );
    assert.equal((await w.checkedAt('2026-07-14T09:02:00.000Z')).readOnly, [LABEL]);
    // Still read-only at the next checks: nothing more.
    const before = w.counts();
    w.setClock('2026-07-14T09:03:00Z');
    assert.equal((await w.checkedAt('2026-07-14T09:03:00.000Z')).readOnly, [LABEL]);
    w.setClock('2026-07-14T09:04:00Z');
    await w.checkedAt('2026-07-14T09:04:00.000Z');
    await w.settled();
    assert.is((await w.inbox(admin)).items.length, 1);
    assert.equal(w.counts(), before);
  } finally {
    readOnly(hostFolder, false);
    readOnly(keptFolder, false);
  }
  // Writable again.
  const before = w.counts();
  w.setClock('2026-07-14T09:05:00Z');
  await w.toldOnce(admin, ADMIN_MAIL, `The volume “${LABEL}” is writable again`);
  assert.equal(w.counts(), { mails: before.mails + 1, pushes: before.pushes + 1, ntfy: before.ntfy + 1 });
  assert.is((await w.inbox(admin)).items.length, 2);
  // The volume mounted read-only on purpose was never news; the accounts that are not administrators heard nothing.
  assert.not.ok(JSON.stringify((await w.inbox(admin)).items).includes(KEPT));
  assert.is((await w.inbox(alice)).items.length, 0);
  assert.is((await w.inbox(bob)).items.length, 0);
});

/** The part files of multipart uploads, anywhere in the server's folders. */
function multipartParts(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/^mp-.*\.part$/.test(e.name)) out.push(p);
    }
  };
  walk(s.dirs.root);
  return out;
}

test('a multipart upload refused at placement: its uploader is told the name, the folder and why', async () => {
  assert.is((await alice.post('/api/files/folder', { path: 'Files', name: DROP })).status, 201);
  // One request, two files: the first takes the name "Belege" as a file; the second was to go
  // into a folder of that name — both checked when they arrived, the second refused where it goes.
  const folderName = 'Belege & Rechnungen';
  const name = 'Rechnung „Café Müller“ #7 (100%) 🧾.pdf';
  const f = new FormData();
  f.append('uploadTo', `Files/${DROP}`);
  f.append('relativePath', folderName);
  f.append('filedata', new Blob(['not a folder']), folderName);
  f.append('relativePath', `${folderName}/${name}`);
  f.append('filedata', new Blob(['%PDF-1.4 Brötchen 3,20 €']), name);
  const refused = await alice.post('/api/upload', f);
  assert.ok(refused.status >= 400, `${refused.status} ${refused.text}`);
  const title = `“${name}” could not be placed`;
  const text = await w.toldOnce(alice, ALICE_MAIL, title);
  const reason = refused.json.error.message.charAt(0).toLowerCase() + refused.json.error.message.slice(1);
  assert.is(text, `“${name}” was uploaded but not placed in Files/${DROP}/${folderName}: ${reason}`);
  const item = (await w.inbox(alice)).items.find((i) => i.title === title);
  assert.equal(item.paths, [`Files/${DROP}/${folderName}`]);
  // Nothing of the request is left: not the first file, not a part file.
  assert.equal(fs.readdirSync(path.join(s.dirs.volumes, 'Files', DROP)), []);
  assert.equal(multipartParts(), []);
  await w.settled();
  assert.is((await w.inbox(alice)).items.length, 1);
  assert.is((await w.inbox(bob)).items.length, 0);
  assert.is((await w.inbox(admin)).items.filter((i) => i.kind === 'upload.failed').length, 0);
});

test.run();
