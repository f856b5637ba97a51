// A link holder uploading onto a taken name (issue 26): the same policy as the account's uploads —
// `rename` (keep both, the default), `skip`, `replace` — but nobody's file is replaced through a
// link unless the link allows deleting. A holder who may see the folder asks first
// (POST /api/share/{token}/conflicts); a file request tells nothing of what its folder holds, and
// a skipped file is not counted against it. Names as people write them (spaces, +, &, #, an NFD
// accent, emoji), in the form field and in the query string. The attacker table: an add-only link
// asking to replace (multipart and TUS), a file request asking what is there, a path out of the
// link, a link that is gone, another account's folder through the link.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let owner: Client;
const anon = () => new Client(s.url);
const FOLDER = 'Family Photos & Notes #1';
const CAFE = 'Café crème.jpg'.normalize('NFD');
const BEACH = 'beach day + sunset 🌅.jpg';
const disk = (...p: string[]) => path.join(s.dirs.volumes, 'Files', FOLDER, ...p);
const TUS = { 'Tus-Resumable': '1.0.0' };
const b64 = (v: string) => Buffer.from(v).toString('base64');

function form(token: string, files: [string, string][], conflict?: string): FormData {
  const fd = new FormData();
  fd.append('uploadTo', `share/${token}`);
  if (conflict) fd.append('conflict', conflict);
  for (const [name, text] of files) fd.append('filedata', new Blob([text]), name);
  return fd;
}
async function link(body: object): Promise<{ token: string; id: string }> {
  const r = await owner.post('/api/shares', { sourcePath: `Files/${FOLDER}`, sharingType: 'anyone', ...body });
  assert.is(r.status, 201, r.text);
  return { token: r.json.shareToken, id: r.json.id };
}
/** The folder as it is on disk (Burrow's own folders left out). */
const listing = () =>
  fs
    .readdirSync(disk())
    .filter((n) => !n.startsWith('.burrow'))
    .sort();

