// Confinement at use: a folder of the volume and a symlink to a folder outside it are swapped
// (renameat2 RENAME_EXCHANGE) in a tight loop while every route that reads or writes files is
// called on paths through that folder. Whatever a request resolved, the descriptor it uses
// must be inside the volume: no byte of the outside folder may reach an answer or the volume,
// and nothing outside may be created or changed. Runs through HTTP and the file system only.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

const SECONDS = 4;
const MARKER = `OUTSIDE-${randomBytes(8).toString('hex')}`;
/** The outside folder's times: a WebDAV property carrying this date came from outside. */
const OUTSIDE_TIME = new Date('2001-09-09T01:46:40Z');
const OUTSIDE_DATES = [OUTSIDE_TIME.toUTCString(), OUTSIDE_TIME.toISOString().replace(/\.\d{3}Z$/, 'Z')];

// The swap loop: renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) through libc, an even
// number of times (so the real folder ends where it started). Arguments, never a shell string.
const SWAPPER = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a, b, secs = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2]), float(sys.argv[3])
def swap():
    if libc.renameat2(-100, a, -100, b, 2) != 0:
        sys.exit('renameat2: ' + os.strerror(ctypes.get_errno()))
end = time.time() + secs
n = 0
while time.time() < end:
    swap(); swap(); n += 2
