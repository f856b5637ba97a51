// Limits and the cache: a 100,000-entry zip listed once and paged from memory, the entry cap,
// and the browse size limit that applies to compound archives only.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { archiveFile, manyEntryZip, rejects, run, service, tmp, yazlZip } from '../support/archives.ts';

const dir = tmp('large');

test('a 100,000-entry zip lists, and paging through it answers from the cache', async () => {
  const file = path.join(dir, 'many.zip');
  // Debian's zip: yazl takes minutes over 100,000 entries (it rescans its queue per entry).
  manyEntryZip(file, 100_000);
  const s = service();
  const top = await s.list(archiveFile(file));
  assert.is(top.total, 100_000);
  assert.is(top.entries.length, 100);
  assert.is(top.entries[0]!.name, 'd0');
  assert.is(top.entries[2]!.name, 'd2'); // numeric order: d2 before d10
  // Same identity (path, inode, size, mtime), different bytes: only a cached listing can answer.
  const st = fs.statSync(file);
  const ref = path.join(dir, 'mtime-ref');
  fs.writeFileSync(ref, '');
  run('touch', ['-r', file, ref]);
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, Buffer.alloc(st.size, 0), 0, st.size, 0);
  fs.closeSync(fd);
  run('touch', ['-r', ref, file]);
  assert.is(fs.statSync(file).mtimeMs, st.mtimeMs);
  const page = await s.list(archiveFile(file), 'd7', { offset: 10, limit: 5 });
  assert.equal(
    page.entries.map((e) => e.name),
    ['f1007.txt', 'f1107.txt', 'f1207.txt', 'f1307.txt', 'f1407.txt'],
  );
  // A changed archive is a new key: the garbage is now read, and refused.
  fs.utimesSync(file, st.atime, new Date(st.mtimeMs + 5000));
  await rejects(s.list(archiveFile(file)), (e) => e.status === 422);
});

test('more entries than ARCHIVE_MAX_ENTRIES: 413 ARCHIVE_TOO_MANY_ENTRIES, for zip and tar', async () => {
  const zip = path.join(dir, 'cap.zip');
  await yazlZip(
    zip,
    Array.from({ length: 50 }, (_, i) => ({ name: `f${i}`, data: 'x' })),
  );
  const s = service({ maxEntries: 20 });
  await rejects(s.list(archiveFile(zip)), (e) => e.status === 413 && e.code === 'ARCHIVE_TOO_MANY_ENTRIES');
  const src = fs.mkdtempSync(path.join(dir, 'cap-'));
  for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(src, `f${i}`), 'x');
  const tgz = path.join(dir, 'cap.tar.gz');
  run('tar', ['czf', tgz, '-C', src, '.']);
  await rejects(s.list(archiveFile(tgz)), (e) => e.status === 413 && e.code === 'ARCHIVE_TOO_MANY_ENTRIES');
});

test('a compound archive over MAX_BROWSABLE_ARCHIVE_SIZE is refused before decompressing; a zip of that size lists', async () => {
  const src = fs.mkdtempSync(path.join(dir, 'big-'));
  fs.writeFileSync(
    path.join(src, 'noise.bin'),
    Buffer.from(Array.from({ length: 200_000 }, () => Math.floor(Math.random() * 256))),
  );
  const tgz = path.join(dir, 'big.tar.gz');
  run('tar', ['czf', tgz, '-C', src, '.']);
  const zip = path.join(dir, 'big.zip');
  run('zip', ['-qr', zip, '.'], src);
  const limit = 100_000;
  assert.ok(fs.statSync(tgz).size > limit && fs.statSync(zip).size > limit);
  const s = service({ maxBrowsableSize: limit });
  await rejects(s.list(archiveFile(tgz)), (e) => e.status === 413 && e.code === 'ARCHIVE_TOO_LARGE_TO_BROWSE');
  assert.equal(
    (await s.list(archiveFile(zip))).entries.map((e) => e.name),
    ['noise.bin'],
  );
  // Extracting it whole still works: one pass, no listing.
  const out = fs.mkdtempSync(path.join(dir, 'big-out-'));
  await s.extract(archiveFile(tgz), [], { path: out });
  assert.ok(fs.readFileSync(path.join(out, 'noise.bin')).equals(fs.readFileSync(path.join(src, 'noise.bin'))));
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
test.run();