test.before(async () => {
  s = await startServer({ env: { UPLOAD_CHUNKED_ENABLED: 'true' } });
  owner = await setupAdmin(s);
  fs.mkdirSync(disk(), { recursive: true });
  fs.writeFileSync(disk(CAFE), "grandma's photo");
  fs.writeFileSync(disk(BEACH), 'the first sunset');
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('a link that may add files: asked first, keeps both by default, skips, and never replaces', async () => {
  const { token } = await link({ accessMode: 'readwrite', allowUpload: true, allowDelete: false });
  const holder = anon();
  const asked = await holder.post(`/api/share/${token}/conflicts`, { path: '', names: [CAFE, BEACH, 'new one.jpg'] });
  assert.is(asked.status, 200, asked.text);
  assert.equal(asked.json.conflicts.map((c: any) => c.name).sort(), [BEACH, CAFE].sort());
  assert.is(asked.json.canReplace, false, 'the link may not replace');
  assert.ok(
    asked.json.conflicts.every((c: any) => c.canReplace === false && c.existing.size > 0),
    asked.text,
  );

  // The default keeps both, and says so.
  const kept = await holder.post(`/api/share/${token}/upload`, form(token, [[CAFE, 'my photo']]));
  assert.is(kept.status, 201, kept.text);
  assert.equal([kept.json[0].name, kept.json[0].outcome], ['Café crème (1).jpg'.normalize('NFD'), 'renamed']);
  assert.is(fs.readFileSync(disk(CAFE), 'utf8'), "grandma's photo");

  // Skip, asked in the query string as a script would: nothing stored, the answer names what kept the name.
  const before = listing();
  const skipped = await holder.post(`/api/share/${token}/upload?conflict=skip`, form(token, [[BEACH, 'mine']]));
  assert.is(skipped.status, 201, skipped.text);
  assert.equal([skipped.json[0].name, skipped.json[0].outcome], [BEACH, 'skipped']);
  assert.equal(listing(), before);
  assert.is(fs.readFileSync(disk(BEACH), 'utf8'), 'the first sunset');

  // Replace: refused before a byte is stored, by multipart (field or query) and by TUS.
  for (const url of [`/api/share/${token}/upload`, `/api/share/${token}/upload?conflict=replace`]) {
    const refused = await holder.post(
      url,
      form(token, [[BEACH, 'over it']], url.includes('?') ? undefined : 'replace'),
    );
    assert.is(refused.status, 403, refused.text);
    assert.match(envelope(refused).message, /keep both or skip/);
  }
  const tus = await holder.request('POST', `/api/share/${token}/tus`, undefined, {
    ...TUS,
    'Upload-Length': '7',
    'Upload-Metadata': `uploadTo ${b64(`share/${token}`)},filename ${b64(BEACH)},conflict ${b64('replace')}`,
  });
  assert.is(tus.status, 403, tus.text);
  assert.equal(listing(), before, 'nothing written by the refusals');
  assert.is(fs.readFileSync(disk(BEACH), 'utf8'), 'the first sunset');
});

test('a link that allows changes replaces, and the old photo is a version for the owner', async () => {
  const { token } = await link({ accessMode: 'readwrite', allowUpload: true, allowDelete: true });
  const holder = anon();
  const asked = await holder.post(`/api/share/${token}/conflicts`, { path: '', names: [BEACH] });
  assert.equal([asked.json.canReplace, asked.json.conflicts[0].canReplace], [true, true], asked.text);
  const replaced = await holder.post(
    `/api/share/${token}/upload`,
    form(token, [[BEACH, 'a better sunset']], 'replace'),
  );
  assert.is(replaced.status, 201, replaced.text);
  assert.is(replaced.json[0].outcome, 'replaced');
  assert.type(replaced.json[0].versionId, 'string');
  assert.is(fs.readFileSync(disk(BEACH), 'utf8'), 'a better sunset');
  const versions = await owner.get(`/api/versions?path=${encodeURIComponent(`Files/${FOLDER}/${BEACH}`)}`);
  const v = versions.json.items.find((i: any) => i.id === replaced.json[0].versionId);
  assert.ok(v, versions.text);
  assert.is((await owner.get(`/api/versions/${v.id}/text`)).json.content, 'the first sunset');
});

test('a file request tells nothing of its folder, keeps both, and a skip is not counted', async () => {
  const { token, id } = await link({ fileRequest: { maxFiles: 2 } });
  const holder = anon();
  const asked = await holder.post(`/api/share/${token}/conflicts`, { path: '', names: [CAFE] });
  assert.is(asked.status, 403, asked.text);
  envelope(asked);
  const counted = async () =>
    (await owner.get('/api/shares')).json.shares.find((x: any) => x.id === id).fileRequest.receivedFiles;

  const skipped = await holder.post(`/api/share/${token}/upload`, form(token, [[CAFE, 'homework']], 'skip'));
  assert.is(skipped.status, 201, skipped.text);
  assert.is(skipped.json[0].outcome, 'skipped');
  const tusSkip = await holder.request('POST', `/api/share/${token}/tus`, undefined, {
    ...TUS,
    'Upload-Length': '8',
    'Upload-Metadata': `uploadTo ${b64(`share/${token}`)},filename ${b64(CAFE)},conflict ${b64('skip')}`,
  });
  assert.is(tusSkip.status, 201, tusSkip.text);
  assert.is(tusSkip.headers.get('upload-outcome'), 'skipped');
  assert.is(await counted(), 0, 'skips take no room in the request');

  const kept = await holder.post(`/api/share/${token}/upload`, form(token, [[CAFE, 'homework']]));
  assert.is(kept.json[0].outcome, 'renamed', kept.text);
  assert.is(await counted(), 1);
  const refused = await holder.post(`/api/share/${token}/upload`, form(token, [[CAFE, 'over it']], 'replace'));
  assert.is(refused.status, 403, refused.text);
  assert.is(fs.readFileSync(disk(CAFE), 'utf8'), "grandma's photo");
});

test('attackers: a path out of the link, a link that is gone, another folder named through the link', async () => {
  const { token, id } = await link({ accessMode: 'readwrite', allowUpload: true });
  fs.mkdirSync(path.join(s.dirs.volumes, 'Files', 'Private'), { recursive: true });
  fs.writeFileSync(path.join(s.dirs.volumes, 'Files', 'Private', 'diary.txt'), 'secret');
  const holder = anon();
  for (const p of ['..', '../Private', '%2e%2e/Private']) {
    const r = await holder.post(`/api/share/${token}/conflicts`, { path: p, names: ['diary.txt'] });
    assert.ok(r.status === 400 || r.status === 404, `${p}: ${r.status} ${r.text}`);
    envelope(r);
  }
  // A name that climbs out is refused too, and tells nothing.
  const climbing = await holder.post(`/api/share/${token}/conflicts`, { path: '', names: ['../Private/diary.txt'] });
  assert.is(climbing.status, 400, climbing.text);
  // Uploading to another folder through the link's upload row: refused, nothing written there.
  const elsewhere = new FormData();
  elsewhere.append('uploadTo', 'Files/Private');
  elsewhere.append('conflict', 'replace');
  elsewhere.append('filedata', new Blob(['mine now']), 'diary.txt');
  const r = await holder.post(`/api/share/${token}/upload`, elsewhere);
  assert.ok(r.status >= 400, r.text);
  assert.is(fs.readFileSync(path.join(s.dirs.volumes, 'Files', 'Private', 'diary.txt'), 'utf8'), 'secret');
  // Gone: 404.
  assert.is((await owner.delete(`/api/shares/${id}`)).status, 204);
  const gone = await holder.post(`/api/share/${token}/conflicts`, { path: '', names: [CAFE] });
  assert.is(gone.status, 404, gone.text);
});

test('described in the API description', async () => {
  const doc = (await owner.get('/api/openapi.json')).json;
  const asked = JSON.stringify(doc.paths['/api/share/{token}/conflicts']);
  assert.ok(asked.includes('canReplace'), 'the holder conflicts row is described');
  const upload = JSON.stringify(doc.paths['/api/share/{token}/upload']);
  assert.ok(upload.includes('outcome') && upload.includes('"conflict"'), 'the link upload says its policy');
});

test.run();
