// A volume that is full, or would be: every way a file's bytes arrive (WebDAV PUT with and
// without a length, multipart without a length, a new file with content) answers 507 with the
// error envelope, keeps UPLOAD_FREE_SPACE_RESERVE free, never cuts the connection, and leaves
// nothing behind (no file, no hidden temporary, the space given back). The volume is a small
// tmpfs of its own (root, as CI runs); WebDAV is driven by curl, as a script would.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, setupAdmin } from '../support/auth.ts';
import { mountTmpfs, type Mounted } from '../support/mount.ts';
import { makeDirs, removeDirs, startServer, type TestServer } from '../support/server.ts';

const MiB = 1024 * 1024;
const VOLUME = 'Tiny disk';

interface Disk {
  s: TestServer;
  admin: Awaited<ReturnType<typeof setupAdmin>>;
  root: string;
  work: string;
  close(): Promise<void>;
}

/** A server whose volume `Tiny disk` is a fresh tmpfs of `size`. */
async function disk(size: string, reserve: string): Promise<Disk> {
  const dirs = makeDirs();
  let tiny: Mounted | undefined;
  let s: TestServer | undefined;
  try {
    tiny = mountTmpfs(path.join(dirs.volumes, VOLUME), size);
    s = await startServer({ dirs, volumes: ['Files'], env: { UPLOAD_FREE_SPACE_RESERVE: reserve } });
    const admin = await setupAdmin(s);
    const work = path.join(dirs.root, 'work');
    fs.mkdirSync(work);
    const server = s;
    const mounted = tiny;
    return {
      s,
      admin,
      root: tiny.dir,
      work,
      async close() {
        await server.close();
        mounted.unmount();
        removeDirs(dirs);
      },
    };
  } catch (err) {
    await s?.close();
    tiny?.unmount();
    removeDirs(dirs);
    throw err;
  }
}

const free = (dir: string) => {
  const st = fs.statfsSync(dir);
  return st.bavail * st.bsize;
};

