// Burrow's own files stay out of the user's folders (issue 26): whoever browses the same disk
// over SMB saw `.burrow/versions` in a code folder and an empty `.burrow/uploads` after a file
// request. Trash, versions and upload parts now live in Burrow's own folder for the disk (the
// data folder when it shares the disk; else one `.burrow` at the top of that disk), an own
// folder a user could see is never left empty by uploads, and an install from before moves its
// trash and versions out of the volumes at the next start.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setupAdmin } from '../support/auth.ts';
import type { Client } from '../support/client.ts';
import { mountTmpfs } from '../support/mount.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

const TUS = { 'Tus-Resumable': '1.0.0' };
const b64 = (v: string) => Buffer.from(v).toString('base64');

/** Every entry of Burrow's own under `dir` (its folders and temporaries), at any depth, hidden ones included. */
function burrowsOwn(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((rel) => rel.split(path.sep).some((seg) => seg === '.burrow' || seg.startsWith('.burrow-tmp-')))
    .sort();
}

function form(uploadTo: string, name: string, bytes: string): FormData {
  const fd = new FormData();
  fd.append('uploadTo', uploadTo);
  fd.append('filedata', new Blob([bytes]), name);
  return fd;
}

/** A whole TUS upload in two requests; answers the final PATCH. */
async function tus(client: Client, uploadTo: string, name: string, bytes: string) {
  const created = await client.request('POST', '/api/upload/tus', undefined, {
    ...TUS,
    'Upload-Length': String(Buffer.byteLength(bytes)),
    'Upload-Metadata': `uploadTo ${b64(uploadTo)},filename ${b64(name)}`,
  });
  assert.is(created.status, 201, created.text);
  return client.request('PATCH', new URL(created.headers.get('location')!, client.base).pathname, bytes, {
    ...TUS,
    'Upload-Offset': '0',
    'Content-Type': 'application/offset+octet-stream',
  });
}

/** Saves, deletes and uploads of every kind in `folder` (virtual), as a person and a link holder do. */
async function work(s: TestServer, admin: Client, folder: string, real: string): Promise<void> {
  fs.writeFileSync(path.join(real, 'main.py'), 'print("one")\n');
  fs.writeFileSync(path.join(real, 'old notes.txt'), 'to the trash');
  for (const content of ['print("two")\n', 'print("three")\n'])
    assert.is((await admin.put('/api/editor', { path: `${folder}/main.py`, content })).status, 200);
  assert.is((await admin.delete('/api/files', { items: [{ path: folder, name: 'old notes.txt' }] })).status, 200);
  assert.is((await admin.post('/api/upload', form(folder, 'Budget & plans.csv', 'a,b\n'))).status, 201);
  assert.is((await tus(admin, folder, 'Holiday #1 🌊.jpg', 'jpeg bytes')).status, 204);
  // A TUS upload cancelled half-way, and a file request used anonymously.
  const cancelled = await admin.request('POST', '/api/upload/tus', undefined, {
    ...TUS,
    'Upload-Length': '10',
    'Upload-Metadata': `uploadTo ${b64(folder)},filename ${b64('never.bin')}`,
  });
  assert.is(
    (await admin.request('DELETE', new URL(cancelled.headers.get('location')!, s.url).pathname, undefined, TUS)).status,
    204,
  );
  const request = await admin.post('/api/shares', {
    sourcePath: folder,
    sharingType: 'anyone',
    fileRequest: { maxFiles: 5 },
  });
  assert.is(request.status, 201, request.text);
  const t = request.json.shareToken;
  const dropped = await new (admin.constructor as typeof Client)(s.url).post(
    `/api/share/${t}/upload`,
    form(`share/${t}`, 'Homework – Zoé.pdf', 'pdf'),
  );
  assert.is(dropped.status, 201, dropped.text);
}

