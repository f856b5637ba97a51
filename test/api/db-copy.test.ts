// `burrow db copy`: an installation made on the embedded SQLite (accounts with accented names,
// a password-protected share link, an API token, versions, notification choices, a folder of
// names with quotes, emoji and +) is copied into an empty PostgreSQL database by the program
// itself, then Burrow started on PostgreSQL serves it: the same sign-in, the link opens, the
// token works, the versions are there. burrow.db is only read; a second copy into the now
// filled database is refused and changes nothing; an unreachable server is said plainly.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, issueToken, me, setupAdmin, signIn } from '../support/auth.ts';
import { Client } from '../support/client.ts';
import { testPostgres, type TestPostgres } from '../support/postgres.ts';
import { makeDirs, removeDirs, serverCommand, startServer, type TestDirs } from '../support/server.ts';

let server: TestPostgres;
let dirs: TestDirs;

test.before(async () => {
  server = await testPostgres();
  dirs = makeDirs();
});
const closers: (() => Promise<void>)[] = [];
test.after(async () => {
  for (const close of closers) await close();
  removeDirs(dirs);
});

function burrow(args: string[], env: Record<string, string>) {
  const c = serverCommand();
  const r = spawnSync(c.file, [...c.args, ...args], { env: { ...c.env, ...env }, encoding: 'utf8', timeout: 180_000 });
  return { status: r.status, out: r.stdout + r.stderr };
}

async function rows<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

const FOLDER = 'Zoë’s “Reisen” & Fotos #1 + 100% 🦔';
const NOTE = 'Crème brûlée — Rezept für 4 Personen.txt';
const ZOE = { username: 'Zoë.Ångström', email: 'zoe.angstrom@example.org', password: 'ein langer Satz 1' };
const JOSE = { username: 'josé.núñez', email: 'jose.nunez@example.org', password: 'otra frase larga 2' };
const PREFS = { kinds: ['folder.uploaded', 'share.received'], destinations: [], folders: [`Files/${FOLDER}`] };

