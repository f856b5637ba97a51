// File operations in the activity log, through the real HTTP server: each operation a person
// asks for (upload, create, rename, move, copy, delete, trash restore/purge/empty, editor save,
// archive extract and compress, shares created/changed/deleted) is exactly one row naming who,
// from which address, and what; anonymous link holders are named by the link, and the link's
// token never reaches the log. Refused operations write no success row; the switch is honoured.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, issueToken, me, setupAdmin } from '../support/auth.ts';
import { yazlZip } from '../support/archives.ts';
import { Client } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

/** A client whose requests come through the (trusted, loopback) proxy from `address`. */
class From extends Client {
  readonly address: string;
  constructor(base: string, address: string, bearer?: string) {
    super(base, bearer);
    this.address = address;
  }
  override request(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
    return super.request(method, p, body, { 'x-forwarded-for': this.address, ...headers });
  }
}

const MIA = { username: 'mia', password: 'mia-password-1' };
const FAMILIES = /^(files|trash|editor|archive|share)\./;

let s: TestServer;
let admin: Client;
let mia: From;
let miaId: string;
const files = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);

test.before(async () => {
  s = await startServer({ env: { TRUST_PROXY: 'loopback', UPLOAD_CHUNKED_ENABLED: 'true' } });
  admin = await setupAdmin(s);
  const on = await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 30 } });
  assert.is(on.status, 200, on.text);
  const signedIn = await createUser(admin, s, MIA);
  mia = new From(s.url, '192.0.2.7');
  mia.cookies = signedIn.cookies;
  miaId = (await me(mia)).id;
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

async function latestId(): Promise<number> {
  const r = await admin.get('/api/activity?limit=1');
  return Number(r.json.rows[0]?.id ?? 0);
}

/** The file-operation rows `fn` wrote, oldest first. */
async function during(fn: () => Promise<unknown>): Promise<any[]> {
  const mark = await latestId();
  await fn();
  const r = await admin.get('/api/activity?limit=500');
  assert.is(r.status, 200, r.text);
  return r.json.rows.filter((row: any) => Number(row.id) > mark && FAMILIES.test(row.action)).reverse();
}

/** Exactly one row, of `action`, by mia from her address, with `detail` among its fields. */
function one(rows: any[], action: string, detail: Record<string, unknown>): any {
  assert.equal(
    rows.map((r) => r.action),
    [action],
  );
  const row = rows[0];
  assert.is(row.outcome, 'success');
  assert.is(row.userId, miaId);
  assert.is(row.username, 'mia');
  assert.is(row.address, '192.0.2.7');
  for (const [k, v] of Object.entries(detail)) assert.equal(row.detail[k], v, `${action}: ${k}`);
  return row;
}

function ok(r: { status: number; text: string }, status = 200) {
  assert.is(r.status, status, r.text);
}

function form(uploadTo: string, entries: [string, string][]): FormData {
  const f = new FormData();
  f.append('uploadTo', uploadTo);
  for (const [name, text] of entries) f.append('filedata', new Blob([text]), name);
  return f;
}

test('create folder and create file: one row each, with the path and who', async () => {
  one(
    await during(async () => ok(await mia.post('/api/files/folder', { path: 'Files', name: 'Plans' }), 201)),
    'files.create-folder',
    { path: 'Files/Plans' },
  );
  one(
    await during(async () =>
      ok(await mia.post('/api/files/file', { path: 'Files/Plans', name: 'a.txt', content: 'plan A' }), 201),
    ),
    'files.create-file',
    { path: 'Files/Plans/a.txt', size: 6 },
  );
});

test('a multipart upload of several files is one row with the count, the paths and the bytes', async () => {
  const rows = await during(async () =>
    ok(
      await mia.request(
        'POST',
        '/api/upload',
        form('Files/Plans', [
          ['b.txt', 'bee'],
          ['c.txt', 'sea'],
        ]),
      ),
      201,
    ),
  );
  one(rows, 'files.upload', {
    paths: ['Files/Plans/b.txt', 'Files/Plans/c.txt'],
    count: 2,
    bytes: 6,
    method: 'multipart',
  });
});

