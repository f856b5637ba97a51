// Cross-site writes: an unsafe request that rides on the session cookie (or on nothing, with
// AUTH_MODE=disabled) is refused with 403 CROSS_SITE_REFUSED when the browser says it came
// from another origin — every unsafe row of the description, the TUS rows and the multipart
// upload included — and nothing changes. Same-origin pages, PUBLIC_URL pages, scripts that
// name no origin and bearer tokens keep working; JSON rows take only application/json.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { issueToken, setupAdmin } from '../support/auth.ts';
import { Client, envelope, type Answer } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

const UNSAFE = new Set(['post', 'put', 'patch', 'delete']);

/** Every file and folder under the volumes (Burrow's own staging folder included), with size and mtime. */
function diskState(s: TestServer): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(s.dirs.volumes, { recursive: true }) as string[]) {
    const st = fs.lstatSync(path.join(s.dirs.volumes, entry));
    out.push(`${entry} ${st.isDirectory() ? 'dir' : st.size} ${st.mtimeMs}`);
  }
  return out.sort();
}

/** What the account side holds, read over HTTP. */
async function accountState(c: Client): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const p of ['/api/users', '/api/settings', '/api/auth/tokens', '/api/favorites', '/api/trash', '/api/auth/me']) {
    const a = await c.get(p);
    out[p] = `${a.status} ${a.text}`;
  }
  return out;
}

/** Unsafe operations of the description, with their path parameters filled in. */
async function unsafeOperations(s: TestServer): Promise<Array<{ method: string; path: string }>> {
  const doc = (await new Client(s.url).get('/api/openapi.json')).json;
  const out: Array<{ method: string; path: string }> = [];
  for (const [p, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
    for (const m of Object.keys(ops)) {
      if (!UNSAFE.has(m)) continue;
      out.push({ method: m.toUpperCase(), path: p.replace('{path}', 'Files/a.txt').replace(/\{[^}]+\}/g, 'x') });
    }
  }
  return out;
}

type Body = { body: string | FormData; headers: Record<string, string> };
const attackBody = {
  path: 'Files/evil',
  paths: ['Files/a.txt'],
  name: 'evil',
  content: 'pwned',
  destination: 'Files/Sub',
  items: [{ path: 'Files/a.txt' }],
};
const BODIES: Record<string, () => Body> = {
  json: () => ({ body: JSON.stringify(attackBody), headers: { 'content-type': 'application/json' } }),
  text: () => ({ body: JSON.stringify(attackBody), headers: { 'content-type': 'text/plain;charset=UTF-8' } }),
  urlencoded: () => ({
    body: `${encodeURIComponent(JSON.stringify(attackBody))}=`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  }),
  multipart: () => {
    const fd = new FormData();
    fd.append('uploadTo', 'Files');
    fd.append('filedata', new Blob(['evil bytes']), 'evil.txt');
    return { body: fd, headers: {} };
  },
};

function refused(answer: Answer, what: string): void {
  assert.is(answer.status, 403, `${what}: ${answer.status} ${answer.text.slice(0, 200)}`);
  assert.is(envelope(answer).code, 'CROSS_SITE_REFUSED', what);
}

async function prepared(env: Record<string, string> = {}) {
  const s = await startServer({ env: { UPLOAD_CHUNKED_ENABLED: 'true', ...env }, volumes: ['Files'] });
  fs.writeFileSync(path.join(s.dirs.volumes, 'Files', 'a.txt'), 'original');
  fs.mkdirSync(path.join(s.dirs.volumes, 'Files', 'Sub'));
  const admin = await setupAdmin(s);
  return { s, admin };
}

/** Log lines of an executable server arrive through a pipe: wait for them. */
const settle = (s: TestServer) => (s as TestServer & { settleLogs?: () => Promise<void> }).settleLogs?.();

