// A volume for one group, in one step (Administration → Volumes): adding a host folder with a
// group and a level — or "Give to a group…" on a volume already served — writes at the volume's
// root the group's level and hidden for everyone else, in one transaction with the volume, and
// logs it. The group's member reads or writes per the level; anyone else meets 404 NOT_FOUND and
// never the volume's name (the volumes list, browse, download, search, the explainer, PROPFIND).
// Only an administrator's session calls it: not another account, not a token, not a cross-site
// page; an unknown group creates nothing. A renamed volume keeps its rules.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope, type Answer } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { createUser, issueToken, me, setupAdmin } from '../support/auth.ts';
import { waitFor } from '../support/wait.ts';

const VOLUME = 'Finances 2025 & Taxes';
const TAXES = "Steuer #1 + résumé 'Q1' 100%.txt";
const SECRET = 'quokkataxes';
const ARCHIVE = 'Archive Ünd Co 🗄';
const GROUP = 'Parents';
const PIA_PASSWORD = 'pia-password-1';
const KID_PASSWORD = 'kid-password-1';

let s: TestServer;
let admin: Client;
let pia: Client; // a parent: in the group
let kid: Client; // a child: not in it
let parents: string;
let hostRoot: string;

const q = (p: string) => encodeURIComponent(p);
const enc = (p: string) => p.split('/').map(q).join('/');
const browse = (c: Client, p: string) => c.get(`/api/browse/${enc(p)}`);
const volumeNames = async (c: Client): Promise<string[]> => {
  const r = await c.get('/api/volumes');
  assert.is(r.status, 200, r.text);
  return (r.json as { path: string }[]).map((v) => v.path);
};
const dav = (who: string, password: string, method: string, p: string, headers: Record<string, string> = {}) =>
  fetch(`${s.url}/dav/${enc(p)}`, {
    method,
    headers: { authorization: 'Basic ' + Buffer.from(`${who}:${password}`).toString('base64'), ...headers },
  });
const folderOnHost = (name: string, files: Record<string, string>) => {
  const dir = path.join(hostRoot, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [f, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), content);
  return dir;
};
const hostVolumes = async () => (await admin.get('/api/admin/volumes')).json.volumes as { id: string; label: string }[];
const allRules = async () =>
  (await admin.get('/api/access/rules')).json.rules as { path: string; level: string; subject: { kind: string } }[];

/** Nothing of the volume in an answer: neither its name nor its file's. */
function leaksNothing(a: Answer | string, what: string): void {
  const text = typeof a === 'string' ? a : a.text;
  for (const w of [VOLUME, 'Finances', 'Steuer', SECRET])
    assert.not.ok(text.includes(w), `${what} names "${w}": ${text.slice(0, 300)}`);
}

