// WebDAV (issue 18) on the real server at /dav/, with real clients: the litmus compliance suites
// and rclone, plus Burrow's own rules over the protocol — Basic with a real account's password or
// its API tokens (a read token mounts read-only), lockout, access rules, hostile paths, nothing
// lost on a PUT over a file or a DELETE, every write on the activity log. Runs against the source
// and the built executable (BURROW_TEST_SERVER=executable).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateSync } from 'otplib';
import { createUser, issueToken, setupAdmin } from '../support/auth.ts';
import type { Client } from '../support/client.ts';
import { startServer, removeDirs, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
let admin: Client;
let alice: Client;
let readToken: string;
let writeToken: string;
const PASSWORD = 'alice-password-1';
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const auth = (user = 'alice', password = PASSWORD) => ({
  authorization: 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64'),
});

function dav(
  method: string,
  p: string,
  opts: { headers?: Record<string, string>; body?: string; user?: string; password?: string; noAuth?: boolean } = {},
) {
  return fetch(s.url + p, {
    method,
    headers: { ...(opts.noAuth ? {} : auth(opts.user, opts.password)), ...opts.headers },
    body: opts.body,
  });
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
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out }));
  });
}

async function versionsOf(p: string): Promise<{ id: string; size: number }[]> {
  const a = await alice.get(`/api/versions?path=${encodeURIComponent(p)}`);
  assert.is(a.status, 200, a.text);
  return a.json.items;
}

test.before(async () => {
  s = await startServer({ volumes: ['Files', 'Other'], env: { AUTH_MAX_FAILED: '3', TRUST_PROXY: 'loopback' } });
  admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: PASSWORD });
  readToken = await issueToken(alice, 'read', { password: PASSWORD });
  writeToken = await issueToken(alice, 'write', { password: PASSWORD });
  assert.is((await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 7 } })).status, 200);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('features name the mount; OPTIONS advertises class 1 and 2; no credentials or a session cookie get the Basic challenge', async () => {
  const f = (await (await fetch(`${s.url}/api/features`)).json()) as any;
  assert.equal(f.webdav, { enabled: true, path: '/dav/' });
  const o = await dav('OPTIONS', '/dav/Files/');
  assert.is(o.status, 200);
  assert.is(o.headers.get('dav'), '1, 2');
  assert.match(o.headers.get('allow')!, /PROPFIND/);
  const root = await fetch(`${s.url}/`, { method: 'OPTIONS' });
  assert.is(root.headers.get('dav'), '1, 2');
  const none = await dav('PROPFIND', '/dav/', { noAuth: true, headers: { Depth: '1' } });
  assert.is(none.status, 401);
  assert.match(none.headers.get('www-authenticate')!, /^Basic realm=/);
  // The UI's session cookie is worth nothing here: /dav/ reads only Basic.
  assert.ok(alice.cookieHeader, 'the test client holds a session cookie');
  assert.is(
    (
      await dav('PUT', '/dav/Files/cookie.txt', {
        noAuth: true,
        body: 'x',
        headers: { cookie: alice.cookieHeader, origin: s.url },
      })
    ).status,
    401,
  );
  assert.not.ok(fs.existsSync(vol('cookie.txt')));
  const openapi = (await (await fetch(`${s.url}/api/openapi.json`)).json()) as any;
  assert.is(openapi.info['x-webdav'].path, '/dav/');
  assert.not.ok(Object.keys(openapi.paths).some((p) => p.startsWith('/dav')));
  assert.is((await dav('POST', '/dav/Files/x')).status, 405);
});

