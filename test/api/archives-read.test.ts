// Archives through HTTP, reading: listings and single entries of zip (bzip2 and LZMA entries
// too), tar.gz, 7z, iso, cab and rar, hostile names, passwords, damaged archives, the entry cap,
// the browse limit of compound archives, and what a read token may do. Archives are made by the
// tests (yazl, tar-stream, Debian tools; the RAR, stored, written byte by byte).
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { createUser, issueToken, setupAdmin } from '../support/auth.ts';
import {
  cabinet,
  isoImage,
  patchZipNames,
  run,
  sevenZipTool,
  storedRar,
  tarFile,
  yazlZip,
} from '../support/archives.ts';

let s: TestServer;
let alice: Client;
let reader: Client;
let arc: string;
const q = (p: string, extra: Record<string, string> = {}) => new URLSearchParams({ path: p, ...extra }).toString();
const list = (c: Client, p: string, inside?: string) =>
  c.get(`/api/archive/list?${q(p, inside === undefined ? {} : { inside })}`);
const entry = (c: Client, p: string, e: string, headers?: Record<string, string>) =>
  c.get(`/api/archive/entry?${q(p, { entry: e })}`, headers);

const FILES: Record<string, string> = {
  'top.txt': 'top file',
  'docs/a.txt': 'alpha text',
  'docs/deep/b.txt': 'beta',
  'page.html': '<script>alert(1)</script>',
  'img.svg': '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
};

test.before(async () => {
  s = await startServer({ env: { ARCHIVE_MAX_ENTRIES: '50', MAX_BROWSABLE_ARCHIVE_SIZE: '256K', LOG_LEVEL: 'debug' } });
  const admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
  reader = new Client(s.url, await issueToken(alice, 'read', { password: 'alice-password-1' }));
  arc = path.join(s.dirs.volumes, 'Files', 'arc');
  const src = path.join(s.dirs.root, 'src');
  for (const [name, data] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(src, name)), { recursive: true });
    fs.writeFileSync(path.join(src, name), data);
  }
  fs.mkdirSync(arc, { recursive: true });
  // No folder entries in the zip: docs/ and docs/deep/ are implied by the file paths.
  await yazlZip(
    path.join(arc, 'set.zip'),
    Object.entries(FILES).map(([name, data]) => ({ name, data, compress: name !== 'top.txt' })),
  );
  run('tar', ['czf', path.join(arc, 'set.tar.gz'), '-C', src, ...Object.keys(FILES)]);
  run('tar', ['cf', path.join(arc, 'set.tar'), '-C', src, ...Object.keys(FILES)]);
  run(sevenZipTool(), ['a', '-bd', '-bso0', path.join(arc, 'set.7z'), ...Object.keys(FILES)], src);
  isoImage(path.join(arc, 'set.iso'), src);
  cabinet(path.join(arc, 'set.cab'), src, Object.keys(FILES));
  storedRar(
    path.join(arc, 'set.rar'),
    Object.entries(FILES).map(([name, data]) => ({ name, data })),
  );
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

