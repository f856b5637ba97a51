// A whole tar.gz is extracted in one gunzip pass, judged before a byte is written by what its
// trailer states (the tar's length: an upper bound of its files), and listed first only where
// that bound is refused or passed — the refusals still come before anything lands, by the
// files' exact sizes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AppError } from '../../src/core/errors.ts';
import { plainTarget, type ExtractTarget } from '../../src/archives/target.ts';
import { archiveFile, collect, rejects, run, service, tmp, tree } from '../support/archives.ts';

const dir = tmp('targz');
const fresh = (tag: string) => fs.mkdtempSync(path.join(dir, `${tag}-`));

/** Bytes this process has read through read(2) and friends (Linux). */
const rchar = () => Number(/rchar: (\d+)/.exec(fs.readFileSync('/proc/self/io', 'utf8'))![1]);

/** A target that counts what it creates: a refusal before bytes land creates nothing. */
function counting(over: Partial<ExtractTarget> = {}): { target: ExtractTarget; created: () => number } {
  let made = 0;
  const target: ExtractTarget = {
    ...plainTarget,
    ...over,
    async createFileExclusive(d, name) {
      made++;
      return plainTarget.createFileExclusive(d, name);
    },
    async mkdirExclusive(d, name) {
      made++;
      return plainTarget.mkdirExclusive(d, name);
    },
  };
  return { target, created: () => made };
}

// The world's names; two small letters (the tar's headers and 10 KiB blocking are most of it)
// and a photo-like file of random bytes (a gzip of it is about as large as the tar).
const LETTERS: Record<string, string> = {
  'Briefe & Karten/Brief #1 (Oma).txt': 'Liebe Grüße aus Zürich 🚋\n',
  'Briefe & Karten/Crème brûlée + 100% “Rezept”.txt': 'Zucker, Sahne, Eier.\n',
};
const src = fresh('src');
for (const [name, text] of Object.entries(LETTERS)) {
  fs.mkdirSync(path.join(src, path.dirname(name)), { recursive: true });
  fs.writeFileSync(path.join(src, name), text);
}
const PHOTO = 'Urlaub 2025/Strand am Meer.jpg';
fs.mkdirSync(path.join(src, 'Urlaub 2025'));
const photo = crypto.randomBytes(8 * 1024 * 1024);
fs.writeFileSync(path.join(src, PHOTO), photo);
const letters = path.join(dir, 'Briefe & Karten (Oma).tar.gz');
run('tar', ['czf', letters, '-C', src, 'Briefe & Karten']);
const letterBytes = Object.values(LETTERS).reduce((n, t) => n + Buffer.byteLength(t), 0);
const everything = path.join(dir, 'Alles 2025 #1.tar.gz');
run('tar', ['czf', everything, '-C', src, '.']);

test('a fresh service reads a tar.gz once to extract it (no listing pass first)', async () => {
  const out = fresh('once');
  const before = rchar();
  const { events, emit } = collect();
  await service().extract(archiveFile(everything), [], { path: out }, emit);
  const read = rchar() - before;
  const size = fs.statSync(everything).size;
  // Twice the archive when it was listed first, then extracted.
  assert.ok(read < 1.5 * size, `read ${read} bytes of an archive of ${size}`);
  assert.ok(fs.readFileSync(path.join(out, PHOTO)).equals(photo));
  for (const [name, text] of Object.entries(LETTERS)) assert.is(fs.readFileSync(path.join(out, name), 'utf8'), text);
  assert.equal(
    events.map((e) => e.type).filter((t, i, a) => t !== a[i - 1]),
    ['start', 'progress', 'done'],
  );
});

test('refused before anything is created, by the files exact sizes: no space, a quota, the size limit, the ratio', async () => {
  const tarLength = zlib.gunzipSync(fs.readFileSync(letters)).length;
  assert.ok(tarLength > 10 * letterBytes, 'the tar is mostly headers and padding');
  const cases: [string, Parameters<typeof service>[0], ((bytes: number) => void) | undefined, (e: any) => boolean][] = [
    ['no space', {}, undefined, (e) => e.status === 507 && e.code === 'NO_SPACE'],
    [
      'quota',
      {},
      (bytes) => {
        throw new AppError('QUOTA_EXCEEDED', `needs ${bytes}`);
      },
      (e) => e.code === 'QUOTA_EXCEEDED' && e.message === `needs ${letterBytes}`,
    ],
    [
      'limit',
      { extractLimits: { maxTotalBytes: letterBytes - 1, maxRatio: 1000, ratioFloor: 1 << 30 } },
      undefined,
      (e) => e.status === 422 && e.message.includes(`would write ${letterBytes} bytes`),
    ],
    [
      'ratio',
      { extractLimits: { maxTotalBytes: 1 << 30, maxRatio: 0.01, ratioFloor: 1 } },
      undefined,
      (e) => e.status === 422 && e.message.includes(`(${letterBytes} bytes from`),
    ],
  ];
  for (const [what, options, reserve, check] of cases) {
    const { target, created } = counting(what === 'no space' ? { freeSpace: async () => letterBytes - 1 } : {});
    const out = fresh('refused');
    const { events, emit } = collect();
    await rejects(
      service({ ...options, target }).extract(
        archiveFile(letters),
        [],
        { path: out },
        emit,
        undefined,
        undefined,
        reserve,
      ),
      check,
      what,
    );
    assert.is(created(), 0, `${what}: nothing created`);
    assert.equal(tree(out), {}, what);
    assert.equal(
      events.map((e) => e.type),
      ['error'],
      what,
    );
  }
});

