// Crash safety: a real server in a child process is killed (SIGKILL) in the middle of a large
// cross-filesystem move, of a cross-filesystem trash restore, of an extraction, of a WebDAV
// PUT, of a multipart upload into a disk mounted inside a volume, of a WOPI PutFile and of an ONLYOFFICE save; after a restart every byte is at the source or complete at the destination, and no
// temporary is left or visible.
// The second filesystem is a tmpfs the test mounts (CI runs as root). The server is the one
// the run is about: from source, or the executable (BURROW_TEST_SERVER=executable).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SignJWT } from 'jose';
import { yazlZip } from '../support/archives.ts';
import { Client } from '../support/client.ts';
import { mountTmpfs } from '../support/mount.ts';
import { serveDiscovery } from '../support/office.ts';
import { kill, startChild } from '../support/child.ts';
import { makeDirs, removeDirs, serverEnv } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const FILES = 400;
const SIZE = 256 * 1024;

function makeTree(dir: string): Map<string, string> {
  const hashes = new Map<string, string>();
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < FILES; i++) {
    const data = Buffer.alloc(SIZE, i % 256);
    data.writeUInt32BE(i, 0);
    const name = `f${String(i).padStart(4, '0')}.bin`;
    fs.writeFileSync(path.join(dir, name), data);
    hashes.set(name, createHash('sha1').update(data).digest('hex'));
  }
  return hashes;
}

function treeIs(dir: string, hashes: Map<string, string>): boolean {
  if (!fs.existsSync(dir)) return false;
  const names = fs.readdirSync(dir);
  if (names.length !== hashes.size) return false;
  return [...hashes].every(
    ([n, h]) =>
      fs.existsSync(path.join(dir, n)) &&
      createHash('sha1')
        .update(fs.readFileSync(path.join(dir, n)))
        .digest('hex') === h,
  );
}

const temporaries = (dir: string) =>
  fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.startsWith('.burrow-tmp-')) : [];

/** Waits until a temporary appears in `dir`: the work (`what`) is under way. */
const temporaryAppears = (dir: string, what: string) =>
  waitFor(() => temporaries(dir).length > 0, { what, timeoutMs: 15_000, everyMs: 2, seen: () => fs.readdirSync(dir) });

/** Bytes under the temporaries in `dir` (a file that goes while it is read counts as none). */
function bytesUnderTemporaries(dir: string): number {
  const size = (p: string): number => {
    try {
      const st = fs.lstatSync(p);
      return st.isDirectory() ? fs.readdirSync(p).reduce((sum, n) => sum + size(path.join(p, n)), 0) : st.size;
    } catch {
      return 0;
    }
  };
  return temporaries(dir).reduce((sum, n) => sum + size(path.join(dir, n)), 0);
}

/** Waits until the work writing into `dir` is part-way: bytes under its temporary (or it finished). */
const partWritten = (dir: string) =>
  waitFor(() => bytesUnderTemporaries(dir) > 0 || temporaries(dir).length === 0, {
    what: `the first bytes under the temporary in ${dir}`,
    everyMs: 2,
  });

const noTemporaries = (dir: string) => !fs.readdirSync(dir).some((n) => n.startsWith('.burrow-tmp-'));

