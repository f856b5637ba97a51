// A volume's own limits are part of the one access model: the explainer ("what can X do here,
// and what decides") answers what a request of X meets, in a read-only volume (Administration →
// Volumes) and in a volume assigned to some accounts (USER_VOLUMES) — for an administrator, a
// member, a group member, an account the volume is not one of, a read token — and a link gives
// its holder no more than the explainer says its creator has. Each verb (see, download, write,
// delete, share) is asked of the explainer and then tried for real; a refusal leaves the disk as
// it was.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { createUser, issueToken, me, setupAdmin } from '../support/auth.ts';
import { type Can, done, nextTry, outcomes } from '../support/access.ts';

const ARCHIVE = 'Archive 2024 & Co #1'; // a read-only host volume
const DESK = 'Désk + Notes 🗂'; // a host folder assigned to otto (read-write) and ria (read-only)
const REPORTS = "Reports 'Q1' %20";
const PLANS = 'Plans & Ideas';
const GROUP = 'Office & Co';

let s: TestServer;
let host: string;
let admin: Client;
let mia: Client; // a member
let gus: Client; // a member of the group
let otto: Client; // given the desk: the archive is not one of his volumes
let ria: Client; // given the desk read-only, a member of the group
const ids: Record<string, string> = {};

const q = (p: string) => encodeURIComponent(p);
const enc = (p: string) => p.split('/').map(q).join('/');

test.before(async () => {
  s = await startServer({ volumes: ['Home'], env: { USER_VOLUMES: 'true' } });
  host = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-volume-limits-'));
  for (const [dir, file] of [
    [path.join(host, 'archive', REPORTS), 'q1 résumé.txt'],
    [path.join(host, 'desk', PLANS), 'plan #1.txt'],
  ] as const) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, file), `the bytes of ${file}`);
  }
  admin = await setupAdmin(s);
  const added = await admin.post('/api/admin/volumes', {
    label: ARCHIVE,
    path: path.join(host, 'archive'),
    accessMode: 'readonly',
  });
  assert.is(added.status, 201, added.text);
  mia = await createUser(admin, s, { username: 'mia', password: 'mia-password-1' });
  gus = await createUser(admin, s, { username: 'gus', password: 'gus-password-1' });
  otto = await createUser(admin, s, { username: 'otto', password: 'otto-password-1' });
  ria = await createUser(admin, s, { username: 'ria', password: 'ria-password-1' });
  for (const [name, c] of Object.entries({ admin, mia, gus, otto, ria })) ids[name] = (await me(c)).id;
  for (const [who, mode] of [
    ['otto', 'readwrite'],
    ['ria', 'readonly'],
  ] as const) {
    const given = await admin.post(`/api/users/${ids[who]}/volumes`, {
      label: DESK,
      path: path.join(host, 'desk'),
      accessMode: mode,
    });
    assert.is(given.status, 201, given.text);
  }
  const group = await admin.post('/api/access/groups', { name: GROUP });
  assert.is(group.status, 201, group.text);
  for (const who of ['gus', 'ria'])
    assert.is(
      (await admin.post(`/api/access/groups/${group.json.group.id}/members`, { userId: ids[who] })).status,
      204,
    );
  // The group may write in both places: the volumes still say read-only where they are.
  for (const p of [`${ARCHIVE}/${REPORTS}`, `${DESK}/${PLANS}`]) {
    const rule = await admin.put('/api/access/rules', {
      path: p,
      subject: { kind: 'group', id: group.json.group.id },
      level: 'write',
    });
    assert.is(rule.status, 200, rule.text);
  }
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
  fs.rmSync(host, { recursive: true, force: true });
});