test('a bound refused where the files fit (a small disk, a quota with just their room): listed, extracted, the quota taken once', async () => {
  const { target } = counting({ freeSpace: async () => letterBytes });
  const out = fresh('fits');
  const taken: number[] = [];
  const { events, emit } = collect();
  await service({ target }).extract(archiveFile(letters), [], { path: out }, emit, undefined, undefined, (bytes) => {
    if (bytes > letterBytes) throw new AppError('QUOTA_EXCEEDED');
    taken.push(bytes);
  });
  assert.equal(taken, [letterBytes]);
  // tree() reads bytes as latin1.
  const latin1 = Object.fromEntries(Object.entries(LETTERS).map(([n, t]) => [n, Buffer.from(t).toString('latin1')]));
  assert.equal(tree(out), { 'Briefe & Karten/': '', ...latin1 });
  assert.is(events.filter((e) => e.type === 'start').length, 1);
});

test('a tar.gz of two gzip members (its trailer counts the last one only): past the bound it is removed, listed and extracted whole', async () => {
  const twoMembers = path.join(dir, 'Zwei Teile; 50% + 50%.tar.gz');
  // Text first, so the members compress well and the trailer's count looks plausible.
  const text = Buffer.from('Zeile eines Protokolls, mit Wörtern und Zahlen 12345\n'.repeat(200_000));
  const tsrc = fresh('two-src');
  fs.writeFileSync(path.join(tsrc, 'Protokoll “Montag”.log'), text);
  fs.writeFileSync(path.join(tsrc, 'Protokoll Dienstag.log'), text);
  const plainTar = path.join(dir, 'two.tar');
  run('tar', ['cf', plainTar, '-C', tsrc, '.']);
  const raw = fs.readFileSync(plainTar);
  const cut = Math.floor(raw.length * 0.75);
  fs.writeFileSync(twoMembers, Buffer.concat([zlib.gzipSync(raw.subarray(0, cut)), zlib.gzipSync(raw.subarray(cut))]));
  const { target, created } = counting();
  const out = fresh('two');
  const taken: number[] = [];
  const { events, emit } = collect();
  const result = await service({ target }).extract(
    archiveFile(twoMembers),
    [],
    { path: out },
    emit,
    undefined,
    undefined,
    (bytes) => taken.push(bytes),
  );
  assert.is(result.bytes, 2 * text.length);
  assert.ok(created() > 2, 'the first run created files before it passed its bound');
  assert.is(
    taken.reduce((a, b) => a + b, 0),
    2 * text.length,
    'the quota is held once: the bound, then only what is past it',
  );
  assert.equal(Object.keys(tree(out)).sort(), ['Protokoll Dienstag.log', 'Protokoll “Montag”.log']);
  assert.ok(fs.readFileSync(path.join(out, 'Protokoll “Montag”.log')).equals(text));
  assert.equal(
    fs.readdirSync(out).filter((n) => n.startsWith('.')),
    [],
    'no temporary left',
  );
  assert.is(events.filter((e) => e.type === 'start').length, 1);
});

test('more entries than ARCHIVE_MAX_ENTRIES found while extracting in one pass: 413, nothing left', async () => {
  const many = fresh('many-src');
  for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(many, `Notiz #${i} & mehr.txt`), `${i}`);
  const tgz = path.join(dir, 'Viele Notizen.tar.gz');
  run('tar', ['czf', tgz, '-C', many, '.']);
  const out = fresh('many');
  await rejects(
    service({ maxEntries: 20 }).extract(archiveFile(tgz), [], { path: out }),
    (e: any) => e.status === 413 && e.code === 'ARCHIVE_TOO_MANY_ENTRIES',
  );
  assert.equal(tree(out), {});
});

test.run();