test('a TUS upload is one row when its file is placed, none at creation', async () => {
  const TUS = { 'tus-resumable': '1.0.0' };
  let location = '';
  const created = await during(async () => {
    const r = await mia.request('POST', '/api/upload/tus', undefined, {
      ...TUS,
      'upload-length': '10',
      'upload-metadata': `filename ${btoa('resumed.bin')},uploadTo ${btoa('Files/Plans')}`,
    });
    ok(r, 201);
    location = new URL(r.headers.get('location')!, s.url).pathname;
  });
  assert.equal(created, []);
  const first = await during(async () =>
    ok(
      await mia.request('PATCH', location, new Uint8Array(4), {
        ...TUS,
        'upload-offset': '0',
        'content-type': 'application/offset+octet-stream',
      }),
      204,
    ),
  );
  assert.equal(first, [], 'no row before the last byte');
  const last = await during(async () =>
    ok(
      await mia.request('PATCH', location, new Uint8Array(6), {
        ...TUS,
        'upload-offset': '4',
        'content-type': 'application/offset+octet-stream',
      }),
      204,
    ),
  );
  one(last, 'files.upload', { paths: ['Files/Plans/resumed.bin'], count: 1, bytes: 10, method: 'tus' });
});

test('rename, copy and move: one row each, naming from and to', async () => {
  one(
    await during(async () =>
      ok(await mia.post('/api/files/rename', { path: 'Files/Plans', name: 'a.txt', newName: 'plan-a.txt' })),
    ),
    'files.rename',
    { path: 'Files/Plans/a.txt', to: 'Files/Plans/plan-a.txt' },
  );
  ok(await mia.post('/api/files/folder', { path: 'Files', name: 'Copies' }), 201);
  one(
    await during(async () =>
      ok(
        await mia.post('/api/files/copy', {
          items: [
            { path: 'Files/Plans', name: 'b.txt' },
            { path: 'Files/Plans', name: 'c.txt' },
          ],
          destination: 'Files/Copies',
        }),
      ),
    ),
    'files.copy',
    { destination: 'Files/Copies', paths: ['Files/Plans/b.txt', 'Files/Plans/c.txt'], count: 2 },
  );
  ok(await mia.post('/api/files/folder', { path: 'Files', name: 'Moved' }), 201);
  one(
    await during(async () =>
      ok(
        await mia.post('/api/files/move', {
          items: [{ path: 'Files/Copies', name: 'b.txt' }],
          destination: 'Files/Moved',
          operation: 'move',
        }),
      ),
    ),
    'files.move',
    { destination: 'Files/Moved', paths: ['Files/Copies/b.txt'], count: 1 },
  );
});

test('a batch delete of many items is one row: the count and the first ten paths', async () => {
  fs.mkdirSync(files('Batch'));
  for (let i = 0; i < 14; i++) fs.writeFileSync(files('Batch', `f${String(i).padStart(2, '0')}.txt`), `${i}`);
  const items = Array.from({ length: 14 }, (_, i) => ({
    path: 'Files/Batch',
    name: `f${String(i).padStart(2, '0')}.txt`,
  }));
  const row = one(
    await during(async () => ok(await mia.delete('/api/files', { items: items.slice(0, 12) }))),
    'files.delete',
    { count: 12 },
  );
  assert.equal(
    row.detail.paths,
    items.slice(0, 10).map((i) => `Files/Batch/${i.name}`),
  );
  // The progress stream: one row too, and an item that was not there is not counted.
  const streamed = await during(async () =>
    ok(
      await mia.post('/api/files/delete-stream', {
        items: [...items.slice(12), { path: 'Files/Batch', name: 'never-there.txt' }],
      }),
    ),
  );
  one(streamed, 'files.delete', { count: 2, paths: ['Files/Batch/f12.txt', 'Files/Batch/f13.txt'], notDeleted: 1 });
});

