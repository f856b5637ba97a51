// WebDAV (issue 18) with real clients: the litmus compliance suites and rclone, plus Burrow's
// own rules over the protocol — scopes and access rules, hostile paths, nothing lost on a PUT
// over a file or a DELETE. Until /dav/ is mounted in the app it runs against handleDav on a
// plain node:http server built from the real files pieces (test/support/dav.ts).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startDavServer, type DavTestServer } from '../support/dav.ts';

let s: DavTestServer;
const PASSWORD = 'alice-password-1';
const vol = (...p: string[]) => path.join(s.volumes, 'Files', ...p);
const auth = (user = 'alice', password = PASSWORD) => ({ authorization: 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64') });

function dav(method: string, p: string, opts: { headers?: Record<string, string>; body?: string; user?: string; password?: string } = {}) {
  return fetch(s.url + p, { method, headers: { ...auth(opts.user, opts.password), ...opts.headers }, body: opts.body });
}

/** A request with the path sent byte for byte (fetch would normalise dot segments first). */
function raw(method: string, p: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(s.url + '/', { method, path: p, headers: { ...auth(), ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end();
  });
}

function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out }));
  });
}

test.before(async () => {
  s = await startDavServer(['Files', 'Other']);
  s.accounts.set('reader', { password: 'reader-password-1', caller: { userId: 'u-reader', username: 'reader', roles: ['user'], isAdmin: false, via: 'token', tokenScope: 'read' } });
});
test.after(async () => {
  await s.close();
});

