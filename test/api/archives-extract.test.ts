// Archives through HTTP, writing: extraction as NDJSON events (order, landed names, taken names,
// hostile entries, sizes that lie), who may extract where (nothing written when refused), the
// one-shot zip routes of the native client, and a selection into a new zip.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { mountTmpfs } from '../support/mount.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { createUser, setupAdmin } from '../support/auth.ts';
import {
  cabinet,
  isoImage,
  patchZipNames,
  run,
  sevenZipTool,
  storedRar,
  tarFile,
  tree,
  yazlZip,
} from '../support/archives.ts';

let s: TestServer;
let admin: Client;
let alice: Client;
let files: string;
const FILES: Record<string, string> = { 'top.txt': 'top file', 'docs/a.txt': 'alpha text', 'docs/deep/b.txt': 'beta' };

/** POST /api/archive/extract, the answer split into its events. */
async function extract(
  c: Client,
  body: object,
): Promise<{ status: number; type: string | null; events: any[]; text: string }> {
  const r = await c.post('/api/archive/extract', body);
  const events = r.headers.get('content-type')?.startsWith('application/x-ndjson')
    ? r.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : [];
  return { status: r.status, type: r.headers.get('content-type'), events, text: r.text };
}

function fresh(name: string): string {
  const dir = path.join(files, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

test.before(async () => {
  s = await startServer();
  admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
  files = path.join(s.dirs.volumes, 'Files');
  const src = path.join(s.dirs.root, 'src');
  for (const [name, data] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(src, name)), { recursive: true });
    fs.writeFileSync(path.join(src, name), data);
  }
  const arc = fresh('arc');
  await yazlZip(
    path.join(arc, 'set.zip'),
    Object.entries(FILES).map(([name, data]) => ({ name, data })),
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
  test(`${kind}: events start, progress…, done in order; the files land; a second run lands under name (1)`, async () => {
    const out = fresh(`out-${kind}`);
    const r = await extract(alice, { path: `Files/arc/set.${kind}`, entries: [], destination: `Files/out-${kind}` });
    assert.is(r.status, 200, r.text);
    assert.match(r.type ?? '', /^application\/x-ndjson/);
    const types = r.events.map((e) => e.type);
    assert.is(types[0], 'start');
    assert.is(types.at(-1), 'done');
    assert.ok(
      types.slice(1, -1).every((t) => t === 'progress'),
      types.join(),
    );
    assert.ok(types.includes('progress'));
    assert.is(r.events[0].archive, `set.${kind}`);
    const done = r.events.at(-1);
    assert.is(done.entries, 3);
    assert.is(done.bytes, 22);
    assert.equal(done.landed.map((l: any) => `${l.entry}=${l.name}`).sort(), ['docs=docs', 'top.txt=top.txt']);
    assert.equal(tree(out), {
      'top.txt': 'top file',
      'docs/': '',
      'docs/a.txt': 'alpha text',
      'docs/deep/': '',
      'docs/deep/b.txt': 'beta',
    });
    const again = await extract(alice, {
      path: `Files/arc/set.${kind}`,
      entries: ['docs/deep'],
      destination: `Files/out-${kind}`,
    });
    assert.equal(again.events.at(-1).landed, [{ entry: 'docs/deep', name: 'deep', outcome: 'placed' }]);
    const third = await extract(alice, {
      path: `Files/arc/set.${kind}`,
      entries: ['docs', 'top.txt'],
      destination: `Files/out-${kind}`,
    });
    assert.equal(
      third.events
        .at(-1)
        .landed.map((l: any) => l.name)
        .sort(),
      ['docs (1)', 'top (1).txt'],
    );
    assert.is(fs.readFileSync(path.join(out, 'docs (1)', 'deep', 'b.txt'), 'utf8'), 'beta');
    assert.is(fs.readFileSync(path.join(out, 'top.txt'), 'utf8'), 'top file');
  });
}

test('a zip whose entries are bzip2-compressed (7-Zip) extracts through 7-Zip', async () => {
  const src = path.join(s.dirs.root, 'src');
  run(sevenZipTool(), ['a', '-bd', '-bso0', '-tzip', '-mm=BZip2', path.join(files, 'arc', 'bz.zip'), 'docs'], src);
  const out = fresh('out-bz');
  const r = await extract(alice, { path: 'Files/arc/bz.zip', entries: ['docs'], destination: 'Files/out-bz' });
  assert.is(r.events.at(-1).type, 'done', r.text);
  assert.equal(tree(out), { 'docs/': '', 'docs/a.txt': 'alpha text', 'docs/deep/': '', 'docs/deep/b.txt': 'beta' });
});

test("without a destination the archive's own folder receives the entries; the folder listing shows them", async () => {
  const dir = fresh('here');
  fs.copyFileSync(path.join(files, 'arc', 'set.zip'), path.join(dir, 'set.zip'));
  const r = await extract(alice, { path: 'Files/here/set.zip', entries: ['top.txt'] });
  assert.is(r.events.at(-1).type, 'done', r.text);
  const browse = await alice.get('/api/browse/Files/here');
  assert.equal(browse.json.items.map((i: any) => i.name).sort(), ['set.zip', 'top.txt']);
});

test('hostile entries: zip-slip, absolute and drive names, links pointing out and devices are never written', async () => {
  const arc = path.join(files, 'arc');
  await yazlZip(path.join(arc, 'slip.zip'), [
    { name: 'ok.txt', data: 'ok' },
    { name: 'a/XX/XX/evil.txt', data: 'x' },
    { name: 'Q_/win.txt', data: 'x' },
    { name: 'Zetc/x', data: 'x' },
  ]);
  patchZipNames(path.join(arc, 'slip.zip'), {
    'a/XX/XX/evil.txt': 'a/../../evil.txt',
    'Q_/win.txt': 'C:/win.txt',
    'Zetc/x': '/etc/x',
  });
  const out = fresh('slip-out');
  const r = await extract(alice, { path: 'Files/arc/slip.zip', entries: [], destination: 'Files/slip-out' });
  assert.is(r.events.at(-1).type, 'done', r.text);
  assert.equal(tree(out), { 'ok.txt': 'ok' });
  assert.not.ok(fs.existsSync(path.join(files, 'evil.txt')));
  await tarFile(path.join(arc, 'links.tar'), [
    { name: 'f.txt', data: 'file' },
    { name: 'out', type: 'symlink', linkname: '../../../etc/passwd' },
    { name: 'hard', type: 'link', linkname: '/etc/passwd' },
    { name: 'null', type: 'character-device', devmajor: 1, devminor: 3 },
  ]);
  const links = fresh('links-out');
  const l = await extract(alice, { path: 'Files/arc/links.tar', entries: [], destination: 'Files/links-out' });
  const done = l.events.at(-1);
  assert.is(done.type, 'done', l.text);
  assert.equal(done.skipped.map((x: any) => `${x.entry}:${x.reason}`).sort(), ['hard:link', 'null:device', 'out:link']);
  assert.equal(tree(links), { 'f.txt': 'file' });
});

test('declared sizes that lie: an error event 422, and nothing is left behind', async () => {
  const file = path.join(files, 'arc', 'liar.zip');
  await yazlZip(file, [
    { name: 'first.txt', data: 'fine' },
    { name: 'big.bin', data: Buffer.alloc(200_000, 1) },
  ]);
  const bytes = fs.readFileSync(file);
  const cd = bytes.lastIndexOf(Buffer.from('big.bin')) - 46;
  assert.is(bytes.readUInt32LE(cd), 0x02014b50);
  bytes.writeUInt32LE(1000, cd + 24);
  fs.writeFileSync(file, bytes);
  const out = fresh('liar-out');
  fs.writeFileSync(path.join(out, 'mine.txt'), 'mine');
  const r = await extract(alice, { path: 'Files/arc/liar.zip', entries: [], destination: 'Files/liar-out' });
  assert.is(r.status, 200);
  assert.equal(
    r.events.map((e) => e.type).filter((t) => t !== 'progress'),
    ['start', 'error'],
  );
  assert.equal([r.events.at(-1).statusCode, r.events.at(-1).code], [422, 'ARCHIVE_UNREADABLE']);
  assert.equal(tree(out), { 'mine.txt': 'mine' });
});

test('an encrypted selection is refused with 409 before anything is written', async () => {
  const src = path.join(s.dirs.root, 'enc');
  fs.mkdirSync(src);
  fs.writeFileSync(path.join(src, 'secret.txt'), 'secret');
  fs.writeFileSync(path.join(src, 'open.txt'), 'open');
  run('zip', ['-q', '-P', 'pw', path.join(files, 'arc', 'enc.zip'), 'secret.txt'], src);
  run('zip', ['-q', path.join(files, 'arc', 'enc.zip'), 'open.txt'], src);
  const out = fresh('enc-out');
  const r = await alice.post('/api/archive/extract', {
    path: 'Files/arc/enc.zip',
    entries: [],
    destination: 'Files/enc-out',
  });
  assert.is(r.status, 409);
  assert.is(envelope(r).code, 'ARCHIVE_ENCRYPTED');
  assert.equal(tree(out), {});
  const open = await extract(alice, { path: 'Files/arc/enc.zip', entries: ['open.txt'], destination: 'Files/enc-out' });
  assert.is(open.events.at(-1).type, 'done', open.text);
  assert.equal(tree(out), { 'open.txt': 'open' });
});

test('refused without the right to write (an access rule ro): a read-only destination, a read-only archive folder; nothing written', async () => {
  const ro = fresh('ro');
  fs.copyFileSync(path.join(files, 'arc', 'set.zip'), path.join(ro, 'set.zip'));
  const rw = fresh('rw');
  const set = await admin.patch('/api/settings', {
    access: { rules: [{ id: 'r', path: 'Files/ro', recursive: true, permissions: 'ro' }] },
  });
  assert.is(set.status, 200, set.text);
  try {
    for (const body of [
      { path: 'Files/arc/set.zip', entries: [], destination: 'Files/ro' },
      { path: 'Files/ro/set.zip', entries: [], destination: 'Files/rw' },
      { path: 'Files/ro/set.zip', entries: [] },
    ]) {
      const r = await alice.post('/api/archive/extract', body);
      assert.is(r.status, 403, `${JSON.stringify(body)}: ${r.text}`);
      envelope(r);
    }
    const one = await alice.post('/api/files/zip/extract', { path: 'Files/ro/set.zip' });
    assert.is(one.status, 403);
    const zip = await alice.post('/api/files/zip/compress', {
      items: [{ path: 'Files/arc', name: 'set.zip' }],
      destination: 'Files/ro',
    });
    assert.is(zip.status, 403);
    assert.equal(fs.readdirSync(ro), ['set.zip']);
    assert.equal(fs.readdirSync(rw), []);
    // Reading is still allowed there.
    assert.is((await alice.get('/api/archive/list?path=Files/ro/set.zip')).status, 200);
  } finally {
    await admin.patch('/api/settings', { access: { rules: [] } });
  }
});

test('a destination that is missing, a file, or outside is refused before anything is written', async () => {
  assert.is(
    (await alice.post('/api/archive/extract', { path: 'Files/arc/set.zip', entries: [], destination: 'Files/nowhere' }))
      .status,
    404,
  );
  assert.is(
    (
      await alice.post('/api/archive/extract', {
        path: 'Files/arc/set.zip',
        entries: [],
        destination: 'Files/arc/set.zip',
      })
    ).status,
    400,
  );
  assert.is(
    (await alice.post('/api/archive/extract', { path: 'Files/arc/set.zip', entries: [], destination: '../..' })).status,
    400,
  );
  const missing = await alice.post('/api/archive/extract', {
    path: 'Files/arc/set.zip',
    entries: ['nothing/here'],
    destination: 'Files/rw',
  });
  assert.is(missing.status, 404);
  assert.is(envelope(missing).code, 'ARCHIVE_ENTRY_NOT_FOUND');
  assert.equal(fs.readdirSync(path.join(files, 'rw')), []);
});

test('POST /api/files/zip/extract: 201 {success, item} with the new folder beside the archive, (1) when taken; 415 for no archive', async () => {
  const dir = fresh('oneshot');
  fs.copyFileSync(path.join(files, 'arc', 'set.tar.gz'), path.join(dir, 'set.tar.gz'));
  const r = await alice.post('/api/files/zip/extract', { path: 'Files/oneshot/set.tar.gz' });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.success, true);
  assert.equal(
    { ...r.json.item, dateModified: 'x' },
    { name: 'set', path: 'Files/oneshot', dateModified: 'x', size: 0, kind: 'directory' },
  );
  assert.match(r.json.item.dateModified, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(tree(path.join(dir, 'set')), {
    'top.txt': 'top file',
    'docs/': '',
    'docs/a.txt': 'alpha text',
    'docs/deep/': '',
    'docs/deep/b.txt': 'beta',
  });
  const again = await alice.post('/api/files/zip/extract', { path: 'Files/oneshot/set.tar.gz' });
  assert.is(again.json.item.name, 'set (1)');
  fs.writeFileSync(path.join(dir, 'plain.txt'), 'not an archive at all');
  const bad = await alice.post('/api/files/zip/extract', { path: 'Files/oneshot/plain.txt' });
  assert.is(bad.status, 415, bad.text);
  assert.is(envelope(bad).code, 'ARCHIVE_UNSUPPORTED');
  fs.writeFileSync(path.join(dir, 'broken.zip'), 'PK but not a zip');
  const broken = await alice.post('/api/files/zip/extract', { path: 'Files/oneshot/broken.zip' });
  assert.is(broken.status, 422, broken.text);
  assert.equal(fs.readdirSync(dir).sort(), ['broken.zip', 'plain.txt', 'set', 'set (1)', 'set.tar.gz']);
});

test('POST /api/files/zip/compress: a selection into a new zip beside it (name (1) when taken), listable', async () => {
  const dir = fresh('pack');
  fs.mkdirSync(path.join(dir, 'photos'));
  fs.writeFileSync(path.join(dir, 'photos', 'a.jpg'), 'jpg bytes');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'notes '.repeat(5000));
  const r = await alice.post('/api/files/zip/compress', {
    items: [
      { path: 'Files/pack', name: 'photos' },
      { path: 'Files/pack', name: 'notes.txt' },
    ],
  });
  assert.is(r.status, 201, r.text);
  assert.equal(
    { ...r.json.item, dateModified: 'x' },
    {
      name: 'pack.zip',
      path: 'Files/pack',
      dateModified: 'x',
      size: fs.statSync(path.join(dir, 'pack.zip')).size,
      kind: 'zip',
    },
  );
  run('unzip', ['-tq', path.join(dir, 'pack.zip')]);
  const listed = await alice.get('/api/archive/list?path=Files/pack/pack.zip');
  assert.equal(listed.json.entries.map((e: any) => e.name).sort(), ['notes.txt', 'photos']);
  const named = await alice.post('/api/files/zip/compress', {
    items: [{ path: 'Files/pack', name: 'notes.txt' }],
    destination: 'Files/pack',
    name: 'pack',
  });
  assert.is(named.json.item.name, 'pack (1).zip');
  const single = await alice.post('/api/files/zip/compress', { items: [{ path: 'Files/pack', name: 'notes.txt' }] });
  assert.is(single.json.item.name, 'notes.zip');
  assert.is(
    (await alice.post('/api/files/zip/compress', { items: [{ path: 'Files/pack', name: 'gone.txt' }] })).status,
    404,
  );
  assert.equal(
    fs.readdirSync(dir).filter((n) => n.startsWith('.')),
    [],
  );
});

test('a zip of zeros is refused before it writes anything (its declared size is past 1,000 times the archive), nothing left; measured on a tmpfs', async () => {
  const zeros = path.join(files, 'Backup 2024 (zeros).zip');
  // 320 MiB of zeros deflate to ~320 KB: 1,030 times the archive, past the floor (256 MiB).
  await yazlZip(zeros, [{ name: 'disk image.img', data: Buffer.alloc(320 * 1024 * 1024) }]);
  const disk = mountTmpfs(path.join(files, 'Tiny disk'), '400m');
  try {
    const used = () => {
      const st = fs.statfsSync(disk.dir);
      return (st.blocks - st.bfree) * st.bsize;
    };
    const before = used();
    let peak = 0;
    let watching = true;
    // The tmpfs is sampled while the request runs: what an extraction writes stays until it is refused.
    const watch = (async () => {
      while (watching) {
        peak = Math.max(peak, used() - before);
        await new Promise((r) => setImmediate(r));
      }
    })();
    const r = await extract(admin, {
      path: 'Files/Backup 2024 (zeros).zip',
      entries: [],
      destination: 'Files/Tiny disk',
    });
    watching = false;
    await watch;
    const last = r.events.at(-1) ?? (r.text ? JSON.parse(r.text).error : null);
    assert.is(last?.code, 'ARCHIVE_UNREADABLE', r.text.slice(0, 300));
    assert.ok(peak < 1024 * 1024, `bytes written on the disk before the refusal: ${peak}`);
    assert.not.ok(
      r.events.some((e) => e.type === 'progress' && e.bytes > 0),
      'no byte was written',
    );
    assert.match(last.message, /expands 10\d\d times/);
    assert.equal(fs.readdirSync(disk.dir), [], 'nothing left, not even a hidden temporary');
  } finally {
    disk.unmount();
    fs.rmSync(zeros, { force: true });
  }
});

test.run();