test('SIGKILL mid cross-filesystem move and mid trash restore leaves old or new state', async () => {
  const dirs = makeDirs('burrow-crash-');
  const fast = mountTmpfs(path.join(dirs.root, 'fast'), '256m');
  const shmRoot = fast.dir;
  assert.is.not(fs.statSync(shmRoot).dev, fs.statSync(dirs.volumes).dev, 'a second file system');
  fs.mkdirSync(path.join(dirs.volumes, 'Files'));
  fs.symlinkSync(shmRoot, path.join(dirs.volumes, 'Fast'));
  const env = { ...serverEnv(dirs), AUTH_MODE: 'disabled', LOG_LEVEL: 'info' };
  let server: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    server = await startChild(env);
    // 1. A move of a 100 MB tree from disk to tmpfs, killed while copying.
    const hashes = makeTree(path.join(dirs.volumes, 'Files', 'Big'));
    const c = new Client(server.url);
    void c.post('/api/files/move', { items: [{ path: 'Files', name: 'Big' }], destination: 'Fast' }).catch(() => {});
    await temporaryAppears(shmRoot, 'the copy to start');
    await partWritten(shmRoot);
    await kill(server.child);
    server = await startChild(env);
    const atSource = treeIs(path.join(dirs.volumes, 'Files', 'Big'), hashes);
    const atDestination = treeIs(path.join(shmRoot, 'Big'), hashes);
    assert.ok(atSource || atDestination, 'every byte is at the source or complete at the destination');
    assert.ok(noTemporaries(shmRoot), 'no temporary is left at the destination');
    const listing = (await new Client(server.url).get('/api/browse/Fast')).json.items.map((i: any) => i.name);
    assert.not.ok(listing.some((n: string) => n.startsWith('.burrow')));
    if (atDestination && atSource) throw new Error('both copies remain after recovery');
    console.log(`  move killed mid-copy: found ${atSource ? 'the source intact' : 'the destination complete'}`);

    // 2. A trash restore from disk into the tmpfs volume, killed while copying.
    const c2 = new Client(server.url);
    if (!atSource) {
      // Put the tree back on disk so the restore crosses filesystems.
      const back = await c2.post('/api/files/move', { items: [{ path: 'Fast', name: 'Big' }], destination: 'Files' });
      assert.is(back.status, 200, back.text);
    }
    const del = await c2.delete('/api/files', { items: [{ path: 'Files', name: 'Big' }] });
    assert.is(del.json.items[0].status, 'deleted');
    const trashId = del.json.items[0].trashId;
    void c2.post(`/api/trash/items/${trashId}/restore`, { destination: 'Fast' }).catch(() => {});
    await temporaryAppears(shmRoot, 'the restore copy to start');
    await partWritten(shmRoot);
    await kill(server.child);
    server = await startChild(env);
    const c3 = new Client(server.url);
    const trash = (await c3.get('/api/trash')).json.items;
    const inTrash = trash.some((i: any) => i.id === trashId);
    const restored = treeIs(path.join(shmRoot, 'Big'), hashes);
    assert.ok(
      inTrash !== restored,
      `the item is either still in the trash (${inTrash}) or completely restored (${restored})`,
    );
    console.log(`  restore killed mid-copy: found ${inTrash ? 'the item still in the trash' : 'the item restored'}`);
    if (inTrash) {
      const again = await c3.post(`/api/trash/items/${trashId}/restore`, { destination: 'Fast' });
      assert.is(again.status, 200, again.text);
      assert.ok(treeIs(path.join(shmRoot, 'Big'), hashes), 'the restore completes after the restart');
    }
    assert.ok(noTemporaries(shmRoot));
  } finally {
    if (server) await kill(server.child).catch(() => {});
    fast.unmount();
    removeDirs(dirs);
  }
});

test('SIGKILL mid extraction and mid compression: nothing appears under a real name, and the restart removes what was half built', async () => {
  const dirs = makeDirs('burrow-crash-extract-');
  const env = { ...serverEnv(dirs), AUTH_MODE: 'disabled', LOG_LEVEL: 'info' };
  const files = path.join(dirs.volumes, 'Files');
  const arc = path.join(files, 'arc');
  const out = path.join(files, 'out');
  fs.mkdirSync(arc, { recursive: true });
  fs.mkdirSync(out);
  const hashes = makeTree(path.join(dirs.root, 'src'));
  await yazlZip(
    path.join(arc, 'photos.zip'),
    [...hashes.keys()].map((n) => ({
      name: `Photos/${n}`,
      data: fs.readFileSync(path.join(dirs.root, 'src', n)),
      compress: false,
    })),
  );
  let server: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    server = await startChild(env);
    // 1. Into a folder (POST /api/archive/extract): killed while the entries are written.
    void new Client(server.url)
      .post('/api/archive/extract', { path: 'Files/arc/photos.zip', destination: 'Files/out' })
      .catch(() => {});
    await temporaryAppears(out, 'the extraction to start, under a temporary name');
    await partWritten(out);
    await kill(server.child);
    assert.equal(
      fs.readdirSync(out).filter((n) => !n.startsWith('.burrow-tmp-')),
      [],
      'nothing under a real name while it was written',
    );
    server = await startChild(env);
    assert.equal(fs.readdirSync(out), [], 'the restart removed the half-built tree');
    const again = await new Client(server.url).post('/api/archive/extract', {
      path: 'Files/arc/photos.zip',
      destination: 'Files/out',
    });
    assert.is(again.status, 200, again.text);
    assert.ok(treeIs(path.join(out, 'Photos'), hashes), 'extracted again, whole, under its own name');

    // 2. Into a new folder beside the archive (POST /api/files/zip/extract): the same.
    void new Client(server.url).post('/api/files/zip/extract', { path: 'Files/arc/photos.zip' }).catch(() => {});
    await temporaryAppears(arc, 'the one-shot extraction to start, under a temporary name');
    await partWritten(arc);
    await kill(server.child);
    assert.equal(
      fs.readdirSync(arc).filter((n) => !n.startsWith('.burrow-tmp-')),
      ['photos.zip'],
    );
    server = await startChild(env);
    assert.equal(fs.readdirSync(arc), ['photos.zip'], 'the restart removed the half-built folder');

    // 3. A selection into a new zip (POST /api/files/zip/compress): its temporary goes too.
    void new Client(server.url)
      .post('/api/files/zip/compress', { items: [{ path: 'Files/out', name: 'Photos' }] })
      .catch(() => {});
    await temporaryAppears(out, 'the new zip to be written, under a temporary name');
    await partWritten(out);
    await kill(server.child);
    server = await startChild(env);
    assert.equal(fs.readdirSync(out), ['Photos'], 'the restart removed the unfinished zip');
  } finally {
    if (server) await kill(server.child).catch(() => {});
    removeDirs(dirs);
  }
});

