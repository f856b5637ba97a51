// Extraction safety: nothing outside, no links or devices, nothing written over, sizes held to
// what the archive says, bombs and full disks refused, failures leave only what was there.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import zlib from 'node:zlib';
import { feed } from '../../src/archives/descriptor.ts';
import { plainTarget, type ExtractTarget } from '../../src/archives/target.ts';
import { waitFor } from '../support/wait.ts';
import {
  archiveFile,
  collect,
  patchZipNames,
  readAll,
  rejects,
  run,
  service,
  sevenZipTool,
  tarFile,
  tmp,
  tree,
  yazlZip,
} from '../support/archives.ts';

const dir = tmp('extract');
const fresh = (tag: string) => fs.mkdtempSync(path.join(dir, `${tag}-`));

test('zip-slip, absolute and drive-letter names are never written; the rest is', async () => {
  const file = path.join(dir, 'slip.zip');
  await yazlZip(file, [
    { name: 'ok.txt', data: 'ok' },
    { name: 'a/XX/XX/evil.txt', data: 'x' },
    { name: 'Q_/win.txt', data: 'x' },
    { name: 'Zetc/x', data: 'x' },
    { name: 'aQXXQXXQbs.txt', data: 'x' },
  ]);
  patchZipNames(file, {
    'a/XX/XX/evil.txt': 'a/../../evil.txt',
    'Q_/win.txt': 'C:/win.txt',
    'Zetc/x': '/etc/x',
    'aQXXQXXQbs.txt': 'a\\..\\..\\bs.txt',
  });
  const out = fresh('slip');
  await service().extract(archiveFile(file), [], { path: out });
  assert.equal(tree(out), { 'ok.txt': 'ok' });
  assert.equal(
    fs.readdirSync(dir).filter((n) => /evil|win|bs/.test(n)),
    [],
  );
});

test('tar: links (inside or out) and devices are never written, and are reported', async () => {
  const file = path.join(dir, 'links.tar');
  await tarFile(file, [
    { name: 'f.txt', data: 'file' },
    { name: 'out', type: 'symlink', linkname: '../../../etc/passwd' },
    { name: 'in', type: 'symlink', linkname: 'f.txt' },
    { name: 'hard', type: 'link', linkname: '/etc/passwd' },
    { name: 'null', type: 'character-device', devmajor: 1, devminor: 3 },
    { name: '../up.txt', data: 'x' },
  ]);
  const s = service();
  const listed = await s.list(archiveFile(file));
  assert.is(listed.outside, 1);
  const out = fresh('links');
  const { events, emit } = collect();
  const result = await s.extract(archiveFile(file), [], { path: out }, emit);
  assert.equal(tree(out), { 'f.txt': 'file' });
  assert.equal(result.skipped.map((x) => `${x.entry}:${x.reason}`).sort(), [
    'hard:link',
    'in:link',
    'null:device',
    'out:link',
  ]);
  assert.ok(events.some((e) => e.type === 'done'));
});

test('taken names become name (1), files and folders, and done says where each landed', async () => {
  const file = path.join(dir, 'taken.zip');
  await yazlZip(file, [
    { name: 'report.txt', data: 'new' },
    { name: 'photos/a.jpg', data: 'jpg' },
    { name: 'report.txt', data: 'dup' },
  ]);
  const out = fresh('taken');
  fs.writeFileSync(path.join(out, 'report.txt'), 'old');
  fs.mkdirSync(path.join(out, 'photos'));
  const { events, emit } = collect();
  const result = await service().extract(archiveFile(file), [], { path: out }, emit);
  assert.equal(tree(out), {
    'report.txt': 'old',
    'report (1).txt': 'new',
    'report (2).txt': 'dup',
    'photos/': '',
    'photos (1)/': '',
    'photos (1)/a.jpg': 'jpg',
  });
  const done = events.find((e) => e.type === 'done');
  assert.equal(done && done.type === 'done' && done.landed, [
    { entry: 'report.txt', name: 'report (1).txt', outcome: 'renamed' },
    { entry: 'photos', name: 'photos (1)', outcome: 'renamed' },
  ]);
  // Announced: the selected items where they landed (a folder stands for what it holds).
  assert.equal(result.written, [
    { path: path.join(out, 'report (1).txt'), isDirectory: false },
    { path: path.join(out, 'photos (1)'), isDirectory: true },
    { path: path.join(out, 'report (2).txt'), isDirectory: false },
  ]);
});