test('every unsafe route, with the cookie, from a foreign origin, a sibling subdomain, Sec-Fetch-Site cross-site, a foreign Referer or Origin null, in every form content type: 403 and nothing changes', async () => {
  const { s, admin } = await prepared();
  try {
    const token = await issueToken(admin, 'write');
    // A real resumable upload, so the TUS rows are refused on an id that exists.
    const created = await new Client(s.url, token).request('POST', '/api/upload/tus', undefined, {
      'tus-resumable': '1.0.0',
      'upload-length': '5',
      'upload-metadata': `filename ${btoa('t.txt')},uploadTo ${btoa('Files')}`,
    });
    assert.is(created.status, 201, created.text);
    const tusPath = new URL(created.headers.get('location')!, s.url).pathname;
    const disk = diskState(s);
    const account = await accountState(admin);

    const ops = await unsafeOperations(s);
    assert.ok(ops.length >= 40, `the description lists the unsafe routes (${ops.length})`);
    ops.push({ method: 'PATCH', path: tusPath }, { method: 'DELETE', path: tusPath });
    const port = new URL(s.url).port;
    const sources: Record<string, Record<string, string>> = {
      'foreign origin': { origin: 'https://evil.example' },
      'sibling subdomain': { origin: `http://evil.localhost:${port}` },
      'same host, other port': { origin: `http://127.0.0.1:${Number(port) + 1}` },
      'origin null': { origin: 'null' },
      'Sec-Fetch-Site cross-site': { 'sec-fetch-site': 'cross-site' },
      'Sec-Fetch-Site same-site': { 'sec-fetch-site': 'same-site' },
      'foreign Referer': { referer: 'https://evil.example/page.html' },
    };
    const kinds = Object.keys(BODIES);
    let n = 0;
    for (const op of ops) {
      for (const [source, headers] of Object.entries(sources)) {
        const kind = kinds[n++ % kinds.length]!;
        const { body, headers: typeHeaders } = BODIES[kind]!();
        const extra: Record<string, string> = op.path.startsWith('/api/upload/tus')
          ? { 'tus-resumable': '1.0.0', 'upload-offset': '0', 'upload-length': '5' }
          : {};
        const answer = await admin.request(
          op.method,
          op.path,
          op.method === 'DELETE' && kind === 'multipart' ? undefined : body,
          { ...typeHeaders, ...extra, ...headers },
        );
        refused(answer, `${op.method} ${op.path} (${source}, ${kind})`);
      }
    }
    // The multipart upload, in each form shape, from another site.
    for (const kind of kinds) {
      const { body, headers } = BODIES[kind]!();
      refused(
        await admin.request('POST', '/api/upload', body, { ...headers, origin: 'https://evil.example' }),
        `upload (${kind})`,
      );
    }
    assert.equal(diskState(s), disk, 'nothing changed on disk');
    assert.equal(
      await accountState(admin),
      account,
      'nothing changed in the accounts, settings, tokens, favourites or trash',
    );
    // The TUS upload is still there and untouched.
    const head = await new Client(s.url, token).request('HEAD', tusPath, undefined, { 'tus-resumable': '1.0.0' });
    assert.is(head.status, 200);
    assert.is(head.headers.get('upload-offset'), '0');
    // The refusal is in the log with its requestId.
    const refusal = await admin.post(
      '/api/files/folder',
      { path: 'Files', name: 'x' },
      { origin: 'https://evil.example' },
    );
    const id = envelope(refusal).requestId;
    await settle(s);
    assert.ok(s.logs.some((l) => l.requestId === id && l.level === 'info' && l.code === 'CROSS_SITE_REFUSED'));
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('same-origin pages (Origin, Sec-Fetch-Site, Referer), scripts naming no origin, and bearer tokens from anywhere succeed', async () => {
  const { s, admin } = await prepared();
  try {
    const folder = (name: string, headers: Record<string, string>, c: Client = admin) =>
      c.post('/api/files/folder', { path: 'Files', name }, headers);
    assert.is((await folder('by-origin', { origin: s.url })).status, 201);
    assert.is(
      (await folder('by-origin-slash', { origin: s.url.replace('127.0.0.1', 'localhost') })).status,
      403,
      'another host name of the same machine is another origin',
    );
    assert.is((await folder('by-fetch-site', { 'sec-fetch-site': 'same-origin' })).status, 201);
    assert.is((await folder('by-referer', { referer: `${s.url}/Files` })).status, 201);
    assert.is((await folder('by-script', {})).status, 201);
    const token = await issueToken(admin, 'write');
    const script = new Client(s.url, token);
    assert.is(
      (await folder('by-token', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, script)).status,
      201,
    );
    // Same-origin multipart and TUS.
    const fd = new FormData();
    fd.append('uploadTo', 'Files');
    fd.append('filedata', new Blob(['hello']), 'up.txt');
    assert.is((await admin.post('/api/upload', fd, { origin: s.url })).status, 201);
    const tus = await admin.request('POST', '/api/upload/tus', undefined, {
      origin: s.url,
      'tus-resumable': '1.0.0',
      'upload-length': '2',
      'upload-metadata': `filename ${btoa('t.txt')},uploadTo ${btoa('Files')}`,
    });
    assert.is(tus.status, 201, tus.text);
    const tusPath = new URL(tus.headers.get('location')!, s.url).pathname;
    const patch = await admin.request('PATCH', tusPath, 'hi', {
      origin: s.url,
      'tus-resumable': '1.0.0',
      'upload-offset': '0',
      'content-type': 'application/offset+octet-stream',
    });
    assert.is(patch.status, 204, patch.text);
    const names = fs.readdirSync(path.join(s.dirs.volumes, 'Files')).sort();
    for (const n of ['by-origin', 'by-fetch-site', 'by-referer', 'by-script', 'by-token', 'up.txt', 't.txt'])
      assert.ok(names.includes(n), `${n} in ${names}`);
    assert.not.ok(names.includes('by-origin-slash'));
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('PUBLIC_URL pages succeed; its sibling subdomains and its http twin do not; forwarded host and proto count only from a trusted proxy', async () => {
  const { s, admin } = await prepared({ PUBLIC_URL: 'https://files.example.org', TRUST_PROXY: 'false' });
  try {
    const folder = (name: string, headers: Record<string, string>) =>
      admin.post('/api/files/folder', { path: 'Files', name }, headers);
    assert.is((await folder('public', { origin: 'https://files.example.org' })).status, 201);
    refused(await folder('sibling', { origin: 'https://other.example.org' }), 'sibling subdomain of PUBLIC_URL');
    refused(await folder('http-twin', { origin: 'http://files.example.org' }), 'PUBLIC_URL over http');
    refused(
      await folder('forwarded', {
        origin: 'https://proxy.example.net',
        'x-forwarded-host': 'proxy.example.net',
        'x-forwarded-proto': 'https',
      }),
      'forwarded headers from an untrusted peer',
    );
    // A forwarded host counts from a trusted proxy, as a name this server answers for.
    await s.restart({ TRUST_PROXY: 'loopback', ALLOWED_HOSTS: 'proxy.example.net' });
    const again = new Client(s.url);
    again.cookies = admin.cookies;
    assert.is(
      (
        await again.post(
          '/api/files/folder',
          { path: 'Files', name: 'forwarded' },
          {
            origin: 'https://proxy.example.net',
            'x-forwarded-host': 'proxy.example.net',
            'x-forwarded-proto': 'https',
          },
        )
      ).status,
      201,
    );
    refused(
      await again.post(
        '/api/files/folder',
        { path: 'Files', name: 'forwarded-2' },
        { origin: 'https://evil.example', 'x-forwarded-host': 'proxy.example.net', 'x-forwarded-proto': 'https' },
      ),
      'origin other than the forwarded one',
    );
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('JSON rows take only application/json (415), an empty body is fine; with AUTH_MODE=disabled a foreign page can change nothing and cannot sign in across sites', async () => {
  const { s, admin } = await prepared();
  try {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
    ]) {
      const answer = await admin.post('/api/files/folder', JSON.stringify({ path: 'Files', name: 'typed' }), {
        'content-type': type,
      });
      assert.is(answer.status, 415, `${type}: ${answer.text}`);
      assert.is(envelope(answer).code, 'UNSUPPORTED_MEDIA_TYPE');
    }
    const noType = await fetch(s.url + '/api/files/folder', {
      method: 'POST',
      headers: { cookie: admin.cookieHeader },
      body: new TextEncoder().encode(JSON.stringify({ path: 'Files', name: 'typed' })),
    });
    assert.is(noType.status, 415);
    assert.not.ok(fs.existsSync(path.join(s.dirs.volumes, 'Files', 'typed')));
    assert.is(
      (
        await admin.post(
          '/api/files/folder',
          { path: 'Files', name: 'typed' },
          { 'content-type': 'application/json; charset=utf-8' },
        )
      ).status,
      201,
    );
    // An empty body on a row whose schema allows it.
    const logout = await admin.request('POST', '/api/auth/logout', undefined, { origin: s.url });
    assert.is(logout.status, 204, `logout: ${logout.status} ${logout.text}`);
    // Sign-in from another site (no cookie yet): refused.
    refused(
      await new Client(s.url).post(
        '/api/auth/login',
        { identifier: 'admin', password: 'admin-password-1' },
        { origin: 'https://evil.example' },
      ),
      'cross-site sign-in',
    );
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
  const open = await startServer({ env: { AUTH_MODE: 'disabled' } });
  try {
    const c = new Client(open.url);
    refused(
      await c.post('/api/files/folder', { path: 'Files', name: 'evil' }, { origin: 'https://evil.example' }),
      'AUTH_MODE=disabled, foreign origin',
    );
    assert.is((await c.post('/api/files/folder', { path: 'Files', name: 'local' }, { origin: open.url })).status, 201);
    assert.equal(fs.readdirSync(path.join(open.dirs.volumes, 'Files')), ['local']);
  } finally {
    await open.close();
    removeDirs(open.dirs);
  }
});

/** A request with the Host header as a rebinding page makes the browser send it (fetch cannot set Host). */
function asHost(
  s: TestServer,
  host: string,
  method: string,
  p: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(s.url + p, { method, headers: { ...headers, host } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('DNS rebinding: a request addressed to a name this server does not answer for is refused (421) before anything is read or changed; its own names work', async () => {
  const open = await startServer({ env: { AUTH_MODE: 'disabled' } });
  const port = new URL(open.url).port;
  const evil = `rebind.evil.example:${port}`;
  try {
    fs.writeFileSync(path.join(open.dirs.volumes, 'Files', 'Steuererklärung 2024.pdf'), 'secret');
    // The attacker's page, same-origin in the browser's eyes (Origin = its Host).
    const origin = { origin: `http://${evil}`, 'content-type': 'application/json' };
    for (const [method, p, headers, body] of [
      ['GET', '/api/browse/Files', {}, undefined],
      ['GET', '/api/download/Files/Steuererkl%C3%A4rung%202024.pdf', {}, undefined],
      ['POST', '/api/files/folder', origin, JSON.stringify({ path: 'Files', name: 'pwned' })],
      ['PROPFIND', '/dav/Files/', { depth: '1' }, undefined],
      ['PUT', '/dav/Files/pwned.txt', {}, 'pwned'],
      ['GET', '/', {}, undefined],
    ] as const) {
      const a = await asHost(open, evil, method, p, headers, body);
      assert.is(a.status, 421, `${method} ${p}: ${a.status} ${a.text.slice(0, 200)}`);
      assert.not.match(a.text, /Steuererkl/, `${method} ${p} showed nothing`);
      if (p.startsWith('/api/')) {
        const e = JSON.parse(a.text).error;
        assert.is(e.code, 'HOST_NOT_ALLOWED');
        assert.match(e.message, /ALLOWED_HOSTS/);
      }
    }
    // The terminal's WebSocket too: refused before the upgrade.
    const upgrade = await new Promise<number>((resolve, reject) => {
      const req = http.request(open.url + '/api/terminal/socket', {
        headers: {
          host: evil,
          connection: 'Upgrade',
          upgrade: 'websocket',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        },
      });
      req.on('response', (res) => resolve(res.statusCode!));
      req.on('upgrade', () => resolve(101));
      req.on('error', reject);
      req.end();
    });
    assert.is(upgrade, 421);
    assert.equal(fs.readdirSync(path.join(open.dirs.volumes, 'Files')), ['Steuererklärung 2024.pdf']);

    // Its own names: addresses, localhost, this computer's name and NAME.local.
    const short = os.hostname().toLowerCase().split('.')[0]!;
    for (const host of [
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      `localhost:${port}`,
      `LOCALHOST.:${port}`,
      `${os.hostname()}:${port}`,
      `${short}.local:${port}`,
      `192.168.1.20`,
    ]) {
      const a = await asHost(open, host, 'GET', '/api/browse/Files');
      assert.is(a.status, 200, `${host}: ${a.text.slice(0, 200)}`);
    }
    const same = await asHost(
      open,
      `${short}.local:${port}`,
      'POST',
      '/api/files/folder',
      { ...origin, origin: `http://${short}.local:${port}` },
      JSON.stringify({ path: 'Files', name: 'Urlaub 2024' }),
    );
    assert.is(same.status, 201, same.text);
  } finally {
    await open.close();
    removeDirs(open.dirs);
  }

  // PUBLIC_URL's host and ALLOWED_HOSTS; a fresh install's first setup is not open to a rebinding page.
  const s = await startServer({
    env: { PUBLIC_URL: 'https://files.example.org', ALLOWED_HOSTS: 'nas.fritz.box, Files.Home.Arpa' },
  });
  try {
    const setup = JSON.stringify({ email: 'evil@example.org', username: 'evil', password: 'evil-password-1' });
    const refusedSetup = await asHost(
      s,
      'rebind.evil.example',
      'POST',
      '/api/auth/setup',
      { origin: 'http://rebind.evil.example', 'content-type': 'application/json' },
      setup,
    );
    assert.is(refusedSetup.status, 421, refusedSetup.text);
    for (const host of ['files.example.org', 'nas.fritz.box:3000', 'files.home.arpa']) {
      const a = await asHost(s, host, 'GET', '/api/features');
      assert.is(a.status, 200, `${host}: ${a.text.slice(0, 200)}`);
    }
    assert.is((await asHost(s, 'other.example.org', 'GET', '/api/features')).status, 421);
    await setupAdmin(s);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test.run();