for (const kind of ['zip', 'tar', 'tar.gz', '7z', 'iso', 'cab', 'rar']) {
  test(`${kind}: the top level, a folder inside, and every entry's bytes`, async () => {
    const top = await list(alice, `Files/arc/set.${kind}`);
    assert.is(top.status, 200, top.text);
    assert.is(top.json.path, `Files/arc/set.${kind}`);
    assert.is(top.json.name, `set.${kind}`);
    assert.not.ok('inside' in top.json);
    assert.is(top.json.outside, 0);
    assert.ok(top.json.total >= 5);
    const byName = Object.fromEntries(top.json.entries.map((e: any) => [e.name, e]));
    assert.equal(Object.keys(byName).sort(), ['docs', 'img.svg', 'page.html', 'top.txt']);
    assert.equal(byName.docs, { ...byName.docs, isDirectory: true, size: null, path: 'docs' });
    assert.not.ok('encrypted' in byName.docs);
    assert.equal(
      [byName['top.txt'].size, byName['top.txt'].isDirectory, byName['top.txt'].encrypted],
      [8, false, false],
    );
    assert.match(byName['top.txt'].modified, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const docs = await list(alice, `Files/arc/set.${kind}`, 'docs');
    assert.is(docs.json.inside, 'docs');
    assert.equal(
      docs.json.entries.map((e: any) => [e.path, e.isDirectory]),
      [
        ['docs/deep', true],
        ['docs/a.txt', false],
      ],
    );
    for (const [name, data] of Object.entries(FILES)) {
      const r = await entry(alice, `Files/arc/set.${kind}`, name);
      assert.is(r.status, 200, `${name}: ${r.text}`);
      assert.is(r.text, data);
      assert.is(r.headers.get('x-content-type-options'), 'nosniff');
      assert.is(r.headers.get('content-type'), 'application/octet-stream');
      assert.match(r.headers.get('content-disposition') ?? '', /^attachment; filename="/);
    }
  });

  test(`${kind}: one range of an entry`, async () => {
    const r = await entry(alice, `Files/arc/set.${kind}`, 'docs/a.txt', { range: 'bytes=2-5' });
    assert.is(r.status, 206);
    assert.is(r.text, 'pha ');
    assert.is(r.headers.get('content-range'), 'bytes 2-5/10');
    const past = await entry(alice, `Files/arc/set.${kind}`, 'docs/a.txt', { range: 'bytes=50-' });
    assert.is(past.status, 416);
  });
}

test('zip entries compressed with bzip2 and LZMA (7-Zip) list like any other and read through 7-Zip', async () => {
  const src = path.join(s.dirs.root, 'src');
  for (const method of ['BZip2', 'LZMA']) {
    run(sevenZipTool(), ['a', '-bd', '-bso0', '-tzip', `-mm=${method}`, path.join(arc, `${method}.zip`), 'docs'], src);
    const top = await list(alice, `Files/arc/${method}.zip`, 'docs');
    assert.is(top.status, 200, top.text);
    assert.equal(
      top.json.entries.map((e: any) => [e.name, e.size]),
      [
        ['deep', null],
        ['a.txt', 10],
      ],
    );
    const r = await entry(alice, `Files/arc/${method}.zip`, 'docs/a.txt');
    assert.is(r.status, 200, r.text);
    assert.is(r.text, 'alpha text');
    assert.match(r.headers.get('content-disposition') ?? '', /^attachment; /);
    const part = await entry(alice, `Files/arc/${method}.zip`, 'docs/deep/b.txt', { range: 'bytes=1-2' });
    assert.is(part.status, 206);
    assert.is(part.text, 'et');
  }
});

test('an entry is looked up by its exact name; a folder is not a file; a position outside is 400', async () => {
  const near = await entry(alice, 'Files/arc/set.zip', 'docs/a.tx');
  assert.is(near.status, 404);
  assert.is(envelope(near).code, 'ARCHIVE_ENTRY_NOT_FOUND');
  assert.is((await entry(alice, 'Files/arc/set.zip', 'docs')).status, 404);
  const out = await list(alice, 'Files/arc/set.zip', '../..');
  assert.is(out.status, 400);
  assert.is(envelope(out).code, 'ARCHIVE_BAD_POSITION');
  const missing = await list(alice, 'Files/arc/none.zip');
  assert.is(missing.status, 404);
  envelope(missing);
  const folder = await list(alice, 'Files/arc');
  assert.is(folder.status, 400);
  envelope(folder);
});

test('zip-slip, absolute and drive-letter names are counted as outside and never listed', async () => {
  const file = path.join(arc, 'slip.zip');
  await yazlZip(file, [
    { name: 'ok.txt', data: 'ok' },
    { name: 'a/XX/XX/evil.txt', data: 'x' },
    { name: 'Q_/win.txt', data: 'x' },
    { name: 'Zetc/x', data: 'x' },
  ]);
  patchZipNames(file, { 'a/XX/XX/evil.txt': 'a/../../evil.txt', 'Q_/win.txt': 'C:/win.txt', 'Zetc/x': '/etc/x' });
  const r = await list(alice, 'Files/arc/slip.zip');
  assert.is(r.status, 200, r.text);
  assert.equal(
    r.json.entries.map((e: any) => e.path),
    ['ok.txt'],
  );
  assert.is(r.json.outside, 3);
  assert.is(r.json.total, 4);
  const e = await entry(alice, 'Files/arc/slip.zip', '../evil.txt');
  assert.is(e.status, 400);
});

test('encrypted entries: listed as such, 409 when read, the open entries of the same archive still read', async () => {
  const src = path.join(s.dirs.root, 'enc');
  fs.mkdirSync(src);
  fs.writeFileSync(path.join(src, 'secret.txt'), 'secret');
  fs.writeFileSync(path.join(src, 'open.txt'), 'open');
  run('zip', ['-q', '-P', 'pw', path.join(arc, 'enc.zip'), 'secret.txt'], src);
  run('zip', ['-q', path.join(arc, 'enc.zip'), 'open.txt'], src);
  const r = await list(alice, 'Files/arc/enc.zip');
  assert.equal(
    r.json.entries.map((e: any) => [e.name, e.encrypted]),
    [
      ['open.txt', false],
      ['secret.txt', true],
    ],
  );
  const locked = await entry(alice, 'Files/arc/enc.zip', 'secret.txt');
  assert.is(locked.status, 409);
  assert.is(envelope(locked).code, 'ARCHIVE_ENCRYPTED');
  assert.is((await entry(alice, 'Files/arc/enc.zip', 'open.txt')).text, 'open');
  run(sevenZipTool(), ['a', '-bd', '-bso0', '-ppw', '-mhe=on', path.join(arc, 'hidden.7z'), 'secret.txt'], src);
  const hidden = await list(alice, 'Files/arc/hidden.7z');
  assert.is(hidden.status, 409);
  assert.is(envelope(hidden).code, 'ARCHIVE_ENCRYPTED');
});

test('damaged archives answer 422 ARCHIVE_UNREADABLE; a file that is no archive 415', async () => {
  for (const kind of ['zip', 'tar', 'tar.gz', '7z', 'iso', 'cab', 'rar']) {
    // A plain tar is known by its first header: cut inside the first entry's content instead.
    const cut = kind === 'tar' ? 700 : 40;
    fs.writeFileSync(path.join(arc, `cut.${kind}`), fs.readFileSync(path.join(arc, `set.${kind}`)).subarray(0, cut));
    const r = await list(alice, `Files/arc/cut.${kind}`);
    assert.is(r.status, 422, `${kind}: ${r.text}`);
    assert.is(envelope(r).code, 'ARCHIVE_UNREADABLE');
  }
  fs.writeFileSync(path.join(arc, 'notes.txt'), 'just text');
  const r = await list(alice, 'Files/arc/notes.txt');
  assert.is(r.status, 415);
  assert.is(envelope(r).code, 'ARCHIVE_UNSUPPORTED');
});

test('more entries than ARCHIVE_MAX_ENTRIES: 413 ARCHIVE_TOO_MANY_ENTRIES', async () => {
  await yazlZip(
    path.join(arc, 'many.zip'),
    Array.from({ length: 60 }, (_, i) => ({ name: `f${i}.txt`, data: `${i}` })),
  );
  const r = await list(alice, 'Files/arc/many.zip');
  assert.is(r.status, 413);
  assert.is(envelope(r).code, 'ARCHIVE_TOO_MANY_ENTRIES');
});

test('a compound archive over MAX_BROWSABLE_ARCHIVE_SIZE is 413 before decompressing; a zip of the same size lists', async () => {
  const src = path.join(s.dirs.root, 'big');
  fs.mkdirSync(src);
  fs.writeFileSync(path.join(src, 'noise.bin'), randomBytes(400 * 1024));
  run('tar', ['czf', path.join(arc, 'big.tar.gz'), '-C', src, 'noise.bin']);
  run('zip', ['-q', '-0', path.join(arc, 'big.zip'), 'noise.bin'], src);
  assert.ok(fs.statSync(path.join(arc, 'big.tar.gz')).size > 256 * 1024);
  const r = await list(alice, 'Files/arc/big.tar.gz');
  assert.is(r.status, 413);
  assert.is(envelope(r).code, 'ARCHIVE_TOO_LARGE_TO_BROWSE');
  const z = await list(alice, 'Files/arc/big.zip');
  assert.is(z.status, 200, z.text);
  assert.equal(
    z.json.entries.map((e: any) => e.name),
    ['noise.bin'],
  );
});

test('a tar symlink entry pointing out is listed as no file and never served', async () => {
  await tarFile(path.join(arc, 'links.tar'), [
    { name: 'f.txt', data: 'file' },
    { name: 'out', type: 'symlink', linkname: '../../../etc/passwd' },
  ]);
  const r = await list(alice, 'Files/arc/links.tar');
  assert.is(r.status, 200, r.text);
  const out = await entry(alice, 'Files/arc/links.tar', 'out');
  assert.is(out.status, 422, `a link entry answered ${out.status}`);
  envelope(out);
  assert.not.match(out.text, /root:/);
});

test('a read token lists and reads entries, and may not extract (403, nothing written)', async () => {
  assert.is((await list(reader, 'Files/arc/set.zip')).status, 200);
  assert.is((await entry(reader, 'Files/arc/set.zip', 'top.txt')).text, 'top file');
  const before = fs.readdirSync(arc).sort();
  for (const [url, body] of [
    ['/api/archive/extract', { path: 'Files/arc/set.zip', entries: [] }],
    ['/api/files/zip/extract', { path: 'Files/arc/set.zip' }],
    ['/api/files/zip/compress', { items: [{ path: 'Files/arc', name: 'set.zip' }] }],
  ] as const) {
    const r = await reader.post(url, body);
    assert.is(r.status, 403, `${url}: ${r.text}`);
    assert.is(envelope(r).code, 'AUTH_TOKEN_READ_ONLY');
  }
  assert.equal(fs.readdirSync(arc).sort(), before);
});

test.run();