/** What a link's holder can do with a read-write link to `folder` made by `by`. */
async function linkOutcomes(by: Client, folder: string, real: string, file: string): Promise<Can> {
  const made = await by.post('/api/shares', { sourcePath: folder, sharingType: 'anyone', accessMode: 'readwrite' });
  assert.is(made.status, 201, made.text);
  const t = made.json.shareToken;
  const holder = new Client(s.url);
  const n = nextTry();
  const see = done(await holder.get(`/api/share/${t}/browse/`), 'link: see');
  const download = done(await holder.get(`/api/share/${t}/download/${q(file)}`), 'link: download');
  const name = `from the link #${n}.txt`;
  const write = done(await holder.post(`/api/share/${t}/files/file`, { path: '', name, content: 'x' }), 'link: write');
  assert.is(fs.existsSync(path.join(real, name)), write);
  if (write) fs.rmSync(path.join(real, name));
  const victim = `link victim #${n}.txt`;
  fs.writeFileSync(path.join(real, victim), 'keep me');
  const del = done(
    await holder.delete(`/api/share/${t}/files`, { items: [{ path: '', name: victim }] }),
    'link: delete',
  );
  assert.is(fs.existsSync(path.join(real, victim)), !del);
  if (!del) fs.rmSync(path.join(real, victim));
  // A link holder makes no links of its own.
  return { see, download, write, delete: del, share: false };
}

const explain = (c: Client, p: string, userId?: string) =>
  c.get(`/api/access/explain?path=${q(p)}${userId ? `&userId=${userId}` : ''}`);

const NOTHING: Can = { see: false, download: false, write: false, delete: false, share: false };

test('a read-only volume: the explainer says read, and each verb does what it says', async () => {
  const folder = `${ARCHIVE}/${REPORTS}`;
  const real = path.join(host, 'archive', REPORTS);
  const file = 'q1 résumé.txt';
  const readToken = new Client(s.url, await issueToken(mia, 'read', { password: 'mia-password-1' }));
  const rows: [string, Client, Record<string, unknown>][] = [
    ['admin', admin, { level: 'read', ruleLevel: 'manage', decidedBy: 'volume', limit: 'volume-read-only' }],
    ['mia', mia, { level: 'read', ruleLevel: 'manage', decidedBy: 'volume', limit: 'volume-read-only' }],
    ['gus', gus, { level: 'read', ruleLevel: 'write', decidedBy: 'volume', limit: 'volume-read-only' }],
    ['mia (read token)', readToken, { level: 'read', ruleLevel: 'manage', decidedBy: 'volume' }],
  ];
  for (const [who, c, expected] of rows) {
    const e = await explain(c, folder);
    assert.is(e.status, 200, `${who}: ${e.text}`);
    for (const [k, v] of Object.entries(expected)) assert.equal(e.json[k], v, `${who}: ${k}`);
    assert.equal(
      await outcomes(c, folder, real, { file, shared: `${folder}/${file}` }),
      e.json.can,
      `${who}: the explainer's answer is the requests'`,
    );
  }
  // What the rules take away stays theirs to say: the group's write gives no share, a manager shares.
  assert.is((await explain(mia, folder)).json.can.share, true);
  assert.is((await explain(gus, folder)).json.can.share, false);

  // otto was given the desk: the archive is not one of his volumes.
  assert.is((await explain(otto, folder)).status, 404);
  const forOtto = (await explain(admin, folder, ids.otto)).json;
  assert.equal([forOtto.level, forOtto.decidedBy, forOtto.limit], ['hidden', 'volume', 'not-their-volume']);
  assert.equal(forOtto.can, NOTHING);
  assert.equal(await outcomes(otto, folder, real, { file, shared: `${folder}/${file}` }), NOTHING);

  // Administration's view of each account is the account's own.
  const who = (await admin.get(`/api/access/who?path=${q(folder)}`)).json;
  for (const name of ['mia', 'gus', 'otto']) {
    const row = who.accounts.find((a: any) => a.account.username === name);
    const own = (await explain(admin, folder, ids[name])).json;
    assert.equal([row.level, row.limit, row.can], [own.level, own.limit, own.can], name);
  }

  // A read-write link of mia's: no more than the explainer says mia has.
  const link = await linkOutcomes(mia, folder, real, file);
  const hers = (await explain(mia, folder)).json.can;
  assert.equal(link, { ...hers, share: false });
  assert.is(link.write, false);
});