test.before(async () => {
  s = await startServer({ volumes: ['Home'] });
  hostRoot = path.join(s.dirs.root, 'host');
  admin = await setupAdmin(s);
  assert.is((await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 7 } })).status, 200);
  pia = await createUser(admin, s, { username: 'pia', password: PIA_PASSWORD });
  kid = await createUser(admin, s, { username: 'kid', password: KID_PASSWORD });
  const g = await admin.post('/api/access/groups', { name: GROUP });
  assert.is(g.status, 201, g.text);
  parents = g.json.group.id;
  assert.is((await admin.post(`/api/access/groups/${parents}/members`, { userId: (await me(pia)).id })).status, 204);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('refused: an unknown group, another account, a token, a cross-site page — nothing is created', async () => {
  const folder = folderOnHost('Abgelehnt & Co #1', { 'Brief an Tante Zoë 💌.txt': 'Liebe Zoë' });
  const before = await hostVolumes();
  const body = { label: VOLUME, path: folder, accessMode: 'readwrite', group: { id: parents, level: 'write' } };
  const unknown = await admin.post('/api/admin/volumes', { ...body, group: { id: 'no-such-group', level: 'write' } });
  assert.is(unknown.status, 404, unknown.text);
  assert.is(envelope(unknown).code, 'GROUP_NOT_FOUND');
  assert.ok(envelope(unknown).requestId);
  const badLevel = await admin.post('/api/admin/volumes', { ...body, group: { id: parents, level: 'hidden' } });
  assert.is(badLevel.status, 400, badLevel.text);
  assert.is((await pia.post('/api/admin/volumes', body)).status, 403);
  for (const scope of ['read', 'write'] as const) {
    const token = new Client(s.url, await issueToken(admin, scope, { password: 'admin-password-1' }));
    const a = await token.post('/api/admin/volumes', body);
    assert.is(a.status, 403, `${scope} token: ${a.text}`);
  }
  const cross = await admin.post('/api/admin/volumes', body, {
    origin: 'https://evil.example',
    'sec-fetch-site': 'cross-site',
  });
  assert.is(cross.status, 403, cross.text);
  // A label or a folder that walks out of its place, with a group: refused, nothing written.
  for (const [bad, code] of [
    [{ label: '../Finances' }, 'BAD_NAME'],
    [{ label: 'Finances/../Home' }, 'BAD_NAME'],
    [{ label: '..' }, 'BAD_NAME'],
    [{ path: `../${path.basename(folder)}` }, 'BAD_PATH'],
  ] as const) {
    const a = await admin.post('/api/admin/volumes', { ...body, ...bad });
    assert.is(a.status, 400, `${JSON.stringify(bad)}: ${a.text}`);
    assert.is(envelope(a).code, code, JSON.stringify(bad));
  }
  // A link's holder, its token as a bearer: not an administrator's session.
  const link = await admin.post('/api/shares', { sourcePath: 'Home', sharingType: 'anyone' });
  assert.is(link.status, 201, link.text);
  const holder = new Client(s.url, link.json.shareToken);
  assert.is((await holder.post('/api/admin/volumes', body)).status, 403, 'the link holder');
  assert.equal(await hostVolumes(), before, 'no volume');
  assert.equal(await allRules(), [], 'no rule');
  // An existing volume: the same refusals leave it everyone's.
  const added = await admin.post('/api/admin/volumes', { label: 'Open Shelf', path: folder, accessMode: 'readonly' });
  assert.is(added.status, 201, added.text);
  const id = added.json.volume.id;
  const give = (c: Client, grant: object, headers?: Record<string, string>) =>
    c.post(`/api/admin/volumes/${id}/group`, grant, headers);
  assert.is(envelope(await give(admin, { id: 'no-such-group', level: 'read' })).code, 'GROUP_NOT_FOUND');
  assert.is(
    envelope(await admin.post('/api/admin/volumes/nope/group', { id: parents, level: 'read' })).code,
    'NOT_FOUND',
  );
  assert.is((await give(pia, { id: parents, level: 'read' })).status, 403);
  for (const scope of ['read', 'write'] as const) {
    const token = new Client(s.url, await issueToken(admin, scope, { password: 'admin-password-1' }));
    assert.is((await give(token, { id: parents, level: 'read' })).status, 403, `${scope} token`);
  }
  assert.is((await give(holder, { id: parents, level: 'read' })).status, 403, 'the link holder');
  const crossSite: Record<string, string>[] = [
    { origin: 'https://evil.example' },
    { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
  ];
  for (const headers of crossSite)
    assert.is((await give(admin, { id: parents, level: 'read' }, headers)).status, 403, JSON.stringify(headers));
  for (const walk of ['../Home', '../../etc', `${id}/..`].map(encodeURIComponent)) {
    const a = await admin.post(`/api/admin/volumes/${walk}/group`, { id: parents, level: 'read' });
    assert.is(a.status, 400, `${walk}: ${a.text}`);
    assert.is(envelope(a).code, 'BAD_PATH', walk);
  }
  assert.equal(await allRules(), [], 'no rule');
  assert.ok((await volumeNames(kid)).includes('Open Shelf'));
  assert.is((await admin.delete(`/api/admin/volumes/${id}`)).status, 204);
});

test('added for one group: the volume and its two rules in one step, logged, named by the explainer', async () => {
  const folder = folderOnHost('finances', { [TAXES]: `the ${SECRET} return` });
  const added = await admin.post('/api/admin/volumes', {
    label: VOLUME,
    path: folder,
    accessMode: 'readwrite',
    group: { id: parents, level: 'write' },
  });
  assert.is(added.status, 201, added.text);
  assert.is(added.json.volume.label, VOLUME);
  assert.equal(
    added.json.rules.map((r: any) => [r.path, r.subject.kind, r.subject.name, r.level, r.inherit]),
    [
      [VOLUME, 'group', GROUP, 'write', true],
      [VOLUME, 'everyone', 'Everyone', 'hidden', true],
    ],
  );
  assert.equal((await allRules()).map((r) => [r.path, r.subject.kind, r.level]).sort(), [
    [VOLUME, 'everyone', 'hidden'],
    [VOLUME, 'group', 'write'],
  ]);
  const rows = (await admin.get('/api/activity')).json.rows.filter((r: any) => r.action === 'access.volume-give');
  assert.is(rows.length, 1, 'one row for the one step');
  const detail = typeof rows[0].detail === 'string' ? JSON.parse(rows[0].detail) : rows[0].detail;
  assert.equal([detail.path, detail.group, detail.level, detail.rules.length], [VOLUME, GROUP, 'write', 2]);
  // The explainer names the rule that decides, for the member and for anyone else.
  const piaId = (await me(pia)).id;
  const kidId = (await me(kid)).id;
  const forPia = (await admin.get(`/api/access/explain?path=${q(VOLUME)}&userId=${piaId}`)).json;
  assert.is(forPia.level, 'write');
  assert.is(forPia.decidedBy, 'rule');
  assert.equal(forPia.rule.subject, { kind: 'group', id: parents, name: GROUP });
  const own = await pia.get(`/api/access/explain?path=${q(`${VOLUME}/${TAXES}`)}`);
  assert.is(own.json.rule.subject.name, GROUP, own.text);
  const forKid = (await admin.get(`/api/access/explain?path=${q(VOLUME)}&userId=${kidId}`)).json;
  assert.is(forKid.level, 'hidden');
  assert.equal(forKid.rule.subject, { kind: 'everyone', id: '', name: 'Everyone' });
  const kidOwn = await kid.get(`/api/access/explain?path=${q(VOLUME)}`);
  assert.is(kidOwn.status, 404);
  leaksNothing(kidOwn, "the child's explainer");
});

test('the member writes (not deletes: write is not manage); the child meets 404 everywhere and never the name', async () => {
  assert.ok((await volumeNames(pia)).includes(VOLUME));
  const listing = await browse(pia, VOLUME);
  assert.is(listing.status, 200, listing.text);
  assert.ok(listing.json.items.some((i: any) => i.name === TAXES));
  const made = await pia.post('/api/files/file', { path: VOLUME, name: 'Quittung #2 + 🧾.txt', content: 'paid' });
  assert.is(made.status, 201, made.text);
  assert.ok(fs.existsSync(path.join(hostRoot, 'finances', 'Quittung #2 + 🧾.txt')));
  const got = await pia.post('/api/download', { path: `${VOLUME}/${TAXES}` });
  assert.is(got.status, 200);
  assert.is(got.text, `the ${SECRET} return`);
  const deleted = await pia.delete('/api/files', { items: [{ path: VOLUME, name: TAXES }] });
  assert.is(deleted.status, 403, deleted.text);

  const disk = fs.readdirSync(path.join(hostRoot, 'finances')).sort();
  const kidVolumes = await kid.get('/api/volumes');
  leaksNothing(kidVolumes, "the child's volumes");
  for (const p of [VOLUME, `${VOLUME}/${TAXES}`, VOLUME.normalize('NFD')]) {
    const b = await browse(kid, p);
    assert.is(b.status, 404, p);
    assert.is(envelope(b).code, 'NOT_FOUND');
    leaksNothing(b, `browse ${p}`);
  }
  const dl = await kid.post('/api/download', { path: `${VOLUME}/${TAXES}` });
  assert.is(dl.status, 404);
  leaksNothing(dl, 'download');
  const write = await kid.post('/api/files/file', { path: VOLUME, name: 'mine.txt', content: 'x' });
  assert.is(write.status, 404, write.text);
  leaksNothing(write, 'create');
  // Search: once the member finds the file, the child finds nothing of it.
  await waitFor(
    async () => (await pia.get(`/api/search?q=${SECRET}`)).json?.items?.some((i: any) => i.path.startsWith(VOLUME)),
    { what: 'the member finds the file by its content', timeoutMs: 30_000 },
  );
  for (const term of [SECRET, 'Steuer', 'Finances']) {
    const found = await kid.get(`/api/search?q=${q(term)}`);
    assert.is(found.status, 200, found.text);
    assert.equal(found.json.items, [], term);
    leaksNothing(found, `search ${term}`);
  }
  // WebDAV: the root's PROPFIND does not list it; the volume itself is not found.
  const root = await dav('kid', KID_PASSWORD, 'PROPFIND', '', { depth: '1' });
  assert.is(root.status, 207);
  const rootText = await root.text();
  assert.ok(rootText.includes('Home'), rootText.slice(0, 300));
  leaksNothing(rootText, 'PROPFIND /dav/');
  const inside = await dav('kid', KID_PASSWORD, 'PROPFIND', VOLUME, { depth: '1' });
  assert.is(inside.status, 404);
  leaksNothing(await inside.text(), 'PROPFIND of the volume');
  const put = await dav('kid', KID_PASSWORD, 'PUT', `${VOLUME}/dav.txt`);
  assert.ok(put.status === 404 || put.status === 409, String(put.status));
  const piaDav = await dav('pia', PIA_PASSWORD, 'PROPFIND', '', { depth: '1' });
  assert.ok(decodeURIComponent(await piaDav.text()).includes('Finances 2025'), 'the member lists it');
  assert.equal(fs.readdirSync(path.join(hostRoot, 'finances')).sort(), disk, 'the disk is unchanged');
});

test('"Give to a group…" on a volume already served: read lets the member download, not write; renamed, it stays theirs', async () => {
  const folder = folderOnHost('archive', { 'old letter.txt': 'dear quokka' });
  const added = await admin.post('/api/admin/volumes', { label: ARCHIVE, path: folder, accessMode: 'readwrite' });
  assert.is(added.status, 201, added.text);
  const id = added.json.volume.id;
  assert.ok((await volumeNames(kid)).includes(ARCHIVE), 'everyone sees it before');
  const given = await admin.post(`/api/admin/volumes/${id}/group`, { id: parents, level: 'read' });
  assert.is(given.status, 200, given.text);
  assert.equal(
    given.json.rules.map((r: any) => [r.path, r.subject.kind, r.level]),
    [
      [ARCHIVE, 'group', 'read'],
      [ARCHIVE, 'everyone', 'hidden'],
    ],
  );
  assert.not.ok((await volumeNames(kid)).includes(ARCHIVE));
  assert.is((await browse(kid, ARCHIVE)).status, 404);
  const got = await pia.post('/api/download', { path: `${ARCHIVE}/old letter.txt` });
  assert.is(got.status, 200);
  const write = await pia.post('/api/files/file', { path: ARCHIVE, name: 'new.txt', content: 'x' });
  assert.is(write.status, 403, write.text);
  assert.not.ok(fs.existsSync(path.join(folder, 'new.txt')));
  // Given again with another level: the group's rule is replaced, not doubled.
  const again = await admin.post(`/api/admin/volumes/${id}/group`, { id: parents, level: 'manage' });
  assert.is(again.status, 200, again.text);
  assert.is((await allRules()).filter((r) => r.path === ARCHIVE).length, 2);
  // Renamed, the rules follow its new label: still the group's alone.
  const renamed = await admin.patch(`/api/admin/volumes/${id}`, { label: 'Archive 2 & Co' });
  assert.is(renamed.status, 200, renamed.text);
  assert.not.ok((await volumeNames(kid)).includes('Archive 2 & Co'));
  assert.is((await browse(kid, 'Archive 2 & Co')).status, 404);
  assert.is((await browse(pia, 'Archive 2 & Co')).status, 200);
  assert.equal(
    (await allRules()).filter((r) => r.path === ARCHIVE),
    [],
  );
  // A rename refused (the label is taken) moves no rule.
  const taken = await admin.patch(`/api/admin/volumes/${id}`, { label: VOLUME });
  assert.is(taken.status, 409, taken.text);
  assert.is((await allRules()).filter((r) => r.path === 'Archive 2 & Co').length, 2);
  assert.is((await browse(kid, 'Archive 2 & Co')).status, 404);
});

test.run();