test('declared sizes that lie: nothing is left, and the error says so', async () => {
  const file = path.join(dir, 'liar.zip');
  await yazlZip(file, [
    { name: 'first.txt', data: 'fine' },
    { name: 'big.bin', data: Buffer.alloc(200_000, 1) },
  ]);
  // The central directory says big.bin holds 1,000 bytes; it inflates to 200,000.
  const bytes = fs.readFileSync(file);
  const cd = bytes.lastIndexOf(Buffer.from('big.bin')) - 46;
  assert.is(bytes.readUInt32LE(cd), 0x02014b50);
  bytes.writeUInt32LE(1000, cd + 24);
  fs.writeFileSync(file, bytes);
  const out = fresh('liar');
  fs.writeFileSync(path.join(out, 'mine.txt'), 'mine');
  const { events, emit } = collect();
  await rejects(service().extract(archiveFile(file), [], { path: out }, emit), (e: any) => e.status === 422);
  assert.equal(tree(out), { 'mine.txt': 'mine' });
  assert.is(events.at(-1)!.type, 'error');
});

test('entries of several MiB, stored and deflated, come out whole; one whose inflated size lies stops there', async () => {
  // Odd sizes over the 1 MiB read and inflate chunks, both methods (the extraction reads them
  // itself with positioned reads into reused buffers).
  const random = Buffer.alloc(3 * 1024 * 1024 + 12344);
  for (let i = 0; i < random.length; i += 4) random.writeUInt32LE((Math.imul(i, 2654435761) ^ (i >>> 7)) >>> 0, i);
  const [STORED, DEFLATED, EMPTY] = [
    'Rohdaten (gespeichert) 📦.bin',
    'Protokoll März 2025 + Abrechnung.log',
    'leer – ça va?.txt',
  ];
  const text = Buffer.from('a line of a log, with words and numbers 12345\n'.repeat(70_001));
  const file = path.join(dir, 'Fotos & Protokolle – “groß” #3.zip');
  await yazlZip(file, [
    { name: STORED, data: random, compress: false },
    { name: DEFLATED, data: text },
    { name: EMPTY, data: '' },
  ]);
  const out = fresh('chunks');
  await service().extract(archiveFile(file), [], { path: out });
  assert.ok(fs.readFileSync(path.join(out, STORED)).equals(random));
  assert.ok(fs.readFileSync(path.join(out, DEFLATED)).equals(text));
  assert.is(fs.readFileSync(path.join(out, EMPTY)).length, 0);

  // Declared 300,000 bytes, inflates to 3.3 MB; then declared 9 MB, inflates to 3.3 MB.
  for (const [declared, says] of [
    [300_000, /larger than the archive says/],
    [9_000_000, /ends before its declared size/],
  ] as const) {
    const liar = path.join(dir, `liar-${declared}.zip`);
    await yazlZip(liar, [
      { name: 'first.txt', data: 'fine' },
      { name: 'big.log', data: text },
    ]);
    const bytes = fs.readFileSync(liar);
    const cd = bytes.lastIndexOf(Buffer.from('big.log')) - 46;
    assert.is(bytes.readUInt32LE(cd), 0x02014b50);
    bytes.writeUInt32LE(declared, cd + 24);
    fs.writeFileSync(liar, bytes);
    const to = fresh('liar-big');
    await rejects(
      service().extract(archiveFile(liar), [], { path: to }),
      (e: any) => e.status === 422 && says.test(e.message),
    );
    assert.equal(tree(to), {});
  }
});

test('a bomb past the ratio cap stops and removes what it wrote; not enough space is 507 before writing', async () => {
  const file = path.join(dir, 'bomb.zip');
  await yazlZip(file, [
    { name: 'a.bin', data: Buffer.alloc(4_000_000) },
    { name: 'b.bin', data: Buffer.alloc(4_000_000) },
  ]);
  const out = fresh('bomb');
  await rejects(
    service({ extractLimits: { maxRatio: 10, ratioFloor: 1_000_000 } }).extract(archiveFile(file), [], { path: out }),
    (e: any) => e.status === 422 && /expands/.test(e.message),
  );
  assert.equal(tree(out), {});
  const small = { ...plainTarget, freeSpace: async () => 1000 };
  await rejects(
    service({ target: small }).extract(archiveFile(file), [], { path: out }),
    (e: any) => e.status === 507 && e.code === 'NO_SPACE',
  );
  assert.equal(tree(out), {});
});

test('an entry that inflates far past its declared size in one write stops at its first chunk and answers (no hang)', async () => {
  // 64 MiB of zeros declared as 300,000 bytes: one compressed write gives zlib far more than its
  // 4 MiB look-ahead, so that write is still in flight when the first chunk proves the lie —
  // the stop must not wait for its callback (zlib never calls it once destroyed).
  const file = path.join(dir, 'Sicherung 2024 – “alt” & Nullen #1.zip');
  const name = 'Festplatte (Kopie) 💾.img';
  await yazlZip(file, [{ name, data: Buffer.alloc(64 * 1024 * 1024) }]);
  const bytes = fs.readFileSync(file);
  const cd = bytes.lastIndexOf(Buffer.from(name)) - 46;
  assert.is(bytes.readUInt32LE(cd), 0x02014b50);
  bytes.writeUInt32LE(300_000, cd + 24);
  fs.writeFileSync(file, bytes);
  const out = fresh('lie-ahead');
  await rejects(
    service().extract(archiveFile(file), [], { path: out }),
    (e: any) => e.status === 422 && /larger than the archive says/.test(e.message),
  );
  assert.equal(tree(out), {});
});

