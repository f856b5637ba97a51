// Extraction onto taken names answers the same conflict policy as uploads, copies and moves:
// `rename` (keep both, the default), `skip`, `replace` — for all the selected items (`conflict`)
// or per item (`conflictFor`). A replaced file is kept as a version of it, a replaced folder goes
// to the trash (folders never merge); `done` says per item what became of it, and
// POST /api/archive/conflicts lists the taken names before any work. Names as people
// write them (spaces, &, #, an apostrophe, NFD accents, emoji). A read token and another site's
// page are refused before anything is written (share links cannot extract at all).
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import { issueToken, setupAdmin } from '../support/auth.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { yazlZip } from '../support/archives.ts';

let s: TestServer;
let admin: Client;
const FOLDER = 'Backups & Trips #2';
const ZIP = 'My Backup 2024.zip';
const PHOTO = 'photo 01 🌅.jpg';
const CAFE = 'Café.txt'.normalize('NFD');
const disk = (...p: string[]) => path.join(s.dirs.volumes, 'Files', FOLDER, ...p);
const ENTRIES: Record<string, string> = {
  'Trip notes/Day 1 – arrival.txt': 'Arrived at noon',
  "Trip notes/Recipes/Grandma's apple pie.md": '# Apple pie',
  [PHOTO]: 'new photo bytes',
  [CAFE]: 'new café text',
};

async function extract(c: Client, body: object): Promise<{ status: number; events: any[]; text: string }> {
  const r = await c.post('/api/archive/extract', { path: `Files/${FOLDER}/${ZIP}`, ...body });
  const events = r.headers.get('content-type')?.startsWith('application/x-ndjson')
    ? r.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : [];
  return { status: r.status, events, text: r.text };
}
const done = (events: any[]) => {
  const d = events.find((e) => e.type === 'done');
  assert.ok(d, `a done event: ${JSON.stringify(events)}`);
  return d;
};
/** Puts the destination back as it was before each case: the old items, nothing else. */
function resetDestination(): void {
  for (const name of fs.readdirSync(disk())) if (name !== ZIP) fs.rmSync(disk(name), { recursive: true });
  fs.mkdirSync(disk('Trip notes'));
  fs.writeFileSync(disk('Trip notes', 'packing list.txt'), 'old folder');
  fs.writeFileSync(disk(PHOTO), 'old photo bytes');
  fs.writeFileSync(disk(CAFE), 'old café text');
}
const hidden = () => fs.readdirSync(disk()).filter((n) => n.startsWith('.'));

