// Quotas per account and per volume through the real server: what is used comes from the
// folder-size index plus what is in flight; a write that would go over answers 507
// QUOTA_EXCEEDED (used, limit, needed in `error.details`) before its bytes are kept, and leaves
// nothing behind. Ten concurrent resumable uploads that together exceed a quota: those that fit
// are created, the others refused. Multipart, WebDAV PUT (with and without a length) and a file
// request (charged to the link owner) are held the same way, and streamed writes racing over a
// quota: the ones placed fit together. Only an administrator's session sets a quota. Through a
// cluster (BURROW_TEST_SERVER=cluster) the racing writes reach different instances, which hold
// in the shared database.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, issueToken, me, setupAdmin, signIn } from '../support/auth.ts';
import { tarFile, yazlZip } from '../support/archives.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const TUS = { 'Tus-Resumable': '1.0.0' };
const b64 = (v: string) => Buffer.from(v).toString('base64');
const FOLDER = 'Urlaub 2025 #1 – Fotos & Filme';
const VOLUME = 'Familie & Fotos';
/** Empty, and written only through Burrow: what it holds is what the racing writes placed. */
const BANDS = 'Proben & Bänder';

let s: TestServer;
let admin: Client;
let anna: Client;
let annaId: string;

const personalDir = () => {
  const [name] = fs.readdirSync(s.dirs.users).filter((n) => n.startsWith('anna'));
  return path.join(s.dirs.users, name!);
};
/** Every file below `dir` (relative), Burrow's own folders included when they are inside. */
function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else out.push(r);
    }
  };
  if (fs.existsSync(dir)) walk(dir, '');
  return out.sort();
}
/** Part files staged anywhere on the server's disks. */
const parts = () =>
  [...files(s.dirs.config), ...files(s.dirs.users), ...files(s.dirs.volumes)].filter((n) =>
    /\.part$|\.burrow-tmp-/.test(n),
  );

function createTus(client: Client, uploadTo: string, name: string, length: number, endpoint = '/api/upload/tus') {
  return client.request('POST', endpoint, undefined, {
    ...TUS,
    'Upload-Length': String(length),
    'Upload-Metadata': `filename ${b64(name)},uploadTo ${b64(uploadTo)}`,
  });
}
function patchTus(client: Client, url: string, data: Buffer) {
  return client.request('PATCH', new URL(url, 'http://x').pathname, data, {
    ...TUS,
    'Upload-Offset': '0',
    'Content-Type': 'application/offset+octet-stream',
  });
}
const volumeOf = async (c: Client) =>
  (await c.get('/api/admin/quotas')).json.volumes.find((v: any) => v.volume === VOLUME);
const mine = async (client: Client = anna) => (await client.get('/api/quota')).json;

function refusedOverQuota(
  a: { status: number; json: any; text: string },
  scope: string,
  limit: number,
  needed: number,
) {
  assert.is(a.status, 507, a.text);
  const e = envelope(a as never);
  assert.is(e.code, 'QUOTA_EXCEEDED');
  assert.ok(e.requestId);
  const d = a.json.error.details;
  assert.is(d.scope, scope);
  assert.is(d.limitBytes, limit);
  assert.is(d.neededBytes, needed);
  assert.ok(d.usedBytes + needed > limit, JSON.stringify(d));
  assert.match(e.message, /quota/);
}