/** Everything on the disk but Burrow's own hidden folder (hidden temporaries included). */
const entries = (root: string) =>
  (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((f) => f !== '.burrow' && !f.startsWith('.burrow/'))
    .sort();

/** What the staging folder holds (multipart part files). */
const staged = (root: string) => {
  const dir = path.join(root, '.burrow', 'uploads');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

/** A file of `bytes` (not zeros: nothing may compress it) in the test's own folder. */
function source(d: Disk, name: string, bytes: number): string {
  const file = path.join(d.work, name);
  const block = Buffer.alloc(MiB);
  for (let i = 0; i < block.length; i++) block[i] = (i * 7 + 13) & 0xff;
  const fd = fs.openSync(file, 'w');
  for (let left = bytes; left > 0; left -= MiB) fs.writeSync(fd, block, 0, Math.min(MiB, left));
  fs.closeSync(fd);
  return file;
}

interface CurlAnswer {
  /** curl's exit code: 0 unless the transfer itself failed (a cut connection: 55 or 56). */
  exit: number;
  status: number;
  body: string;
}

/** curl as a script runs it; `-T -` reads stdin and sends it chunked (no Content-Length). */
function curl(args: string[], stdin?: string): Promise<CurlAnswer> {
  return new Promise((resolve, reject) => {
    const child = spawn('curl', ['-sS', '-o', '-', '-w', '\n%{http_code}', ...args], {
      stdio: [stdin ? fs.openSync(stdin, 'r') : 'ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (b) => (out += b));
    child.stderr!.on('data', (b) => (err += b));
    child.on('error', reject);
    child.on('close', (code) => {
      const cut = out.lastIndexOf('\n');
      resolve({ exit: code ?? -1, status: Number(out.slice(cut + 1)), body: out.slice(0, cut) + err });
    });
  });
}

const davUrl = (d: Disk, name: string) => `${d.s.url}/dav/${encodeURIComponent(VOLUME)}/${encodeURIComponent(name)}`;
const basic = ['-u', `${ADMIN.username}:${ADMIN.password}`];

function assertNoSpace(a: CurlAnswer, what: string): void {
  assert.is(a.exit, 0, `${what}: curl got an answer, not a cut connection (${a.body})`);
  assert.is(a.status, 507, `${what}: ${a.body}`);
  const envelope = JSON.parse(a.body);
  assert.is(envelope.error.code, 'NO_SPACE');
  assert.type(envelope.error.requestId, 'string');
}

test('WebDAV PUT whose Content-Length does not fit with the reserve: 507 before a byte is stored, nothing left', async () => {
  const d = await disk('8m', '2M');
  try {
    const before = free(d.root);
    const file = source(d, 'Holiday film (2024) — cut #1.mov', 7 * MiB);
    const a = await curl([...basic, '-T', file, davUrl(d, 'Holiday film (2024) — cut #1.mov')]);
    assertNoSpace(a, 'PUT of 7 MiB into 8 MiB with 2 MiB kept free');
    assert.equal(entries(d.root), []);
    assert.is(free(d.root), before, 'the space is given back');
    // What fits goes in, through the same client.
    const small = source(d, 'notes & plans.txt', 3 * MiB);
    const ok = await curl([...basic, '-T', small, davUrl(d, 'notes & plans.txt')]);
    assert.is(ok.status, 201, ok.body);
    assert.equal(entries(d.root), ['notes & plans.txt']);
  } finally {
    await d.close();
  }
});

test('WebDAV PUT without a Content-Length (chunked): 507 when it reaches the reserve, nothing left', async () => {
  const d = await disk('8m', '2M');
  try {
    const before = free(d.root);
    const file = source(d, 'backup.tar', 7 * MiB);
    const a = await curl([...basic, '-T', '-', davUrl(d, 'backup.tar')], file);
    assertNoSpace(a, 'chunked PUT of 7 MiB into 8 MiB with 2 MiB kept free');
    assert.equal(entries(d.root), []);
    assert.is(free(d.root), before, 'the space is given back');
    const fits = await curl([...basic, '-T', '-', davUrl(d, 'Café ünïcode.bin')], source(d, 'fits', 5 * MiB));
    assert.is(fits.status, 201, fits.body);
    assert.is(fs.statSync(path.join(d.root, 'Café ünïcode.bin')).size, 5 * MiB);
  } finally {
    await d.close();
  }
});

test('WebDAV PUT into a disk that fills mid-body (no reserve, no length): 507, not a cut connection; nothing left', async () => {
  const d = await disk('8m', '0');
  try {
    const before = free(d.root);
    // Larger than what the socket and the server hold at once: the disk fills while it arrives.
    const file = source(d, 'disk image.iso', 40 * MiB);
    const a = await curl([...basic, '-T', '-', davUrl(d, 'disk image.iso')], file);
    assertNoSpace(a, 'chunked PUT of 40 MiB into 8 MiB');
    assert.equal(entries(d.root), []);
    assert.is(free(d.root), before, 'the space is given back');
    // With its length the same PUT is refused before its body is read.
    const sized = await curl([...basic, '-T', file, davUrl(d, 'disk image.iso')]);
    assertNoSpace(sized, 'PUT of 40 MiB with its Content-Length');
    assert.equal(entries(d.root), []);
  } finally {
    await d.close();
  }
});

test('multipart upload without a Content-Length keeps UPLOAD_FREE_SPACE_RESERVE free: 507, nothing staged or placed', async () => {
  const d = await disk('8m', '2M');
  try {
    const before = free(d.root);
    const upload = (name: string, bytes: number) =>
      curl([
        '-b',
        d.admin.cookieHeader,
        '-H',
        'Transfer-Encoding: chunked',
        '-H',
        'Accept: application/json',
        '-F',
        `uploadTo=${VOLUME}`,
        '-F',
        `filedata=@${source(d, name, bytes)}`,
        `${d.s.url}/api/upload`,
      ]);
    const a = await upload('Photos 2024.zip', 7 * MiB);
    assertNoSpace(a, 'chunked multipart of 7 MiB into 8 MiB with 2 MiB kept free');
    assert.equal(entries(d.root), []);
    assert.equal(staged(d.root), []);
    assert.is(free(d.root), before, 'the space is given back');
    const ok = await upload('Rechnung 2024-03 (Kopie).pdf', 5 * MiB);
    assert.is(ok.status, 201, ok.body);
    assert.equal(entries(d.root), ['Rechnung 2024-03 (Kopie).pdf']);
  } finally {
    await d.close();
  }
});

test('a new file with content on a full disk: 507 and no file (not an empty one)', async () => {
  const d = await disk('2m', '0');
  try {
    // Filled from outside Burrow until 64 KiB are left.
    fs.writeFileSync(path.join(d.root, 'filler.bin'), Buffer.alloc(free(d.root) - 64 * 1024, 1));
    const before = free(d.root);
    const answer = await d.admin.post('/api/files/file', {
      path: VOLUME,
      name: 'Brief an Zoë.txt',
      content: 'Liebe Zoë,\n'.repeat(60_000),
    });
    assert.is(answer.status, 507, answer.text);
    assert.is(answer.json.error.code, 'NO_SPACE');
    assert.equal(entries(d.root), ['filler.bin']);
    assert.is(free(d.root), before, 'the space is given back');
    // An empty file still needs no space for content.
    assert.is((await d.admin.post('/api/files/file', { path: VOLUME, name: 'Brief an Zoë.txt' })).status, 201);
  } finally {
    await d.close();
  }
});

test.run();