test.before(async () => {
  s = await startServer();
  admin = await setupAdmin(s);
  fs.mkdirSync(disk(), { recursive: true });
  await yazlZip(disk(ZIP), [
    { name: 'Trip notes/', dir: true },
    { name: 'Trip notes/Recipes/', dir: true },
    ...Object.entries(ENTRIES).map(([name, data]) => ({ name, data })),
  ]);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('the default keeps both, and says so per item', async () => {
  resetDestination();
  const r = await extract(admin, { entries: [PHOTO, 'Trip notes'] });
  assert.is(r.status, 200, r.text);
  const byEntry = (a: any, b: any) => (a.entry < b.entry ? -1 : 1);
  assert.equal(
    [...done(r.events).landed].sort(byEntry),
    [
      { entry: PHOTO, name: 'photo 01 🌅 (1).jpg', outcome: 'renamed' },
      { entry: 'Trip notes', name: 'Trip notes (1)', outcome: 'renamed' },
    ].sort(byEntry),
  );
  assert.is(fs.readFileSync(disk(PHOTO), 'utf8'), 'old photo bytes');
  assert.is(fs.readFileSync(disk('photo 01 🌅 (1).jpg'), 'utf8'), 'new photo bytes');
});

test('skip leaves the taken names as they are and writes nothing of those items', async () => {
  resetDestination();
  const r = await extract(admin, { entries: [], conflict: 'skip' });
  assert.is(r.status, 200, r.text);
  const landed = done(r.events).landed;
  assert.equal(
    landed.map((l: any) => [l.entry, l.outcome]).sort(),
    [
      [CAFE, 'skipped'],
      [PHOTO, 'skipped'],
      ['Trip notes', 'skipped'],
    ].sort(),
  );
  assert.is(fs.readFileSync(disk(PHOTO), 'utf8'), 'old photo bytes');
  assert.is(fs.readFileSync(disk(CAFE), 'utf8'), 'old café text');
  assert.equal(fs.readdirSync(disk('Trip notes')), ['packing list.txt'], 'no merge, nothing added');
  assert.equal(fs.readdirSync(disk()).sort(), [ZIP, CAFE, 'Trip notes', PHOTO].sort(), 'nothing else written');
  assert.equal(hidden(), [], 'no temporary left');
});

test('replace: a file is kept as a version, a folder goes to the trash; per item over the default', async () => {
  resetDestination();
  const r = await extract(admin, {
    entries: [PHOTO, 'Trip notes', CAFE],
    conflict: 'replace',
    conflictFor: { [CAFE]: 'skip' },
  });
  assert.is(r.status, 200, r.text);
  const byEntry = Object.fromEntries(done(r.events).landed.map((l: any) => [l.entry, l]));
  assert.is(byEntry[PHOTO].outcome, 'replaced');
  assert.type(byEntry[PHOTO].versionId, 'string');
  assert.is(byEntry['Trip notes'].outcome, 'replaced');
  assert.type(byEntry['Trip notes'].trashId, 'string');
  assert.is(byEntry[CAFE].outcome, 'skipped');
  assert.is(fs.readFileSync(disk(PHOTO), 'utf8'), 'new photo bytes');
  assert.is(fs.readFileSync(disk(CAFE), 'utf8'), 'old café text');
  assert.equal(fs.readdirSync(disk('Trip notes')).sort(), ['Day 1 – arrival.txt', 'Recipes'], 'the new folder, whole');
  // The old photo is a version of it, byte for byte.
  const versions = await admin.get(`/api/versions?path=${encodeURIComponent(`Files/${FOLDER}/${PHOTO}`)}`);
  assert.is(versions.status, 200, versions.text);
  const v = versions.json.items.find((i: any) => i.id === byEntry[PHOTO].versionId);
  assert.ok(v, versions.text);
  const old = await admin.get(`/api/versions/${v.id}/text`);
  assert.is(old.status, 200, old.text);
  assert.ok(old.text.includes('old photo bytes'), old.text);
  // The old folder is in the trash with its file.
  const trash = await admin.get('/api/trash');
  const entry = trash.json.items.find((i: any) => i.id === byEntry['Trip notes'].trashId);
  assert.ok(entry && entry.name === 'Trip notes', trash.text);
  assert.equal(hidden(), []);
});

test('the taken names are listed before any work, with what holds them and what would come', async () => {
  resetDestination();
  const before = fs.readdirSync(disk()).sort();
  const r = await admin.post('/api/archive/conflicts', { path: `Files/${FOLDER}/${ZIP}`, entries: [] });
  assert.is(r.status, 200, r.text);
  const byEntry = Object.fromEntries(r.json.conflicts.map((c: any) => [c.entry, c]));
  assert.equal(Object.keys(byEntry).sort(), [CAFE, PHOTO, 'Trip notes'].sort(), r.text);
  assert.is(byEntry[PHOTO].existing.size, 'old photo bytes'.length);
  assert.is(byEntry[PHOTO].incoming.size, 'new photo bytes'.length);
  assert.is(byEntry[PHOTO].sameKind, true);
  assert.is(byEntry['Trip notes'].incoming.isDirectory, true);
  assert.is(byEntry['Trip notes'].existing.kind, 'directory');
  assert.ok(byEntry[PHOTO].canReplace && r.json.canReplace);
  // A folder of the archive over a file of the same name is not of the same kind.
  fs.rmSync(disk('Trip notes'), { recursive: true });
  fs.writeFileSync(disk('Trip notes'), 'a file now');
  const other = await admin.post('/api/archive/conflicts', {
    path: `Files/${FOLDER}/${ZIP}`,
    entries: ['Trip notes/'],
    destination: `Files/${FOLDER}`,
  });
  assert.equal(
    other.json.conflicts.map((c: any) => [c.entry, c.sameKind]),
    [['Trip notes', false]],
    other.text,
  );
  // Elsewhere nothing is taken; nothing was changed by asking.
  fs.mkdirSync(disk('Empty shelf'));
  const none = await admin.post('/api/archive/conflicts', {
    path: `Files/${FOLDER}/${ZIP}`,
    entries: [],
    destination: `Files/${FOLDER}/Empty shelf`,
  });
  assert.equal(none.json.conflicts, [], none.text);
  fs.rmSync(disk('Empty shelf'), { recursive: true });
  assert.equal(fs.readdirSync(disk()).sort(), before);
});

test('an answer keyed as the entries name a folder (with its slash) applies to it', async () => {
  resetDestination();
  const r = await extract(admin, { entries: ['Trip notes/'], conflictFor: { 'Trip notes/': 'skip' } });
  assert.is(r.status, 200, r.text);
  assert.equal(done(r.events).landed, [{ entry: 'Trip notes', name: 'Trip notes', outcome: 'skipped' }]);
  assert.equal(fs.readdirSync(disk('Trip notes')), ['packing list.txt']);
  assert.equal(hidden(), []);
});

test('a read token and another site are refused before anything is written; an unknown policy or a name outside is a 400', async () => {
  resetDestination();
  const before = fs.readdirSync(disk()).sort();
  // A read token may not extract at all. (An account that may create here may also replace: the
  // refusal of replace by assertMayReplace answers only a link's upload, which cannot extract.)
  const token = await issueToken(admin, 'read');
  const reader = new Client(s.url, token);
  const read = await extract(reader, { entries: [PHOTO], conflict: 'replace' });
  assert.is(read.status, 403, read.text);
  // Another site's page cannot make the browser extract.
  const cross = await admin.post(
    '/api/archive/extract',
    { path: `Files/${FOLDER}/${ZIP}`, entries: [PHOTO], conflict: 'replace' },
    { origin: 'https://evil.example' },
  );
  assert.is(cross.status, 403, cross.text);
  assert.equal(fs.readdirSync(disk()).sort(), before, 'nothing written');
  assert.is(fs.readFileSync(disk(PHOTO), 'utf8'), 'old photo bytes');
  // A policy the server does not know, or an answer for a name pointing outside, is a clear 400.
  const bad = await extract(admin, { entries: [PHOTO], conflict: 'overwrite' });
  assert.is(bad.status, 400, bad.text);
  assert.type(JSON.parse(bad.text).error.requestId, 'string');
  const outside = await extract(admin, { entries: [PHOTO], conflictFor: { '../../Backups & Trips #2': 'replace' } });
  assert.is(outside.status, 400, outside.text);
  assert.equal(fs.readdirSync(disk()).sort(), before, 'nothing written');
});

test('described in the API description', async () => {
  const doc = (await admin.get('/api/openapi.json')).json;
  const text = JSON.stringify(doc.paths['/api/archive/extract']);
  assert.ok(text.includes('conflictFor') && text.includes('"replace"'), 'the body names the policy');
  const asked = JSON.stringify(doc.paths['/api/archive/conflicts']);
  assert.ok(asked.includes('incoming') && asked.includes('canReplace'), 'the conflicts row is described');
});

test.run();