test.before(async () => {
  s = await startServer({
    env: {
      FOLDER_SIZE_MODE: 'full',
      FOLDER_SIZE_FLUSH_MS: '20',
      USER_DIR_ENABLED: 'true',
      UPLOAD_CHUNKED_ENABLED: 'true',
    },
    volumes: [VOLUME, 'Archiv', BANDS],
  });
  admin = await setupAdmin(s);
  anna = await createUser(admin, s, { username: 'anna', password: 'anna-password-1' });
  annaId = (await me(anna)).id;
  // Her personal folder exists once she reaches it; 100 000 bytes are in it before any quota.
  assert.is((await anna.post('/api/files/folder', { path: 'personal', name: FOLDER })).status, 201);
  fs.writeFileSync(path.join(personalDir(), FOLDER, 'Strand 🌊 bei Nacht.jpg'), Buffer.alloc(100_000, 7));
  fs.writeFileSync(path.join(s.dirs.volumes, VOLUME, 'Omas Rezepte.pdf'), Buffer.alloc(50_000, 3));
  await s.restart({ FOLDER_SIZE_REBUILD: 'true' });
  admin = await signIn(s, 'admin', 'admin-password-1');
  anna = await signIn(s, 'anna', 'anna-password-1');
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('only an administrator session sets quotas: another account, a token, a cross-site request are refused', async () => {
  const body = { limitBytes: 1 };
  const other = await anna.put(`/api/admin/quotas/accounts/${annaId}`, body);
  assert.is(other.status, 403);
  assert.is(envelope(other).code, 'ADMIN_ONLY');
  assert.is((await anna.put(`/api/admin/quotas/volumes/${encodeURIComponent(VOLUME)}`, body)).status, 403);
  for (const scope of ['read', 'write'] as const) {
    const token = new Client(s.url, await issueToken(admin, scope));
    const a = await token.put(`/api/admin/quotas/accounts/${annaId}`, body);
    assert.is(a.status, 403, `${scope} token`);
    assert.is(envelope(a).code, 'AUTH_TOKEN_NOT_ALLOWED');
  }
  const cross = await admin.put(`/api/admin/quotas/accounts/${annaId}`, body, { Origin: 'https://evil.example' });
  assert.is(cross.status, 403);
  assert.is(envelope(cross).code, 'CROSS_SITE_REFUSED');
  assert.is((await anna.get('/api/admin/quotas')).status, 403);
  // Nothing was set by any of them.
  assert.is((await mine()).account, null);
  const unknown = await admin.put('/api/admin/quotas/accounts/no-such-account', { limitBytes: 5 });
  assert.is(envelope(unknown).code, 'USER_NOT_FOUND');
  const noVolume = await admin.put(`/api/admin/quotas/volumes/${encodeURIComponent('Keine Bank')}`, { limitBytes: 5 });
  assert.is(noVolume.status, 404);
  assert.is((await admin.put(`/api/admin/quotas/accounts/${annaId}`, { limitBytes: -1 })).status, 400);
});

test('ten concurrent resumable uploads over an account quota: those that fit are created, the others refused before a byte', async () => {
  const set = await admin.put(`/api/admin/quotas/accounts/${annaId}`, { limitBytes: 1_000_000 });
  assert.is(set.status, 200, set.text);
  assert.is(set.json.limitBytes, 1_000_000);
  // The index's figure for her folder: the 100 000 bytes already there.
  await waitFor(mine, {
    what: 'her stored 100 000 bytes measured',
    until: (q) => q.account?.storedBytes === 100_000 && q.account.measured,
  });
  const clips = Array.from({ length: 10 }, (_, i) => `Clip ${i + 1} – Möwe.mp4`);
  const created = await Promise.all(clips.map((name) => createTus(anna, `personal/${FOLDER}`, name, 150_000)));
  const ok = created.filter((a) => a.status === 201);
  // Which six fit is the order the ten arrived in, not their numbers.
  const placedClip = clips[created.findIndex((a) => a.status === 201)]!;
  const refused = created.filter((a) => a.status !== 201);
  assert.is(ok.length, 6, created.map((a) => a.status).join(','));
  for (const a of refused) {
    refusedOverQuota(a, 'account', 1_000_000, 150_000);
    assert.is(a.headers.get('tus-resumable'), '1.0.0');
  }
  assert.is((await mine()).account.reservedBytes, 900_000);
  // The six send their bytes and are placed; the quota is then full (100 000 + 6 × 150 000).
  for (const a of ok) {
    const done = await patchTus(anna, a.headers.get('location')!, Buffer.alloc(150_000, 1));
    assert.is(done.status, 204, done.text);
  }
  assert.is(files(path.join(personalDir(), FOLDER)).length, 7);
  assert.equal(parts(), []);
  const full = await createTus(anna, `personal/${FOLDER}`, 'Noch ein Clip.mp4', 1);
  refusedOverQuota(full, 'account', 1_000_000, 1);
  // Once the index counted the placed files the in-flight figure is back to zero, the sum the same.
  const settled = await waitFor(mine, {
    what: 'the placed uploads counted by the index',
    until: (q) => q.account?.storedBytes === 1_000_000,
  });
  assert.is(settled.account.usedBytes, 1_000_000);
  assert.is(settled.account.reservedBytes, 0);
  // Deleting frees nothing while the trash keeps it (it counts against her), emptying does.
  const gone = await anna.delete('/api/files', { items: [{ path: `personal/${FOLDER}`, name: placedClip }] });
  assert.is(gone.status, 200, gone.text);
  assert.is(gone.json.items[0].status, 'deleted', gone.text);
  const trashed = await waitFor(mine, {
    what: 'the deleted clip out of the folder figure',
    until: (q) => q.account?.storedBytes === 850_000,
  });
  assert.is(trashed.account.trashBytes, 150_000);
  refusedOverQuota(await createTus(anna, `personal/${FOLDER}`, 'Clip 11.mp4', 1000), 'account', 1_000_000, 1000);
  const emptied = await anna.delete('/api/trash');
  assert.ok(emptied.status < 300, emptied.text);
  assert.is((await mine()).account.usedBytes, 850_000);
  const fits = await createTus(anna, `personal/${FOLDER}`, 'Clip 11.mp4', 150_000);
  assert.is(fits.status, 201, fits.text);
  assert.is((await anna.request('DELETE', fits.headers.get('location')!, undefined, TUS)).status, 204);
  assert.is((await mine()).account.reservedBytes, 0);
});

test('a multipart upload over the quota is refused as it streams; nothing of it is kept', async () => {
  const before = files(personalDir());
  const form = new FormData();
  form.append('uploadTo', `personal/${FOLDER}`);
  form.append('filedata', new Blob([Buffer.alloc(100_000, 1)]), 'Kleines Video.mov');
  form.append('filedata', new Blob([Buffer.alloc(200_000, 2)]), 'Großes Video "final".mov');
  const a = await anna.request('POST', '/api/upload', form);
  assert.is(a.status, 507, a.text);
  assert.is(envelope(a).code, 'QUOTA_EXCEEDED');
  assert.is(a.json.error.details.scope, 'account');
  assert.equal(files(personalDir()), before);
  assert.equal(parts(), []);
  assert.is((await mine()).account.reservedBytes, 0);
});

test('a file request counts against the link owner', async () => {
  const made = await anna.post('/api/shares', {
    sourcePath: `personal/${FOLDER}`,
    sharingType: 'anyone',
    fileRequest: {},
  });
  assert.is(made.status, 201, made.text);
  const token = made.json.shareToken;
  const visitor = new Client(s.url);
  const a = await createTus(visitor, `share/${token}`, 'Für Anna.pdf', 200_000, `/api/share/${token}/tus`);
  refusedOverQuota(a, 'account', 1_000_000, 200_000);
  const small = await createTus(visitor, `share/${token}`, 'Für Anna.pdf', 1000, `/api/share/${token}/tus`);
  assert.is(small.status, 201, small.text);
  assert.is((await mine()).account.reservedBytes, 1000);
  const done = await patchTus(visitor, small.headers.get('location')!, Buffer.alloc(1000, 5));
  assert.is(done.status, 204, done.text);
  assert.ok(fs.existsSync(path.join(personalDir(), FOLDER, 'Für Anna.pdf')));
});

test('a volume quota holds for TUS and WebDAV PUT, with and without a length; nothing half-written remains', async () => {
  const name = encodeURIComponent(VOLUME);
  const set = await admin.put(`/api/admin/quotas/volumes/${name}`, { limitBytes: 300_000 });
  assert.is(set.status, 200, set.text);
  await waitFor(() => admin.get('/api/admin/quotas'), {
    what: 'the volume measured',
    until: (a) => a.json.volumes.find((v: any) => v.volume === VOLUME)?.storedBytes === 50_000,
  });
  const q = (await mine(admin)).volumes.find((v: any) => v.volume === VOLUME);
  assert.is(q.limitBytes, 300_000);
  refusedOverQuota(await createTus(admin, VOLUME, 'Hochzeit.mkv', 300_000), 'volume', 300_000, 300_000);
  const dav = (p: string, body: Buffer | ReadableStream, extra: Record<string, string> = {}) =>
    fetch(`${s.url}/dav/${encodeURIComponent(VOLUME)}/${encodeURIComponent(p)}`, {
      method: 'PUT',
      headers: { authorization: `Basic ${b64('admin:admin-password-1')}`, ...extra },
      body,
      duplex: 'half',
    } as RequestInit);
  const withLength = await dav('Kassette 1987.wav', Buffer.alloc(260_000, 4));
  assert.is(withLength.status, 507);
  const body = await withLength.json();
  assert.is(body.error.code, 'QUOTA_EXCEEDED');
  assert.is(body.error.details.neededBytes, 260_000);
  // No length: chunk by chunk, refused at the chunk that goes over.
  const chunks = [Buffer.alloc(128 * 1024, 1), Buffer.alloc(128 * 1024, 2), Buffer.alloc(128 * 1024, 3)];
  const stream = new ReadableStream({
    pull(c) {
      const next = chunks.shift();
      if (next) c.enqueue(next);
      else c.close();
    },
  });
  const streamed = await dav('Kassette 1988.wav', stream);
  assert.is(streamed.status, 507);
  assert.is((await streamed.json()).error.code, 'QUOTA_EXCEEDED');
  assert.equal(files(path.join(s.dirs.volumes, VOLUME)), ['Omas Rezepte.pdf']);
  const fits = await dav('Kassette 1989.wav', Buffer.alloc(200_000, 4));
  assert.is(fits.status, 201);
  // Removing the quota lets the rest through.
  assert.is((await admin.put(`/api/admin/quotas/volumes/${name}`, { limitBytes: null })).status, 200);
  assert.is((await dav('Kassette 1987.wav', Buffer.alloc(260_000, 4))).status, 201);
  assert.equal((await mine(admin)).volumes, []);
});

test('a copy and an extraction hold their planned size before writing; refused, they leave nothing', async () => {
  const name = encodeURIComponent(VOLUME);
  const letters = path.join(s.dirs.volumes, 'Archiv', 'Alte Briefe (1990–1999)');
  fs.mkdirSync(path.join(letters, 'Oma & Opa'), { recursive: true });
  fs.writeFileSync(path.join(letters, 'Brief #1.txt'), Buffer.alloc(80_000, 1));
  fs.writeFileSync(path.join(letters, 'Oma & Opa', 'Brief "Weihnachten".txt'), Buffer.alloc(70_000, 2));
  await yazlZip(path.join(s.dirs.volumes, VOLUME, 'Briefe.zip'), [
    { name: 'Briefe/Brief 1.txt', data: Buffer.alloc(90_000, 1) },
    { name: 'Briefe/Brief 2.txt', data: Buffer.alloc(60_000, 2) },
  ]);
  // The same letters as a tar.gz: extracted in one pass by its trailer's bound (the tar's length,
  // more than the letters), refused by their exact 150,000 bytes, before anything lands.
  const tarred = path.join(s.dirs.volumes, VOLUME, 'Briefe.tar');
  await tarFile(tarred, [
    { name: 'Briefe/Brief 1.txt', data: Buffer.alloc(90_000, 1) },
    { name: 'Briefe/Brief 2.txt', data: Buffer.alloc(60_000, 2) },
  ]);
  fs.writeFileSync(`${tarred}.gz`, zlib.gzipSync(fs.readFileSync(tarred)));
  fs.rmSync(tarred);
  // The files WebDAV placed in the case before are held until the index counts them (a landed
  // hold): wait for that, so what is held after the refusals is theirs alone.
  await waitFor(() => volumeOf(admin), {
    what: 'the earlier uploads counted by the index',
    until: (v) => v.reservedBytes === 0,
  });
  const used = (await volumeOf(admin)).usedBytes;
  const limit = used + 100_000;
  assert.is((await admin.put(`/api/admin/quotas/volumes/${name}`, { limitBytes: limit })).status, 200);
  const before = files(path.join(s.dirs.volumes, VOLUME));
  const copy = await admin.post('/api/files/copy', {
    items: [{ path: 'Archiv', name: 'Alte Briefe (1990–1999)' }],
    destination: VOLUME,
  });
  refusedOverQuota(copy, 'volume', limit, 150_000);
  const extract = await admin.post('/api/files/zip/extract', { path: `${VOLUME}/Briefe.zip` });
  refusedOverQuota(extract, 'volume', limit, 150_000);
  const untarred = await admin.post('/api/files/zip/extract', { path: `${VOLUME}/Briefe.tar.gz` });
  refusedOverQuota(untarred, 'volume', limit, 150_000);
  assert.equal(files(path.join(s.dirs.volumes, VOLUME)), before);
  assert.equal(parts(), []);
  assert.is((await volumeOf(admin)).reservedBytes, 0);
  // With room, both go through. The room is ample: Briefe.zip was written beside Burrow, so the
  // index counts its bytes whenever its rescan passes — before or after `used` was read.
  assert.is((await admin.put(`/api/admin/quotas/volumes/${name}`, { limitBytes: limit + 1_000_000 })).status, 200);
  const copied = await admin.post('/api/files/copy', {
    items: [{ path: 'Archiv', name: 'Alte Briefe (1990–1999)' }],
    destination: VOLUME,
  });
  assert.is(copied.status, 200, copied.text);
  const extracted = await admin.post('/api/files/zip/extract', { path: `${VOLUME}/Briefe.zip` });
  assert.is(extracted.status, 201, extracted.text);
  const untarredNow = await admin.post('/api/files/zip/extract', { path: `${VOLUME}/Briefe.tar.gz` });
  assert.is(untarredNow.status, 201, untarredNow.text);
  assert.is(fs.readFileSync(path.join(s.dirs.volumes, VOLUME, 'Briefe (1)', 'Briefe', 'Brief 2.txt')).length, 60_000);
  assert.is((await admin.put(`/api/admin/quotas/volumes/${name}`, { limitBytes: null })).status, 200);
});

test('streamed writes racing over a volume quota through any instance: the ones placed fit together, the others are refused and leave nothing', async () => {
  const name = encodeURIComponent(BANDS);
  const room = 650_000;
  const bands = async () => (await admin.get('/api/admin/quotas')).json.volumes.find((v: any) => v.volume === BANDS);
  assert.is((await admin.put(`/api/admin/quotas/volumes/${name}`, { limitBytes: room })).status, 200);
  await waitFor(bands, { what: 'the empty volume measured', until: (v) => v?.storedBytes === 0 });
  const dir = path.join(s.dirs.volumes, BANDS);
  // Four WebDAV PUTs without a length, 300 000 bytes each in 50 000-byte chunks, all at once: on
  // a cluster the balancer sends them to different instances, each holding as its body streams.
  const names = [
    'Band 1 – Sommer "live".wav',
    'Band 2 – Herbst & Winter.wav',
    'Band 3 #Regen.wav',
    'Band 4 – Café.wav',
  ];
  const put = (p: string, fill: number) => {
    let left = 6;
    const body = new ReadableStream({
      pull(c) {
        if (left-- > 0) c.enqueue(Buffer.alloc(50_000, fill));
        else c.close();
      },
    });
    return fetch(`${s.url}/dav/${name}/${encodeURIComponent(p)}`, {
      method: 'PUT',
      headers: { authorization: `Basic ${b64('admin:admin-password-1')}` },
      body,
      duplex: 'half',
    } as RequestInit);
  };
  const answers = await Promise.all(names.map((n, i) => put(n, i + 1)));
  const statuses = answers.map((a) => a.status);
  const placed = names.filter((_, i) => statuses[i] === 201);
  assert.ok(placed.length >= 1, statuses.join(','));
  assert.ok(
    placed.length * 300_000 <= room,
    `placed ${placed.length} of 300 000 bytes in ${room}: ${statuses.join(',')}`,
  );
  for (const [i, a] of answers.entries()) {
    if (a.status === 201) continue;
    assert.is(a.status, 507, statuses.join(','));
    const refusal = await a.json();
    assert.is(refusal.error.code, 'QUOTA_EXCEEDED', JSON.stringify(refusal));
    assert.not.ok(fs.existsSync(path.join(dir, names[i]!)), names[i]);
  }
  assert.equal(files(dir), [...placed].sort());
  for (const n of placed) assert.is(fs.statSync(path.join(dir, n)).size, 300_000);
  assert.equal(parts(), []);
  // Nothing stays held once the index counted what was placed.
  await waitFor(bands, {
    what: 'the placed bands counted by the index',
    until: (v) => v.reservedBytes === 0 && v.storedBytes === placed.length * 300_000,
  });
  assert.is((await admin.put(`/api/admin/quotas/volumes/${name}`, { limitBytes: null })).status, 200);
});

test('a file placed and deleted on the disk at once stops counting once its folder is looked at again, not ten minutes later', async () => {
  const RECEIPTS = 'Belege 2025 – Steuer & Co';
  const folder = `/api/browse/${encodeURIComponent('Archiv')}/${encodeURIComponent(RECEIPTS)}`;
  const archiv = async () =>
    (await admin.get('/api/admin/quotas')).json.volumes.find((v: any) => v.volume === 'Archiv') as {
      usedBytes: number;
      storedBytes: number | null;
      reservedBytes: number;
    };
  assert.is((await admin.post('/api/files/folder', { path: 'Archiv', name: RECEIPTS })).status, 201);
  assert.is((await admin.put('/api/admin/quotas/volumes/Archiv', { limitBytes: 2_000_000 })).status, 200);
  try {
    const before = await waitFor(archiv, {
      what: 'Archiv measured, nothing in flight',
      until: (u) => u?.storedBytes !== null && u.reservedBytes === 0,
    });
    const put = await fetch(
      `${s.url}/dav/Archiv/${encodeURIComponent(RECEIPTS)}/${encodeURIComponent('Fehlkauf – Quittung #2.pdf')}`,
      {
        method: 'PUT',
        headers: { authorization: `Basic ${b64('admin:admin-password-1')}` },
        body: Buffer.alloc(300_000, 5),
      },
    );
    assert.is(put.status, 201);
    // Another program on the computer deletes it at once — before anyone asked the quota.
    fs.rmSync(path.join(s.dirs.volumes, 'Archiv', RECEIPTS, 'Fehlkauf – Quittung #2.pdf'));
    // The folder is looked at again (a browse re-checks it): the placement is done with.
    await waitFor(
      async () => {
        assert.is((await admin.get(folder)).status, 200);
        return archiv();
      },
      { what: "the deleted file's bytes no longer counted", until: (u) => u.usedBytes === before.usedBytes },
    );
  } finally {
    assert.is((await admin.put('/api/admin/quotas/volumes/Archiv', { limitBytes: null })).status, 200);
  }
});

test.run();
