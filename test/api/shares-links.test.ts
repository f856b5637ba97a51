// Sharing as an attacker sees it, through HTTP only: guessed and truncated tokens, traversal
// (plain and encoded), sibling names that share a prefix, symlinks out of the shared folder,
// a flag-less link on every write route, expiry, `users` shares, a file share used to reach its
// parent, active content served as attachment + nosniff, brute force on a link password; the
// native client's rows in the shapes it decodes; bindings across rename, move and delete.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { createUser, me, setupAdmin } from '../support/auth.ts';

let s: TestServer;
let admin: Client;
let alice: Client;
let bob: Client;
let bobId: string;
const anon = () => new Client(s.url);
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function share(client: Client, body: Record<string, unknown>) {
  const r = await client.post('/api/shares', body);
  assert.is(r.status, 201, r.text);
  return r.json;
}

test.before(async () => {
  s = await startServer({ volumes: ['Files', 'Other'] });
  admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  bobId = (await me(bob)).id;
  const files = path.join(s.dirs.volumes, 'Files');
  fs.mkdirSync(path.join(files, 'Docs', 'sub'), { recursive: true });
  fs.mkdirSync(path.join(files, 'Docs-secret'), { recursive: true });
  fs.writeFileSync(path.join(files, 'Docs', 'a.txt'), 'hello');
  fs.writeFileSync(path.join(files, 'Docs', 'sub', 'b.txt'), 'deep');
  fs.writeFileSync(path.join(files, 'Docs', 'page.html'), '<script>alert(1)</script>');
  fs.writeFileSync(
    path.join(files, 'Docs', 'pic.svg'),
    '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
  );
  fs.writeFileSync(path.join(files, 'Docs-secret', 'key.txt'), 'secret');
  fs.writeFileSync(path.join(files, 'top.txt'), 'parent file');
  fs.writeFileSync(path.join(files, 'single.txt'), 'only me');
  fs.symlinkSync(path.join(files, 'Docs-secret'), path.join(files, 'Docs', 'out-dir'));
  fs.symlinkSync(path.join(files, 'Docs-secret', 'key.txt'), path.join(files, 'Docs', 'out-file.txt'));
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('create answers the flattened share with shareUrl, shareToken and directFileUrl (native shapes)', async () => {
  const created = await share(alice, {
    sourcePath: 'Files/Docs',
    accessMode: 'readonly',
    sharingType: 'anyone',
    userIds: [],
    expiresAt: '2099-01-15T10:00:00Z',
  });
  assert.type(created.id, 'string');
  assert.ok(created.shareToken.length >= 22, 'token of at least 128 bits');
  assert.ok(created.shareUrl.startsWith(s.url), created.shareUrl);
  assert.is(created.directFileUrl, `${s.url}/api/share/${created.shareToken}/file`);
  for (const k of ['isDirectory', 'hasPassword']) assert.type(created[k], 'boolean');
  assert.is(created.accessMode, 'readonly');
  assert.is(created.sharingType, 'anyone');
  assert.type(created.ownerId, 'string');
  assert.ok(
    ISO_MS.test(created.createdAt) && ISO_MS.test(created.updatedAt) && ISO_MS.test(created.expiresAt),
    created.expiresAt,
  );
  assert.is(created.downloadCount, 0);
  assert.is(created.sourcePath, 'Files/Docs');
  const mine = (await alice.get('/api/shares')).json;
  assert.ok(mine.shares.some((x: any) => x.id === created.id && x.sourcePath === 'Files/Docs'));
  const info = await anon().get(`/api/share/${created.shareToken}/info`);
  assert.is(info.status, 200);
  assert.equal(
    {
      t: info.json.shareToken,
      d: info.json.isDirectory,
      p: info.json.hasPassword,
      s: info.json.sharingType,
      e: info.json.isExpired,
    },
    { t: created.shareToken, d: true, p: false, s: 'anyone', e: false },
  );
  const updated = await alice.put(`/api/shares/${created.id}`, {
    label: 'docs',
    accessMode: 'readwrite',
    sharingType: 'anyone',
    expiresAt: null,
  });
  assert.is(updated.status, 200, updated.text);
  assert.is(updated.json.label, 'docs');
  assert.is(updated.json.accessMode, 'readwrite');
  assert.is(updated.json.expiresAt, null);
  // Another account cannot change or delete it; a token in the id's place deletes nothing.
  assert.is((await bob.put(`/api/shares/${created.id}`, { label: 'x' })).status, 404);
  assert.is((await bob.delete(`/api/shares/${created.id}`)).status, 404);
  assert.is((await alice.delete(`/api/shares/${created.shareToken}`)).status, 404);
  assert.is((await anon().get(`/api/share/${created.shareToken}/browse/`)).status, 200);
  assert.is((await alice.delete(`/api/shares/${created.id}`)).status, 204);
  assert.is((await anon().get(`/api/share/${created.shareToken}/info`)).status, 404);
});

test('unknown, truncated, expired and deleted links answer one identical 404', async () => {
  const live = await share(alice, { sourcePath: 'Files/Docs', sharingType: 'anyone' });
  const gone = await share(alice, { sourcePath: 'Files/Docs', sharingType: 'anyone' });
  await alice.delete(`/api/shares/${gone.id}`);
  const soon = await share(alice, {
    sourcePath: 'Files/Docs',
    sharingType: 'anyone',
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  });
  // Its hour has passed: the expiry moved into the past while the server is stopped.
  await s.withDatabase((db) =>
    db.run('UPDATE shares SET expires_at = ? WHERE id = ?', [new Date(Date.now() - 1000).toISOString(), soon.id]),
  );
  const bodies = new Set<string>();
  for (const token of [
    'A'.repeat(24),
    live.shareToken.slice(0, -1),
    live.shareToken.slice(0, 8),
    gone.shareToken,
    soon.shareToken,
  ]) {
    for (const p of [
      `/api/share/${token}/info`,
      `/api/share/${token}/browse/`,
      `/api/share/${token}/file?path=a.txt`,
      `/api/share/${token}/editor?path=a.txt`,
    ]) {
      const r = await anon().get(p);
      assert.is(r.status, 404, `${p}: ${r.text}`);
      const e = envelope(r);
      bodies.add(JSON.stringify({ ...e, requestId: '' }));
    }
    const b = await bob.get(`/api/browse/share/${token}`);
    assert.is(b.status, 404);
  }
  assert.is(bodies.size, 1, [...bodies].join('\n'));
  assert.is((await anon().get(`/api/share/${live.shareToken}/browse/`)).status, 200);
});

test('traversal, encoded traversal, prefix siblings and symlinks never leave the shared folder', async () => {
  const t = (await share(alice, { sourcePath: 'Files/Docs', sharingType: 'anyone', accessMode: 'readwrite' }))
    .shareToken;
  const a = anon();
  const list = await a.get(`/api/share/${t}/browse/`);
  assert.is(list.status, 200);
  assert.ok(list.json.items.some((i: any) => i.name === 'a.txt'));
  assert.ok(list.json.path.startsWith(`share/${t}`));
  // Sent as written (a browser would resolve '..' and '%2e%2e' first, curl --path-as-is does
  // not): every spelling of '..' is a bad path (400); a link's paths start at its own top
  // (/etc/passwd: no such file in it, 404); a link inside the folder to outside it is refused as
  // outside (403).
  const probes = [
    [`/api/share/${t}/browse/..`, 400],
    [`/api/share/${t}/browse/../Docs-secret`, 400],
    [`/api/share/${t}/browse/%2e%2e/Docs-secret`, 400],
    [`/api/share/${t}/browse/%252e%252e/Docs-secret`, 400],
    [`/api/share/${t}/browse/sub%2f..%2f..%2fDocs-secret`, 400],
    [`/api/share/${t}/file?path=../Docs-secret/key.txt`, 400],
    [`/api/share/${t}/file?path=..%2FDocs-secret%2Fkey.txt`, 400],
    [`/api/share/${t}/file?path=%2e%2e/Docs-secret/key.txt`, 400],
    [`/api/share/${t}/file?path=/etc/passwd`, 404],
    [`/api/share/${t}/download/..%2FDocs-secret`, 400],
    [`/api/share/${t}/editor?path=../Docs-secret/key.txt`, 400],
    [`/api/share/${t}-secret/browse/`, 404],
    [`/api/share/${t}/file?path=out-file.txt`, 403],
    [`/api/share/${t}/browse/out-dir`, 403],
    [`/api/share/${t}/download/out-dir`, 403],
    [`/api/share/${t}/editor?path=out-file.txt`, 403],
  ] as const;
  for (const [p, expected] of probes) {
    const r = await a.raw(p);
    assert.is(r.status, expected, `${p} answered ${r.status}`);
    assert.not.ok(r.text.includes('secret') && !r.text.includes('error'), p);
  }
  for (const [body, expected] of [
    [{ paths: ['../Docs-secret'] }, 400],
    [{ paths: ['out-dir'] }, 403],
    [{ paths: ['sub/../../Docs-secret/key.txt'] }, 400],
  ] as const) {
    const r = await a.post(`/api/share/${t}/download`, body);
    assert.is(r.status, expected, JSON.stringify(body));
  }
  // The share space is the link's alone: a link caller's paths never reach a volume.
  const other = await a.post(`/api/share/${t}/files/folder`, { path: '../Other', name: 'x' });
  assert.is(other.status, 400);
  assert.not.ok(fs.existsSync(path.join(s.dirs.volumes, 'Other', 'x')));
  // Signed-in callers through the API's own routes: the same confinement.
  assert.is((await bob.get(`/api/browse/share/${t}/out-dir`)).status, 403);
  assert.is((await bob.raw(`/api/browse/share/${t}/..`)).status, 400);
  assert.is((await bob.get(`/api/browse/share/${t}/sub`)).status, 200);
});

test('a flag-less link refuses every write route; what it refuses leaves nothing behind', async () => {
  const t = (await share(alice, { sourcePath: 'Files/Docs', sharingType: 'anyone', accessMode: 'readonly' }))
    .shareToken;
  const a = anon();
  const form = new FormData();
  form.append('uploadTo', `share/${t}`);
  form.append('relativePath', 'up.txt');
  form.append('filedata', new Blob(['x']), 'up.txt');
  const attempts = [
    await a.post(`/api/share/${t}/files/folder`, { path: '', name: 'new' }),
    await a.post(`/api/share/${t}/files/file`, { path: '', name: 'new.txt' }),
    await a.post(`/api/share/${t}/files/rename`, { path: '', name: 'a.txt', newName: 'b.txt' }),
    await a.delete(`/api/share/${t}/files`, { items: [{ path: '', name: 'a.txt' }] }),
    await a.put(`/api/share/${t}/editor`, { path: 'a.txt', content: 'changed' }),
    await a.request('POST', `/api/share/${t}/upload`, form),
    // Through the API's own routes with the link's path: the same flags.
    await bob.post('/api/files/folder', { path: `share/${t}`, name: 'new' }),
    await bob.post('/api/files/rename', { path: `share/${t}`, name: 'a.txt', newName: 'b.txt' }),
    await bob.delete('/api/files', { items: [{ path: `share/${t}`, name: 'a.txt' }] }),
    await bob.put('/api/editor', { path: `share/${t}/a.txt`, content: 'changed' }),
  ];
  for (const r of attempts) {
    assert.is(r.status, 403, r.text);
    envelope(r);
  }
  const docs = path.join(s.dirs.volumes, 'Files', 'Docs');
  assert.equal(fs.readdirSync(docs).sort(), ['a.txt', 'out-dir', 'out-file.txt', 'page.html', 'pic.svg', 'sub']);
  assert.is(fs.readFileSync(path.join(docs, 'a.txt'), 'utf8'), 'hello');
});

test("a writable link: create, rename, delete to the owner's trash, and an editor save kept as a version", async () => {
  fs.mkdirSync(path.join(s.dirs.volumes, 'Files', 'Work'));
  fs.writeFileSync(path.join(s.dirs.volumes, 'Files', 'Work', 'notes.txt'), 'v1');
  const created = await share(alice, { sourcePath: 'Files/Work', sharingType: 'anyone', accessMode: 'readwrite' });
  const t = created.shareToken;
  const a = anon();
  assert.is((await a.post(`/api/share/${t}/files/folder`, { path: '', name: 'made' })).status, 201);
  const f = await a.post(`/api/share/${t}/files/file`, { path: 'made', name: 'x.txt', content: 'x' });
  assert.is(f.status, 201, f.text);
  assert.is((await a.post(`/api/share/${t}/files/file`, { path: 'made', name: 'x.txt' })).json.item.name, 'x (1).txt');
  assert.is(
    (await a.post(`/api/share/${t}/files/rename`, { path: 'made', name: 'x.txt', newName: 'y.txt' })).status,
    200,
  );
  const read = await a.get(`/api/share/${t}/editor?path=notes.txt`);
  assert.is(read.status, 200);
  assert.is(read.json.content, 'v1');
  const etag = read.headers.get('etag')!;
  assert.is((await a.get(`/api/share/${t}/editor?path=notes.txt`, { 'if-none-match': etag })).status, 304);
  const saved = await a.put(`/api/share/${t}/editor`, { path: 'notes.txt', content: 'v2' });
  assert.is(saved.status, 200, saved.text);
  assert.is(fs.readFileSync(path.join(s.dirs.volumes, 'Files', 'Work', 'notes.txt'), 'utf8'), 'v2');
  const versions = await alice.get(`/api/versions?path=${encodeURIComponent('Files/Work/notes.txt')}`);
  assert.ok(
    JSON.stringify(versions.json).includes('"id"'),
    `the owner sees the replaced text as a version: ${versions.text.slice(0, 300)}`,
  );
  // The ETag changes with the link's flags, not only with the file.
  const before = (await a.get(`/api/share/${t}/editor?path=notes.txt`)).headers.get('etag')!;
  await alice.put(`/api/shares/${created.id}`, { allowEdit: false });
  const after = await a.get(`/api/share/${t}/editor?path=notes.txt`, { 'if-none-match': before });
  assert.is(after.status, 200);
  assert.is.not(after.headers.get('etag'), before);
  await alice.put(`/api/shares/${created.id}`, { allowEdit: true });
  const del = await a.delete(`/api/share/${t}/files`, { items: [{ path: 'made', name: 'y.txt' }] });
  assert.is(del.status, 200, del.text);
  const trash = await alice.get('/api/trash');
  assert.ok(trash.text.includes('y.txt'), `the owner's trash holds it: ${trash.text.slice(0, 300)}`);
  assert.not.ok(
    fs.existsSync(path.join(s.dirs.volumes, 'Files', 'Work', '.burrow')),
    'no trash inside the shared folder',
  );
  // The shared folder itself cannot be deleted or renamed through its link.
  assert.is((await a.delete(`/api/share/${t}/files`, { items: [{ path: '', name: '' }] })).status, 400);
});

test('a file share gives that file only; active types come as attachment with nosniff', async () => {
  const t = (await share(alice, { sourcePath: 'Files/single.txt', sharingType: 'anyone' })).shareToken;
  const a = anon();
  const one = await a.get(`/api/share/${t}/file`);
  assert.is(one.status, 200);
  assert.is(one.text, 'only me');
  for (const [p, expected] of [
    [`/api/share/${t}/file?path=top.txt`, 404],
    [`/api/share/${t}/file?path=../top.txt`, 400],
    [`/api/share/${t}/browse/top.txt`, 404],
    [`/api/share/${t}/download/top.txt`, 404],
    [`/api/share/${t}/editor?path=../top.txt`, 400],
  ] as const) {
    const r = await a.get(p);
    assert.is(r.status, expected, `${p} answered ${r.status}`);
    assert.not.ok(r.text.includes('parent file'));
  }
  assert.is((await bob.raw(`/api/browse/share/${t}/..`)).status, 400);
  const d = (await share(alice, { sourcePath: 'Files/Docs', sharingType: 'anyone' })).shareToken;
  for (const name of ['page.html', 'pic.svg']) {
    for (const mode of ['inline', 'raw', 'download']) {
      const r = await a.get(`/api/share/${d}/file?path=${name}&mode=${mode}`);
      assert.is(r.status, 200);
      assert.ok(r.headers.get('content-disposition')!.startsWith('attachment'), `${name} ${mode}`);
      assert.is(r.headers.get('x-content-type-options'), 'nosniff');
    }
  }
  const preview = await a.get(`/api/share/${d}/file?path=a.txt&mode=inline`);
  assert.ok(preview.headers.get('content-security-policy')!.includes('sandbox'));
  const zip = await a.get(`/api/share/${d}/download/sub`);
  assert.is(zip.status, 200);
  assert.is(zip.headers.get('content-type'), 'application/zip');
});

test('users shares: only the named accounts, signed in; shared-with-me in the native shape', async () => {
  const carol = await createUser(admin, s, { username: 'carol', password: 'carol-password-1' });
  const created = await share(alice, {
    sourcePath: 'Files/Docs',
    sharingType: 'users',
    userIds: [bobId],
    accessMode: 'readonly',
  });
  const t = created.shareToken;
  assert.is((await bob.get(`/api/share/${t}/browse/`)).status, 200);
  assert.is((await bob.get(`/api/browse/share/${t}`)).status, 200);
  assert.is((await carol.get(`/api/share/${t}/browse/`)).status, 404);
  assert.is((await carol.get(`/api/browse/share/${t}`)).status, 404);
  assert.is((await anon().get(`/api/share/${t}/browse/`)).status, 401);
  assert.is((await anon().get(`/api/share/${t}/file?path=a.txt`)).status, 401);
  const mine = (await bob.get('/api/shares/shared-with-me')).json.shares;
  const row = mine.find((x: any) => x.id === created.id);
  assert.ok(row);
  assert.is(row.sourceName, 'Docs');
  assert.is(row.sourcePath, undefined);
  assert.is((await carol.get('/api/shares/shared-with-me')).json.shares.length, 0);
  const users = (await alice.get('/api/users/shareable')).json.users;
  assert.ok(users.some((u: any) => u.id === bobId) && users.every((u: any) => typeof u.username === 'string'));
});

test('password links: a visitor session scoped to the link, ended by a password change; brute force answers 429', async () => {
  const created = await share(alice, { sourcePath: 'Files/Docs', sharingType: 'anyone', password: 'open sesame' });
  const t = created.shareToken;
  const v = anon();
  assert.is((await v.get(`/api/share/${t}/info`)).json.hasPassword, true);
  const locked = await v.get(`/api/share/${t}/browse/`);
  assert.is(locked.status, 403);
  assert.is(envelope(locked).code, 'LINK_PASSWORD_REQUIRED');
  const ok = await v.post(`/api/share/${t}/access`, { password: 'open sesame' });
  assert.is(ok.status, 204, ok.text);
  const cookie = ok.headers.getSetCookie()[0]!;
  assert.match(cookie, new RegExp(`Path=/api/share/${t}`));
  assert.match(cookie, /HttpOnly/i);
  assert.is((await v.get(`/api/share/${t}/browse/`)).status, 200);
  // Another link does not accept this link's session.
  const other = (await share(alice, { sourcePath: 'Files/Docs', sharingType: 'anyone', password: 'open sesame' }))
    .shareToken;
  assert.is(
    (
      await new Client(s.url).get(`/api/share/${other}/browse/`, {
        cookie: `burrow_link=${v.cookies.get('burrow_link')}`,
      })
    ).status,
    403,
  );
  await alice.put(`/api/shares/${created.id}`, { password: 'new secret' });
  assert.is((await v.get(`/api/share/${t}/browse/`)).status, 403);
  const attacker = anon();
  const statuses: number[] = [];
  for (let i = 0; i < 14; i++)
    statuses.push((await attacker.post(`/api/share/${t}/access`, { password: `guess-${i}` })).status);
  assert.ok(statuses.includes(429), statuses.join(','));
  assert.ok(statuses.slice(0, 5).every((x) => x === 403));
  const refused = await attacker.post(`/api/share/${t}/access`, { password: 'new secret' });
  assert.is(refused.status, 429);
});

test('bindings: a share follows its item across rename and move and goes with its deletion; delete-impact counts it', async () => {
  fs.mkdirSync(path.join(s.dirs.volumes, 'Files', 'Moving'));
  fs.writeFileSync(path.join(s.dirs.volumes, 'Files', 'Moving', 'm.txt'), 'm');
  const created = await share(alice, { sourcePath: 'Files/Moving', sharingType: 'anyone' });
  const t = created.shareToken;
  const impact = await alice.post('/api/files/delete-impact', { items: [{ path: 'Files', name: 'Moving' }] });
  assert.ok(impact.json.shareCount >= 1, impact.text);
  assert.is((await alice.post('/api/files/rename', { path: 'Files', name: 'Moving', newName: 'Moved' })).status, 200);
  assert.is((await anon().get(`/api/share/${t}/file?path=m.txt`)).text, 'm');
  let mine = (await alice.get('/api/shares')).json.shares;
  assert.is(mine.find((x: any) => x.id === created.id).sourcePath, 'Files/Moved');
  const moved = await alice.post('/api/files/move', {
    items: [{ path: 'Files', name: 'Moved' }],
    destination: 'Other',
  });
  assert.is(moved.status, 200, moved.text);
  mine = (await alice.get('/api/shares')).json.shares;
  assert.is(mine.find((x: any) => x.id === created.id).sourcePath, 'Other/Moved');
  assert.is((await anon().get(`/api/share/${t}/file?path=m.txt`)).text, 'm');
  assert.is((await alice.delete('/api/files', { items: [{ path: 'Other', name: 'Moved' }] })).status, 200);
  mine = (await alice.get('/api/shares')).json.shares;
  assert.not.ok(mine.some((x: any) => x.id === created.id));
  assert.is((await anon().get(`/api/share/${t}/info`)).status, 404);
});

test.run();