print(n)
`;

function swapLoop(a: string, b: string, seconds: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', SWAPPER, a, b, String(seconds)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Number(out.trim())) : reject(new Error(`swap loop failed: ${err}`)),
    );
  });
}

/** Every entry under `dir` (links not followed): kind, size and a hash of file contents. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const name of fs.readdirSync(path.join(dir, rel))) {
      const r = rel ? `${rel}/${name}` : name;
      const st = fs.lstatSync(path.join(dir, r));
      if (st.isDirectory()) {
        out.set(r, 'dir');
        walk(r);
      } else if (st.isFile())
        out.set(
          r,
          `file ${st.size} ${createHash('sha1')
            .update(fs.readFileSync(path.join(dir, r)))
            .digest('hex')} ${st.mtimeMs}`,
        );
      else out.set(r, st.isSymbolicLink() ? `link ${fs.readlinkSync(path.join(dir, r))}` : 'other');
    }
  };
  walk('');
  return out;
}

/** Files under `dir` (links not followed) whose bytes hold the outside marker. */
function filesWithMarker(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && fs.readFileSync(p).includes(MARKER)) found.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return found;
}

let s: TestServer;
let c: Client;

test.before(async () => {
  s = await startServer({ env: { AUTH_MODE: 'disabled' } });
  c = new Client(s.url);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('a folder swapped with a symlink to outside while files are read and written: nothing read from or written outside', async () => {
  const volume = path.join(s.dirs.volumes, 'Files');
  const outside = path.join(s.dirs.root, 'outside');
  // Same names outside and inside: a request that follows the swapped link finds them.
  const fill = (dir: string, text: string) => {
    fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
    for (const name of ['doc.txt', 'edit.txt', 'pic.txt', 'sub/deep.txt'])
      fs.writeFileSync(path.join(dir, name), `${text} ${name}\n`);
  };
  fill(outside, MARKER);
  fill(path.join(volume, 'race'), 'INSIDE');
  // Only outside: a name, and times no inside entry has (a listing or a stat that followed the
  // swapped link would show them).
  fs.writeFileSync(path.join(outside, `${MARKER} only outside.txt`), 'x');
  for (const name of ['', 'doc.txt', 'sub', `${MARKER} only outside.txt`])
    fs.utimesSync(path.join(outside, name), OUTSIDE_TIME, OUTSIDE_TIME);
  fs.symlinkSync(outside, path.join(volume, 'link'));
  fs.mkdirSync(path.join(volume, 'copies'));
  fs.mkdirSync(path.join(volume, 'pool'));
  const before = snapshot(outside);

  const stats: Record<string, { requests: number; ok: number; leaked: number; statuses: Record<number, number> }> = {};
  let running = true;
  let seq = 0;
  const finals: Record<string, number> = {};
  async function worker(kind: string, once: () => Promise<{ status: number; body?: Buffer | string }>) {
    const st = (stats[kind] = { requests: 0, ok: 0, leaked: 0, statuses: {} as Record<number, number> });
    for (let last = false; !last;) {
      // One more call once the swapping stopped (the folder is back in place): the route works.
      last = !running;
      // A dropped connection or an answer that never finishes counts as status 0.
      const r = await once().catch(() => ({ status: 0, body: undefined }));
      st.requests++;
      st.statuses[r.status] = (st.statuses[r.status] ?? 0) + 1;
      if (r.status < 300) st.ok++;
      if (r.body !== undefined && leaks(Buffer.from(r.body as any))) st.leaked++;
      if (last) finals[kind] = r.status;
    }
  }
  const leaks = (body: Buffer) => body.includes(MARKER) || OUTSIDE_DATES.some((d) => body.includes(d));
  // PROPFIND as a WebDAV client sends it (allprop: names, sizes, dates). Depth infinity is
  // refused (propfind-finite-depth) whatever the folder is at the moment.
  const propfind = async (target: string, depth: string) => {
    const res = await fetch(`${s.url}/dav/Files/${target}`, {
      signal: AbortSignal.timeout(15_000),
      method: 'PROPFIND',
      headers: { depth },
    });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  };
  const bytes = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(s.url + url, {
      signal: AbortSignal.timeout(15_000),
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  };
  const workers = [
    worker('download', () => bytes('GET', '/api/download/Files/race/doc.txt')),
    worker('zip', () => bytes('GET', '/api/download/Files/race')),
    worker('zip selection', () => bytes('POST', '/api/download', { paths: ['Files/race/doc.txt', 'Files/race/sub'] })),
    worker('raw', () => bytes('GET', '/api/raw?path=Files/race/doc.txt')),
    worker('preview', () => bytes('GET', '/api/preview?path=Files/race/doc.txt')),
    worker('editor read', () => bytes('GET', '/api/editor?path=Files/race/edit.txt')),
    worker('editor save', async () => {
      const r = await c.put('/api/editor', { path: 'Files/race/edit.txt', content: `INSIDE edit ${seq++}\n` });
      return { status: r.status };
    }),
    worker('create file', async () => ({
      status: (await c.post('/api/files/file', { path: 'Files/race', name: 'new.txt', content: 'INSIDE new' })).status,
    })),
    worker('create folder', async () => ({
      status: (await c.post('/api/files/folder', { path: 'Files/race/sub', name: 'newdir' })).status,
    })),
    worker('copy out of', async () => ({
      status: (
        await c.post('/api/files/copy', {
          items: [
            { path: 'Files/race', name: 'sub' },
            { path: 'Files/race', name: 'pic.txt' },
          ],
          destination: 'Files/copies',
        })
      ).status,
    })),
    worker('copy into', async () => ({
      status: (await c.post('/api/files/copy', { items: [{ path: 'Files', name: 'pool' }], destination: 'Files/race' }))
        .status,
    })),
    worker('move into', async () => {
      const name = `m${seq++}.txt`;
      fs.writeFileSync(path.join(volume, 'pool', name), 'INSIDE move');
      return {
        status: (await c.post('/api/files/move', { items: [{ path: 'Files/pool', name }], destination: 'Files/race' }))
          .status,
      };
    }),
    worker('PROPFIND folder, Depth 0', () => propfind('race/', '0')),
    worker('PROPFIND folder, Depth 1', () => propfind('race/', '1')),
    worker('PROPFIND sub-folder, Depth 1', () => propfind('race/sub/', '1')),
    worker('PROPFIND file, Depth 0', () => propfind('race/doc.txt', '0')),
    worker('PROPFIND folder, Depth infinity', () => propfind('race/', 'infinity')),
    worker('WebDAV GET of the folder', () => bytes('GET', '/dav/Files/race/')),
    worker('PROPPATCH of Windows times', async () => {
      // What Windows sends after writing a file: the time goes to the file itself.
      const res = await fetch(`${s.url}/dav/Files/race/doc.txt`, {
        signal: AbortSignal.timeout(15_000),
        method: 'PROPPATCH',
        headers: { 'content-type': 'application/xml' },
        body:
          '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:schemas-microsoft-com:"><D:set><D:prop>' +
          `<Z:Win32LastModifiedTime>${new Date(Date.UTC(2020, 0, 1, 0, 0, seq++ % 60)).toUTCString()}</Z:Win32LastModifiedTime>` +
          '</D:prop></D:set></D:propertyupdate>',
      });
      return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
    }),
    worker('upload', async () => {
      const fd = new FormData();
      fd.append('uploadTo', 'Files/race');
      fd.append('relativePath', 'up/u.txt');
      fd.append('filedata', new Blob(['INSIDE upload']), 'u.txt');
      return { status: (await c.post('/api/upload', fd)).status };
    }),
  ];
  const swaps = await swapLoop(path.join(volume, 'race'), path.join(volume, 'link'), SECONDS);
  running = false;
  await Promise.all(workers);

  const after = snapshot(outside);
  const changedOutside = [...new Set([...before.keys(), ...after.keys()])].filter(
    (k) => before.get(k) !== after.get(k),
  );
  const pulledIn = filesWithMarker(volume);
  const leaked = Object.values(stats).reduce((n, st) => n + st.leaked, 0);
  console.log(
    `  swaps: ${swaps}; per route (requests/ok/leaked):`,
    Object.entries(stats)
      .map(([k, v]) => `${k} ${v.requests}/${v.ok}/${v.leaked}`)
      .join(', '),
  );
  console.log(
    `  outside entries created or changed: ${changedOutside.length}; volume files holding outside bytes: ${pulledIn.length}`,
  );
  assert.ok(swaps > 100, 'the swap loop ran');
  assert.is(leaked, 0, 'answers carrying outside bytes');
  assert.equal(changedOutside, [], 'entries created or changed outside the volume');
  assert.equal(pulledIn, [], 'outside content copied into the volume');
  for (const [kind, st] of Object.entries(stats)) {
    if (kind.endsWith('Depth infinity'))
      assert.equal(st.statuses, { 403: st.requests }, `${kind}: always refused, never a listing`);
    else assert.ok(finals[kind]! < 300, `${kind}: works once the folder stays in place (${finals[kind]})`);
    assert.not.ok(
      st.statuses[500] || st.statuses[0],
      `${kind}: no 500 answers, no broken answers (${JSON.stringify(st.statuses)})`,
    );
  }
  assert.is((await c.get('/api/browse/Files')).status, 200, 'the server is still up');
});

test.run();