test('trash, versions and upload parts stay out of a volume and of a host folder', async () => {
  const s = await startServer({ env: { UPLOAD_CHUNKED_ENABLED: 'true' } });
  try {
    const admin = await setupAdmin(s);
    const code = path.join(s.dirs.root, "Ada's Code");
    fs.mkdirSync(code);
    const added = await admin.post('/api/admin/volumes', { label: 'Code', path: code, accessMode: 'readwrite' });
    assert.is(added.status, 201, added.text);
    await work(s, admin, 'Files', path.join(s.dirs.volumes, 'Files'));
    await work(s, admin, 'Code', code);

    assert.equal(burrowsOwn(s.dirs.volumes), [], 'nothing of Burrow in the volumes');
    assert.equal(burrowsOwn(code), [], 'nothing of Burrow in the host folder');
    const own = path.join(s.dirs.config, 'files');
    assert.is(fs.readdirSync(path.join(own, 'trash')).length, 2, 'the two deletions are in the data folder');
    assert.is(fs.readdirSync(path.join(own, 'versions')).length, 4, 'the four saves kept the old content there');
    assert.equal(fs.readdirSync(path.join(own, 'uploads')), [], 'no part file left');

    // And they work from there: a version read, a deletion restored.
    const versions = (await admin.get('/api/versions?path=Code/main.py')).json.items;
    assert.is((await admin.get(`/api/versions/${versions.at(-1).id}/text`)).json.content, 'print("one")\n');
    const trashed = (await admin.get('/api/trash')).json.items.find((i: any) => i.path === 'Code');
    assert.is((await admin.get(`/api/trash/items/${trashed.id}/text`)).json.content, 'to the trash');
    assert.is((await admin.post(`/api/trash/items/${trashed.id}/restore`, {})).status, 200);
    assert.is(fs.readFileSync(path.join(code, 'old notes.txt'), 'utf8'), 'to the trash');
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('an install from before moves its trash and versions out of the volume at the next start, and removes the empty .burrow', async () => {
  const s = await startServer();
  try {
    const admin = await setupAdmin(s);
    const files = path.join(s.dirs.volumes, 'Files');
    fs.writeFileSync(path.join(files, 'Letter to Zoé.txt'), 'Dear Zoé,');
    await admin.put('/api/editor', { path: 'Files/Letter to Zoé.txt', content: 'Dear Zoé, hello' });
    fs.writeFileSync(path.join(files, 'Draft #2.txt'), 'draft');
    await admin.delete('/api/files', { items: [{ path: 'Files', name: 'Draft #2.txt' }] });

    // Where an earlier release kept them: `<volume>/.burrow/…`, with an empty upload staging folder.
    const old = path.join(files, '.burrow');
    await s.withDatabase((db) => {
      for (const [table, kind] of [
        ['file_versions', 'versions'],
        ['trash_items', 'trash'],
      ] as const) {
        for (const row of db.all<{ id: string; stored_path: string }>(`SELECT id, stored_path FROM ${table}`)) {
          const then = path.join(old, kind, path.basename(row.stored_path));
          fs.mkdirSync(path.dirname(then), { recursive: true });
          fs.renameSync(row.stored_path, then);
          db.run(`UPDATE ${table} SET stored_path = ? WHERE id = ?`, [then, row.id]);
        }
      }
      fs.mkdirSync(path.join(old, 'uploads'));
      db.run('INSERT OR IGNORE INTO upload_staging_dirs (dir) VALUES (?)', [path.join(old, 'uploads')]);
    });

    assert.not.ok(fs.existsSync(old), 'the old folder is gone from the volume');
    await s.settleLogs();
    assert.ok(s.logs.some((l) => l.msg?.startsWith('moved trash and versions out of the volumes') && l.moved === 2));
    const version = (await admin.get(`/api/versions?path=${encodeURIComponent('Files/Letter to Zoé.txt')}`)).json
      .items[0];
    assert.is((await admin.get(`/api/versions/${version.id}/text`)).json.content, 'Dear Zoé,');
    const trashed = (await admin.get('/api/trash')).json.items[0];
    assert.is((await admin.post(`/api/trash/items/${trashed.id}/restore`, {})).status, 200);
    assert.is(fs.readFileSync(path.join(files, 'Draft #2.txt'), 'utf8'), 'draft');
    const rows = await s.withDatabase((db) => db.all<{ stored_path: string }>('SELECT stored_path FROM file_versions'));
    assert.ok(rows.every((r) => r.stored_path.startsWith(path.join(s.dirs.config, 'files', 'versions'))));
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('a host folder on a disk of its own: one .burrow at the top of that disk, none inside the folder, none left empty', async () => {
  const s = await startServer({ env: { UPLOAD_CHUNKED_ENABLED: 'true', UPLOAD_FREE_SPACE_RESERVE: '0' } });
  const disk = mountTmpfs(path.join(s.dirs.root, 'USB disk'), '16m');
  try {
    const admin = await setupAdmin(s);
    const photos = path.join(disk.dir, 'Photos 2025');
    fs.mkdirSync(photos);
    const added = await admin.post('/api/admin/volumes', { label: 'Photos', path: photos, accessMode: 'readwrite' });
    assert.is(added.status, 201, added.text);
    const top = path.join(disk.dir, '.burrow');

    // Uploads stage on that disk and leave nothing behind.
    assert.is((await tus(admin, 'Photos', 'Sunset 🌅.jpg', 'sunset')).status, 204);
    assert.is((await admin.post('/api/upload', form('Photos', 'Beach & Sun.jpg', 'beach'))).status, 201);
    assert.equal(burrowsOwn(disk.dir), [], 'no empty upload folder left on the disk');

    // A deletion is a rename into the top of the disk, out of the folder.
    assert.is((await admin.delete('/api/files', { items: [{ path: 'Photos', name: 'Beach & Sun.jpg' }] })).status, 200);
    assert.equal(burrowsOwn(photos), []);
    assert.equal(fs.readdirSync(path.join(top, 'trash')).length, 1);
    const trashed = (await admin.get('/api/trash')).json.items[0];
    assert.is((await admin.post(`/api/trash/items/${trashed.id}/restore`, {})).status, 200);
    assert.is(fs.readFileSync(path.join(photos, 'Beach & Sun.jpg'), 'utf8'), 'beach');
  } finally {
    await s.close();
    disk.unmount();
    removeDirs(s.dirs);
  }
});

test.run();