for (const suite of ['basic', 'copymove', 'props', 'locks', 'http']) {
  test(`litmus ${suite} passes`, async () => {
    fs.mkdirSync(vol('litmus-' + suite), { recursive: true });
    const r = await run('litmus', [`${s.url}/dav/Files/litmus-${suite}/`, 'alice', PASSWORD], { TESTS: suite, HOME: s.root });
    const summary = /summary for `\w+': of (\d+) tests run: (\d+) passed, (\d+) failed/.exec(r.out);
    assert.ok(summary, `litmus printed no summary:\n${r.out.slice(-2000)}`);
    assert.is(summary![3], '0', `litmus ${suite} failures:\n${r.out.split('\n').filter((l) => /FAIL|WARNING/.test(l)).join('\n')}`);
    assert.not.match(r.out, /WARNING/);
    assert.is(r.code, 0);
  });
}

test('rclone copies a tree up and down; rclone check finds them identical', async () => {
  const up = path.join(s.root, 'up');
  fs.mkdirSync(path.join(up, 'sub', 'deep'), { recursive: true });
  for (let i = 1; i <= 40; i++) fs.writeFileSync(path.join(up, `f${i}.bin`), Buffer.alloc(i * 1013, i));
  fs.writeFileSync(path.join(up, 'sub', 'é ü #%.txt'), 'ünï\n');
  fs.writeFileSync(path.join(up, 'sub', 'deep', 'x.txt'), 'deep\n');
  const obscured = (await run('rclone', ['obscure', PASSWORD])).out.trim();
  const env = { RCLONE_CONFIG_B_TYPE: 'webdav', RCLONE_CONFIG_B_URL: `${s.url}/dav/`, RCLONE_CONFIG_B_VENDOR: 'other', RCLONE_CONFIG_B_USER: 'alice', RCLONE_CONFIG_B_PASS: obscured, RCLONE_CONFIG: path.join(s.root, 'rclone.conf'), HOME: s.root };
  assert.is((await run('rclone', ['copy', up, 'B:Files/tree'], env)).code, 0);
  const check = await run('rclone', ['check', up, 'B:Files/tree'], env);
  assert.is(check.code, 0, check.out);
  assert.match(check.out, /0 differences found/);
  const down = path.join(s.root, 'down');
  assert.is((await run('rclone', ['copy', 'B:Files/tree', down], env)).code, 0);
  assert.is((await run('diff', ['-r', up, down])).code, 0, 'the tree came back identical');
  // A changed file sent again replaces the content and keeps the old one as a version.
  fs.appendFileSync(path.join(up, 'f1.bin'), 'more');
  assert.is((await run('rclone', ['copy', up, 'B:Files/tree'], env)).code, 0);
  assert.is((await run('rclone', ['check', up, 'B:Files/tree'], env)).code, 0);
  const kept = s.db.all<{ size: number }>("SELECT size FROM file_versions WHERE relative = 'tree/f1.bin'");
  assert.equal(kept.map((v) => v.size), [1013]);
});

test('a PUT over an existing file leaves the replaced content as a version; DELETE goes to the trash', async () => {
  assert.is((await dav('PUT', '/dav/Files/v.txt', { body: 'one' })).status, 201);
  assert.is((await dav('PUT', '/dav/Files/v.txt', { body: 'two' })).status, 204);
  assert.is(fs.readFileSync(vol('v.txt'), 'utf8'), 'two');
  const [v] = s.db.all<{ stored_path: string }>("SELECT stored_path FROM file_versions WHERE relative = 'v.txt'");
  assert.is(fs.readFileSync(v!.stored_path, 'utf8'), 'one');
  assert.is((await dav('DELETE', '/dav/Files/v.txt')).status, 204);
  assert.not.ok(fs.existsSync(vol('v.txt')));
  const [t] = s.db.all<{ stored_path: string; name: string }>("SELECT stored_path, name FROM trash_items WHERE original_relative = 'v.txt'");
  assert.is(fs.readFileSync(t!.stored_path, 'utf8'), 'two');
});

test('COPY/MOVE with Overwrite: T sends the replaced item to the trash; F answers 412', async () => {
  fs.writeFileSync(vol('a.txt'), 'A');
  fs.writeFileSync(vol('b.txt'), 'B');
  const dest = { Destination: `${s.url}/dav/Files/b.txt` };
  assert.is((await dav('MOVE', '/dav/Files/a.txt', { headers: { ...dest, Overwrite: 'F' } })).status, 412);
  assert.is((await dav('MOVE', '/dav/Files/a.txt', { headers: dest })).status, 204);
  assert.is(fs.readFileSync(vol('b.txt'), 'utf8'), 'A');
  const trashed = s.db.all<{ stored_path: string }>("SELECT stored_path FROM trash_items WHERE original_relative = 'b.txt'");
  assert.is(fs.readFileSync(trashed.at(-1)!.stored_path, 'utf8'), 'B');
});

test('a read-only caller (read token) cannot write', async () => {
  fs.writeFileSync(vol('r.txt'), 'R');
  const as = { user: 'reader', password: 'reader-password-1' };
  assert.is((await dav('GET', '/dav/Files/r.txt', as)).status, 200);
  assert.is((await dav('PROPFIND', '/dav/Files/', { ...as, headers: { Depth: '1' } })).status, 207);
  assert.is((await dav('PUT', '/dav/Files/r.txt', { ...as, body: 'x' })).status, 403);
  assert.is((await dav('PUT', '/dav/Files/new.txt', { ...as, body: 'x' })).status, 403);
  assert.is((await dav('DELETE', '/dav/Files/r.txt', as)).status, 403);
  assert.is((await dav('MKCOL', '/dav/Files/d', as)).status, 403);
  assert.is((await dav('MOVE', '/dav/Files/r.txt', { ...as, headers: { Destination: `${s.url}/dav/Files/r2.txt` } })).status, 403);
  assert.is((await dav('LOCK', '/dav/Files/r.txt', { ...as, body: '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>' })).status, 403);
  assert.is(fs.readFileSync(vol('r.txt'), 'utf8'), 'R');
  assert.not.ok(fs.existsSync(vol('new.txt')));
});

test('an access-rule read-only folder refuses PUT, DELETE and MOVE', async () => {
  fs.mkdirSync(vol('ro'));
  fs.writeFileSync(vol('ro', 'k.txt'), 'K');
  s.rules.push({ id: 'r1', path: 'Files/ro', recursive: true, permissions: 'ro' });
  try {
    assert.is((await dav('PUT', '/dav/Files/ro/k.txt', { body: 'x' })).status, 403);
    assert.is((await dav('PUT', '/dav/Files/ro/n.txt', { body: 'x' })).status, 403);
    assert.is((await dav('DELETE', '/dav/Files/ro/k.txt')).status, 403);
    assert.is((await dav('MOVE', '/dav/Files/ro/k.txt', { headers: { Destination: `${s.url}/dav/Files/k.txt` } })).status, 403);
    assert.is((await dav('COPY', '/dav/Files/r.txt', { headers: { Destination: `${s.url}/dav/Files/ro/r.txt` } })).status, 403);
    assert.is(fs.readFileSync(vol('ro', 'k.txt'), 'utf8'), 'K');
    assert.equal(fs.readdirSync(vol('ro')), ['k.txt']);
  } finally {
    s.rules.length = 0;
  }
});

test('hostile paths: encoded dot-dot, Destination elsewhere or on another host, links out', async () => {
  fs.writeFileSync(path.join(s.root, 'secret.txt'), 'S');
  fs.writeFileSync(vol('h.txt'), 'H');
  for (const p of ['/dav/Files/%2e%2e/%2e%2e/secret.txt', '/dav/Files/../../secret.txt', '/dav/../secret.txt', '/dav/Files/..%2f..%2fsecret.txt', '/dav/Files/%2E%2E%5C%2E%2E%5Csecret.txt', '/dav/Files/a%00b']) {
    const status = await raw('GET', p);
    assert.ok(status === 400 || status === 404, `${p} answered ${status}`);
  }
  assert.is((await dav('MOVE', '/dav/Files/h.txt', { headers: { Destination: 'http://evil.example/dav/Files/x.txt' } })).status, 502);
  assert.is((await dav('COPY', '/dav/Files/h.txt', { headers: { Destination: `${s.url}/api/files/x.txt` } })).status, 502);
  assert.is((await dav('COPY', '/dav/Files/h.txt', { headers: { Destination: `${s.url}/dav/Files/%2e%2e/x.txt` } })).status, 400);
  assert.is(await raw('COPY', '/dav/Files/h.txt', { Destination: `${s.url}/dav/Files/../../x.txt` }), 400);
  assert.is(await raw('MOVE', '/dav/Files/h.txt', { Destination: `${s.url}/dav/../x.txt` }), 400);
  assert.ok(fs.existsSync(vol('h.txt')));
  fs.symlinkSync(s.root, vol('out'));
  fs.symlinkSync(path.join(s.root, 'secret.txt'), vol('out.txt'));
  assert.is((await dav('GET', '/dav/Files/out.txt')).status, 403);
  assert.is((await dav('GET', '/dav/Files/out/secret.txt')).status, 403);
  assert.is((await dav('PUT', '/dav/Files/out/new.txt', { body: 'x' })).status, 403);
  assert.not.ok(fs.existsSync(path.join(s.root, 'new.txt')));
  const listing = await (await dav('PROPFIND', '/dav/Files/', { headers: { Depth: '1' } })).text();
  assert.not.match(listing, /out\.txt|\/out\//);
  assert.not.match(listing, /\.burrow/);
});

test('PROPFIND Depth: infinity is refused with propfind-finite-depth', async () => {
  const r = await dav('PROPFIND', '/dav/Files/', { headers: { Depth: 'infinity' } });
  assert.is(r.status, 403);
  assert.match(await r.text(), /propfind-finite-depth/);
  const q = await dav('PROPFIND', '/dav/Files/', { headers: { Depth: '0' }, body: '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:quota-available-bytes/><D:quota-used-bytes/></D:prop></D:propfind>' });
  assert.match(await q.text(), /<D:quota-available-bytes>\d+<\/D:quota-available-bytes>/);
});

test('every write is announced on the changes sink', () => {
  const types = new Set(s.changes.map((c) => c.type));
  for (const t of ['created', 'modified', 'deleted', 'moved']) assert.ok(types.has(t as never), `no ${t} change`);
});

test.run();
