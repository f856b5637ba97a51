// Tags through the real server: several items tagged at once, tags carried by rename and move
// and forgotten on delete (the bindings rule), per account, a hidden item left out of its tag,
// names with spaces, accents (NFC and NFD), emoji, & and #; every client's encoding of the
// query; the attacker table (another account, a read token, a cross-site request, traversal).
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { createUser, issueToken, me, setupAdmin } from '../support/auth.ts';
import { CLIENTS } from '../support/names.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let admin: Client;
let lena: Client;
const HOME = 'Home & Family';
const vol = (...p: string[]) => path.join(s.dirs.volumes, HOME, ...p);
const RECEIPTS = 'Receipts 2025 #tax & 🧾';
const files = (c: Client, tag: string) => c.get(`/api/tags/files?${new URLSearchParams({ tag })}`);
const names = (a: { json: { items: { path: string; name: string; tags: string[] }[] } }) =>
  a.json.items.map((i) => `${i.path}/${i.name}`);

test.before(async () => {
  s = await startServer({ volumes: [HOME] });
  fs.mkdirSync(vol('Steuer Ünterlagen', 'Belege'), { recursive: true });
  fs.writeFileSync(vol('Steuer Ünterlagen', 'Belege', 'Café receipt + tip.pdf'), '%PDF-1.4 receipt');
  fs.writeFileSync(vol('Steuer Ünterlagen', 'Rechnung #12 & Co.txt'), 'invoice');
  fs.writeFileSync(vol('Steuer Ünterlagen', 'Zoë 🎂.jpg'.normalize('NFD')), 'jpeg-ish');
  fs.mkdirSync(vol('Private'), { recursive: true });
  fs.writeFileSync(vol('Private', 'Kontoauszug.pdf'), '%PDF-1.4 statement');
  admin = await setupAdmin(s);
  lena = await createUser(admin, s, { username: 'lena', password: 'lena-password-1' });
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('several items tagged at once; names with spaces, accents, emoji, & and #; chips per folder and item', async () => {
  const dir = `${HOME}/Steuer Ünterlagen`;
  const zoe = `${dir}/${'Zoë 🎂.jpg'.normalize('NFD')}`;
  const r = await admin.post('/api/tags/apply', {
    paths: [`${dir}/Belege/Café receipt + tip.pdf`, `${dir}/Rechnung #12 & Co.txt`, zoe, `${dir}/Belege`],
    add: [RECEIPTS, '  Familie   Müller ', 'Familie Mu\u0308ller'.normalize('NFD')],
  });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.items.length, 4);
  for (const item of r.json.items) assert.equal(item.tags, ['Familie Müller', RECEIPTS]);
  // The spelling the account first used is kept; the key ignores case.
  const again = await admin.post('/api/tags/apply', { paths: [zoe], add: ['RECEIPTS 2025 #TAX & 🧾'] });
  assert.equal(again.json.items[0].tags, ['Familie Müller', RECEIPTS]);
  assert.equal((await admin.get('/api/tags')).json.tags, [
    { name: 'Familie Müller', count: 4, groups: [] },
    { name: RECEIPTS, count: 4, groups: [] },
  ]);
  const listed = await files(admin, 'receipts 2025 #TAX & 🧾');
  assert.is(listed.status, 200, listed.text);
  assert.is(listed.json.tag, RECEIPTS);
  assert.equal(names(listed), [
    `${dir}/Belege`,
    `${dir}/Belege/Café receipt + tip.pdf`,
    `${dir}/Rechnung #12 & Co.txt`,
    zoe,
  ]);
  const pdf = listed.json.items[1];
  assert.is(pdf.kind, 'pdf');
  assert.is(pdf.size, '%PDF-1.4 receipt'.length);
  assert.is(listed.json.items[0].kind, 'directory');
  const folder = await admin.get(`/api/tags/folder?${new URLSearchParams({ path: dir })}`);
  assert.equal(folder.json.items.map((i: { path: string }) => i.path).sort(), [
    `${dir}/Belege`,
    `${dir}/Rechnung #12 & Co.txt`,
    zoe,
  ]);
  const item = await admin.get(`/api/tags/item?${new URLSearchParams({ path: `${dir}/Rechnung #12 & Co.txt` })}`);
  assert.equal(item.json, { path: `${dir}/Rechnung #12 & Co.txt`, tags: ['Familie Müller', RECEIPTS] });
  // Taken off one item; bad tags refused with the envelope and nothing changed.
  const off = await admin.post('/api/tags/apply', { paths: [zoe], remove: ['familie müller'] });
  assert.equal(off.json.items[0].tags, [RECEIPTS]);
  for (const bad of ['', '   ', 'a/b', 'one, two', 'tab\there', 'x'.repeat(65)]) {
    const refused = await admin.post('/api/tags/apply', { paths: [zoe], add: [bad] });
    assert.is(refused.status, 400, `${JSON.stringify(bad)}: ${refused.text}`);
    envelope(refused);
  }
  assert.is((await admin.post('/api/tags/apply', { paths: [zoe] })).status, 400, 'no tag named');
  // One missing path refuses the whole request: the others are not tagged either.
  const partly = await admin.post('/api/tags/apply', { paths: [zoe, `${dir}/Not here.txt`], add: ['Urlaub'] });
  assert.is(partly.status, 404, partly.text);
  envelope(partly);
  assert.equal((await files(admin, 'Urlaub')).json.items, []);
});

test('every client encoding of the tag and path in the query', async () => {
  for (const client of CLIENTS) {
    const sent = await client.send(`${s.url}/api/tags/files`, [['tag', RECEIPTS]], {
      headers: { cookie: admin.cookieHeader },
    });
    const answer = JSON.parse(sent.body.toString('utf8'));
    assert.is(sent.status, 200, `${client.name}: ${sent.body}`);
    assert.is(answer.tag, RECEIPTS, client.name);
    assert.is(answer.items.length, 4, client.name);
    const folder = await client.send(
      `${s.url}/api/tags/item`,
      [['path', `${HOME}/Steuer Ünterlagen/Belege/Café receipt + tip.pdf`]],
      {
        headers: { cookie: admin.cookieHeader },
      },
    );
    assert.is(folder.status, 200, `${client.name}: ${folder.body}`);
    assert.equal(JSON.parse(folder.body.toString('utf8')).tags, ['Familie Müller', RECEIPTS], client.name);
  }
});

test('tags follow a rename and a move, and are forgotten on delete', async () => {
  const dir = `${HOME}/Steuer Ünterlagen`;
  const renamed = await admin.post('/api/files/rename', { path: dir, name: 'Belege', newName: 'Belege 2025 ✓' });
  assert.is(renamed.status, 200, renamed.text);
  assert.equal(names(await files(admin, RECEIPTS)).slice(0, 2), [
    `${dir}/Belege 2025 ✓`,
    `${dir}/Belege 2025 ✓/Café receipt + tip.pdf`,
  ]);
  const moved = await admin.post('/api/files/move', {
    items: [{ path: dir, name: 'Rechnung #12 & Co.txt' }],
    destination: `${dir}/Belege 2025 ✓`,
  });
  assert.is(moved.status, 200, moved.text);
  const after = await files(admin, RECEIPTS);
  assert.ok(names(after).includes(`${dir}/Belege 2025 ✓/Rechnung #12 & Co.txt`), names(after).join('\n'));
  assert.not.ok(names(after).includes(`${dir}/Rechnung #12 & Co.txt`));
  // A file put where a tagged one used to be starts without tags.
  fs.writeFileSync(vol('Steuer Ünterlagen', 'Rechnung #12 & Co.txt'), 'another invoice');
  const fresh = await admin.get(`/api/tags/item?${new URLSearchParams({ path: `${dir}/Rechnung #12 & Co.txt` })}`);
  assert.equal(fresh.json.tags, []);
  const deleted = await admin.delete('/api/files', { items: [{ path: dir, name: 'Belege 2025 ✓' }] });
  assert.is(deleted.status, 200, deleted.text);
  assert.equal(names(await files(admin, RECEIPTS)), [`${dir}/${'Zoë 🎂.jpg'.normalize('NFD')}`]);
  assert.equal((await admin.get('/api/tags')).json.tags, [{ name: RECEIPTS, count: 1, groups: [] }]);
  // A new folder made under the deleted one's name starts without tags.
  fs.mkdirSync(vol('Steuer Ünterlagen', 'Belege 2025 ✓'));
  assert.equal(
    (await admin.get(`/api/tags/item?${new URLSearchParams({ path: `${dir}/Belege 2025 ✓` })}`)).json.tags,
    [],
  );
});

test("another account's tags stay theirs; a hidden item leaves its tag's list", async () => {
  const statement = `${HOME}/Private/Kontoauszug.pdf`;
  assert.is((await lena.post('/api/tags/apply', { paths: [statement], add: ['Bank', RECEIPTS] })).status, 200);
  assert.equal(names(await files(admin, RECEIPTS)), [`${HOME}/Steuer Ünterlagen/${'Zoë 🎂.jpg'.normalize('NFD')}`]);
  assert.equal(names(await files(lena, RECEIPTS)), [statement]);
  assert.equal(
    (await lena.get('/api/tags')).json.tags.map((t: { name: string }) => t.name),
    ['Bank', RECEIPTS],
  );
  assert.equal((await admin.get(`/api/tags/item?${new URLSearchParams({ path: statement })}`)).json.tags, []);
  // Renaming or dropping a tag is the account's own: Lena cannot touch the administrator's.
  assert.is((await lena.delete(`/api/tags/${encodeURIComponent('Familie Müller')}`)).status, 404);
  const renamed = await lena.patch(`/api/tags/${encodeURIComponent(RECEIPTS)}`, { name: 'Belege' });
  assert.is(renamed.status, 200, renamed.text);
  assert.equal(
    renamed.json.tags.map((t: { name: string }) => t.name),
    ['Bank', 'Belege'],
  );
  assert.is((await files(admin, RECEIPTS)).json.items.length, 1, "the administrator's tag is untouched");
  // The administrator hides Private from Lena: her tagged statement is no longer listed, its tag stays.
  const lenaId = (await me(lena)).id;
  const rule = await admin.put('/api/access/rules', {
    path: `${HOME}/Private`,
    subject: { kind: 'account', id: lenaId },
    level: 'hidden',
  });
  assert.is(rule.status, 200, rule.text);
  assert.equal((await files(lena, 'Bank')).json.items, []);
  assert.equal(
    (await lena.get('/api/tags')).json.tags.map((t: { name: string }) => t.name),
    ['Bank', 'Belege'],
  );
  const tagHidden = await lena.post('/api/tags/apply', { paths: [statement], add: ['Mehr'] });
  assert.is(tagHidden.status, 404, tagHidden.text);
  assert.is((await lena.get(`/api/tags/folder?${new URLSearchParams({ path: `${HOME}/Private` })}`)).status, 404);
  assert.equal(
    (await lena.get(`/api/tags/folder?${new URLSearchParams({ path: HOME })}`)).json.items,
    [],
    'the hidden folder is not named',
  );
  const unhide = await admin.delete(`/api/access/rules/${rule.json.rule.id}`);
  assert.ok(unhide.status < 300, unhide.text);
  assert.equal(names(await files(lena, 'Bank')), [statement], 'seen again, the tag was kept');
});

test('attackers: a read token lists but cannot change; cross-site refused; traversal and the top refused', async () => {
  const zoe = `${HOME}/Steuer Ünterlagen/${'Zoë 🎂.jpg'.normalize('NFD')}`;
  const reader = new Client(s.url, await issueToken(admin, 'read'));
  assert.equal(names(await files(reader, RECEIPTS)), [zoe]);
  assert.is((await reader.get('/api/tags')).status, 200);
  for (const changed of [
    await reader.post('/api/tags/apply', { paths: [zoe], add: ['Von Token'] }),
    await reader.patch(`/api/tags/${encodeURIComponent(RECEIPTS)}`, { name: 'Von Token' }),
    await reader.delete(`/api/tags/${encodeURIComponent(RECEIPTS)}`),
  ]) {
    assert.is(changed.status, 403, changed.text);
    assert.is(envelope(changed).code, 'AUTH_TOKEN_READ_ONLY');
  }
  const writer = new Client(s.url, await issueToken(admin, 'write'));
  assert.is((await writer.post('/api/tags/apply', { paths: [zoe], add: ['Von Token'] })).status, 200);
  const cross = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' };
  for (const changed of [
    await admin.post('/api/tags/apply', { paths: [zoe], add: ['Fremd'] }, cross),
    await admin.patch(`/api/tags/${encodeURIComponent(RECEIPTS)}`, { name: 'Fremd' }, cross),
    await admin.delete(`/api/tags/${encodeURIComponent(RECEIPTS)}`, undefined, cross),
  ]) {
    assert.is(changed.status, 403, changed.text);
    assert.is(envelope(changed).code, 'CROSS_SITE_REFUSED');
  }
  for (const p of [`${HOME}/../../etc/passwd`, `${HOME}/%2e%2e/x`, '', HOME + '/Steuer Ünterlagen/../../..']) {
    const r = await admin.post('/api/tags/apply', { paths: [p], add: ['Fremd'] });
    assert.ok(r.status === 400 || r.status === 403 || r.status === 404, `${p}: ${r.text}`);
    envelope(r);
  }
  assert.is((await admin.get('/api/tags/files?tag=Fremd')).json.items.length, 0);
  assert.equal(
    (await admin.get('/api/tags')).json.tags.map((t: { name: string }) => t.name),
    [RECEIPTS, 'Von Token'],
  );
  const anonymous = await new Client(s.url).get('/api/tags');
  assert.is(anonymous.status, 401);
});

test.run();
