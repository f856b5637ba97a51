import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, issueToken, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { instancesBehind, removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let admin: Client;
let user: Client;
const GIF = Buffer.from(
  '47494638396101000100800000ffffff00000021f90401000000002c00000000010001000002024401003b',
  'hex',
);
const JPEG = Buffer.concat([Buffer.from('ffd8ffe000104a46494600', 'hex'), Buffer.from('Brötchen & Kaffee', 'utf8')]);

test.before(async () => {
  s = await startServer();
  admin = await setupAdmin(s);
  user = await createUser(admin, s, { username: 'olga', password: 'olga-password' });
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4f40000000049454e44ae426082',
  'hex',
);

test('GET: defaults; administrators also see access rules and activity settings', async () => {
  const u = (await user.get('/api/settings')).json;
  assert.equal(u.user, { showHiddenFiles: false, showThumbnails: true });
  assert.is(u.branding.appName, 'Burrow');
  assert.is(u.thumbnails.enabled, true);
  assert.is(u.access, undefined);
  const a = (await admin.get('/api/settings')).json;
  assert.equal(a.access, { rules: [] });
  assert.equal(a.activity, { enabled: false, retentionDays: 90 });
});

test('user preferences: any account, merged per account, null removes, validated', async () => {
  const a = await user.patch('/api/settings', { user: { showHiddenFiles: true } });
  assert.is(a.status, 200);
  assert.is(a.json.user.showHiddenFiles, true);
  await user.patch('/api/settings', { user: { showThumbnails: false, sortBy: 'name', 'view.mode': 'grid' } });
  const after = (await user.get('/api/settings')).json.user;
  assert.equal(after, { showHiddenFiles: true, showThumbnails: false, sortBy: 'name', 'view.mode': 'grid' });
  assert.is((await admin.get('/api/settings')).json.user.showHiddenFiles, false, 'another account is untouched');
  await user.patch('/api/settings', { user: { sortBy: null } });
  assert.is((await user.get('/api/settings')).json.user.sortBy, undefined);
  const bad = await user.patch('/api/settings', { user: { showHiddenFiles: 'yes' } });
  assert.is(bad.status, 400);
  assert.match(envelope(bad).message, /showHiddenFiles/);
  assert.is((await user.patch('/api/settings', { user: { big: 'x'.repeat(70_000) } })).status, 400);
  assert.is((await user.patch('/api/settings', { unknownSection: {} })).status, 400);
});

test('system sections: administrators only (403 with a message), echoed back', async () => {
  for (const body of [
    { thumbnails: { enabled: false } },
    { branding: { appName: 'x' } },
    { access: { rules: [] } },
    { activity: { enabled: true } },
  ]) {
    const a = await user.patch('/api/settings', body);
    assert.is(a.status, 403, JSON.stringify(body));
    assert.match(envelope(a).message, /administrators/i);
  }
  const t = await admin.patch('/api/settings', {
    thumbnails: { enabled: false, size: 320, quality: 70, concurrency: 2 },
  });
  assert.equal(t.json.thumbnails, { enabled: false, size: 320, quality: 70, concurrency: 2 });
  assert.is((await admin.patch('/api/settings', { thumbnails: { size: 2000 } })).status, 400);
  assert.is((await admin.patch('/api/settings', { thumbnails: { quality: 0 } })).status, 400);
  const b = await admin.patch('/api/settings', { branding: { appName: 'Family Files' } });
  assert.is(b.json.branding.appName, 'Family Files');
  assert.is(b.json.branding.appLogoUrl, '/logo.svg');
  assert.equal(await (await fetch(`${s.url}/api/branding`)).json(), b.json.branding);
  // a write token may change preferences but not installation settings
  const secret = await issueToken(admin, 'write');
  const viaToken = await new Client(s.url, secret).patch('/api/settings', { branding: { appName: 'Hacked' } });
  assert.is(viaToken.status, 403);
  assert.is(envelope(viaToken).code, 'AUTH_TOKEN_NOT_ALLOWED');
  assert.is((await new Client(s.url, secret).patch('/api/settings', { user: { showHiddenFiles: true } })).status, 200);
});

test('access rules: the whole list replaces, ids are strings, paths normalised, bad rules refused', async () => {
  const a = await admin.patch('/api/settings', {
    access: {
      rules: [
        { path: '/Media/Private/', permissions: 'hidden' },
        { id: 'keep-me', path: 'Docs', recursive: false, permissions: 'ro' },
      ],
    },
  });
  assert.is(a.status, 200);
  const [first, second] = a.json.access.rules;
  assert.is(typeof first.id, 'string');
  assert.is(first.path, 'Media/Private');
  assert.is(first.recursive, true);
  assert.equal(second, { id: 'keep-me', path: 'Docs', recursive: false, permissions: 'ro' });
  const replaced = await admin.patch('/api/settings', { access: { rules: [{ path: 'Other', permissions: 'rw' }] } });
  assert.is(replaced.json.access.rules.length, 1);
  assert.is((await admin.patch('/api/settings', { access: { rules: [{ path: 'a/../b' }] } })).status, 400);
  assert.is(
    (await admin.patch('/api/settings', { access: { rules: [{ path: 'a', permissions: 'rwx' }] } })).status,
    400,
  );
  await s.restart();
  const c = new Client(s.url);
  c.cookies = new Map(admin.cookies);
  assert.is((await c.get('/api/settings')).json.access.rules[0].path, 'Other', 'kept across a restart');
});

test('logo upload: image only, at most 2 MB, served publicly under the returned URL', async () => {
  // An image no other row sends: were any attacker's upload taken, its row would show.
  const refusedOnly = () => {
    const f = new FormData();
    f.append('logo', new Blob([JPEG], { type: 'image/jpeg' }), 'Logo von Müller & Söhne #1 🎨.jpg');
    return f;
  };
  const c = new Client(s.url);
  c.cookies = new Map(admin.cookies);
  const form = new FormData();
  form.append('logo', new Blob([PNG], { type: 'image/png' }), 'logo.png');
  const up = await c.request('POST', '/api/settings/upload-logo', form);
  assert.is(up.status, 200, up.text);
  assert.match(up.json.logoUrl, /^\/api\/branding\/logo\/[a-f0-9]{16}\.png$/);
  // Every instance of a cluster answers it alike (it is a row, not a file of the instance that took it).
  const etag = `"${up.json.logoUrl.split('/').pop().split('.')[0]}"`;
  for (let i = 0; i < instancesBehind(s); i++) {
    const img = await fetch(s.url + up.json.logoUrl);
    assert.is(img.status, 200);
    assert.is(img.headers.get('content-type'), 'image/png');
    assert.is(img.headers.get('etag'), etag);
    assert.is(img.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(Buffer.from(await img.arrayBuffer()), PNG);
  }
  for (let i = 0; i < instancesBehind(s); i++) {
    const held = await fetch(s.url + up.json.logoUrl, { headers: { 'if-none-match': etag } });
    assert.is(held.status, 304);
    assert.is(held.headers.get('etag'), etag);
    assert.is((await held.arrayBuffer()).byteLength, 0);
    // A list, a weak tag of it, or `*`, read as every other route reads If-None-Match.
    for (const tags of [`"0000000000000000", W/${etag}`, '*']) {
      const listed = await fetch(s.url + up.json.logoUrl, { headers: { 'if-none-match': tags } });
      assert.is(listed.status, 304, tags);
    }
    const other = await fetch(s.url + up.json.logoUrl, { headers: { 'if-none-match': '"0000000000000000"' } });
    assert.is(other.status, 200);
    assert.equal(Buffer.from(await other.arrayBuffer()), PNG);
  }
  assert.is(
    (await c.patch('/api/settings', { branding: { appLogoUrl: up.json.logoUrl } })).json.branding.appLogoUrl,
    up.json.logoUrl,
  );

  const svg = new FormData();
  svg.append(
    'logo',
    new Blob(['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'], { type: 'image/jpeg' }),
    'logo.jpg',
  );
  const refused = await c.request('POST', '/api/settings/upload-logo', svg);
  assert.is(refused.status, 415);
  envelope(refused);
  const big = new FormData();
  big.append('logo', new Blob([PNG, Buffer.alloc(2 * 1024 * 1024)], { type: 'image/png' }), 'logo.png');
  assert.is((await c.request('POST', '/api/settings/upload-logo', big)).status, 413);
  const wrongField = new FormData();
  wrongField.append('image', new Blob([PNG], { type: 'image/png' }), 'logo.png');
  assert.is((await c.request('POST', '/api/settings/upload-logo', wrongField)).status, 400);
  const u = new Client(s.url);
  u.cookies = new Map(user.cookies);
  assert.is((await u.request('POST', '/api/settings/upload-logo', form)).status, 403);
  // The administrator's tokens (read or write) and a cross-site request of her browser are refused too.
  for (const scope of ['read', 'write'] as const) {
    const token = new Client(s.url, await issueToken(admin, scope, { name: `Logo & Co – ${scope} 🎨` }));
    const viaToken = await token.request('POST', '/api/settings/upload-logo', refusedOnly());
    assert.is(viaToken.status, 403, `${scope} token: ${viaToken.text}`);
    assert.is(envelope(viaToken).code, 'AUTH_TOKEN_NOT_ALLOWED');
  }
  const cross = await c.request('POST', '/api/settings/upload-logo', refusedOnly(), {
    origin: 'https://evil.example',
    'sec-fetch-site': 'cross-site',
  });
  assert.is(cross.status, 403, cross.text);
  assert.is(envelope(cross).code, 'CROSS_SITE_REFUSED');
  // None of the refused uploads (not an image, too large, no logo part, another account, a token,
  // another site) left a row: the first upload's is the only one.
  const names = await s.withDatabase((db) =>
    db.all<{ name: string }>('SELECT name FROM branding_logos').map((r) => r.name),
  );
  assert.equal(names, [up.json.logoUrl.split('/').pop()]);
  assert.is((await fetch(`${s.url}/api/branding/logo/..%2fburrow.db`)).status, 400);
  assert.is((await fetch(`${s.url}/api/branding/logo/0000000000000000.png`)).status, 404);

  // Another logo saved: the one it replaces is gone, on every instance.
  const next = new FormData();
  next.append('logo', new Blob([GIF], { type: 'image/gif' }), 'logo.gif');
  const again = await c.request('POST', '/api/settings/upload-logo', next);
  assert.is(again.status, 200, again.text);
  assert.is((await c.patch('/api/settings', { branding: { appLogoUrl: again.json.logoUrl } })).status, 200);
  for (let i = 0; i < instancesBehind(s); i++) {
    assert.is((await fetch(s.url + up.json.logoUrl)).status, 404);
    assert.is((await fetch(s.url + again.json.logoUrl)).status, 200);
  }
});

test('an installation upgraded from the release that kept the logo in CONFIG_DIR keeps its logo; the default is served', async () => {
  // The previous release: the logo a file in CONFIG_DIR/branding, the setting naming it, no row.
  const name = `${createHash('sha256').update(JPEG).digest('hex').slice(0, 16)}.jpg`;
  const url = `/api/branding/logo/${name}`;
  const folder = path.join(s.dirs.config, 'branding');
  await s.withDatabase((db) => {
    db.run('DELETE FROM branding_logos');
    const row = db.get<{ value: string }>("SELECT value FROM settings WHERE key = 'branding'");
    const value = JSON.stringify({ ...JSON.parse(row!.value), appLogoUrl: url });
    db.run('UPDATE settings SET value = ? WHERE key = ?', [value, 'branding']);
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, name), JPEG);
  });
  assert.is((await fetch(`${s.url}/api/branding`)).status, 200);
  assert.is(((await (await fetch(`${s.url}/api/branding`)).json()) as any).appLogoUrl, url);
  for (let i = 0; i < instancesBehind(s); i++) {
    const img = await fetch(s.url + url);
    assert.is(img.status, 200);
    assert.is(img.headers.get('content-type'), 'image/jpeg');
    assert.equal(Buffer.from(await img.arrayBuffer()), JPEG);
  }
  // Moved in once: the file is gone, the row is the logo now (a second start changes nothing).
  assert.not.ok(fs.existsSync(folder), 'CONFIG_DIR/branding is removed once empty');
  await s.restart();
  assert.is((await fetch(s.url + url)).status, 200);
  // Back to the embedded default: the stored logo goes, and the default is what the page shows
  // (its file is the web interface's own, served where the interface is built: the executable).
  const back = await admin.patch('/api/settings', { branding: { appLogoUrl: '/logo.svg' } });
  assert.is(back.json.branding.appLogoUrl, '/logo.svg');
  for (let i = 0; i < instancesBehind(s); i++) assert.is((await fetch(s.url + url)).status, 404);
  if (s.mode !== 'source') {
    const def = await fetch(`${s.url}/logo.svg`);
    assert.is(def.status, 200);
    assert.match(def.headers.get('content-type') ?? '', /image\/svg\+xml/);
  }
});

test.run();