test('a write zlib parked (its look-ahead full) settles when the stream is destroyed', async () => {
  // What a stop mid-entry does to the inflate stream: without this the extraction's input side
  // waited for the parked write's callback, which zlib never calls once destroyed.
  const inflate = zlib.createInflateRaw({
    chunkSize: 1024 * 1024,
    readableHighWaterMark: 4 * 1024 * 1024,
  } as zlib.ZlibOptions);
  const written = feed(inflate, zlib.deflateRawSync(Buffer.alloc(64 * 1024 * 1024)));
  const settled = written.then(
    () => 'taken',
    (err: Error) => err.message,
  );
  await new Promise((resolve) => inflate.once('readable', resolve));
  assert.ok(inflate.read(1024 * 1024), 'a first chunk came out');
  // Parked: 64 MiB of output cannot fit its 4 MiB look-ahead.
  await waitFor(() => inflate.readableLength >= 4 * 1024 * 1024, { what: 'zlib to fill its look-ahead' });
  inflate.destroy();
  assert.is(await settled, 'aborted');
});

test('items are built under hidden names, every file flushed, then placed whole', async () => {
  const file = path.join(dir, 'staged.zip');
  await yazlZip(file, [
    { name: 'album/one.jpg', data: 'one' },
    { name: 'album/sub/two.jpg', data: 'two' },
    { name: 'notes.txt', data: 'notes' },
  ]);
  const out = fresh('staged');
  const calls: string[] = [];
  const seen: string[][] = [];
  const names = new Map<number, string>();
  const target: ExtractTarget = {
    ...plainTarget,
    async createFileExclusive(d, name) {
      // What a listing of the destination shows while entries are written: nothing yet.
      seen.push(fs.readdirSync(out).filter((n) => !n.startsWith('.burrow-tmp-')));
      const created = await plainTarget.createFileExclusive(d, name);
      names.set(created.fd, name);
      return created;
    },
    async sync(fd) {
      calls.push(`sync ${names.get(fd)}`);
      return plainTarget.sync(fd);
    },
    async place(d, temp, name, isDirectory) {
      calls.push(`place ${name}`);
      return plainTarget.place(d, temp, name, isDirectory);
    },
  };
  await service({ target }).extract(archiveFile(file), [], { path: out });
  assert.equal(seen, [[], [], []]);
  assert.equal(calls.slice(3), ['place album', 'place notes.txt'], 'placed after every file was flushed');
  // notes.txt is itself a selected item: flushed under its temporary name.
  assert.equal(
    calls
      .slice(0, 3)
      .map((c) => c.replace(/\.burrow-tmp-\S+/, '<temporary>'))
      .sort(),
    ['sync <temporary>', 'sync one.jpg', 'sync two.jpg'],
  );
  assert.equal(tree(out), {
    'album/': '',
    'album/one.jpg': 'one',
    'album/sub/': '',
    'album/sub/two.jpg': 'two',
    'notes.txt': 'notes',
  });
});

test('an aborted extraction removes only what it created', async () => {
  const file = path.join(dir, 'slow.tar.gz');
  const src = fresh('slow-src');
  for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(src, `f${i}.bin`), Buffer.alloc(256 * 1024, i));
  run('tar', ['czf', file, '-C', src, '.']);
  const out = fresh('slow');
  fs.writeFileSync(path.join(out, 'f3.bin'), 'keep');
  const controller = new AbortController();
  let seen = 0;
  const p = service().extract(
    archiveFile(file),
    [],
    { path: out },
    (e) => {
      if (e.type === 'start' && ++seen) setImmediate(() => controller.abort());
    },
    controller.signal,
  );
  await rejects(p, () => true);
  assert.equal(tree(out), { 'f3.bin': 'keep' });
});

