// If-Match on the editor's saves (issue 16): a save carrying the ETag its text was read with
// lands only while the file still has it; otherwise 412 EDITOR_CHANGED in the envelope, the
// file untouched and no version kept. `*` asks only that the file exists; no header saves as
// before. The same through a writable link, whose ETag is the link's own. Both rows describe
// the header.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let admin: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const versionsOf = async (p: string) =>
  (await admin.get(`/api/versions?path=${encodeURIComponent(p)}`)).json.items.length as number;

/** Someone else writes the file (a later mtime, so its ETag changes whatever the clock's grain). */
function writeElsewhere(file: string, text: string): void {
  fs.writeFileSync(file, text);
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(file, later, later);
}

test.before(async () => {
  s = await startServer({ volumes: ['Files'] });
  admin = await setupAdmin(s);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('a save with the ETag it read lands; the answer carries the next ETag, which the next save may send', async () => {
  fs.writeFileSync(vol('a.txt'), 'one');
  const etag = (await admin.get('/api/editor?path=Files/a.txt')).headers.get('etag')!;
  const saved = await admin.put('/api/editor', { path: 'Files/a.txt', content: 'two' }, { 'if-match': etag });
  assert.is(saved.status, 200, saved.text);
  assert.is(fs.readFileSync(vol('a.txt'), 'utf8'), 'two');
  const next = saved.headers.get('etag')!;
  assert.is.not(next, etag);
  const again = await admin.put('/api/editor', { path: 'Files/a.txt', content: 'three' }, { 'if-match': next });
  assert.is(again.status, 200, again.text);
  assert.is(fs.readFileSync(vol('a.txt'), 'utf8'), 'three');
  // A list naming the current tag among others holds too.
  const now = again.headers.get('etag')!;
  const listed = await admin.put(
    '/api/editor',
    { path: 'Files/a.txt', content: 'four' },
    { 'if-match': `"elsewhere", ${now}` },
  );
  assert.is(listed.status, 200, listed.text);
  assert.is(await versionsOf('Files/a.txt'), 3, 'each replaced text kept');
});

test('a stale If-Match is refused with 412 EDITOR_CHANGED: the file untouched, no version, no temporary left', async () => {
  fs.writeFileSync(vol('b.txt'), 'mine');
  const etag = (await admin.get('/api/editor?path=Files/b.txt')).headers.get('etag')!;
  writeElsewhere(vol('b.txt'), 'theirs');
  const refused = await admin.put(
    '/api/editor',
    { path: 'Files/b.txt', content: 'mine, edited' },
    { 'if-match': etag },
  );
  assert.is(refused.status, 412);
  const e = envelope(refused);
  assert.is(e.code, 'EDITOR_CHANGED');
  assert.is(e.message, 'The file changed since you opened it.');
  assert.is(fs.readFileSync(vol('b.txt'), 'utf8'), 'theirs');
  assert.is(await versionsOf('Files/b.txt'), 0, 'no version kept for a refused save');
  assert.equal(
    fs.readdirSync(vol()).filter((n) => n.startsWith('.burrow-tmp-')),
    [],
  );
  // A weak tag never matches a change (strong comparison), nor does a made-up one.
  for (const tag of [`W/${(await admin.get('/api/editor?path=Files/b.txt')).headers.get('etag')}`, '"nope"'])
    assert.is(
      (await admin.put('/api/editor', { path: 'Files/b.txt', content: 'x' }, { 'if-match': tag })).status,
      412,
      tag,
    );
  // Without the header the save replaces what is there, as the spec has it; the text is a version.
  const plain = await admin.put('/api/editor', { path: 'Files/b.txt', content: 'mine, edited' });
  assert.is(plain.status, 200, plain.text);
  assert.is(fs.readFileSync(vol('b.txt'), 'utf8'), 'mine, edited');
  assert.is(await versionsOf('Files/b.txt'), 1);
});

test('If-Match: * saves over an existing file and refuses to create one', async () => {
  fs.writeFileSync(vol('c.txt'), 'here');
  const over = await admin.put('/api/editor', { path: 'Files/c.txt', content: 'replaced' }, { 'if-match': '*' });
  assert.is(over.status, 200, over.text);
  assert.is(fs.readFileSync(vol('c.txt'), 'utf8'), 'replaced');
  const absent = await admin.put('/api/editor', { path: 'Files/absent.txt', content: 'x' }, { 'if-match': '*' });
  assert.is(absent.status, 412);
  assert.is(envelope(absent).code, 'EDITOR_CHANGED');
  assert.not.ok(fs.existsSync(vol('absent.txt')), 'nothing created');
  // Without the header a save still creates the file.
  assert.is((await admin.put('/api/editor', { path: 'Files/absent.txt', content: 'x' })).status, 200);
});

test('saves sent at once with the same ETag: one lands, the others are refused', async () => {
  fs.writeFileSync(vol('d.txt'), 'start');
  const etag = (await admin.get('/api/editor?path=Files/d.txt')).headers.get('etag')!;
  const answers = await Promise.all(
    [0, 1, 2, 3, 4].map((i) =>
      admin.put('/api/editor', { path: 'Files/d.txt', content: `writer ${i}` }, { 'if-match': etag }),
    ),
  );
  const statuses = answers.map((a) => a.status).sort();
  assert.equal(statuses, [200, 412, 412, 412, 412]);
  const winner = answers.findIndex((a) => a.status === 200);
  assert.is(fs.readFileSync(vol('d.txt'), 'utf8'), `writer ${winner}`);
  assert.is(await versionsOf('Files/d.txt'), 1, 'only the one replaced text is a version');
});

test('nine saves of one ETag at once (through a cluster, three on each instance): one lands, eight are refused, the replaced text is the version', async () => {
  const name = 'Ünïcode & 100% #saves.txt';
  fs.writeFileSync(vol(name), 'the text before');
  const p = `Files/${name}`;
  const etag = (await admin.get(`/api/editor?path=${encodeURIComponent(p)}`)).headers.get('etag')!;
  const answers = await Promise.all(
    Array.from({ length: 9 }, (_, i) =>
      admin.put('/api/editor', { path: p, content: `writer ${i} 🦡` }, { 'if-match': etag }),
    ),
  );
  const won = answers.filter((a) => a.status === 200);
  assert.is(won.length, 1, answers.map((a) => `${a.status} ${a.text}`).join('\n'));
  for (const a of answers.filter((x) => x.status !== 200)) {
    assert.is(a.status, 412, a.text);
    assert.is(envelope(a).code, 'EDITOR_CHANGED');
  }
  const winner = answers.indexOf(won[0]!);
  assert.is(fs.readFileSync(vol(name), 'utf8'), `writer ${winner} 🦡`);
  const versions = (await admin.get(`/api/versions?path=${encodeURIComponent(p)}`)).json.items as { id: string }[];
  assert.is(versions.length, 1, 'only the one replaced text is a version');
  assert.is((await admin.get(`/api/versions/${versions[0]!.id}/text`)).json.content, 'the text before');
  // The winner's answer carries the ETag the file now has: the next save with it lands.
  const next = await admin.put(
    '/api/editor',
    { path: p, content: 'after' },
    { 'if-match': won[0]!.headers.get('etag')! },
  );
  assert.is(next.status, 200, next.text);
  assert.equal(
    fs.readdirSync(vol()).filter((n) => n.startsWith('.burrow-tmp-')),
    [],
  );
});

test("through a writable link: If-Match is the link's ETag; a stale one is refused and writes nothing", async () => {
  fs.mkdirSync(vol('Shared'));
  fs.writeFileSync(vol('Shared', 'notes.txt'), 'v1');
  const created = await admin.post('/api/shares', {
    sourcePath: 'Files/Shared',
    sharingType: 'anyone',
    accessMode: 'readwrite',
  });
  assert.is(created.status, 201, created.text);
  const t = created.json.shareToken as string;
  const a = new Client(s.url);
  const read = await a.get(`/api/share/${t}/editor?path=notes.txt`);
  const etag = read.headers.get('etag')!;
  // The owner's ETag is not the link's: it does not hold through the link.
  const own = (await admin.get('/api/editor?path=Files/Shared/notes.txt')).headers.get('etag')!;
  assert.is.not(own, etag);
  const wrongKind = await a.put(`/api/share/${t}/editor`, { path: 'notes.txt', content: 'v2' }, { 'if-match': own });
  assert.is(wrongKind.status, 412);
  const saved = await a.put(`/api/share/${t}/editor`, { path: 'notes.txt', content: 'v2' }, { 'if-match': etag });
  assert.is(saved.status, 200, saved.text);
  assert.is(fs.readFileSync(vol('Shared', 'notes.txt'), 'utf8'), 'v2');
  assert.is(saved.headers.get('etag'), (await a.get(`/api/share/${t}/editor?path=notes.txt`)).headers.get('etag'));
  writeElsewhere(vol('Shared', 'notes.txt'), 'owner wrote');
  const stale = await a.put(
    `/api/share/${t}/editor`,
    { path: 'notes.txt', content: 'v3' },
    { 'if-match': saved.headers.get('etag')! },
  );
  assert.is(stale.status, 412);
  const e = envelope(stale);
  assert.is(e.code, 'EDITOR_CHANGED');
  assert.is(fs.readFileSync(vol('Shared', 'notes.txt'), 'utf8'), 'owner wrote');
  assert.is(await versionsOf('Files/Shared/notes.txt'), 1, 'only the first save kept a version');
  assert.is((await a.put(`/api/share/${t}/editor`, { path: 'notes.txt', content: 'v3' })).status, 200);
  assert.is(fs.readFileSync(vol('Shared', 'notes.txt'), 'utf8'), 'v3');
});

test('both save rows describe If-Match and the 412', async () => {
  const doc = (await new Client(s.url).get('/api/openapi.json')).json;
  for (const op of [doc.paths['/api/editor'].put, doc.paths['/api/share/{token}/editor'].put]) {
    const header = op.parameters.find((p: { in: string; name: string }) => p.in === 'header' && p.name === 'If-Match');
    assert.ok(header, 'If-Match described');
    assert.match(header.description, /412 EDITOR_CHANGED/);
    assert.match(header.description, /`\*`/);
    assert.match(op.responses['412'].description, /EDITOR_CHANGED/);
  }
  const codes = doc.components.responses.Error.content['application/json'].schema.properties.error.properties.code;
  assert.ok(codes.enum.includes('EDITOR_CHANGED'));
});

test.run();