for (const suite of ['basic', 'copymove', 'props', 'locks', 'http']) {
  test(`litmus ${suite} passes`, async () => {
    fs.mkdirSync(vol('litmus-' + suite), { recursive: true });
    const r = await run('litmus', [`${s.url}/dav/Files/litmus-${suite}/`, 'alice', PASSWORD], {
      TESTS: suite,
      HOME: s.dirs.root,
    });
    const summary = /summary for `\w+': of (\d+) tests run: (\d+) passed, (\d+) failed/.exec(r.out);
    assert.ok(summary, `litmus printed no summary:\n${r.out.slice(-2000)}`);
    assert.is(
      summary![3],
      '0',
      `litmus ${suite} failures:\n${r.out
        .split('\n')
        .filter((l) => /FAIL|WARNING/.test(l))
        .join('\n')}`,
    );
    assert.not.match(r.out, /WARNING/);
    assert.is(r.code, 0);
  });
}

test('rclone copies a tree up and down; rclone check finds them identical', async () => {
  const up = path.join(s.dirs.root, 'up');
  fs.mkdirSync(path.join(up, 'sub', 'deep'), { recursive: true });
  for (let i = 1; i <= 40; i++) fs.writeFileSync(path.join(up, `f${i}.bin`), Buffer.alloc(i * 1013, i));
  fs.writeFileSync(path.join(up, 'sub', 'é ü #%.txt'), 'ünï\n');
  fs.writeFileSync(path.join(up, 'sub', 'deep', 'x.txt'), 'deep\n');
  const obscured = (await run('rclone', ['obscure', PASSWORD])).out.trim();
  const env = {
    RCLONE_CONFIG_B_TYPE: 'webdav',
    RCLONE_CONFIG_B_URL: `${s.url}/dav/`,
    RCLONE_CONFIG_B_VENDOR: 'other',
    RCLONE_CONFIG_B_USER: 'alice',
    RCLONE_CONFIG_B_PASS: obscured,
    RCLONE_CONFIG: path.join(s.dirs.root, 'rclone.conf'),
    HOME: s.dirs.root,
  };
  assert.is((await run('rclone', ['copy', up, 'B:Files/tree'], env)).code, 0);
  const check = await run('rclone', ['check', up, 'B:Files/tree'], env);
  assert.is(check.code, 0, check.out);
  assert.match(check.out, /0 differences found/);
  const down = path.join(s.dirs.root, 'down');
  assert.is((await run('rclone', ['copy', 'B:Files/tree', down], env)).code, 0);
  assert.is((await run('diff', ['-r', up, down])).code, 0, 'the tree came back identical');
  // A changed file sent again replaces the content and keeps the old one as a version.
  fs.appendFileSync(path.join(up, 'f1.bin'), 'more');
  assert.is((await run('rclone', ['copy', up, 'B:Files/tree'], env)).code, 0);
  assert.is((await run('rclone', ['check', up, 'B:Files/tree'], env)).code, 0);
  assert.equal(
    (await versionsOf('Files/tree/f1.bin')).map((v) => v.size),
    [1013],
  );
});

test('a PUT over an existing file leaves the replaced content as a version; DELETE goes to the trash', async () => {
  assert.is((await dav('PUT', '/dav/Files/v.txt', { body: 'one' })).status, 201);
  assert.is((await dav('PUT', '/dav/Files/v.txt', { body: 'two' })).status, 204);
  assert.is(fs.readFileSync(vol('v.txt'), 'utf8'), 'two');
  const [v] = await versionsOf('Files/v.txt');
  assert.is((await alice.get(`/api/versions/${v!.id}/text`)).json.content, 'one');
  assert.is((await dav('DELETE', '/dav/Files/v.txt')).status, 204);
  assert.not.ok(fs.existsSync(vol('v.txt')));
  const trash = (await alice.get('/api/trash')).json.items as any[];
  const t = trash.find((i) => i.name === 'v.txt');
  assert.ok(t, 'v.txt is in the trash');
  assert.is((await alice.get(`/api/trash/items/${t.id}/text`)).json.content, 'two');
});

test('PUTs sent at once with one If-Match (through a cluster, three on each instance): one lands, the others 412, the replaced content is the version', async () => {
  const name = 'Ünïcode & 100% #puts.txt';
  const href = '/dav/Files/' + encodeURIComponent(name);
  assert.is((await dav('PUT', href, { body: 'the content before' })).status, 201);
  const etag = (await dav('HEAD', href)).headers.get('etag')!;
  assert.ok(etag);
  const answers = await Promise.all(
    Array.from({ length: 9 }, (_, i) => dav('PUT', href, { body: `writer ${i} 🦡`, headers: { 'if-match': etag } })),
  );
  const statuses = answers.map((a) => a.status);
  const won = statuses.filter((st) => st >= 200 && st < 300);
  assert.equal(won, [204], statuses.join(' '));
  assert.equal(
    statuses.filter((st) => st !== 204),
    Array(8).fill(412),
  );
  const winner = statuses.indexOf(204);
  assert.is(fs.readFileSync(vol(name), 'utf8'), `writer ${winner} 🦡`);
  const versions = await versionsOf(`Files/${name}`);
  assert.is(versions.length, 1, 'only the one replaced content is a version');
  assert.is((await alice.get(`/api/versions/${versions[0]!.id}/text`)).json.content, 'the content before');
  // The winner's ETag is the file's: a PUT sent with it lands.
  const next = await dav('PUT', href, {
    body: 'after',
    headers: { 'if-match': answers[winner]!.headers.get('etag')! },
  });
  assert.is(next.status, 204);
  assert.equal(
    fs.readdirSync(vol()).filter((n) => n.startsWith('.burrow-tmp-')),
    [],
    'the refused bodies leave nothing behind',
  );
});

test('If-Match compares strongly and If-None-Match weakly (RFC 9110 §13.1): a weak tag of the file changes nothing', async () => {
  const name = 'Rechnung „März“ & 50% #2.txt';
  const href = '/dav/Files/' + encodeURIComponent(name);
  assert.is((await dav('PUT', href, { body: 'die erste Fassung' })).status, 201);
  const etag = (await dav('HEAD', href)).headers.get('etag')!;
  assert.ok(etag && !etag.startsWith('W/'), etag);
  // A weak tag never matches If-Match; to If-None-Match it is the file's tag.
  const refused: Record<string, string>[] = [
    { 'if-match': `W/${etag}` },
    { 'if-none-match': `W/${etag}` },
    { 'if-none-match': etag },
  ];
  for (const headers of refused) {
    const res = await dav('PUT', href, { body: 'überschrieben', headers });
    assert.is(res.status, 412, JSON.stringify(headers));
    assert.is((await res.json()).error.code, 'DAV_PRECONDITION');
  }
  assert.is(fs.readFileSync(vol(name), 'utf8'), 'die erste Fassung');
  // The file's own tag among others in a list lands, its old content kept as the version.
  assert.is(
    (await dav('PUT', href, { body: 'die zweite', headers: { 'if-match': `"nicht, diese", ${etag}` } })).status,
    204,
  );
  assert.is(fs.readFileSync(vol(name), 'utf8'), 'die zweite');
  const versions = await versionsOf(`Files/${name}`);
  assert.is(versions.length, 1);
  assert.is((await alice.get(`/api/versions/${versions[0]!.id}/text`)).json.content, 'die erste Fassung');
});

test('COPY/MOVE with Overwrite: T sends the replaced item to the trash; F answers 412', async () => {
  fs.writeFileSync(vol('a.txt'), 'A');
  fs.writeFileSync(vol('b.txt'), 'B');
  const dest = { Destination: `${s.url}/dav/Files/b.txt` };
  assert.is((await dav('MOVE', '/dav/Files/a.txt', { headers: { ...dest, Overwrite: 'F' } })).status, 412);
  assert.is((await dav('MOVE', '/dav/Files/a.txt', { headers: dest })).status, 204);
  assert.is(fs.readFileSync(vol('b.txt'), 'utf8'), 'A');
  const t = ((await alice.get('/api/trash')).json.items as any[]).find((i) => i.name === 'b.txt');
  assert.is((await alice.get(`/api/trash/items/${t.id}/text`)).json.content, 'B');
});

test('a read token mounts read-only; a write token writes; a token names its own account only', async () => {
  fs.writeFileSync(vol('r.txt'), 'R');
  const as = { user: 'alice', password: readToken };
  assert.is((await dav('GET', '/dav/Files/r.txt', as)).status, 200);
  assert.is((await dav('PROPFIND', '/dav/Files/', { ...as, headers: { Depth: '1' } })).status, 207);
  assert.is((await dav('PUT', '/dav/Files/r.txt', { ...as, body: 'x' })).status, 403);
  assert.is((await dav('PUT', '/dav/Files/new.txt', { ...as, body: 'x' })).status, 403);
  assert.is((await dav('DELETE', '/dav/Files/r.txt', as)).status, 403);
  assert.is((await dav('MKCOL', '/dav/Files/d', as)).status, 403);
  assert.is(
    (await dav('MOVE', '/dav/Files/r.txt', { ...as, headers: { Destination: `${s.url}/dav/Files/r2.txt` } })).status,
    403,
  );
  assert.is(
    (
      await dav('LOCK', '/dav/Files/r.txt', {
        ...as,
        body: '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>',
      })
    ).status,
    403,
  );
  assert.is(fs.readFileSync(vol('r.txt'), 'utf8'), 'R');
  assert.not.ok(fs.existsSync(vol('new.txt')));
  assert.is(
    (await dav('PUT', '/dav/Files/by-token.txt', { user: 'alice', password: writeToken, body: 't' })).status,
    201,
  );
  assert.is(fs.readFileSync(vol('by-token.txt'), 'utf8'), 't');
  assert.is(
    (await dav('PROPFIND', '/dav/Files/', { user: 'admin', password: writeToken, headers: { Depth: '0' } })).status,
    401,
  );
});

test('an access-rule read-only folder refuses PUT, DELETE and MOVE', async () => {
  fs.mkdirSync(vol('ro'));
  fs.writeFileSync(vol('ro', 'k.txt'), 'K');
  assert.is(
    (
      await admin.patch('/api/settings', {
        access: { rules: [{ id: 'r1', path: 'Files/ro', recursive: true, permissions: 'ro' }] },
      })
    ).status,
    200,
  );
  try {
    assert.is((await dav('PUT', '/dav/Files/ro/k.txt', { body: 'x' })).status, 403);
    assert.is((await dav('PUT', '/dav/Files/ro/n.txt', { body: 'x' })).status, 403);
    assert.is((await dav('DELETE', '/dav/Files/ro/k.txt')).status, 403);
    assert.is(
      (await dav('MOVE', '/dav/Files/ro/k.txt', { headers: { Destination: `${s.url}/dav/Files/k.txt` } })).status,
      403,
    );
    assert.is(
      (await dav('COPY', '/dav/Files/r.txt', { headers: { Destination: `${s.url}/dav/Files/ro/r.txt` } })).status,
      403,
    );
    assert.is(fs.readFileSync(vol('ro', 'k.txt'), 'utf8'), 'K');
    assert.equal(fs.readdirSync(vol('ro')), ['k.txt']);
  } finally {
    await admin.patch('/api/settings', { access: { rules: [] } });
  }
});

test('hostile paths: encoded dot-dot, Destination elsewhere or on another host, links out', async () => {
  fs.writeFileSync(path.join(s.dirs.root, 'secret.txt'), 'S');
  fs.writeFileSync(vol('h.txt'), 'H');
  for (const p of [
    '/dav/Files/%2e%2e/%2e%2e/secret.txt',
    '/dav/Files/../../secret.txt',
    '/dav/../secret.txt',
    '/dav/Files/..%2f..%2fsecret.txt',
    '/dav/Files/%2E%2E%5C%2E%2E%5Csecret.txt',
    '/dav/Files/a%00b',
  ]) {
    const status = await raw('GET', p);
    assert.is(status, 400, `${p} answered ${status}`);
  }
  assert.is(
    (await dav('MOVE', '/dav/Files/h.txt', { headers: { Destination: 'http://evil.example/dav/Files/x.txt' } })).status,
    502,
  );
  assert.is(
    (await dav('COPY', '/dav/Files/h.txt', { headers: { Destination: `${s.url}/api/files/x.txt` } })).status,
    502,
  );
  assert.is(
    (await dav('COPY', '/dav/Files/h.txt', { headers: { Destination: `${s.url}/dav/Files/%2e%2e/x.txt` } })).status,
    400,
  );
  assert.is(await raw('COPY', '/dav/Files/h.txt', { Destination: `${s.url}/dav/Files/../../x.txt` }), 400);
  assert.is(await raw('MOVE', '/dav/Files/h.txt', { Destination: `${s.url}/dav/../x.txt` }), 400);
  assert.ok(fs.existsSync(vol('h.txt')));
  fs.symlinkSync(s.dirs.root, vol('out'));
  fs.symlinkSync(path.join(s.dirs.root, 'secret.txt'), vol('out.txt'));
  assert.is((await dav('GET', '/dav/Files/out.txt')).status, 403);
  assert.is((await dav('GET', '/dav/Files/out/secret.txt')).status, 403);
  assert.is((await dav('PUT', '/dav/Files/out/new.txt', { body: 'x' })).status, 403);
  assert.not.ok(fs.existsSync(path.join(s.dirs.root, 'new.txt')));
  const listing = await (await dav('PROPFIND', '/dav/Files/', { headers: { Depth: '1' } })).text();
  assert.not.match(listing, /out\.txt|\/out\//);
  assert.not.match(listing, /\.burrow/);
});

test('PROPFIND Depth: infinity is refused with propfind-finite-depth', async () => {
  const r = await dav('PROPFIND', '/dav/Files/', { headers: { Depth: 'infinity' } });
  assert.is(r.status, 403);
  assert.match(await r.text(), /propfind-finite-depth/);
  const q = await dav('PROPFIND', '/dav/Files/', {
    headers: { Depth: '0' },
    body: '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:quota-available-bytes/><D:quota-used-bytes/></D:prop></D:propfind>',
  });
  assert.match(await q.text(), /<D:quota-available-bytes>\d+<\/D:quota-available-bytes>/);
});

test('a folder GET is a plain-text list of names, never a page', async () => {
  fs.mkdirSync(vol('list', 'sub'), { recursive: true });
  fs.writeFileSync(vol('list', '<b>.html'), 'x');
  const r = await dav('GET', '/dav/Files/list/');
  assert.is(r.status, 200);
  assert.match(r.headers.get('content-type')!, /^text\/plain/);
  assert.is(r.headers.get('x-content-type-options'), 'nosniff');
  assert.is(await r.text(), '<b>.html\nsub/\n');
});

test('writes reach the indexes (changes sink) and the activity log', async () => {
  assert.is((await dav('MKCOL', '/dav/Files/found-me')).status, 201);
  assert.is((await dav('PUT', '/dav/Files/found-me/needle-xyzzy.txt', { body: 'hay' })).status, 201);
  // Search is fed by the changes sink only (nothing rescans in the request path).
  const hit = await waitFor(
    async () => {
      const a = await alice.get('/api/search?q=needle-xyzzy');
      return a.status === 200 && JSON.stringify(a.json).includes('needle-xyzzy.txt');
    },
    { what: 'needle-xyzzy.txt in the search index' },
  );
  assert.ok(hit, 'the file written over WebDAV is found by search');
  for (const a of ['dav.put', 'dav.mkcol', 'dav.delete', 'dav.move', 'dav.copy']) {
    const rows = (await admin.get(`/api/activity?action=${a}&outcome=success&user=alice&limit=1`)).json.rows as any[];
    assert.is(rows.length, 1, `no ${a} row`);
  }
  const [put] = (await admin.get('/api/activity?action=dav.put&q=needle-xyzzy')).json.rows as any[];
  assert.ok(put, 'the PUT row names its path');
  assert.is(put.detail.path, '/dav/Files/found-me/needle-xyzzy.txt');
  assert.is(put.username, 'alice');
  assert.ok((await admin.get('/api/activity')).json.actions.includes('dav.put'));
});

test('Basic with a wrong password counts toward the lockout (AUTH_MAX_FAILED=3)', async () => {
  await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  for (let i = 0; i < 3; i++)
    assert.is(
      (await dav('PROPFIND', '/dav/', { user: 'bob', password: 'wrong', headers: { Depth: '0' } })).status,
      401,
    );
  const locked = await dav('PROPFIND', '/dav/', { user: 'bob', password: 'bob-password-1', headers: { Depth: '0' } });
  assert.is(locked.status, 429);
  assert.is(
    (
      await fetch(`${s.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identifier: 'bob', password: 'bob-password-1' }),
      })
    ).status,
    429,
  );
});

