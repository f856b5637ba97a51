// Names as people write them (test/support/names.ts) through every feature that carries a name
// in a URL path or a body: browse, download, a selection's zip, rename, move, the editor's save,
// previews and thumbnails, archives (extract, compress), links (listing, download, upload,
// the shared editor), uploads (multipart, TUS with the real tus-js-client), trash, versions and
// WebDAV. Each step checks the folder on disk, not only the answer.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as tus from 'tus-js-client';
import yazl from 'yazl';
import { Client } from '../support/client.ts';
import { setupAdmin, ADMIN } from '../support/auth.ts';
import { png } from '../support/media.ts';
import { makeDirs, removeDirs, startServer, type TestServer } from '../support/server.ts';
import {
  ALL,
  DEEP_FILE,
  FOLDER,
  NAMES,
  PATH_ENCODERS,
  VOLUME,
  buildTree,
  contentOf,
  deepFolders,
  encodeSegments,
  nfd,
  virtualOf,
} from '../support/names.ts';

let s: TestServer;
let admin: Client;
let folder: string;
const DIR = `${VOLUME}/${FOLDER}`;
const PHOTO = nfd('Été 2025 — Beach & Sunset #1 + 100% 🌅.png');
const onDisk = (...p: string[]) => path.join(folder, ...p);
const sorted = (a: string[]) => [...a].sort();
/** A child process awaited (a synchronous one would stop the server running in this process). */
const execFileAsync = promisify(execFile);

