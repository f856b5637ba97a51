// A tag vocabulary shared in a group: Mia shares her tag "Steuer 2025 & Belege #1 🧾" with the
// group "Familie Weber 🏠"; Jonas, a member, sees it and reuses it on his own files (spelled as
// she spells it), but never sees what she tagged; Lena, not a member, sees nothing of it. The
// attacker table: a non-member sharing into the group or taking Mia's sharing away, a group id
// that is not the caller's (as if it did not exist), a read token (lists, cannot change), a
// cross-site request, a link holder; a member removed from the group no longer sees it; a
// rename follows, a dropped tag goes.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { createUser, issueToken, me, setupAdmin } from '../support/auth.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

const HOME = 'Zuhause';
const TAG = 'Steuer 2025 & Belege #1 🧾';
const GROUP = 'Familie Weber 🏠';
const MIAS = `${HOME}/Mia/Rechnung Zahnarzt + Röntgen.pdf`;
const JONAS = `${HOME}/Jonas/Lohnsteuerbescheinigung ${'Müller'.normalize('NFD')} #2.pdf`;
const q = encodeURIComponent;

let s: TestServer;
let admin: Client;
let mia: Client;
let jonas: Client;
let lena: Client;
let jonasId: string;
let family: string;
let others: string;

const tagsOf = async (c: Client) => {
  const a = await c.get('/api/tags');
  assert.is(a.status, 200, a.text);
  return a.json as {
    tags: { name: string; count: number; groups: { id: string; name: string }[] }[];
    shared: { name: string; groups: { id: string; name: string }[] }[];
  };
};
const share = (c: Client, tag: string, group: string, headers?: Record<string, string>) =>
  c.put(`/api/tags/${q(tag)}/groups/${q(group)}`, {}, headers);