test('cancelled while an entry is being written: 499 ABORTED (not unreadable), nothing left, zip and tar.gz', async () => {
  const text = Buffer.from('a line of a log, with words and numbers 12345\n'.repeat(30_000));
  const src = fresh('cancel-src');
  const logs = ['Server-Log #1 (Montag).log', 'Café & Co – Log 2.log', 'Zürich 🚋 Log 3 + Nacht.log'];
  for (const n of logs) fs.writeFileSync(path.join(src, n), text);
  const zip = path.join(dir, 'Abbruch “mitten drin” 50%.zip');
  await yazlZip(
    zip,
    logs.map((name) => ({ name, data: text })),
  );
  const tgz = path.join(dir, 'Abbruch “mitten drin” 50%.tar.gz');
  run('tar', ['czf', tgz, '-C', src, ...logs]);
  for (const file of [zip, tgz]) {
    const out = fresh('cancel');
    fs.writeFileSync(path.join(out, 'mine.txt'), 'mine');
    const controller = new AbortController();
    let created = 0;
    // Cancelled as the second file is created: its bytes are then read with the cancel already
    // signalled (no timing: the abort is in place before a byte of it is written).
    const target: ExtractTarget = {
      ...plainTarget,
      async createFileExclusive(d, name) {
        const made = await plainTarget.createFileExclusive(d, name);
        if (++created === 2) controller.abort();
        return made;
      },
    };
    await rejects(
      service({ target }).extract(archiveFile(file), [], { path: out }, () => {}, controller.signal),
      (e: any) => e.status === 499 && e.code === 'ABORTED',
    );
    assert.equal(tree(out), { 'mine.txt': 'mine' }, path.basename(file));
  }
});

test('damaged archives answer 422 ARCHIVE_UNREADABLE', async () => {
  const zip = path.join(dir, 'ok.zip');
  await yazlZip(zip, [{ name: 'a.txt', data: 'a'.repeat(10_000) }]);
  const cut = path.join(dir, 'cut.zip');
  fs.writeFileSync(cut, fs.readFileSync(zip).subarray(0, 60));
  const src = fresh('dmg');
  fs.writeFileSync(path.join(src, 'x.bin'), Buffer.alloc(100_000, 3));
  const tgz = path.join(dir, 'cut.tar.gz');
  run('tar', ['czf', tgz, '-C', src, 'x.bin']);
  fs.writeFileSync(tgz, fs.readFileSync(tgz).subarray(0, 60));
  const s7 = path.join(dir, 'cut.7z');
  run(sevenZipTool(), ['a', '-bd', '-bso0', s7, 'x.bin'], src);
  fs.writeFileSync(s7, fs.readFileSync(s7).subarray(0, 40));
  for (const f of [cut, tgz, s7])
    await rejects(service().list(archiveFile(f)), (e: any) => e.status === 422 && e.code === 'ARCHIVE_UNREADABLE', f);
  const notArchive = path.join(dir, 'notes.txt');
  fs.writeFileSync(notArchive, 'hello');
  await rejects(service().list(archiveFile(notArchive)), (e: any) => e.status === 415);
});

test('encrypted entries: listed as encrypted, 409 when read, the open entries still read (zip -P, 7z -p)', async () => {
  const src = fresh('enc-src');
  fs.writeFileSync(path.join(src, 'secret.txt'), 'secret');
  fs.writeFileSync(path.join(src, 'open.txt'), 'open');
  const zipFile = path.join(dir, 'enc.zip');
  run('zip', ['-q', '-P', 'pw', zipFile, 'secret.txt'], src);
  run('zip', ['-q', zipFile, 'open.txt'], src);
  const s = service();
  const listed = await s.list(archiveFile(zipFile));
  assert.equal(
    listed.entries.map((e) => [e.name, e.encrypted]),
    [
      ['open.txt', false],
      ['secret.txt', true],
    ],
  );
  await rejects(
    s.openEntry(archiveFile(zipFile), 'secret.txt'),
    (e: any) => e.status === 409 && e.code === 'ARCHIVE_ENCRYPTED',
  );
  assert.is((await readAll((await s.openEntry(archiveFile(zipFile), 'open.txt')).stream)).toString(), 'open');
  const out = fresh('enc');
  await rejects(s.extract(archiveFile(zipFile), [], { path: out }), (e: any) => e.status === 409);
  assert.equal(tree(out), {});
  const seven = path.join(dir, 'enc.7z');
  run(sevenZipTool(), ['a', '-bd', '-bso0', '-ppw', seven, 'secret.txt'], src);
  assert.equal(
    (await s.list(archiveFile(seven))).entries.map((e) => e.encrypted),
    [true],
  );
  await rejects(s.openEntry(archiveFile(seven), 'secret.txt'), (e: any) => e.status === 409);
  const hidden = path.join(dir, 'hidden.7z');
  run(sevenZipTool(), ['a', '-bd', '-bso0', '-ppw', '-mhe=on', hidden, 'secret.txt'], src);
  await rejects(s.list(archiveFile(hidden)), (e: any) => e.status === 409 && e.code === 'ARCHIVE_ENCRYPTED');
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
test.run();