test('an account with a second factor cannot mount with its password, only with a token', async () => {
  const carol = await createUser(admin, s, { username: 'carol', password: 'carol-password-1' });
  const token = await issueToken(carol, 'write', { password: 'carol-password-1' });
  const start = await carol.post('/api/auth/totp/start', {});
  assert.is(start.status, 200, start.text);
  assert.is(
    (await carol.post('/api/auth/totp/confirm', { code: generateSync({ secret: start.json.secret }) })).status,
    200,
  );
  const refused = await dav('PROPFIND', '/dav/', {
    user: 'carol',
    password: 'carol-password-1',
    headers: { Depth: '0' },
  });
  assert.is(refused.status, 401);
  assert.match(refused.headers.get('www-authenticate')!, /^Basic/);
  assert.is((await dav('PROPFIND', '/dav/', { user: 'carol', password: token, headers: { Depth: '0' } })).status, 207);
});

// A proven password is remembered for a few minutes (scrypt once per mount, not once per file):
// what would end a sign-in ends the remembered one at the very next request.
test('a remembered password stops working at once after a password change, a reset or a second factor', async () => {
  const propfind = (user: string, password: string) =>
    dav('PROPFIND', '/dav/', { user, password, headers: { Depth: '0' } }).then((r) => r.status);
  const dave = await createUser(admin, s, { username: 'dave', password: 'dave-password-1' });
  assert.is(await propfind('dave', 'dave-password-1'), 207);
  assert.is(await propfind('dave', 'dave-password-1'), 207);
  const changed = await dave.post('/api/auth/password', {
    currentPassword: 'dave-password-1',
    newPassword: 'dave-password-2',
  });
  assert.is(changed.status, 204, changed.text);
  assert.is(await propfind('dave', 'dave-password-1'), 401);
  assert.is(await propfind('dave', 'dave-password-2'), 207);

  // An administrator's reset ends it too.
  const id = (await admin.get('/api/users')).json.users.find((u: { username: string }) => u.username === 'dave').id;
  assert.is((await admin.post(`/api/users/${id}/password`, { newPassword: 'dave-password-3' })).status, 204);
  assert.is(await propfind('dave', 'dave-password-2'), 401);
  assert.is(await propfind('dave', 'dave-password-3'), 207);

  // Turning on a second factor: from then on only a token mounts, also for a client already in.
  const erin = await createUser(admin, s, { username: 'erin', password: 'erin-password-1' });
  assert.is(await propfind('erin', 'erin-password-1'), 207);
  const start = await erin.post('/api/auth/totp/start', {});
  assert.is(start.status, 200, start.text);
  assert.is(
    (await erin.post('/api/auth/totp/confirm', { code: generateSync({ secret: start.json.secret }) })).status,
    200,
  );
  assert.is(await propfind('erin', 'erin-password-1'), 401);
});

test('Basic over plain HTTP from another machine is warned about in the log; over HTTPS or loopback it is not', async () => {
  // TRUST_PROXY=loopback: the test plays a proxy that names the client and its scheme.
  assert.is(
    (await dav('PROPFIND', '/dav/', { headers: { Depth: '0', 'x-forwarded-for': '203.0.113.7' } })).status,
    207,
  );
  assert.is(
    (
      await dav('PROPFIND', '/dav/', {
        headers: { Depth: '0', 'x-forwarded-for': '203.0.113.8', 'x-forwarded-proto': 'https' },
      })
    ).status,
    207,
  );
  await s.settleLogs();
  const warned = s.logs.filter((l) => /WebDAV Basic credentials arrive over plain HTTP/.test(l.msg)).map((l) => l.ip);
  assert.equal(warned, ['203.0.113.7']);
});

test.run();
