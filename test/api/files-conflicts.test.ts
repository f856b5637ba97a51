// A taken name, asked and answered (issue 26): uploads (multipart and TUS), copies and moves
// with `conflict` rename (keep both, the default), skip and replace, through the real server
// with names as people write them. Replace keeps what it replaces — a file's bytes as a
// version (checked byte for byte), a folder in the trash — and the answer says per item what
// happened. POST /api/files/conflicts lists the taken names before any work. The attacker
// table: a read token, a link that may only add files, another account, a name that is a link
// out of the volume, traversal, a cross-site request.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, issueToken, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let admin: Client;
let bob: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const TUS = { 'Tus-Resumable': '1.0.0' };
const b64 = (v: string) => Buffer.from(v).toString('base64');

// The world's names: spaces, +, &, #, accents in both forms, emoji.
const CAFE_NFC = 'Café menu.txt'.normalize('NFC');
const CAFE_NFD = 'Café menu.txt'.normalize('NFD');
const HOLIDAY = 'Holiday + Beach & Sun #1 🌊.jpg';
const FOLDER = 'Trip 2025 — Zürich & Co';

function form(parts: Array<[string, string] | [string, Blob, string]>): FormData {
  const fd = new FormData();
  for (const p of parts) {
    if (p.length === 2) fd.append(p[0], p[1]);
    else fd.append(p[0], p[1], p[2]);
  }
  return fd;
}

/** Bytes of a version, read through the API: restored as a copy beside its file, read, removed again. */
async function versionBytes(client: Client, file: string, id: string): Promise<Buffer> {
  const copy = await client.post(`/api/versions/${encodeURIComponent(id)}/restore-copy`);
  assert.is(copy.status, 201, copy.text);
  const real = vol(...copy.json.item.path.split('/').slice(1), copy.json.item.name);
  const bytes = fs.readFileSync(real);
  fs.rmSync(real);
  void file;
  return bytes;
}

/** Versions of a file, newest first. */
async function versionsOf(client: Client, virtual: string): Promise<{ id: string; size: number }[]> {
  const r = await client.get(`/api/versions?path=${encodeURIComponent(virtual)}`);
  assert.is(r.status, 200, r.text);
  return r.json.items;
}

/** Files in the volume (Burrow's own folders left out). */
function tree(dir = vol()): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => !f.split(path.sep).some((seg) => seg === '.burrow' || seg.startsWith('.burrow-tmp-')))
    .map((f) => f.split(path.sep).join('/'))
    .sort();
}