test('SIGKILL mid WebDAV PUT: the old content stays and the restart removes the partial temporary', async () => {
  const dirs = makeDirs('burrow-crash-dav-');
  const env = { ...serverEnv(dirs), AUTH_MODE: 'disabled', LOG_LEVEL: 'info' };
  const files = path.join(dirs.volumes, 'Files');
  fs.mkdirSync(files);
  fs.writeFileSync(path.join(files, 'report.bin'), 'the old content');
  let server: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    server = await startChild(env);
    // A client that sends the first MiB of 64 and then stalls, as a slow link would.
    const req = http.request(`${server.url}/dav/Files/report.bin`, {
      method: 'PUT',
      headers: { 'content-length': String(64 * 1024 * 1024) },
    });
    req.on('error', () => {});
    req.write(Buffer.alloc(1024 * 1024, 7));
    await temporaryAppears(files, 'the PUT to be written, under a temporary name');
    await kill(server.child);
    req.destroy();
    assert.is(fs.readFileSync(path.join(files, 'report.bin'), 'utf8'), 'the old content');
    server = await startChild(env);
    assert.equal(fs.readdirSync(files), ['report.bin'], 'the restart removed the partial temporary');
    assert.is(fs.readFileSync(path.join(files, 'report.bin'), 'utf8'), 'the old content');
  } finally {
    if (server) await kill(server.child).catch(() => {});
    removeDirs(dirs);
  }
});

test('SIGKILL mid multipart upload into a disk mounted inside a volume: the restart removes the hidden part file beside the destination', async () => {
  const dirs = makeDirs('burrow-crash-mp-');
  const env = { ...serverEnv(dirs), AUTH_MODE: 'disabled', LOG_LEVEL: 'info', UPLOAD_FREE_SPACE_RESERVE: '1M' };
  const files = path.join(dirs.volumes, 'Files');
  fs.mkdirSync(files);
  // A USB stick mounted inside the volume: its uploads are staged beside the destination.
  const stick = mountTmpfs(path.join(files, 'USB Stick (Fotos)'), '64m');
  let server: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    server = await startChild(env);
    const b = 'Boundary-crash';
    const head = `--${b}\r\nContent-Disposition: form-data; name="uploadTo"\r\n\r\nFiles/USB Stick (Fotos)\r\n--${b}\r\nContent-Disposition: form-data; name="filedata"; filename="Urlaub 2024.mp4"\r\nContent-Type: video/mp4\r\n\r\n`;
    // The first MiB of a 32 MiB video, then the link stalls.
    const req = http.request(`${server.url}/api/upload`, {
      method: 'POST',
      headers: {
        'content-type': `multipart/form-data; boundary=${b}`,
        'content-length': String(head.length + 32 * 1024 * 1024 + b.length + 8),
        origin: server.url,
      },
    });
    req.on('error', () => {});
    req.write(head);
    req.write(Buffer.alloc(1024 * 1024, 7));
    await temporaryAppears(stick.dir, 'the upload to be staged beside its destination');
    await kill(server.child);
    req.destroy();
    assert.ok(temporaries(stick.dir).length > 0, 'the kill left the part file');
    server = await startChild(env);
    assert.equal(fs.readdirSync(stick.dir), [], 'the restart removed the hidden part file');
  } finally {
    if (server) await kill(server.child).catch(() => {});
    stick.unmount();
    removeDirs(dirs);
  }
});