test.before(async () => {
  s = await startServer({ volumes: [HOME] });
  for (const rel of [MIAS, JONAS]) {
    const file = path.join(s.dirs.volumes, ...rel.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '%PDF-1.4\n% a receipt\n');
  }
  admin = await setupAdmin(s);
  mia = await createUser(admin, s, { username: 'mia', password: 'mia-password-1' });
  jonas = await createUser(admin, s, { username: 'jonas', password: 'jonas-password-1' });
  lena = await createUser(admin, s, { username: 'lena', password: 'lena-password-1' });
  jonasId = (await me(jonas)).id;
  family = (await admin.post('/api/access/groups', { name: GROUP })).json.group.id;
  others = (await admin.post('/api/access/groups', { name: 'Nachbarn & Freunde' })).json.group.id;
  for (const [group, c] of [
    [family, mia],
    [family, jonas],
    [others, lena],
  ] as const) {
    const added = await admin.post(`/api/access/groups/${group}/members`, { userId: (await me(c)).id });
    assert.is(added.status, 204, added.text);
  }
  const tagged = await mia.post('/api/tags/apply', { paths: [MIAS], add: [TAG] });
  assert.is(tagged.status, 200, tagged.text);
  const lenas = await lena.post('/api/tags/apply', { paths: [JONAS], add: ['Lenas Liste'] });
  assert.is(lenas.status, 200, lenas.text);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test("a member sees the group's tag and reuses it; its items stay the sharer's; a non-member sees nothing", async () => {
  // Before it is shared, nobody else sees it.
  assert.equal((await tagsOf(jonas)).shared, []);
  const shared = await share(mia, TAG, family);
  assert.is(shared.status, 200, shared.text);
  assert.equal(shared.json.tags, [{ name: TAG, count: 1, groups: [{ id: family, name: GROUP }] }]);
  // Again: nothing changes.
  assert.equal((await share(mia, TAG, family)).json, shared.json);

  assert.equal((await tagsOf(jonas)).shared, [{ name: TAG, groups: [{ id: family, name: GROUP }] }]);
  assert.equal((await jonas.get('/api/tags')).json.groups, [{ id: family, name: GROUP }]);
  const hers = await jonas.get(`/api/tags/files?${new URLSearchParams({ tag: TAG })}`);
  assert.is(hers.status, 200, hers.text);
  assert.equal(hers.json.items, [], 'the name only: not what she tagged');
  const lenas = await lena.get('/api/tags');
  assert.equal(lenas.json.shared, []);
  assert.equal(lenas.json.groups, [{ id: others, name: 'Nachbarn & Freunde' }], 'her groups alone');
  assert.not.ok(lenas.text.includes('Steuer'), lenas.text);
  assert.not.ok(lenas.text.includes('Familie'), lenas.text);

  // Jonas reuses it typed in lower case: spelled as the group spells it, on his own file.
  const reused = await jonas.post('/api/tags/apply', { paths: [JONAS], add: ['steuer 2025 & belege #1 🧾'] });
  assert.is(reused.status, 200, reused.text);
  assert.equal(reused.json.items[0].tags, [TAG]);
  const his = await tagsOf(jonas);
  assert.equal(his.tags, [{ name: TAG, count: 1, groups: [] }]);
  assert.equal(his.shared, [], 'his own tag now: not repeated');
  const found = await jonas.get(`/api/tags/files?${new URLSearchParams({ tag: TAG })}`);
  assert.equal(
    found.json.items.map((i: { name: string }) => i.name.normalize('NFC')),
    [JONAS.slice(JONAS.lastIndexOf('/') + 1).normalize('NFC')],
  );
  // Her search by the tag finds hers alone, his finds his alone.
  const mine = await mia.get(`/api/search?${new URLSearchParams({ q: `tag:"${TAG}"` })}`);
  assert.equal(
    mine.json.items.map((i: { name: string }) => i.name),
    ['Rechnung Zahnarzt + Röntgen.pdf'],
  );
});

test('attackers: a non-member, a group not the caller’s, a read token, a cross-site request, a link holder', async () => {
  // Lena shares into a group she is not in, or takes Mia's sharing away: as if neither existed.
  for (const r of [
    await share(lena, 'Lenas Liste', family),
    await share(lena, 'Lenas Liste', 'no-such-group'),
    await lena.delete(`/api/tags/${q(TAG)}/groups/${q(family)}`),
    await jonas.delete(`/api/tags/${q(TAG)}/groups/${q(family)}`),
  ]) {
    assert.is(r.status, 404, r.text);
    assert.ok(envelope(r).requestId);
  }
  // A tag Mia does not have, into her own group: no such tag.
  const none = await share(mia, 'Urlaub', family);
  assert.is(none.status, 404, none.text);
  assert.equal((await tagsOf(jonas)).tags[0]!.name, TAG);
  assert.equal((await tagsOf(mia)).tags[0]!.groups, [{ id: family, name: GROUP }]);
  assert.equal((await tagsOf(lena)).tags, [{ name: 'Lenas Liste', count: 1, groups: [] }]);

  // Jonas's read token lists what his groups share, and changes nothing.
  const reader = new Client(s.url, await issueToken(jonas, 'read', { password: 'jonas-password-1' }));
  const listed = await reader.get('/api/tags');
  assert.is(listed.status, 200, listed.text);
  for (const r of [await share(reader, TAG, family), await reader.delete(`/api/tags/${q(TAG)}/groups/${q(family)}`)]) {
    assert.is(r.status, 403, r.text);
    assert.is(envelope(r).code, 'AUTH_TOKEN_READ_ONLY');
  }
  const cross = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' };
  for (const r of [
    await share(mia, TAG, family, cross),
    await mia.delete(`/api/tags/${q(TAG)}/groups/${q(family)}`, undefined, cross),
  ]) {
    assert.is(r.status, 403, r.text);
    assert.is(envelope(r).code, 'CROSS_SITE_REFUSED');
  }
  assert.equal((await tagsOf(mia)).tags[0]!.groups, [{ id: family, name: GROUP }], 'still shared');

  // A link holder has no tags of anyone's.
  const link = await mia.post('/api/shares', { sourcePath: `${HOME}/Mia`, sharingType: 'anyone' });
  assert.is(link.status, 201, link.text);
  const holder = new Client(s.url);
  const anon = await holder.get('/api/tags');
  assert.is(anon.status, 401, anon.text);
  assert.not.ok(anon.text.includes('Steuer'));
});

test('a member removed no longer sees it; a rename follows; unshared or dropped, it goes', async () => {
  // Jonas drops his own use of it: he sees it as the group's again.
  assert.is((await jonas.delete(`/api/tags/${q(TAG)}`)).status, 200);
  assert.equal((await tagsOf(jonas)).shared, [{ name: TAG, groups: [{ id: family, name: GROUP }] }]);
  // Out of the group: out of its vocabulary.
  assert.is((await admin.delete(`/api/access/groups/${family}/members/${jonasId}`)).status, 204);
  assert.equal((await tagsOf(jonas)).shared, []);
  const back = await admin.post(`/api/access/groups/${family}/members`, { userId: jonasId });
  assert.is(back.status, 204, back.text);
  // Mia renames it: the group sees the new name.
  const renamed = await mia.patch(`/api/tags/${q(TAG)}`, { name: 'Steuer 2025 – Belege & Quittungen' });
  assert.is(renamed.status, 200, renamed.text);
  assert.equal((await tagsOf(jonas)).shared, [
    { name: 'Steuer 2025 – Belege & Quittungen', groups: [{ id: family, name: GROUP }] },
  ]);
  // Unshared: gone for the group, hers as before.
  const unshared = await mia.delete(`/api/tags/${q('Steuer 2025 – Belege & Quittungen')}/groups/${q(family)}`);
  assert.is(unshared.status, 200, unshared.text);
  assert.equal(unshared.json.tags, [{ name: 'Steuer 2025 – Belege & Quittungen', count: 1, groups: [] }]);
  assert.equal((await tagsOf(jonas)).shared, []);
  // Shared again and dropped: gone with it.
  assert.is((await share(mia, 'Steuer 2025 – Belege & Quittungen', family)).status, 200);
  assert.is((await tagsOf(jonas)).shared.length, 1);
  assert.is((await mia.delete(`/api/tags/${q('Steuer 2025 – Belege & Quittungen')}`)).status, 200);
  assert.equal((await tagsOf(jonas)).shared, []);
});

test('the rows are described in /api/openapi.json', async () => {
  const spec = await admin.get('/api/openapi.json');
  const row = spec.json.paths['/api/tags/{name}/groups/{groupId}'];
  assert.ok(row?.put && row?.delete, Object.keys(spec.json.paths).join(' '));
});

test.run();
