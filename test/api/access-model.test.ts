// The access model: groups (Administration → Groups), per-folder rules for an account, a group
// or everyone — hidden, view, read, write, manage — inherited down the tree, the nearest rule
// winning and a deny beating an allow at the same folder; the explainer and the folder's "Who
// has access"; and the migration of the previous release's installation-wide rules.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/db/database.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, serverMode, startServer, type TestServer } from '../support/server.ts';
import { createUser, issueToken, me, setupAdmin } from '../support/auth.ts';

const HOME = 'Family Home';
const PHOTOS = 'Photos 2024 & Summer 🌞';
const FINANCES = 'Finances #taxes 100%';
const ALLOWANCE = "Kids' allowance";
const DIARY = 'Café — notes'.normalize('NFD'); // on disk as a Mac writes it; rules are typed in NFC
const GROUP = 'Kids & Teens';

let s: TestServer;
let admin: Client;
let maya: Client; // the child
let sam: Client; // a parent, not an administrator
let mayaId: string;
let samId: string;

const q = (p: string) => encodeURIComponent(p);
const browse = (c: Client, p: string) => c.get(`/api/browse/${p.split('/').map(q).join('/')}`);
const names = async (c: Client, p: string): Promise<string[]> => {
  const r = await browse(c, p);
  assert.is(r.status, 200, r.text);
  return r.json.items.map((i: { name: string }) => i.name);
};