test('an assigned volume: its accounts as assigned, everyone else not at all', async () => {
  const folder = `${DESK}/${PLANS}`;
  const real = path.join(host, 'desk', PLANS);
  const file = 'plan #1.txt';
  const ottoRead = new Client(s.url, await issueToken(otto, 'read', { password: 'otto-password-1' }));
  const rows: [string, Client, Record<string, unknown>][] = [
    ['otto', otto, { level: 'manage', ruleLevel: 'manage', decidedBy: 'default', limit: null }],
    ['ria', ria, { level: 'read', ruleLevel: 'write', decidedBy: 'volume', limit: 'volume-read-only' }],
    ['otto (read token)', ottoRead, { level: 'read', ruleLevel: 'manage', decidedBy: 'token', limit: 'read-token' }],
  ];
  for (const [who, c, expected] of rows) {
    const e = await explain(c, folder);
    assert.is(e.status, 200, `${who}: ${e.text}`);
    for (const [k, v] of Object.entries(expected)) assert.equal(e.json[k], v, `${who}: ${k}`);
    assert.equal(
      await outcomes(c, folder, real, { file, shared: `${folder}/${file}` }),
      e.json.can,
      `${who}: the explainer's answer is the requests'`,
    );
  }
  assert.equal((await explain(otto, folder)).json.can, {
    see: true,
    download: true,
    write: true,
    delete: true,
    share: true,
  });
  assert.equal((await explain(ottoRead, folder)).json.can, {
    see: true,
    download: true,
    write: false,
    delete: false,
    share: false,
  });

  // Not one of theirs: the administrator, a member, a group member without it.
  const admins = (await explain(admin, folder)).json;
  assert.equal([admins.level, admins.decidedBy, admins.limit], ['hidden', 'volume', 'not-their-volume']);
  assert.equal(await outcomes(admin, folder, real, { file, shared: `${folder}/${file}` }), NOTHING);
  for (const [name, c] of [
    ['mia', mia],
    ['gus', gus],
  ] as const) {
    assert.is((await explain(c, folder)).status, 404, name);
    const e = (await explain(admin, folder, ids[name])).json;
    assert.equal([e.level, e.limit, e.can], ['hidden', 'not-their-volume', NOTHING], name);
    assert.equal(await outcomes(c, folder, real, { file, shared: `${folder}/${file}` }), NOTHING, name);
  }

  // otto's read-write link does what he may; the explainer for him says so.
  assert.equal(await linkOutcomes(otto, folder, real, file), {
    ...(await explain(otto, folder)).json.can,
    share: false,
  });
  // ria may not share here (her rules give write): no link of hers to hold.
  assert.is(
    (await ria.post('/api/shares', { sourcePath: folder, sharingType: 'anyone', accessMode: 'readwrite' })).status,
    403,
  );
});

test('a read token: the resolver itself says no share, and a link it asks for is refused with nothing made', async () => {
  const folder = `Home/${REPORTS}`;
  const file = 'q1 résumé.txt';
  fs.mkdirSync(path.join(s.dirs.volumes, 'Home', REPORTS), { recursive: true });
  fs.writeFileSync(path.join(s.dirs.volumes, 'Home', REPORTS, file), 'the bytes');
  const read = new Client(s.url, await issueToken(mia, 'read', { password: 'mia-password-1', name: 'read #2' }));
  const write = new Client(s.url, await issueToken(mia, 'write', { password: 'mia-password-1', name: 'write #2' }));
  // What the folder's own listing says (the UI's share button follows it).
  const listed = async (c: Client) => {
    const r = await c.get(`/api/browse/${enc(folder)}`);
    assert.is(r.status, 200, r.text);
    return r.json.access.canShare;
  };
  assert.is(await listed(read), false, 'a read token is told it may not share');
  assert.is(await listed(write), true, 'a write token of the same account may');
  assert.is(await listed(mia), true, 'and so may her session');
  const e = (await explain(read, folder)).json;
  assert.equal([e.level, e.decidedBy, e.limit, e.can.share], ['read', 'token', 'read-token', false]);

  const before = (await mia.get('/api/shares')).json.shares.length;
  for (const sourcePath of [folder, `${folder}/${file}`]) {
    const refused = await read.post('/api/shares', { sourcePath, sharingType: 'anyone' });
    assert.is(refused.status, 403, refused.text);
    assert.is(envelope(refused).code, 'AUTH_TOKEN_READ_ONLY');
  }
  assert.is((await mia.get('/api/shares')).json.shares.length, before, 'no link was made');
});

test.run();