test.before(async () => {
  const dirs = makeDirs();
  folder = buildTree(dirs.volumes);
  fs.writeFileSync(path.join(folder, PHOTO), await png(64, 48));
  s = await startServer({ dirs, volumes: [], env: { UPLOAD_CHUNKED_ENABLED: 'true' } });
  admin = await setupAdmin(s);
  assert.is((await admin.patch('/api/settings', { user: { showHiddenFiles: true } })).status, 200);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('browse lists every name byte for byte (NFC and NFD kept), through each client`s URL path', async () => {
  for (const encoder of PATH_ENCODERS) {
    const listing = await admin.get(`/api/browse/${await encoder.encode(DIR)}`);
    assert.is(listing.status, 200, `${encoder.name}: ${listing.text}`);
    const names = listing.json.items.map((i: { name: string }) => i.name);
    assert.equal(sorted(names), sorted([...NAMES.map((f) => f.name), deepFolders()[0]!, PHOTO]), encoder.name);
    const deep = await admin.get(`/api/browse/${await encoder.encode([DIR, ...deepFolders()].join('/'))}`);
    assert.is(deep.status, 200, `${encoder.name}: ${deep.text}`);
    assert.equal(
      deep.json.items.map((i: { name: string }) => i.name),
      [DEEP_FILE.name],
    );
  }
});

test('download: the bytes, and the name in Content-Disposition, for every name and client', async () => {
  for (const encoder of PATH_ENCODERS) {
    for (const f of ALL()) {
      const res = await fetch(`${s.url}/api/download/${await encoder.encode(virtualOf(f))}`, {
        headers: { cookie: admin.cookieHeader },
      });
      assert.is(res.status, 200, `${encoder.name}: ${f.label}`);
      assert.is(await res.text(), contentOf(f), `${encoder.name}: ${f.label}`);
      const disposition = res.headers.get('content-disposition')!;
      const star = /filename\*=UTF-8''([^;]+)/.exec(disposition)![1]!;
      assert.is(decodeURIComponent(star), f.name, `${encoder.name}: ${f.label}: ${disposition}`);
    }
  }
});

test('a selection as a zip: every name once, exactly as on disk (unzip -Z1)', async () => {
  const res = await fetch(`${s.url}/api/download`, {
    method: 'POST',
    headers: { cookie: admin.cookieHeader, 'content-type': 'application/json' },
    body: JSON.stringify({ paths: [...NAMES.map(virtualOf), `${DIR}/${deepFolders()[0]}`] }),
  });
  assert.is(res.status, 200);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-names-zip-'));
  try {
    fs.writeFileSync(path.join(dir, 'a.zip'), Buffer.from(await res.arrayBuffer()));
    const listed = execFileSync('unzip', ['-Z1', path.join(dir, 'a.zip')], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    const deep = deepFolders().map(
      (_, i) =>
        `${deepFolders()
          .slice(0, i + 1)
          .join('/')}/`,
    );
    assert.equal(
      sorted(listed),
      sorted([...NAMES.map((f) => f.name), ...deep, `${deepFolders().join('/')}/${DEEP_FILE.name}`]),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('rename to a hard name and back; move into a hard folder and back', async () => {
  assert.is((await admin.post('/api/files/folder', { path: DIR, name: 'Moved + here & #2 ✈️' })).status, 201);
  for (const f of ALL()) {
    const parent = path.posix.dirname(virtualOf(f));
    const other =
      Buffer.byteLength(f.name) > 240 ? `${[...f.name].slice(0, 100).join('')} (2) + ü` : `${f.name} (2) + ü`;
    const renamed = await admin.post('/api/files/rename', { path: parent, name: f.name, newName: other });
    assert.is(renamed.status, 200, `${f.label}: ${renamed.text}`);
    assert.is(renamed.json.item.name, other);
    const back = await admin.post('/api/files/rename', { path: parent, name: other, newName: f.name });
    assert.is(back.status, 200, `${f.label}: ${back.text}`);
    const moved = await admin.post('/api/files/move', {
      items: [{ path: parent, name: f.name }],
      destination: `${DIR}/Moved + here & #2 ✈️`,
    });
    assert.is(moved.status, 200, `${f.label}: ${moved.text}`);
    assert.is(fs.readFileSync(onDisk('Moved + here & #2 ✈️', f.name), 'utf8'), contentOf(f));
    const home = await admin.post('/api/files/move', {
      items: [{ path: `${DIR}/Moved + here & #2 ✈️`, name: f.name }],
      destination: parent,
    });
    assert.is(home.status, 200, `${f.label}: ${home.text}`);
    assert.is(fs.readFileSync(path.join(s.dirs.volumes, ...virtualOf(f).split('/')), 'utf8'), contentOf(f));
  }
  assert.equal(fs.readdirSync(onDisk('Moved + here & #2 ✈️')), []);
});

test('the editor saves each file in place and keeps the replaced text as a version; a version restores', async () => {
  for (const f of ALL()) {
    const file = path.join(s.dirs.volumes, ...virtualOf(f).split('/'));
    const saved = await admin.put('/api/editor', { path: virtualOf(f), content: `edited ${f.word}\n` });
    assert.is(saved.status, 200, `${f.label}: ${saved.text}`);
    assert.is(fs.readFileSync(file, 'utf8'), `edited ${f.word}\n`);
    const versions = await admin.get(`/api/versions?path=${encodeURIComponent(virtualOf(f))}`);
    assert.is(versions.status, 200, versions.text);
    const restored = await admin.post(`/api/versions/${encodeURIComponent(versions.json.items[0].id)}/restore`, {});
    assert.is(restored.status, 200, `${f.label}: ${restored.text}`);
    assert.is(fs.readFileSync(file, 'utf8'), contentOf(f), f.label);
  }
});

test('a photo with a hard name: preview, thumbnail and its cached picture', async () => {
  const preview = await fetch(`${s.url}/api/preview?path=${encodeURIComponent(`${DIR}/${PHOTO}`)}`, {
    headers: { cookie: admin.cookieHeader },
  });
  assert.is(preview.status, 200);
  assert.is(preview.headers.get('content-type'), 'image/png');
  for (const encoder of PATH_ENCODERS) {
    const thumb = await admin.get(`/api/thumbnails/${await encoder.encode(`${DIR}/${PHOTO}`)}`);
    assert.is(thumb.status, 200, `${encoder.name}: ${thumb.text}`);
    assert.match(thumb.json.thumbnail, /^\/api\/thumbnails-cache\/.+\.webp\?path=[^&]+$/, encoder.name);
    const picture = await fetch(s.url + thumb.json.thumbnail, { headers: { cookie: admin.cookieHeader } });
    assert.is(picture.status, 200, encoder.name);
    assert.is(picture.headers.get('content-type'), 'image/webp');
  }
});

test('archives: a zip of hard names extracts under those names; the names compress into a zip', async () => {
  const zip = new yazl.ZipFile();
  for (const f of ALL()) zip.addBuffer(Buffer.from(contentOf(f)), `Trip + 2025 & #1/${f.name}`);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  fs.writeFileSync(onDisk('Backup + old & #3.zip'), Buffer.concat(chunks));
  const res = await fetch(`${s.url}/api/archive/extract`, {
    method: 'POST',
    headers: { cookie: admin.cookieHeader, 'content-type': 'application/json' },
    body: JSON.stringify({ path: `${DIR}/Backup + old & #3.zip`, destination: `${DIR}/Moved + here & #2 ✈️` }),
  });
  assert.is(res.status, 200);
  const events = (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.is(events.at(-1).type, 'done', JSON.stringify(events.at(-1)));
  const out = onDisk('Moved + here & #2 ✈️', 'Trip + 2025 & #1');
  assert.equal(sorted(fs.readdirSync(out)), sorted(ALL().map((f) => f.name)));
  for (const f of ALL()) assert.is(fs.readFileSync(path.join(out, f.name), 'utf8'), contentOf(f));

  const compressed = await admin.post('/api/files/zip/compress', {
    items: NAMES.map((f) => ({ path: DIR, name: f.name })),
    destination: `${DIR}/Moved + here & #2 ✈️`,
    name: 'All + names & #4 😀.zip',
  });
  assert.is(compressed.status, 201, compressed.text);
  const listing = await admin.get(
    `/api/archive/list?path=${encodeURIComponent(`${DIR}/Moved + here & #2 ✈️/All + names & #4 😀.zip`)}`,
  );
  assert.is(listing.status, 200, listing.text);
  assert.equal(sorted(listing.json.entries.map((e: { name: string }) => e.name)), sorted(NAMES.map((f) => f.name)));
  fs.rmSync(onDisk('Moved + here & #2 ✈️'), { recursive: true });
  fs.mkdirSync(onDisk('Moved + here & #2 ✈️'));
});

test('a link to the folder: its listing, downloads, an upload into it and the shared editor', async () => {
  const created = await admin.post('/api/shares', {
    sourcePath: DIR,
    sharingType: 'anyone',
    allowUpload: true,
    allowCreateFolder: true,
    allowEdit: true,
  });
  assert.is(created.status, 201, created.text);
  const token = created.json.shareToken;
  const visitor = new Client(s.url);
  const listing = await visitor.get(`/api/share/${token}/browse/`);
  assert.is(listing.status, 200, listing.text);
  // Every name listed as it is, but dot-files (they stay the owner's).
  const listed = listing.json.items.map((i: { name: string }) => i.name);
  for (const f of NAMES) assert.is(listed.includes(f.name), !f.name.startsWith('.'), f.label);
  for (const f of ALL()) {
    const rel = virtualOf(f).slice(DIR.length + 1);
    const one = await fetch(`${s.url}/api/share/${token}/download/${encodeSegments(rel)}`);
    assert.is(one.status, 200, f.label);
    assert.is(await one.text(), contentOf(f));
    const saved = await visitor.put(`/api/share/${token}/editor`, { path: rel, content: contentOf(f) + 'via link\n' });
    assert.is(saved.status, 200, `${f.label}: ${saved.text}`);
    assert.is(fs.readFileSync(path.join(folder, ...rel.split('/')), 'utf8'), contentOf(f) + 'via link\n');
    fs.writeFileSync(path.join(folder, ...rel.split('/')), contentOf(f));
  }
  const form = new FormData();
  form.append('uploadTo', `share/${token}`);
  for (const f of NAMES) {
    form.append('relativePath', `Dropped + in & #5/${f.name}`);
    form.append('filedata', new Blob([contentOf(f)]), f.name);
  }
  const up = await fetch(`${s.url}/api/share/${token}/upload`, { method: 'POST', body: form });
  assert.is(up.status, 201, await up.clone().text());
  assert.equal(sorted(fs.readdirSync(onDisk('Dropped + in & #5'))), sorted(NAMES.map((f) => f.name)));
  const zip = await fetch(`${s.url}/api/share/${token}/download`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ paths: NAMES.map((f) => f.name) }),
  });
  assert.is(zip.status, 200);
  assert.is(zip.headers.get('content-type'), 'application/zip');
});

test('multipart upload: each file lands under its own name (relativePath fields before each file)', async () => {
  const form = new FormData();
  form.append('uploadTo', `${DIR}/Moved + here & #2 ✈️`);
  for (const f of ALL()) {
    form.append('relativePath', `Up + loaded & #6/${f.name}`);
    form.append('filedata', new Blob([contentOf(f)]), f.name);
  }
  const res = await fetch(`${s.url}/api/upload`, {
    method: 'POST',
    headers: { cookie: admin.cookieHeader },
    body: form,
  });
  assert.is(res.status, 201, await res.clone().text());
  const at = onDisk('Moved + here & #2 ✈️', 'Up + loaded & #6');
  assert.equal(sorted(fs.readdirSync(at)), sorted(ALL().map((f) => f.name)));
  for (const f of ALL()) assert.is(fs.readFileSync(path.join(at, f.name), 'utf8'), contentOf(f));
});

test('multipart upload naming each file only by its own filename (a browser`s FormData, curl -F)', async () => {
  const form = new FormData();
  form.append('uploadTo', `${DIR}/Moved + here & #2 ✈️/By filename + fetch`);
  for (const f of NAMES) form.append('filedata', new Blob([contentOf(f)]), f.name);
  fs.mkdirSync(onDisk('Moved + here & #2 ✈️', 'By filename + fetch'), { recursive: true });
  fs.mkdirSync(onDisk('Moved + here & #2 ✈️', 'By filename + curl'), { recursive: true });
  const res = await fetch(`${s.url}/api/upload`, {
    method: 'POST',
    headers: { cookie: admin.cookieHeader },
    body: form,
  });
  assert.is(res.status, 201, await res.clone().text());
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-names-curl-'));
  try {
    for (const f of NAMES) {
      const local = path.join(dir, 'upload.bin');
      fs.writeFileSync(local, contentOf(f));
      const { stdout: status } = await execFileAsync('curl', [
        '-s',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '-H',
        `cookie: ${admin.cookieHeader}`,
        '-F',
        `uploadTo=${DIR}/Moved + here & #2 ✈️/By filename + curl`,
        '-F',
        `filedata=@${local};filename="${f.name.replace(/["\\]/g, '\\$&')}"`,
        `${s.url}/api/upload`,
      ]);
      assert.is(status, '201', f.label);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  for (const by of ['fetch', 'curl']) {
    const at = onDisk('Moved + here & #2 ✈️', `By filename + ${by}`);
    assert.equal(sorted(fs.readdirSync(at)), sorted(NAMES.map((f) => f.name)), by);
    for (const f of NAMES) assert.is(fs.readFileSync(path.join(at, f.name), 'utf8'), contentOf(f), `${by}: ${f.label}`);
  }
});

test('TUS upload (tus-js-client): each file lands under its own name', async () => {
  for (const f of ALL()) {
    await new Promise<void>((resolve, reject) => {
      new tus.Upload(Buffer.from(contentOf(f)), {
        endpoint: `${s.url}/api/upload/tus`,
        metadata: {
          filename: f.name,
          relativePath: `Tus + sent & #7/${f.name}`,
          uploadTo: `${DIR}/Moved + here & #2 ✈️`,
        },
        headers: { cookie: admin.cookieHeader },
        retryDelays: null,
        onError: reject,
        onSuccess: () => resolve(),
      }).start();
    });
  }
  const at = onDisk('Moved + here & #2 ✈️', 'Tus + sent & #7');
  assert.equal(sorted(fs.readdirSync(at)), sorted(ALL().map((f) => f.name)));
  for (const f of ALL()) assert.is(fs.readFileSync(path.join(at, f.name), 'utf8'), contentOf(f));
});

test('trash: each name deleted, listed in the trash under its name, restored to where it was', async () => {
  for (const f of ALL()) {
    const parent = path.posix.dirname(virtualOf(f));
    const file = path.join(s.dirs.volumes, ...virtualOf(f).split('/'));
    const deleted = await admin.delete('/api/files', { items: [{ path: parent, name: f.name }] });
    assert.is(deleted.status, 200, `${f.label}: ${deleted.text}`);
    assert.not.ok(fs.existsSync(file));
    const trash = await admin.get('/api/trash');
    const entry = trash.json.items.find((i: { name: string; path: string }) => i.name === f.name && i.path === parent);
    assert.ok(entry, `${f.label}: ${trash.text.slice(0, 300)}`);
    const restored = await admin.post(`/api/trash/items/${encodeURIComponent(entry.id)}/restore`, {});
    assert.is(restored.status, 200, `${f.label}: ${restored.text}`);
    assert.is(restored.json.path, virtualOf(f));
    assert.is(fs.readFileSync(file, 'utf8'), contentOf(f));
  }
});

test('WebDAV: PROPFIND names every file, GET reads it, PUT and MOVE write hard names', async () => {
  const basic = { authorization: 'Basic ' + Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64') };
  const dav = (method: string, p: string, headers: Record<string, string> = {}, body?: string) =>
    fetch(`${s.url}/dav/${p}`, { method, headers: { ...basic, ...headers }, body });
  const found = await dav('PROPFIND', `${encodeSegments(DIR)}/`, { depth: '1' });
  assert.is(found.status, 207);
  const hrefs = [...(await found.text()).matchAll(/<(?:\w+:)?href>([^<]+)<\/(?:\w+:)?href>/g)].map((m) =>
    decodeURIComponent(m[1]!.replace(/&amp;/g, '&')).replace(/\/$/, ''),
  );
  for (const f of NAMES) assert.ok(hrefs.includes(`/dav/${DIR}/${f.name}`), `${f.label}: ${hrefs.join('\n')}`);
  for (const f of ALL()) {
    const got = await dav('GET', encodeSegments(virtualOf(f)));
    assert.is(got.status, 200, f.label);
    assert.is(await got.text(), contentOf(f));
  }
  // A PUT straight to a hard name.
  const direct = await dav('PUT', encodeSegments(`${DIR}/Moved + here & #2 ✈️/${PHOTO}`), {}, 'picture');
  assert.is(direct.status, 201);
  assert.is(fs.readFileSync(onDisk('Moved + here & #2 ✈️', PHOTO), 'utf8'), 'picture');
  for (const f of ALL()) {
    // PUT under a plain name, then MOVE onto the hard one.
    const plain = `${DIR}/Moved + here & #2 ✈️/incoming.txt`;
    const put = await dav('PUT', encodeSegments(plain), {}, 'put');
    assert.is(put.status, 201, `${f.label}: PUT ${put.status}`);
    const moved = await dav('MOVE', encodeSegments(plain), {
      destination: `${s.url}/dav/${encodeSegments(`${DIR}/Moved + here & #2 ✈️/${f.name}`)}`,
    });
    assert.is(moved.status, 201, `${f.label}: MOVE ${moved.status}`);
    assert.is(fs.readFileSync(onDisk('Moved + here & #2 ✈️', f.name), 'utf8'), 'put');
  }
});

test.run();