test.before(async () => {
  s = await startServer({ volumes: [HOME, 'Media'] });
  const home = path.join(s.dirs.volumes, HOME);
  fs.mkdirSync(path.join(home, PHOTOS), { recursive: true });
  fs.writeFileSync(path.join(home, PHOTOS, 'beach +1 day.jpg'), 'jpeg bytes of the beach');
  fs.mkdirSync(path.join(home, FINANCES, ALLOWANCE), { recursive: true });
  fs.writeFileSync(path.join(home, FINANCES, 'salary 2024.pdf'), 'the family salary');
  fs.writeFileSync(path.join(home, FINANCES, ALLOWANCE, 'weekly.txt'), 'five euros a week');
  fs.mkdirSync(path.join(home, DIARY));
  admin = await setupAdmin(s);
  maya = await createUser(admin, s, { username: 'maya', password: 'maya-password-1' });
  sam = await createUser(admin, s, { username: 'sam', password: 'sam-password-1' });
  mayaId = (await me(maya)).id;
  samId = (await me(sam)).id;
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

async function setRule(
  by: Client,
  p: string,
  subject: { kind: string; id?: string },
  level: string,
  inherit?: boolean,
) {
  return by.put('/api/access/rules', { path: p, subject, level, ...(inherit === undefined ? {} : { inherit }) });
}

test('groups: create, rename, members, delete; names unique whatever their case; administrators only', async () => {
  const created = await admin.post('/api/access/groups', { name: GROUP });
  assert.is(created.status, 201, created.text);
  const id = created.json.group.id;
  const taken = await admin.post('/api/access/groups', { name: GROUP.toUpperCase() });
  assert.is(taken.status, 409);
  assert.is(envelope(taken).code, 'GROUP_NAME_TAKEN');
  assert.is((await admin.post('/api/access/groups', { name: '   ' })).status, 400);
  const renamed = await admin.patch(`/api/access/groups/${id}`, { name: 'Kinder Ünd Teens' });
  assert.equal(renamed.json.group, { id, name: 'Kinder Ünd Teens' });
  assert.is((await admin.post(`/api/access/groups/${id}/members`, { userId: mayaId })).status, 204);
  assert.is((await admin.post(`/api/access/groups/${id}/members`, { userId: mayaId })).status, 204, 'twice is once');
  assert.is(
    envelope(await admin.post(`/api/access/groups/${id}/members`, { userId: 'nobody' })).code,
    'USER_NOT_FOUND',
  );
  let list = (await admin.get('/api/access/groups')).json.groups;
  assert.equal(
    list.map((g: any) => [g.name, g.members.map((m: any) => m.username)]),
    [['Kinder Ünd Teens', ['maya']]],
  );
  // Not for another account, nor for a token (even an administrator's).
  assert.is((await sam.get('/api/access/groups')).status, 403);
  assert.is((await sam.post('/api/access/groups', { name: 'Parents' })).status, 403);
  const token = new Client(s.url, await issueToken(admin, 'write'));
  assert.is(envelope(await token.post('/api/access/groups', { name: 'Robots' })).code, 'AUTH_TOKEN_NOT_ALLOWED');
  // A deleted group takes its rules along.
  assert.is((await setRule(admin, `${HOME}/${PHOTOS}`, { kind: 'group', id }, 'view')).status, 200);
  assert.is((await admin.delete(`/api/access/groups/${id}`)).status, 204);
  assert.is(envelope(await admin.delete(`/api/access/groups/${id}`)).code, 'GROUP_NOT_FOUND');
  assert.equal((await admin.get('/api/access/rules')).json.rules, []);
  list = (await admin.get('/api/access/groups')).json.groups;
  assert.equal(list, []);
  // Rename then restore the group the next tests use.
  const again = await admin.post('/api/access/groups', { name: GROUP });
  assert.is((await admin.post(`/api/access/groups/${again.json.group.id}/members`, { userId: mayaId })).status, 204);
});

test('one name asked for by many requests at once, through any instance: one group is made or renamed, the others are told the name is taken', async () => {
  const name = 'Onkel Jürgen & Tanten Ève';
  const spellings = [name, name.toUpperCase(), name.toLowerCase()];
  const made = await Promise.all(
    Array.from({ length: 12 }, (_, i) => admin.post('/api/access/groups', { name: spellings[i % 3] })),
  );
  assert.equal(made.map((a) => a.status).sort(), [201, ...Array(11).fill(409)], made.map((a) => a.text).join('\n'));
  for (const a of made.filter((x) => x.status === 409)) assert.is(envelope(a).code, 'GROUP_NAME_TAKEN');
  const groups = async () => (await admin.get('/api/access/groups')).json.groups.map((g: any) => g.name).sort();
  assert.equal((await groups()).filter((g: string) => g.toLowerCase() === name.toLowerCase()).length, 1);
  // Two other groups renamed to one new name at once: one takes it, the other keeps its own.
  const a = (await admin.post('/api/access/groups', { name: 'Nachbarn #1' })).json.group.id;
  const b = (await admin.post('/api/access/groups', { name: 'Nachbarn #2' })).json.group.id;
  const renamed = await Promise.all(
    [a, b, a, b].map((id) => admin.patch(`/api/access/groups/${id}`, { name: 'Nachbarn' })),
  );
  assert.ok(
    renamed.every((r) => r.status === 200 || envelope(r).code === 'GROUP_NAME_TAKEN'),
    renamed.map((r) => r.text).join('\n'),
  );
  const after = await groups();
  assert.ok(after.includes('Nachbarn') && after.some((g: string) => g.startsWith('Nachbarn #')), after.join(', '));
  // A group renamed to its own name in another case is renamed (the name it has is not another's).
  const kept = (await admin.get('/api/access/groups')).json.groups.find((g: any) => g.name.startsWith('Nachbarn #'));
  const same = await admin.patch(`/api/access/groups/${kept.id}`, { name: kept.name.toUpperCase() });
  assert.is(same.status, 200, same.text);
  assert.is(same.json.group.name, kept.name.toUpperCase());
  for (const g of (await admin.get('/api/access/groups')).json.groups)
    if (g.name !== GROUP) assert.is((await admin.delete(`/api/access/groups/${g.id}`)).status, 204);
});

const kidsId = async () =>
  (await admin.get('/api/access/groups')).json.groups.find((g: any) => g.name === GROUP).id as string;

test('hidden: not listed, not reachable by any spelling, not in the explainer of someone else', async () => {
  const kids = await kidsId();
  const r = await setRule(admin, `${HOME}/${FINANCES}`, { kind: 'group', id: kids }, 'hidden');
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.rule.subject, { kind: 'group', id: kids, name: GROUP });
  assert.not.ok((await names(maya, HOME)).includes(FINANCES));
  assert.ok((await names(sam, HOME)).includes(FINANCES), 'sam is not in the group');
  for (const p of [`${HOME}/${FINANCES}`, `${HOME}/${FINANCES}/${ALLOWANCE}`, `${HOME}/${FINANCES}/salary 2024.pdf`]) {
    const b = await browse(maya, p);
    assert.is(b.status, 404, p);
    assert.not.match(b.text, 'salary');
  }
  const dl = await maya.post('/api/download', { path: `${HOME}/${FINANCES}/salary 2024.pdf` });
  assert.is(dl.status, 404);
  assert.not.match(dl.text, 'salary');
  // Her own explainer answers 404 for a folder hidden from her; another's needs a manager.
  assert.is((await maya.get(`/api/access/explain?path=${q(`${HOME}/${FINANCES}`)}`)).status, 404);
  const other = await maya.get(`/api/access/explain?path=${q(`${HOME}/${PHOTOS}`)}&userId=${samId}`);
  assert.is(envelope(other).code, 'ACCESS_NOT_MANAGER');
});

test('view lists and looks, read downloads, neither writes; the disk is unchanged after every refusal', async () => {
  const kids = await kidsId();
  const photos = `${HOME}/${PHOTOS}`;
  assert.is((await setRule(admin, photos, { kind: 'group', id: kids }, 'view')).status, 200);
  assert.equal(await names(maya, photos), ['beach +1 day.jpg']);
  const listing = (await browse(maya, photos)).json;
  assert.is(listing.access.canDownload, false);
  assert.is(listing.access.canWrite, false);
  const dl = await maya.post('/api/download', { path: `${photos}/beach +1 day.jpg` });
  assert.is(dl.status, 403);
  assert.is(envelope(dl).code, 'NO_DOWNLOAD');
  const before = fs.readdirSync(path.join(s.dirs.volumes, HOME, PHOTOS));
  const created = await maya.post('/api/files/file', { path: photos, name: 'mine.txt', content: 'x' });
  assert.is(created.status, 403, created.text);
  const renamed = await maya.post('/api/files/rename', { path: photos, name: 'beach +1 day.jpg', newName: 'x.jpg' });
  assert.is(renamed.status, 403, renamed.text);
  const deleted = await maya.delete('/api/files', { items: [{ path: photos, name: 'beach +1 day.jpg' }] });
  assert.is(deleted.status, 403, deleted.text);
  assert.equal(fs.readdirSync(path.join(s.dirs.volumes, HOME, PHOTOS)), before);

  assert.is(
    (await setRule(admin, photos, { kind: 'group', id: kids }, 'read')).status,
    200,
    'the same pair is replaced',
  );
  assert.is((await admin.get(`/api/access/rules?path=${q(photos)}`)).json.rules.length, 1);
  const got = await maya.post('/api/download', { path: `${photos}/beach +1 day.jpg` });
  assert.is(got.status, 200);
  assert.is(got.text, 'jpeg bytes of the beach');
  assert.is((await maya.post('/api/files/file', { path: photos, name: 'mine.txt', content: 'x' })).status, 403);
  assert.equal(fs.readdirSync(path.join(s.dirs.volumes, HOME, PHOTOS)), before);
});

test('write creates and renames but does not delete or share; manage does', async () => {
  const diary = `${HOME}/${DIARY}`;
  const nfc = `${HOME}/${DIARY.normalize('NFC')}`;
  assert.is((await setRule(admin, nfc, { kind: 'account', id: samId }, 'write')).status, 200);
  const made = await sam.post('/api/files/file', { path: diary, name: 'Liste #1 + 2.txt', content: 'milk' });
  assert.is(made.status, 201, made.text);
  const renamed = await sam.post('/api/files/rename', {
    path: diary,
    name: 'Liste #1 + 2.txt',
    newName: 'Liste 3.txt',
  });
  assert.is(renamed.status, 200, renamed.text);
  const gone = await sam.delete('/api/files', { items: [{ path: diary, name: 'Liste 3.txt' }] });
  assert.is(gone.status, 403, gone.text);
  assert.ok(fs.existsSync(path.join(s.dirs.volumes, HOME, DIARY, 'Liste 3.txt')));
  assert.is((await browse(sam, diary)).json.access.canShare, false);
  assert.is((await setRule(admin, nfc, { kind: 'account', id: samId }, 'manage')).status, 200);
  assert.is((await sam.delete('/api/files', { items: [{ path: diary, name: 'Liste 3.txt' }] })).status, 200);
});

test('the nearest rule wins; at one folder a deny beats an allow; a rule that does not inherit stays at its folder', async () => {
  const kids = await kidsId();
  const allowance = `${HOME}/${FINANCES}/${ALLOWANCE}`;
  // Finances is hidden from the group; a nearer account rule lets maya read her allowance.
  assert.is((await setRule(admin, allowance, { kind: 'account', id: mayaId }, 'read')).status, 200);
  const weekly = await maya.post('/api/download', { path: `${allowance}/weekly.txt` });
  assert.is(weekly.status, 200);
  assert.is(weekly.text, 'five euros a week');
  let why = (await admin.get(`/api/access/explain?path=${q(allowance)}&userId=${mayaId}`)).json;
  assert.is(why.level, 'read');
  assert.is(why.decidedBy, 'rule');
  assert.equal(why.rule.subject, { kind: 'account', id: mayaId, name: 'maya' });
  assert.equal(why.can, { see: true, download: true, write: false, delete: false, share: false });
  // The group hidden at that same folder: the deny wins.
  assert.is((await setRule(admin, allowance, { kind: 'group', id: kids }, 'hidden')).status, 200);
  assert.is((await maya.post('/api/download', { path: `${allowance}/weekly.txt` })).status, 404);
  why = (await admin.get(`/api/access/explain?path=${q(allowance)}&userId=${mayaId}`)).json;
  assert.is(why.level, 'hidden');
  assert.equal(why.rule.subject.kind, 'group');
  const kidsRule = (await admin.get(`/api/access/rules?path=${q(allowance)}`)).json.rules.find(
    (r: any) => r.path === allowance && r.subject.kind === 'group',
  );
  assert.is((await admin.delete(`/api/access/rules/${kidsRule.id}`)).status, 204);
  assert.is((await maya.post('/api/download', { path: `${allowance}/weekly.txt` })).status, 200);
  // Everyone read-only at Media, not inherited: its folders below stay as they were.
  fs.mkdirSync(path.join(s.dirs.volumes, 'Media', 'Films à voir'));
  assert.is((await setRule(admin, 'Media', { kind: 'everyone' }, 'read', false)).status, 200);
  assert.is((await browse(sam, 'Media')).json.access.canWrite, false);
  assert.is((await browse(sam, 'Media/Films à voir')).json.access.canWrite, true);
  // Nothing names sam at Photos: the default, every right (as before the model).
  why = (await sam.get(`/api/access/explain?path=${q(`${HOME}/${PHOTOS}`)}`)).json;
  assert.equal([why.level, why.decidedBy, why.rule], ['manage', 'default', null]);
});

test('a manager sees and changes who has access below their folder, and nowhere else', async () => {
  const photos = `${HOME}/${PHOTOS}`;
  // The default (no rule) does not make sam a manager of rules.
  assert.is(envelope(await sam.get(`/api/access/who?path=${q(photos)}`)).code, 'ACCESS_NOT_MANAGER');
  assert.is(envelope(await setRule(sam, photos, { kind: 'account', id: mayaId }, 'manage')).code, 'ACCESS_NOT_MANAGER');
  assert.is((await setRule(admin, photos, { kind: 'account', id: samId }, 'manage')).status, 200);
  const who = await sam.get(`/api/access/who?path=${q(photos)}`);
  assert.is(who.status, 200, who.text);
  const byName = Object.fromEntries(who.json.accounts.map((a: any) => [a.account.username, a]));
  assert.is(byName.maya.level, 'read');
  assert.is(byName.maya.rule.subject.name, GROUP);
  assert.is(byName.sam.level, 'manage');
  assert.is(byName.admin.decidedBy, 'default');
  // Below it he may set rules; at Finances (not his) he may not.
  const sub = `${photos}/beach +1 day.jpg`;
  assert.is((await setRule(sam, sub, { kind: 'account', id: mayaId }, 'view')).status, 200);
  assert.is((await maya.post('/api/download', { path: sub })).status, 403);
  assert.is((await setRule(sam, `${HOME}/${FINANCES}`, { kind: 'everyone' }, 'hidden')).status, 403);
  assert.is((await setRule(sam, 'share/abc/x', { kind: 'everyone' }, 'hidden')).status, 400);
  assert.is((await setRule(admin, HOME + '/../Media', { kind: 'everyone' }, 'hidden')).status, 400);
});

test("the installation's settings rules are everyone's rules of the one model", async () => {
  const put = await admin.patch('/api/settings', {
    access: { rules: [{ path: `/${HOME}/${DIARY}/`, permissions: 'ro' }] },
  });
  assert.is(put.status, 200, put.text);
  assert.is(put.json.access.rules[0].path, `${HOME}/${DIARY}`);
  // At that folder everyone's rule speaks for everyone else: sam's own manage rule there names
  // him, so it decides for him; maya, named by no rule there, reads.
  const why = (await sam.get(`/api/access/explain?path=${q(`${HOME}/${DIARY}`)}`)).json;
  assert.is(why.level, 'manage');
  assert.equal(why.rule.subject, { kind: 'account', id: samId, name: 'sam' });
  const hers = (await maya.get(`/api/access/explain?path=${q(`${HOME}/${DIARY}`)}`)).json;
  assert.is(hers.level, 'read');
  assert.equal(hers.rule.subject, { kind: 'everyone', id: '', name: 'Everyone' });
  const all = (await admin.get('/api/access/rules')).json.rules;
  assert.not.ok(
    all.some((r: any) => r.subject.kind === 'everyone' && r.path === 'Media'),
    'the settings list replaced every everyone rule',
  );
});

// The previous release's database is made by hand in the embedded SQLite file (burrow.db), which
// a cluster has not: there every instance shares one PostgreSQL (postgres-migrate-once.test.ts
// migrates it). The test exists where that file does.
if (serverMode !== 'cluster')
  test("migration: the previous release's rules keep every account's access", async () => {
    const m = await startServer({ volumes: ['Files', 'Media'] });
    try {
      const a = await setupAdmin(m);
      const bo = await createUser(a, m, { username: 'bo', password: 'bo-password-1' });
      const vol = path.join(m.dirs.volumes, 'Files');
      for (const d of ['Private/Inner', 'Docs/Old', 'Flat/Sub']) fs.mkdirSync(path.join(vol, d), { recursive: true });
      await m.close();
      // The database as the previous release left it: no access tables, its rules in settings.
      const db = new Database(path.join(m.dirs.config, 'burrow.db'));
      db.exec(
        "DROP TRIGGER access_rules_account_deleted; DROP TABLE access_rules; DROP TABLE access_group_members; DROP TABLE access_groups; DELETE FROM schema_migrations WHERE id LIKE 'access/%';",
      );
      const rules = [
        { id: 'r1', path: 'Files/Private', recursive: true, permissions: 'hidden' },
        { id: 'r2', path: 'Files/Private/Inner', recursive: true, permissions: 'rw' },
        { id: 'r3', path: '/Files/Docs/', recursive: true, permissions: 'ro' },
        { id: 'r4', path: 'Files/Flat', recursive: false, permissions: 'ro' },
      ];
      db.run("INSERT INTO settings (key, value, updated_at) VALUES ('access', ?, '2026-01-01T00:00:00Z')", [
        JSON.stringify({ rules }),
      ]);
      db.close();
      await m.restart();
      const admin2 = new Client(m.url);
      admin2.cookies = new Map(a.cookies);
      const bo2 = new Client(m.url);
      bo2.cookies = new Map(bo.cookies);
      const boId = (await me(bo2)).id;
      const expected: [string, string][] = [
        ['Files/Private', 'hidden'],
        ['Files/Private/Inner', 'hidden'], // hidden above won before; the rule below it is dropped
        ['Files/Docs', 'read'],
        ['Files/Docs/Old', 'read'],
        ['Files/Flat', 'read'],
        ['Files/Flat/Sub', 'manage'], // not recursive: below it, every right as before
        ['Files', 'manage'],
      ];
      for (const [p, level] of expected) {
        for (const who of [boId, (await me(admin2)).id]) {
          const e = await admin2.get(`/api/access/explain?path=${q(p)}&userId=${who}`);
          assert.is(e.json?.level, level, `${p} for ${who}: ${e.text}`);
        }
      }
      assert.not.ok((await names(bo2, 'Files')).includes('Private'));
      assert.is((await browse(bo2, 'Files/Docs/Old')).json.access.canWrite, false);
      assert.is((await browse(bo2, 'Files/Flat/Sub')).json.access.canWrite, true);
      const settings = (await admin2.get('/api/settings')).json.access.rules;
      assert.equal(
        settings.map((r: any) => [r.path, r.permissions, r.recursive]),
        [
          ['Files/Private', 'hidden', true],
          ['Files/Docs', 'ro', true],
          ['Files/Flat', 'ro', false],
        ],
      );
    } finally {
      await m.close();
      removeDirs(m.dirs);
    }
  });

test('a link never gives more than its creator has now', async () => {
  const album = `${HOME}/${PHOTOS}`;
  const made = await sam.post('/api/shares', { sourcePath: album, sharingType: 'anyone', accessMode: 'readwrite' });
  assert.is(made.status, 201, made.text);
  const token = made.json.shareToken;
  const visitor = new Client(s.url);
  const file = `/api/share/${token}/download/${q('beach +1 day.jpg')}`;
  assert.is((await visitor.get(file)).status, 200);
  // The creator now only views there: the link lists, but downloads and writes are refused.
  assert.is((await setRule(admin, album, { kind: 'account', id: samId }, 'view')).status, 200);
  assert.is((await visitor.get(`/api/share/${token}/browse/`)).status, 200);
  assert.is((await visitor.get(file)).status, 403);
  const wrote = await visitor.post(`/api/share/${token}/files/file`, { path: '', name: 'graffiti.txt', content: 'x' });
  assert.is(wrote.status, 403, wrote.text);
  assert.not.ok(fs.existsSync(path.join(s.dirs.volumes, HOME, PHOTOS, 'graffiti.txt')));
  // Hidden from the creator: the link answers as if it did not exist, naming nothing.
  assert.is((await setRule(admin, album, { kind: 'account', id: samId }, 'hidden')).status, 200);
  const gone = await visitor.get(file);
  assert.is(gone.status, 404);
  assert.not.match(gone.text, 'beach');
  assert.is((await setRule(admin, album, { kind: 'account', id: samId }, 'manage')).status, 200);
  assert.is((await visitor.get(file)).status, 200);
});

test('a deleted account takes its rules with it', async () => {
  const tmp = await createUser(admin, s, { username: 'visitor', password: 'visitor-password-1' });
  const id = (await me(tmp)).id;
  assert.is((await setRule(admin, `${HOME}/${PHOTOS}`, { kind: 'account', id }, 'view')).status, 200);
  assert.is((await admin.delete(`/api/users/${id}`)).status, 204);
  const left = (await admin.get('/api/access/rules')).json.rules.filter((r: any) => r.subject.id === id);
  assert.equal(left, []);
});

test.run();