test('trash: restore, delete for good and empty are one row each', async () => {
  const trash = (await mia.get('/api/trash')).json.items as any[];
  const entry = (name: string) => trash.find((t) => t.name === name);
  one(
    await during(async () => ok(await mia.post(`/api/trash/items/${entry('f00.txt').id}/restore`, {}))),
    'trash.restore',
    { path: 'Files/Batch/f00.txt', from: 'Files/Batch/f00.txt' },
  );
  one(await during(async () => ok(await mia.delete(`/api/trash/items/${entry('f01.txt').id}`), 204)), 'trash.purge', {
    path: 'Files/Batch/f01.txt',
  });
  const left = (await mia.get('/api/trash')).json.items.length;
  assert.ok(left >= 12, `${left} left`);
  one(await during(async () => ok(await mia.delete('/api/trash'))), 'trash.empty', { count: left });
  // Nothing left to empty: nothing happened, nothing is written.
  assert.equal(await during(async () => ok(await mia.delete('/api/trash'))), []);
});

test('an editor save is one row', async () => {
  one(
    await during(async () => ok(await mia.put('/api/editor', { path: 'Files/Plans/plan-a.txt', content: 'plan B' }))),
    'editor.save',
    { path: 'Files/Plans/plan-a.txt', created: false },
  );
});

test('archives: compress, one-shot extract and the extraction stream are one row each', async () => {
  one(
    await during(async () =>
      ok(
        await mia.post('/api/files/zip/compress', {
          items: [
            { path: 'Files/Plans', name: 'plan-a.txt' },
            { path: 'Files/Plans', name: 'c.txt' },
          ],
          name: 'plans',
        }),
        201,
      ),
    ),
    'archive.compress',
    { path: 'Files/Plans/plans.zip', paths: ['Files/Plans/plan-a.txt', 'Files/Plans/c.txt'], count: 2 },
  );
  await yazlZip(files('set.zip'), [
    { name: 'one.txt', data: 'one' },
    { name: 'dir/two.txt', data: 'two!' },
  ]);
  one(
    await during(async () => ok(await mia.post('/api/files/zip/extract', { path: 'Files/set.zip' }), 201)),
    'archive.extract',
    { path: 'Files/set.zip', destination: 'Files/set', files: 2, bytes: 7 },
  );
  fs.mkdirSync(files('Out'));
  const streamed = await during(async () => {
    const r = await mia.post('/api/archive/extract', {
      path: 'Files/set.zip',
      entries: ['dir'],
      destination: 'Files/Out',
    });
    ok(r);
    assert.match(r.text, /"done"/);
  });
  one(streamed, 'archive.extract', { path: 'Files/set.zip', destination: 'Files/Out', entries: 1, files: 1, bytes: 4 });
});

let linkId = '';
let linkToken = '';

test('shares: created, changed and deleted are one row each, with who and from where; no password in the log', async () => {
  fs.mkdirSync(files('Drop'));
  fs.writeFileSync(files('Drop', 'notes.txt'), 'v1');
  const created = await during(async () => {
    const r = await mia.post('/api/shares', {
      sourcePath: 'Files/Drop',
      sharingType: 'anyone',
      accessMode: 'readwrite',
      label: 'drop box',
    });
    ok(r, 201);
    linkId = r.json.id;
    linkToken = r.json.shareToken;
  });
  one(created, 'share.create', { id: linkId, path: 'Files/Drop', sharingType: 'anyone', writable: true });
  const changed = await during(async () =>
    ok(await mia.patch(`/api/shares/${linkId}`, { label: 'drop', password: 'Link-Secret-99' })),
  );
  const row = one(changed, 'share.update', { id: linkId, path: 'Files/Drop' });
  assert.equal([...row.detail.changed].sort(), ['label', 'password']);
  ok(await mia.patch(`/api/shares/${linkId}`, { password: null }));
  const all = await admin.get('/api/activity?limit=500');
  assert.not.ok(all.text.includes('Link-Secret-99'), 'the password is not recorded');
});