test('data made on SQLite, copied with `burrow db copy`, is served by Burrow on PostgreSQL', async () => {
  // 1. A real installation on the embedded database.
  fs.mkdirSync(path.join(dirs.volumes, 'Files', FOLDER), { recursive: true });
  fs.writeFileSync(path.join(dirs.volumes, 'Files', FOLDER, NOTE), 'Zucker, Sahne, Eigelb\n');
  const s = await startServer({ dirs, env: { DATABASE_URL: '' } });
  closers.push(() => s.close());
  const admin = await setupAdmin(s);
  assert.is((await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 30 } })).status, 200);
  const zoe = await createUser(admin, s, { ...ZOE, displayName: 'Zoë Ångström 🦔' });
  await createUser(admin, s, JOSE);
  const zoeId = (await me(zoe)).id;
  const notePath = `Files/${FOLDER}/${NOTE}`;
  for (const content of ['Zucker, Sahne, Eigelb, Vanille\n', 'Zucker, Sahne, Eigelb, Vanilleschote\n'])
    assert.is((await admin.put('/api/editor', { path: notePath, content })).status, 200);
  const versions = (await admin.get(`/api/versions?path=${encodeURIComponent(notePath)}`)).json.items as unknown[];
  assert.is(versions.length, 2);
  const link = await admin.post('/api/shares', {
    sourcePath: `Files/${FOLDER}`,
    accessMode: 'readonly',
    sharingType: 'anyone',
    userIds: [],
    password: 'Geheimnis & Kuchen',
    expiresAt: '2099-01-15T10:00:00Z',
  });
  assert.is(link.status, 201, link.text);
  const token = await issueToken(zoe, 'read', { name: 'Zoë’s iPhone 📱', password: ZOE.password });
  const prefsSet = await zoe.put('/api/notify/prefs', { ...PREFS, timeZone: 'Europe/Berlin' });
  assert.is(prefsSet.status, 200, prefsSet.text);
  const prefsBefore = (await zoe.get('/api/notify/prefs')).json.prefs;
  const activityBefore = (await admin.get('/api/activity')).json.rows.length as number;
  assert.ok(activityBefore > 3, `${activityBefore} activity rows`);
  await s.close();

  const file = path.join(dirs.config, 'burrow.db');
  const before = sha256(file);
  const url = await server.database();
  const env = { CONFIG_DIR: dirs.config, CACHE_DIR: dirs.cache, VOLUME_ROOT: dirs.volumes };

  // 2. Copied by the program.
  const copied = burrow(['db', 'copy', '--to', url], env);
  assert.is(copied.status, 0, copied.out);
  assert.match(copied.out, /Copied \d+ row\(s\) in \d+ tables; the row counts match\./);
  assert.match(copied.out, /\n {2}users +3\n/);
  assert.is(sha256(file), before, 'burrow.db is only read');
  assert.equal(
    fs.readdirSync(dirs.config).filter((f) => f.startsWith('.burrow-copy')),
    [],
    'its temporary copy is gone',
  );
  const names = await rows<{ username: string; display_name: string | null }>(
    url,
    'SELECT username, display_name FROM users ORDER BY username',
  );
  assert.equal(
    names.map((r) => r.username),
    ['admin', 'josé.núñez', 'Zoë.Ångström'],
  );
  // The log's ids go on after the copied ones.
  const ids = await rows<{ id: string }>(url, 'SELECT id FROM activity ORDER BY id');
  assert.is(ids.length, activityBefore);

  // 3. A second copy into the filled database is refused, and leaves it as it was.
  const again = burrow(['db', 'copy'], { ...env, DATABASE_URL: url });
  assert.is(again.status, 1, again.out);
  assert.match(again.out, /is not empty: it has \d+ table\(s\) \(.*\)\. db copy fills an empty database only/);
  assert.match(again.out, /nothing was changed/);
  assert.not.match(again.out, /Copied/);
  assert.is((await rows(url, 'SELECT id FROM users')).length, 3);

  // 4. Burrow on PostgreSQL, same folders: everything made on SQLite is there.
  const p = await startServer({ dirs, env: { DATABASE_URL: url } });
  closers.push(() => p.close());
  {
    const zoeAgain = await signIn(p, 'ZOË.ÅNGSTRÖM', ZOE.password);
    assert.is((await me(zoeAgain)).id, zoeId);
    assert.is((await signIn(p, JOSE.username, JOSE.password)).constructor, Client);
    const byToken = await new Client(p.url, token).get('/api/auth/me');
    assert.is(byToken.status, 200, byToken.text);
    assert.is(byToken.json.user.username, ZOE.username);
    assert.equal((await zoeAgain.get('/api/notify/prefs')).json.prefs, prefsBefore);
    const anon = new Client(p.url);
    const info = await anon.get(`/api/share/${link.json.shareToken}/info`);
    assert.is(info.status, 200, info.text);
    assert.is(info.json.hasPassword, true);
    const opened = await anon.post(`/api/share/${link.json.shareToken}/access`, { password: 'Geheimnis & Kuchen' });
    assert.is(opened.status, 204, opened.text);
    const listed = await anon.get(`/api/share/${link.json.shareToken}/browse/`);
    assert.is(listed.status, 200, listed.text);
    assert.equal(
      listed.json.items.map((i: { name: string }) => i.name),
      [NOTE],
    );
    const adminAgain = await signIn(p, 'admin', 'admin-password-1');
    const kept = (await adminAgain.get(`/api/versions?path=${encodeURIComponent(notePath)}`)).json.items;
    assert.equal(kept, versions);
    // New rows on PostgreSQL follow the copied ones (the identity goes on after them).
    assert.is(
      (await adminAgain.put('/api/editor', { path: notePath, content: 'Zucker, Sahne, Eigelb, Rum\n' })).status,
      200,
    );
    const log = (await adminAgain.get('/api/activity')).json.rows as { id: string }[];
    assert.ok(log.length > activityBefore, `${log.length} rows after ${activityBefore}`);
    assert.is(new Set(log.map((r) => r.id)).size, log.length);
  }
  // While a Burrow runs with this config folder, nothing is copied.
  const busy = burrow(['db', 'copy', '--to', await server.database()], env);
  assert.is(busy.status, 1, busy.out);
  assert.match(busy.out, /Another Burrow \(pid \d+.*\) is already running with this config folder .*; stop it first\./);
  await p.close();
});

test('PostgreSQL that cannot be reached, or no target named: a clear message, nothing touched', () => {
  const env = { CONFIG_DIR: dirs.config, CACHE_DIR: dirs.cache, VOLUME_ROOT: dirs.volumes };
  const file = path.join(dirs.config, 'burrow.db');
  const before = sha256(file);
  const down = burrow(['db', 'copy', '--to', 'postgres://burrow:s3cret@127.0.0.1:1/burrow'], env);
  assert.is(down.status, 1, down.out);
  assert.match(
    down.out,
    /burrow db copy: postgres:\/\/burrow:\*\*\*@127\.0\.0\.1:1\/burrow cannot be reached/,
    down.out,
  );
  assert.not.match(down.out, /s3cret/);
  const none = burrow(['db', 'copy'], { ...env, DATABASE_URL: '' });
  assert.is(none.status, 2, none.out);
  assert.match(none.out, /name the PostgreSQL database with --to or DATABASE_URL/);
  assert.is(sha256(file), before);
});

test.run();