test.before(async () => {
  s = await startServer({ env: { UPLOAD_CHUNKED_ENABLED: 'true' }, volumes: ['Files', 'Other'] });
  admin = await setupAdmin(s);
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('conflicts plan: the taken names of an upload and of a copy, before any work, nothing changed', async () => {
  fs.mkdirSync(vol('Plan', FOLDER), { recursive: true });
  fs.writeFileSync(vol('Plan', CAFE_NFC), 'menu');
  fs.writeFileSync(vol('Plan', FOLDER, HOLIDAY), 'photo');
  fs.mkdirSync(vol('Plan src', FOLDER), { recursive: true });
  fs.writeFileSync(vol('Plan src', CAFE_NFC), 'other menu');
  fs.writeFileSync(vol('Plan src', 'fresh name.txt'), 'x');
  const before = tree();

  const upload = await admin.post('/api/files/conflicts', {
    destination: 'Files/Plan',
    names: [CAFE_NFC, CAFE_NFD, `${FOLDER}/${HOLIDAY}`, `${FOLDER}/new.jpg`, 'New folder/a.txt'],
  });
  assert.is(upload.status, 200, upload.text);
  assert.is(upload.json.destination, 'Files/Plan');
  assert.is(upload.json.canReplace, true);
  assert.equal(
    upload.json.conflicts.map((c: any) => [c.name, c.existing.name, c.existing.path, c.existing.size, c.sameKind]),
    [
      // The NFD spelling is another name on this disk: no conflict.
      [CAFE_NFC, CAFE_NFC, 'Files/Plan', 4, true],
      [`${FOLDER}/${HOLIDAY}`, HOLIDAY, `Files/Plan/${FOLDER}`, 5, true],
    ],
  );

  const copy = await admin.post('/api/files/conflicts', {
    destination: 'Files/Plan',
    items: [
      { path: 'Files/Plan src', name: CAFE_NFC },
      { path: 'Files/Plan src', name: FOLDER },
      { path: 'Files/Plan src', name: 'fresh name.txt' },
      // Already in the destination: a copy keeps both, a move does nothing — not a conflict.
      { path: 'Files/Plan', name: CAFE_NFC },
    ],
  });
  assert.is(copy.status, 200, copy.text);
  assert.equal(
    copy.json.conflicts.map((c: any) => [c.name, c.from, c.existing.kind, c.sameKind, c.canReplace]),
    [
      [CAFE_NFC, `Files/Plan src/${CAFE_NFC}`, 'txt', true, true],
      [FOLDER, `Files/Plan src/${FOLDER}`, 'directory', true, true],
    ],
  );
  assert.equal(tree(), before, 'asking changed nothing');

  // Bad input: traversal, nothing to ask about, a destination that is a file.
  for (const body of [
    { destination: 'Files/Plan', names: ['../escape.txt'] },
    { destination: 'Files/Plan', names: [] },
    { destination: 'Files/Plan', items: [{ path: 'Files/Plan src', name: '../x' }] },
    { destination: `Files/Plan/${CAFE_NFC}`, names: ['a'] },
  ]) {
    const r = await admin.post('/api/files/conflicts', body);
    assert.is(r.status, 400, JSON.stringify(body));
    envelope(r);
  }
  // A read token may ask (it is a read); it may not act on the answer.
  const reader = new Client(s.url, await issueToken(admin, 'read'));
  assert.is((await reader.post('/api/files/conflicts', { destination: 'Files/Plan', names: [CAFE_NFC] })).status, 200);
});

test('multipart: rename keeps both, skip keeps the old file and stores nothing, replace keeps the old bytes as a version', async () => {
  fs.mkdirSync(vol('Up'), { recursive: true });
  const old = randomBytes(150_000);
  fs.writeFileSync(vol('Up', HOLIDAY), old);
  fs.writeFileSync(vol('Up', CAFE_NFD), 'nfd menu');
  const fresh = randomBytes(90_000);

  const renamed = await admin.post(
    '/api/upload',
    form([
      ['uploadTo', 'Files/Up'],
      ['filedata', new Blob([fresh]), HOLIDAY],
    ]),
  );
  assert.is(renamed.status, 201, renamed.text);
  assert.is(renamed.json[0].name, 'Holiday + Beach & Sun #1 🌊 (1).jpg');
  assert.is(renamed.json[0].outcome, 'renamed', 'the default keeps both, as before');

  const skipped = await admin.post(
    '/api/upload?conflict=skip',
    form([
      ['uploadTo', 'Files/Up'],
      ['filedata', new Blob([fresh]), HOLIDAY],
      ['filedata', new Blob(['brand new']), 'Brand new & shiny.txt'],
    ]),
  );
  assert.is(skipped.status, 201, skipped.text);
  assert.equal(
    skipped.json.map((i: any) => [i.name, i.outcome, i.size]),
    [
      [HOLIDAY, 'skipped', old.length],
      ['Brand new & shiny.txt', 'placed', 9],
    ],
  );
  assert.ok(fs.readFileSync(vol('Up', HOLIDAY)).equals(old), 'a skip leaves the old bytes');

  const replaced = await admin.post(
    '/api/upload',
    form([
      ['uploadTo', 'Files/Up'],
      ['conflict', 'replace'],
      ['filedata', new Blob([fresh]), HOLIDAY],
      ['filedata', new Blob(['new nfd menu']), CAFE_NFD],
    ]),
  );
  assert.is(replaced.status, 201, replaced.text);
  assert.equal(
    replaced.json.map((i: any) => [i.name, i.outcome, typeof i.versionId]),
    [
      [HOLIDAY, 'replaced', 'string'],
      [CAFE_NFD, 'replaced', 'string'],
    ],
  );
  assert.ok(fs.readFileSync(vol('Up', HOLIDAY)).equals(fresh), 'the new bytes took the name');
  const versions = await versionsOf(admin, `Files/Up/${HOLIDAY}`);
  assert.equal(
    versions.map((v) => [v.id, v.size]),
    [[replaced.json[0].versionId, old.length]],
  );
  assert.ok(
    (await versionBytes(admin, HOLIDAY, versions[0]!.id)).equals(old),
    'the version is the old file, byte for byte',
  );
  const menu = await admin.get(`/api/versions/${replaced.json[1].versionId}/text`);
  assert.is(menu.json.content, 'nfd menu');
  assert.equal(
    tree(vol('Up')),
    ['Brand new & shiny.txt', CAFE_NFD, HOLIDAY, 'Holiday + Beach & Sun #1 🌊 (1).jpg'].sort(),
  );

  // Bad policy: refused, nothing kept.
  const bad = await admin.post(
    '/api/upload',
    form([
      ['uploadTo', 'Files/Up'],
      ['conflict', 'overwrite'],
      ['filedata', new Blob(['x']), 'never.txt'],
    ]),
  );
  assert.is(bad.status, 400);
  envelope(bad);
  const badQuery = await admin.post(
    '/api/upload?conflict=merge',
    form([
      ['uploadTo', 'Files/Up'],
      ['filedata', new Blob(['x']), 'never.txt'],
    ]),
  );
  assert.is(badQuery.status, 400);
  assert.not.ok(fs.existsSync(vol('Up', 'never.txt')));
});

test('multipart: a request refused after a replace gives the old bytes back — nothing half-written', async () => {
  fs.mkdirSync(vol('Half'), { recursive: true });
  const old = randomBytes(64_000);
  fs.writeFileSync(vol('Half', 'Report Q3 & Q4.pdf'), old);
  fs.writeFileSync(vol('Half', 'Notes'), 'a file where the second upload needs a folder');
  const r = await admin.post(
    '/api/upload',
    form([
      ['uploadTo', 'Files/Half'],
      ['conflict', 'replace'],
      ['filedata', new Blob([randomBytes(10_000)]), 'Report Q3 & Q4.pdf'],
      ['relativePath', 'Notes/inside.txt'],
      ['filedata', new Blob(['x']), 'inside.txt'],
    ]),
  );
  assert.is(r.status, 409, r.text);
  envelope(r);
  assert.ok(
    fs.readFileSync(vol('Half', 'Report Q3 & Q4.pdf')).equals(old),
    'the replaced file has its old bytes again',
  );
  assert.equal(
    await versionsOf(admin, 'Files/Half/Report Q3 & Q4.pdf'),
    [],
    'and no version of a replace that did not happen',
  );
  assert.equal(tree(vol('Half')), ['Notes', 'Report Q3 & Q4.pdf']);
});

/** Creates a TUS upload with raw headers; answers the response. */
function tusCreate(client: Client, length: number, meta: Record<string, string>) {
  return client.request('POST', '/api/upload/tus', undefined, {
    ...TUS,
    'Upload-Length': String(length),
    'Upload-Metadata': Object.entries(meta)
      .map(([k, v]) => `${k} ${b64(v)}`)
      .join(','),
  });
}
function tusPatch(client: Client, location: string, offset: number, data: Buffer) {
  return client.request('PATCH', new URL(location, s.url).pathname, data, {
    ...TUS,
    'Upload-Offset': String(offset),
    'Content-Type': 'application/offset+octet-stream',
  });
}

test('TUS: the policy travels in Upload-Metadata, is applied when the file is placed, and the outcome is answered', async () => {
  fs.mkdirSync(vol('Tus', FOLDER), { recursive: true });
  const old = randomBytes(40_000);
  fs.writeFileSync(vol('Tus', FOLDER, HOLIDAY), old);
  const fresh = randomBytes(70_000);

  // replace
  const created = await tusCreate(admin, fresh.length, {
    uploadTo: 'Files/Tus',
    relativePath: `${FOLDER}/${HOLIDAY}`,
    filename: HOLIDAY,
    conflict: 'replace',
  });
  assert.is(created.status, 201, created.text);
  const location = created.headers.get('location')!;
  const done = await tusPatch(admin, location, 0, fresh);
  assert.is(done.status, 204, done.text);
  assert.is(done.headers.get('upload-outcome'), 'replaced');
  const versionId = done.headers.get('upload-version-id')!;
  assert.ok(versionId);
  assert.is(decodeURIComponent(done.headers.get('upload-file-path')!), `Files/Tus/${FOLDER}/${HOLIDAY}`);
  const head = await admin.request('HEAD', new URL(location, s.url).pathname, undefined, TUS);
  assert.is(head.headers.get('upload-outcome'), 'replaced', 'HEAD says it again');
  assert.is(head.headers.get('upload-version-id'), versionId);
  assert.ok(fs.readFileSync(vol('Tus', FOLDER, HOLIDAY)).equals(fresh));
  assert.ok((await versionBytes(admin, HOLIDAY, versionId)).equals(old));

  // skip, the name taken at creation: complete at once, no byte sent, nothing staged.
  const skip = await tusCreate(admin, fresh.length, {
    uploadTo: `Files/Tus/${FOLDER}`,
    filename: HOLIDAY,
    conflict: 'skip',
  });
  assert.is(skip.status, 201, skip.text);
  assert.is(skip.headers.get('upload-offset'), String(fresh.length));
  assert.is(skip.headers.get('upload-outcome'), 'skipped');
  assert.is(decodeURIComponent(skip.headers.get('upload-file-path')!), `Files/Tus/${FOLDER}/${HOLIDAY}`);
  assert.ok(fs.readFileSync(vol('Tus', FOLDER, HOLIDAY)).equals(fresh));

  // skip and replace, the name taken only after creation: checked again at placement.
  const late = randomBytes(5000);
  const skipLate = await tusCreate(admin, late.length, { uploadTo: 'Files/Tus', filename: CAFE_NFC, conflict: 'skip' });
  const replaceLate = await tusCreate(admin, late.length, {
    uploadTo: 'Files/Tus',
    filename: 'Budget #2 + extras.ods',
    conflict: 'replace',
  });
  fs.writeFileSync(vol('Tus', CAFE_NFC), 'arrived meanwhile');
  fs.writeFileSync(vol('Tus', 'Budget #2 + extras.ods'), 'arrived meanwhile too');
  const skipDone = await tusPatch(admin, skipLate.headers.get('location')!, 0, late);
  assert.is(skipDone.headers.get('upload-outcome'), 'skipped');
  assert.is(fs.readFileSync(vol('Tus', CAFE_NFC), 'utf8'), 'arrived meanwhile');
  const replaceDone = await tusPatch(admin, replaceLate.headers.get('location')!, 0, late);
  assert.is(replaceDone.headers.get('upload-outcome'), 'replaced');
  assert.ok(fs.readFileSync(vol('Tus', 'Budget #2 + extras.ods')).equals(late));
  const kept = await admin.get(`/api/versions/${replaceDone.headers.get('upload-version-id')}/text`);
  assert.is(kept.json.content, 'arrived meanwhile too');

  // rename, the default
  const keepBoth = await tusCreate(admin, 3, { uploadTo: 'Files/Tus', filename: CAFE_NFC });
  const keepDone = await tusPatch(admin, keepBoth.headers.get('location')!, 0, Buffer.from('abc'));
  assert.is(keepDone.headers.get('upload-outcome'), 'renamed');
  assert.is(decodeURIComponent(keepDone.headers.get('upload-file-path')!), 'Files/Tus/Café menu (1).txt');

  const bad = await tusCreate(admin, 3, { uploadTo: 'Files/Tus', filename: 'x.txt', conflict: 'clobber' });
  assert.is(bad.status, 400);
  assert.is(envelope(bad).code, 'TUS_BAD_METADATA');
});

test('copy and move: each policy, per item or for all, with what happened to each item', async () => {
  fs.mkdirSync(vol('From', FOLDER, 'inner'), { recursive: true });
  fs.mkdirSync(vol('To', FOLDER, 'old only'), { recursive: true });
  const oldA = randomBytes(30_000);
  const newA = randomBytes(20_000);
  fs.writeFileSync(vol('To', HOLIDAY), oldA);
  fs.writeFileSync(vol('From', HOLIDAY), newA);
  fs.writeFileSync(vol('From', FOLDER, 'inner', 'new.txt'), 'new tree');
  fs.writeFileSync(vol('To', FOLDER, 'old only', 'old.txt'), 'old tree');
  fs.writeFileSync(vol('From', CAFE_NFC), 'moving menu');
  fs.writeFileSync(vol('To', CAFE_NFC), 'staying menu');

  // Copy, one request: a file replaced (version), a folder replaced (trash, never merged), a file skipped.
  const copy = await admin.post('/api/files/copy', {
    destination: 'Files/To',
    conflict: 'replace',
    items: [
      { path: 'Files/From', name: HOLIDAY },
      { path: 'Files/From', name: FOLDER },
      { path: 'Files/From', name: CAFE_NFC, conflict: 'skip' },
    ],
  });
  assert.is(copy.status, 200, copy.text);
  const [file, folder, menu] = copy.json.items;
  assert.equal([file.to, file.outcome], [`Files/To/${HOLIDAY}`, 'replaced']);
  assert.ok(file.versionId && !file.trashId);
  assert.equal([folder.to, folder.outcome], [`Files/To/${FOLDER}`, 'replaced']);
  assert.ok(folder.trashId && !folder.versionId);
  assert.equal([menu.to, menu.outcome, menu.skipped], [`Files/To/${CAFE_NFC}`, 'skipped', true]);
  assert.ok(fs.readFileSync(vol('To', HOLIDAY)).equals(newA));
  assert.ok((await versionBytes(admin, HOLIDAY, file.versionId)).equals(oldA));
  assert.equal(tree(vol('To', FOLDER)), ['inner', 'inner/new.txt'], 'no merge: the old folder is gone from here');
  const trash = (await admin.get('/api/trash')).json.items;
  const trashed = trash.find((t: any) => t.id === folder.trashId);
  assert.is(trashed.name, FOLDER, 'the old folder is in the trash');
  assert.is(fs.readFileSync(vol('To', CAFE_NFC), 'utf8'), 'staying menu');
  assert.ok(fs.existsSync(vol('From', HOLIDAY)), 'a copy leaves its source');

  // Move: skip leaves the source where it is; replace takes the name and removes the source.
  const skip = await admin.post('/api/files/move', {
    destination: 'Files/To',
    conflict: 'skip',
    items: [{ path: 'Files/From', name: CAFE_NFC }],
  });
  assert.equal(
    skip.json.items.map((i: any) => [i.outcome, i.skipped]),
    [['skipped', true]],
  );
  assert.is(fs.readFileSync(vol('From', CAFE_NFC), 'utf8'), 'moving menu');
  const move = await admin.post('/api/files/move', {
    destination: 'Files/To',
    items: [{ path: 'Files/From', name: CAFE_NFC, conflict: 'replace' }],
  });
  assert.is(move.status, 200, move.text);
  assert.is(move.json.items[0].outcome, 'replaced');
  assert.not.ok(fs.existsSync(vol('From', CAFE_NFC)));
  assert.is(fs.readFileSync(vol('To', CAFE_NFC), 'utf8'), 'moving menu');
  assert.is((await admin.get(`/api/versions/${move.json.items[0].versionId}/text`)).json.content, 'staying menu');

  // Keep both (the default), and a move into its own folder is `unchanged`.
  const both = await admin.post('/api/files/copy', {
    destination: 'Files/To',
    items: [{ path: 'Files/To', name: CAFE_NFC }],
  });
  assert.equal([both.json.items[0].to, both.json.items[0].outcome], ['Files/To/Café menu (1).txt', 'renamed']);
  const stay = await admin.post('/api/files/move', {
    destination: 'Files/To',
    items: [{ path: 'Files/To', name: CAFE_NFC }],
  });
  assert.is(stay.json.items[0].outcome, 'unchanged');

  // Across volumes, a folder onto a file of the same name: the file goes to the trash.
  fs.mkdirSync(path.join(s.dirs.volumes, 'Other', 'Scans'), { recursive: true });
  fs.writeFileSync(path.join(s.dirs.volumes, 'Other', 'Scans', FOLDER), 'a file named like the folder');
  const across = await admin.post('/api/files/move', {
    destination: 'Other/Scans',
    conflict: 'replace',
    items: [{ path: 'Files/To', name: FOLDER }],
  });
  assert.is(across.status, 200, across.text);
  assert.is(across.json.items[0].outcome, 'replaced');
  assert.ok(across.json.items[0].trashId);
  assert.ok(fs.statSync(path.join(s.dirs.volumes, 'Other', 'Scans', FOLDER)).isDirectory());

  // A folder cannot replace the folder that holds it.
  fs.mkdirSync(vol('Nest', 'Nest'), { recursive: true });
  const nest = await admin.post('/api/files/move', {
    destination: 'Files',
    conflict: 'replace',
    items: [{ path: 'Files/Nest', name: 'Nest' }],
  });
  assert.is(nest.status, 400);
  assert.is(envelope(nest).code, 'INTO_ITSELF');
  assert.ok(fs.existsSync(vol('Nest', 'Nest')));
});

test('attackers: a read token, an add-only link, another account, a link out of the volume, a cross-site request', async () => {
  fs.mkdirSync(vol('Guarded'), { recursive: true });
  fs.writeFileSync(vol('Guarded', CAFE_NFC), 'precious');
  const outside = path.join(s.dirs.root, 'outside secret.txt');
  fs.writeFileSync(outside, 'not yours');
  fs.symlinkSync(outside, vol('Guarded', 'Link out.txt'));
  const upload = (client: Client, url: string, name: string, conflict = 'replace') =>
    client.post(
      url,
      form([
        ['uploadTo', url.startsWith('/api/share/') ? `share/${url.split('/')[3]}` : 'Files/Guarded'],
        ['conflict', conflict],
        ['filedata', new Blob(['evil']), name],
      ]),
    );

  // A read token: refused before anything.
  const reader = new Client(s.url, await issueToken(admin, 'read'));
  const r1 = await upload(reader, '/api/upload', CAFE_NFC);
  assert.is(envelope(r1).code, 'AUTH_TOKEN_READ_ONLY');
  const r2 = await reader.post('/api/files/copy', {
    destination: 'Files/Guarded',
    conflict: 'replace',
    items: [{ path: 'Files/Up', name: 'Brand new & shiny.txt' }],
  });
  assert.is(envelope(r2).code, 'AUTH_TOKEN_READ_ONLY');

  // A link that may add files but not delete: replace refused (multipart and TUS), keep both allowed.
  const addOnly = await admin.post('/api/shares', {
    sourcePath: 'Files/Guarded',
    sharingType: 'anyone',
    accessMode: 'readwrite',
    allowUpload: true,
    allowDelete: false,
  });
  assert.is(addOnly.status, 201, addOnly.text);
  const t = addOnly.json.shareToken;
  const anon = new Client(s.url);
  const refused = await upload(anon, `/api/share/${t}/upload`, CAFE_NFC);
  assert.is(refused.status, 403, refused.text);
  assert.match(envelope(refused).message, /replace/);
  const tusRefused = await anon.request('POST', `/api/share/${t}/tus`, undefined, {
    ...TUS,
    'Upload-Length': '4',
    'Upload-Metadata': `uploadTo ${b64(`share/${t}`)},filename ${b64(CAFE_NFC)},conflict ${b64('replace')}`,
  });
  assert.is(tusRefused.status, 403, tusRefused.text);
  const kept = await upload(anon, `/api/share/${t}/upload`, CAFE_NFC, 'rename');
  assert.is(kept.status, 201, kept.text);
  assert.is(kept.json[0].outcome, 'renamed');
  assert.is(fs.readFileSync(vol('Guarded', CAFE_NFC), 'utf8'), 'precious');
  const planned = await bob.post('/api/files/conflicts', { destination: `share/${t}`, names: [CAFE_NFC] });
  assert.equal(
    [planned.json.canReplace, planned.json.conflicts[0].canReplace],
    [false, false],
    'the plan says so before',
  );

  // A link that may delete too: the replace works, and the old content is a version for the owner.
  const full = await admin.post('/api/shares', {
    sourcePath: 'Files/Guarded',
    sharingType: 'anyone',
    accessMode: 'readwrite',
    allowUpload: true,
    allowDelete: true,
  });
  const replaced = await upload(anon, `/api/share/${full.json.shareToken}/upload`, CAFE_NFC);
  assert.is(replaced.status, 201, replaced.text);
  assert.is(replaced.json[0].outcome, 'replaced');
  const owned = await versionsOf(admin, `Files/Guarded/${CAFE_NFC}`);
  assert.is((await admin.get(`/api/versions/${owned[0]!.id}/text`)).json.content, 'precious');

  // Another account, through the owner's add-only link on the API's own routes: the same flags.
  fs.writeFileSync(vol('Up', CAFE_NFC), 'bob brings a menu');
  const viaApi = await bob.post('/api/files/copy', {
    destination: `share/${t}`,
    conflict: 'replace',
    items: [{ path: 'Files/Up', name: CAFE_NFC }],
  });
  assert.is(viaApi.status, 403, viaApi.text);
  assert.is(fs.readFileSync(vol('Guarded', CAFE_NFC), 'utf8'), 'evil', 'unchanged since the allowed replace');

  // A name that is a link out of the volume: the file outside is never written.
  const out = await upload(admin, '/api/upload', 'Link out.txt');
  assert.is(fs.readFileSync(outside, 'utf8'), 'not yours');
  if (out.status === 201) assert.ok(fs.lstatSync(vol('Guarded', 'Link out.txt')).isFile());
  else envelope(out);

  // Cross-site: refused.
  const cross = await admin.post(
    '/api/files/copy',
    { destination: 'Files/Guarded', conflict: 'replace', items: [{ path: 'Files/Up', name: 'Brand new & shiny.txt' }] },
    { origin: 'https://evil.example' },
  );
  assert.is(envelope(cross).code, 'CROSS_SITE_REFUSED');
});

test.run();