test("an anonymous link holder's writes are recorded as the link, with owner paths and no token", async () => {
  const holder = new From(s.url, '198.51.100.9');
  const t = linkToken;
  const rows = await during(async () => {
    ok(await holder.post(`/api/share/${t}/files/folder`, { path: '', name: 'made' }), 201);
    ok(await holder.post(`/api/share/${t}/files/file`, { path: 'made', name: 'x.txt', content: 'x' }), 201);
    ok(await holder.post(`/api/share/${t}/files/rename`, { path: 'made', name: 'x.txt', newName: 'y.txt' }));
    ok(await holder.put(`/api/share/${t}/editor`, { path: 'notes.txt', content: 'v2' }));
    ok(await holder.request('POST', `/api/share/${t}/upload`, form(`share/${t}/made`, [['up.txt', 'up']])), 201);
    ok(await holder.delete(`/api/share/${t}/files`, { items: [{ path: 'made', name: 'y.txt' }] }));
  });
  assert.equal(
    rows.map((r) => r.action),
    ['files.create-folder', 'files.create-file', 'files.rename', 'editor.save', 'files.upload', 'files.delete'],
  );
  for (const r of rows) {
    assert.is(r.userId, `link:${linkId}`);
    assert.is(r.address, '198.51.100.9');
    assert.is(r.detail.shareId, linkId);
  }
  assert.is(rows[0].detail.path, 'Files/Drop/made');
  assert.is(rows[2].detail.to, 'Files/Drop/made/y.txt');
  assert.is(rows[3].detail.path, 'Files/Drop/notes.txt');
  assert.equal(rows[4].detail.paths, ['Files/Drop/made/up.txt']);
  assert.equal(rows[5].detail.paths, ['Files/Drop/made/y.txt']);
  const all = await admin.get('/api/activity?limit=500');
  assert.not.ok(all.text.includes(t), "the link's token is not in the log");
  // Deleting the share is the owner's row.
  one(await during(async () => ok(await mia.delete(`/api/shares/${linkId}`), 204)), 'share.delete', {
    id: linkId,
    path: 'Files/Drop',
  });
});

test('refused operations write no success row: a read token, a read-only link, a name taken', async () => {
  fs.writeFileSync(files('keep.txt'), 'keep');
  const readToken = await issueToken(mia, 'read', { password: MIA.password });
  const reader = new From(s.url, '192.0.2.7', readToken);
  const readonly = await mia.post('/api/shares', {
    sourcePath: 'Files/Plans',
    sharingType: 'anyone',
    accessMode: 'readonly',
  });
  ok(readonly, 201);
  const anon = new From(s.url, '198.51.100.10');
  const rows = await during(async () => {
    assert.is((await reader.delete('/api/files', { items: [{ path: 'Files', name: 'keep.txt' }] })).status, 403);
    assert.is((await reader.post('/api/files/folder', { path: 'Files', name: 'nope' })).status, 403);
    assert.is(
      (await anon.delete(`/api/share/${readonly.json.shareToken}/files`, { items: [{ path: '', name: 'c.txt' }] }))
        .status,
      403,
    );
    assert.is(
      (await mia.post('/api/files/rename', { path: 'Files/Plans', name: 'c.txt', newName: 'plan-a.txt' })).status,
      409,
    );
    assert.is((await mia.delete('/api/files', { items: [{ path: 'Files', name: 'not-there.txt' }] })).status, 200);
  });
  assert.equal(
    rows.filter((r) => r.action !== 'share.create'),
    [],
  );
  assert.ok(fs.existsSync(files('keep.txt')));
});

test('a token write names the token; the switch off writes nothing', async () => {
  const writer = new From(s.url, '192.0.2.8', await issueToken(mia, 'write', { password: MIA.password }));
  const rows = await during(async () =>
    ok(await writer.post('/api/files/folder', { path: 'Files', name: 'Scripted' }), 201),
  );
  assert.is(rows.length, 1);
  assert.is(rows[0].username, 'mia');
  assert.is(rows[0].address, '192.0.2.8');
  assert.is(typeof rows[0].detail.tokenId, 'string');
  ok(await admin.patch('/api/settings', { activity: { enabled: false, retentionDays: 30 } }));
  try {
    ok(await mia.post('/api/files/folder', { path: 'Files', name: 'Unlogged' }), 201);
  } finally {
    ok(await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 30 } }));
  }
  const all = await admin.get('/api/activity?limit=500');
  assert.not.ok(all.text.includes('Unlogged'));
});

test.run();
