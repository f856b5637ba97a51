import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, issueToken, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let admin: Client;
let user: Client;
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
  const c = new Client(s.url);
  c.cookies = new Map(admin.cookies);
  const form = new FormData();
  form.append('logo', new Blob([PNG], { type: 'image/png' }), 'logo.png');
  const up = await c.request('POST', '/api/settings/upload-logo', form);
  assert.is(up.status, 200, up.text);
  assert.match(up.json.logoUrl, /^\/api\/branding\/logo\/[a-f0-9]{16}\.png$/);
  const img = await fetch(s.url + up.json.logoUrl);
  assert.is(img.status, 200);
  assert.is(img.headers.get('content-type'), 'image/png');
  assert.equal(Buffer.from(await img.arrayBuffer()), PNG);
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
  assert.is((await fetch(`${s.url}/api/branding/logo/..%2fburrow.db`)).status, 400);
  assert.is((await fetch(`${s.url}/api/branding/logo/0000000000000000.png`)).status, 404);
});

test.run();