test('SIGKILL mid WOPI PutFile and mid ONLYOFFICE download: the old document stays and the restart removes the partial temporary', async () => {
  const dirs = makeDirs('burrow-crash-office-');
  const OO_SECRET = 'onlyoffice-secret-for-the-crash-test-0123';
  // The editing server: WOPI's discovery document (what the config answers the editor address
  // from), and a document server that sends the first MiB of a 64 MiB edited document and stalls.
  const stalled = new Set<http.ServerResponse>();
  const editor = http.createServer((req, res) => {
    if (serveDiscovery(req, res, editorBase)) return;
    if (req.url === '/cache/edited.docx') {
      stalled.add(res);
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(64 * 1024 * 1024) });
      return res.write(Buffer.alloc(1024 * 1024, 9));
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((r) => editor.listen(0, '127.0.0.1', r));
  const editorBase = `http://127.0.0.1:${(editor.address() as AddressInfo).port}`;
  const PUBLIC = 'http://files.burrow.test';
  const env = {
    ...serverEnv(dirs),
    LOG_LEVEL: 'info',
    // An address in front of the server, as behind a proxy: the calls below go to the server itself.
    PUBLIC_URL: PUBLIC,
    OFFICEEDITOR_URL: editorBase,
    OFFICEEDITOR_SECRET: 'wopi-secret-for-the-crash-test-0123456789',
    ONLYOFFICE_URL: editorBase,
    ONLYOFFICE_SECRET: OO_SECRET,
  };
  const files = path.join(dirs.volumes, 'Files');
  fs.mkdirSync(files);
  fs.writeFileSync(path.join(files, 'report.docx'), 'the old report');
  fs.writeFileSync(path.join(files, 'minutes.docx'), 'the old minutes');
  const unchanged = () => {
    assert.is(fs.readFileSync(path.join(files, 'report.docx'), 'utf8'), 'the old report');
    assert.is(fs.readFileSync(path.join(files, 'minutes.docx'), 'utf8'), 'the old minutes');
  };
  const admin = { email: 'a@example.org', username: 'admin', password: 'admin-password-1' };
  let server: Awaited<ReturnType<typeof startChild>> | undefined;
  /** kill -9 mid-save, then a restart: the old contents stand and no partial temporary is left. */
  const killAndRestart = async () => {
    await kill(server!.child);
    unchanged();
    server = await startChild(env);
    assert.equal(
      fs.readdirSync(files).sort(),
      ['minutes.docx', 'report.docx'],
      'the restart removed the partial temporary',
    );
    unchanged();
  };
  try {
    server = await startChild(env);
    let client = new Client(server.url);
    const setup = await client.post('/api/auth/setup', admin);
    assert.is(setup.status, 201, setup.text);

    // 1. WOPI PutFile: the editing server sends the first MiB of a 64 MiB document and then stalls.
    const config = await client.post('/api/officeeditor/config', { path: 'Files/report.docx' });
    assert.is(config.status, 200, config.text);
    const src = `${server.url}/api/officeeditor/wopi/files/${config.json.fileId}`;
    const token = `?access_token=${encodeURIComponent(config.json.access_token)}`;
    const lock = await fetch(src + token, {
      method: 'POST',
      headers: { 'X-WOPI-Override': 'LOCK', 'X-WOPI-Lock': 'crash-lock' },
    });
    assert.is(lock.status, 200, await lock.text());
    const req = http.request(`${src}/contents${token}`, {
      method: 'POST',
      headers: {
        'X-WOPI-Override': 'PUT',
        'X-WOPI-Lock': 'crash-lock',
        'content-type': 'application/octet-stream',
        'content-length': String(64 * 1024 * 1024),
      },
    });
    req.on('error', () => {});
    req.write(Buffer.alloc(1024 * 1024, 7));
    await temporaryAppears(files, 'the PutFile to be written, under a temporary name');
    await killAndRestart();
    req.destroy();

    // 2. ONLYOFFICE: the callback has the server fetch the edited document, which stalls.
    client = new Client(server.url);
    const signedIn = await client.post('/api/auth/login', { identifier: admin.username, password: admin.password });
    assert.is(signedIn.status, 200, signedIn.text);
    const oo = await client.post('/api/onlyoffice/config', { path: 'Files/minutes.docx', mode: 'edit' });
    assert.is(oo.status, 200, oo.text);
    const body = { key: oo.json.config.document.key, status: 2, url: `${editorBase}/cache/edited.docx`, users: ['x'] };
    const jwt = await new SignJWT({ payload: body })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode(OO_SECRET));
    void fetch(oo.json.config.editorConfig.callbackUrl.replace(PUBLIC, server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}` },
      body: JSON.stringify(body),
    }).catch(() => {});
    await temporaryAppears(files, 'the edited document to be written, under a temporary name');
    await killAndRestart();
  } finally {
    if (server) await kill(server.child).catch(() => {});
    for (const res of stalled) res.destroy();
    await new Promise((r) => editor.close(r));
    removeDirs(dirs);
  }
});

test.run();
