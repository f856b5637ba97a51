// The access model's attacker table for the doors not covered by access-doors: a household (an
// administrator, a parent no rule names, a child in the group Kids) where a group rule hides
// "Finances" from the children and another lets them only view "Photos". Each door is tried
// through the child's session, the child's read token, a link the child made, and WebDAV, with
// the parent (or the administrator) as the control that proves the same request would answer
// otherwise: search names and snippets, folder sizes, raw/editor/download under view, TUS and
// multipart uploads (a relativePath leading into a withheld folder, a rule set between creation
// and placement), trash and restore, versions, favourites and recent destinations, WOPI
// CheckFileInfo, live events and the activity log. Refusals leave the disk as it was.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { Client, envelope, type Answer } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { createUser, issueToken, me, setupAdmin } from '../support/auth.ts';
import { serveDiscovery } from '../support/office.ts';
import { waitFor } from '../support/wait.ts';

const HOME = 'Family Home';
const SECRET = 'Finances – Zoë 💶 #2';
const VIEW = 'Photos & Été 🌞';
const OPEN = "Kids' drawings";
const LEO_PASSWORD = 'leo-password-1';
const ANA_PASSWORD = 'ana-password-1';
const PUBLIC = 'http://files.burrow.test';
const TUS = { 'Tus-Resumable': '1.0.0' };
const b64 = (v: string) => Buffer.from(v).toString('base64');
const q = encodeURIComponent;
/** Words that exist only inside the hidden folder: no answer to the child may carry one. */
const SECRET_WORDS = ['Finances', 'salary', 'quokkasalary', 'statement'];

let s: TestServer;
let admin: Client;
let ana: Client;
let leo: Client;
let leoRead: Client;
let leoId: string;
let kids: string;
let linkToken: string;
let linkHolder: Client;
let editorBase = '';

const disk = (...p: string[]) => path.join(s.dirs.volumes, HOME, ...p);
const tree = (dir: string): string[] =>
  fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => p.split(path.sep).join('/'))
    .sort();
const davAuth = (name: string, secret: string) => 'Basic ' + Buffer.from(`${name}:${secret}`).toString('base64');
const LEO_DAV = () => davAuth('leo', LEO_PASSWORD);
const davUrl = (...segments: string[]) => `${s.url}/dav/${segments.map(q).join('/')}`;

function leaksNothing(text: string, what: string): void {
  for (const w of SECRET_WORDS) assert.not.ok(text.includes(w), `${what} names "${w}": ${text.slice(0, 400)}`);
}

function refusedWith(a: Answer, status: number, code?: string): void {
  assert.is(a.status, status, a.text);
  if (code) assert.is(envelope(a).code, code, a.text);
  leaksNothing(a.text, 'a refusal');
}

const rule = (p: string, level: string, subject: object = { kind: 'group', id: kids }) =>
  admin.put('/api/access/rules', { path: p, subject, level }).then((r) => {
    assert.is(r.status, 200, r.text);
    return r.json.rule.id as string;
  });
const unrule = async (id: string) => assert.is((await admin.delete(`/api/access/rules/${id}`)).status, 204);

const editor = http.createServer((req, res) => {
  if (serveDiscovery(req, res, editorBase)) return;
  res.statusCode = 404;
  res.end();
});

test.before(async () => {
  await new Promise<void>((r) => editor.listen(0, '127.0.0.1', r));
  editorBase = `http://127.0.0.1:${(editor.address() as AddressInfo).port}`;
  s = await startServer({
    volumes: [HOME],
    env: {
      WEBDAV_ENABLED: 'true',
      UPLOAD_CHUNKED_ENABLED: 'true',
      FOLDER_SIZE_MODE: 'full',
      FOLDER_SIZE_FLUSH_MS: '20',
      PUBLIC_URL: PUBLIC,
      OFFICEEDITOR_URL: editorBase,
      OFFICEEDITOR_SECRET: 'w'.repeat(40),
    },
  });
  fs.mkdirSync(disk(SECRET), { recursive: true });
  fs.writeFileSync(disk(SECRET, 'salary 2024 +1.txt'), 'the quokkasalary of the year\n');
  fs.mkdirSync(disk(VIEW), { recursive: true });
  fs.writeFileSync(disk(VIEW, 'beach +1 ümlaut.txt'), 'a sandcastle by the sea\n');
  fs.writeFileSync(disk(VIEW, 'Zoë’s letter.docx'), 'docx bytes of a letter');
  fs.mkdirSync(disk(OPEN), { recursive: true });
  fs.writeFileSync(disk(OPEN, 'sun 🌞.txt'), 'a yellow sun\n');
  fs.writeFileSync(disk(OPEN, 'story.docx'), 'docx bytes of a story');
  // The volume existed before its files: the indexes walk the tree as it is now. Written after
  // the start, the files were in an index only if its first walk happened to end after them (a
  // cluster's three instances had each walked the empty volume: nothing had found them yet).
  await s.restart({ FOLDER_SIZE_REBUILD: 'true' });
  admin = await setupAdmin(s);
  assert.is((await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 7 } })).status, 200);
  ana = await createUser(admin, s, { username: 'ana', password: ANA_PASSWORD });
  leo = await createUser(admin, s, { username: 'leo', password: LEO_PASSWORD });
  leoId = (await me(leo)).id;
  leoRead = new Client(s.url, await issueToken(leo, 'read', { password: LEO_PASSWORD }));
  kids = (await admin.post('/api/access/groups', { name: 'Kids 🧒' })).json.group.id;
  assert.is((await admin.post(`/api/access/groups/${kids}/members`, { userId: leoId })).status, 204);
  await rule(`${HOME}/${SECRET}`, 'hidden');
  await rule(`${HOME}/${VIEW}`, 'view');
  // The child's link to the whole volume, with every right a link can carry: it still gives
  // no more than the child has.
  const link = await leo.post('/api/shares', {
    sourcePath: HOME,
    sharingType: 'anyone',
    accessMode: 'readwrite',
    allowDownload: true,
    allowUpload: true,
    allowCreateFile: true,
    allowCreateFolder: true,
    allowRename: true,
    allowDelete: true,
    allowEdit: true,
  });
  assert.is(link.status, 201, link.text);
  linkToken = link.json.shareToken;
  linkHolder = new Client(s.url);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
  await new Promise((r) => editor.close(r));
});

test('search: no hidden name, no hidden snippet, for the session, the read token and the link; the parent finds both', async () => {
  for (const term of ['quokkasalary', 'salary', 'Finances']) {
    const found = await ana.get(`/api/search?q=${q(term)}`);
    assert.is(found.status, 200, found.text);
    assert.ok(
      found.json.items.some((i: any) => i.path.includes('Finances') || i.name.includes('Finances')),
      `the parent finds ${term}`,
    );
    for (const c of [leo, leoRead]) {
      const a = await c.get(`/api/search?q=${q(term)}`);
      assert.is(a.status, 200, a.text);
      assert.equal(a.json.items, [], term);
      leaksNothing(a.text, `search ${term}`);
      const within = await c.get(`/api/search?q=${q(term)}&path=${q(`${HOME}/${SECRET}`)}`);
      refusedWith(within, 404);
    }
  }
  // What she may view is found, content and all.
  const sand = await leo.get(`/api/search?q=sandcastle`);
  assert.ok(
    sand.json.items.some((i: any) => i.matchLine?.includes('sandcastle')),
    sand.text,
  );
  // A link holder has no search of its own: the link's listing names no hidden folder.
  const listing = await linkHolder.get(`/api/share/${linkToken}/browse/`);
  assert.is(listing.status, 200, listing.text);
  assert.ok(listing.text.includes('drawings'));
  leaksNothing(listing.text, 'the link listing');
  refusedWith(await linkHolder.get(`/api/share/${linkToken}/browse/${q(SECRET)}`), 404);
});

test('folder sizes: a parent folder does not count what is hidden from her, by path and in the batch', async () => {
  const sized = (c: Client, p: string) =>
    waitFor(
      async () => {
        const a = await c.get(`/api/folder-size/${p.split('/').map(q).join('/')}`);
        return a.status === 200 && a.json.indexed && a.json.complete ? a : null;
      },
      { what: `the indexed size of ${p}` },
    );
  const whole = (await sized(admin, HOME)).json;
  const secret = (await sized(admin, `${HOME}/${SECRET}`)).json;
  assert.ok(secret.sizeBytes > 0);
  for (const c of [leo, leoRead]) {
    const mine = (await sized(c, HOME)).json;
    assert.is(mine.sizeBytes, whole.sizeBytes - secret.sizeBytes, 'the hidden bytes are not counted');
    assert.is(mine.entryCount, whole.entryCount - secret.entryCount - 1, 'nor its entries, nor itself');
    // Spec §8: a folder asked for by the path the caller sends answers with canEnter false
    // (the name is the caller's own); the listing, search and the parent's total name nothing.
    const byPath = await c.get(`/api/folder-size/${q(HOME)}/${q(SECRET)}`);
    assert.is(byPath.status, 200, byPath.text);
    assert.is(byPath.json.canEnter, false);
    const batch = await c.post('/api/folder-size/batch', { paths: [HOME, `${HOME}/${OPEN}`] });
    assert.is(batch.status, 200, batch.text);
    assert.is(batch.json.items[0].sizeBytes, whole.sizeBytes - secret.sizeBytes);
  }
  // The parent, whom no rule names, counts everything.
  assert.is((await sized(ana, HOME)).json.sizeBytes, whole.sizeBytes);
});

test('folder sizes: a file hidden by its own rule is not counted in the folders above it', async () => {
  const diary = 'diary 🔒 "Léo" & #1.txt';
  const diaryBytes = 4321;
  const sized = (c: Client, p: string, ok: (r: any) => boolean = () => true) =>
    waitFor(
      async () => {
        const a = await c.get(`/api/folder-size/${p.split('/').map(q).join('/')}`);
        return a.status === 200 && a.json.indexed && a.json.complete && ok(a.json) ? a.json : null;
      },
      { what: `the indexed size of ${p}` },
    );
  const before = await sized(admin, `${HOME}/${OPEN}`);
  const id = await rule(`${HOME}/${OPEN}/${diary}`, 'hidden');
  fs.writeFileSync(disk(OPEN, diary.normalize('NFD')), Buffer.alloc(diaryBytes, 7));
  // The index has the file (the administrator's total grew by it) before the child asks.
  const open = await sized(admin, `${HOME}/${OPEN}`, (r) => r.sizeBytes === before.sizeBytes + diaryBytes);
  const whole = await sized(admin, HOME, (r) => r.entryCount >= open.entryCount + 1);
  for (const c of [leo, leoRead]) {
    const mine = await sized(c, `${HOME}/${OPEN}`);
    assert.is(mine.sizeBytes, open.sizeBytes - diaryBytes, 'the hidden file is not counted in its folder');
    assert.is(mine.entryCount, open.entryCount - 1);
    const home = await sized(c, HOME);
    const secret = await sized(admin, `${HOME}/${SECRET}`);
    assert.is(home.sizeBytes, whole.sizeBytes - secret.sizeBytes - diaryBytes, 'nor in the folders above');
    assert.is(home.entryCount, whole.entryCount - secret.entryCount - 1 - 1);
    const listed = await c.get(`/api/browse/${q(HOME)}/${q(OPEN)}`);
    assert.not.ok(listed.text.includes('diary'), listed.text);
  }
  // The parent, whom no rule names, counts it.
  assert.is((await sized(ana, `${HOME}/${OPEN}`)).sizeBytes, open.sizeBytes);
  await unrule(id);
  fs.rmSync(disk(OPEN, diary.normalize('NFD')));
});

test('under view: raw and editor reads answer, a download, an editor save and a WebDAV PUT are refused, the disk unchanged', async () => {
  const file = `${HOME}/${VIEW}/beach +1 ümlaut.txt`;
  const before = fs.readFileSync(disk(VIEW, 'beach +1 ümlaut.txt'), 'utf8');
  for (const c of [leo, leoRead]) {
    const raw = await c.get(`/api/raw?path=${q(file)}`);
    assert.is(raw.status, 200, raw.text);
    assert.is(raw.text, before);
    assert.is((await c.get(`/api/editor?path=${q(file)}`)).json.content, before);
    refusedWith(await c.get(`/api/download/${file.split('/').map(q).join('/')}`), 403, 'NO_DOWNLOAD');
  }
  refusedWith(await leo.put('/api/editor', { path: file, content: 'scribbled' }), 403, 'READ_ONLY');
  refusedWith(await leoRead.put('/api/editor', { path: file, content: 'scribbled' }), 403);
  // The parent saves there.
  assert.is(
    (await ana.put('/api/editor', { path: `${HOME}/${OPEN}/sun 🌞.txt`, content: 'a yellow sun\n' })).status,
    200,
  );
  // Through the child's link: read as a look, a save refused.
  const viaLink = `/api/share/${linkToken}/editor?path=${q(`${VIEW}/beach +1 ümlaut.txt`)}`;
  assert.is((await linkHolder.get(viaLink)).status, 200);
  const linkSave = await linkHolder.put(`/api/share/${linkToken}/editor`, {
    path: `${VIEW}/beach +1 ümlaut.txt`,
    content: 'scribbled',
  });
  refusedWith(linkSave, 403);
  refusedWith(
    await linkHolder.put(`/api/share/${linkToken}/editor`, { path: `${SECRET}/salary 2024 +1.txt`, content: 'x' }),
    404,
  );
  // WebDAV: a PUT over the file and into the folder, a MOVE in and a MOVE out are refused.
  const put = await fetch(davUrl(HOME, VIEW, 'beach +1 ümlaut.txt'), {
    method: 'PUT',
    headers: { authorization: LEO_DAV() },
    body: 'scribbled',
  });
  assert.is(put.status, 403, await put.text());
  const putNew = await fetch(davUrl(HOME, VIEW, 'new 🦀.txt'), {
    method: 'PUT',
    headers: { authorization: LEO_DAV() },
    body: 'crab',
  });
  assert.is(putNew.status, 403);
  const moveIn = await fetch(davUrl(HOME, OPEN, 'sun 🌞.txt'), {
    method: 'MOVE',
    headers: { authorization: LEO_DAV(), destination: davUrl(HOME, VIEW, 'sun 🌞.txt') },
  });
  assert.is(moveIn.status, 403);
  const moveOut = await fetch(davUrl(HOME, VIEW, 'beach +1 ümlaut.txt'), {
    method: 'MOVE',
    headers: { authorization: LEO_DAV(), destination: davUrl(HOME, OPEN, 'beach.txt') },
  });
  assert.is(moveOut.status, 403);
  const intoHidden = await fetch(davUrl(HOME, SECRET, 'note.txt'), {
    method: 'PUT',
    headers: { authorization: LEO_DAV() },
    body: 'hello',
  });
  assert.ok([403, 404, 409].includes(intoHidden.status), String(intoHidden.status));
  leaksNothing(await intoHidden.text(), 'a WebDAV PUT into the hidden folder');
  const getHidden = await fetch(davUrl(HOME, SECRET, 'salary 2024 +1.txt'), { headers: { authorization: LEO_DAV() } });
  assert.is(getHidden.status, 404);
  leaksNothing(await getHidden.text(), 'a WebDAV GET of the hidden file');
  assert.is(fs.readFileSync(disk(VIEW, 'beach +1 ümlaut.txt'), 'utf8'), before);
  assert.equal(tree(disk(VIEW)), ['beach +1 ümlaut.txt', 'Zoë’s letter.docx'].sort());
  assert.equal(tree(disk(SECRET)), ['salary 2024 +1.txt']);
  assert.ok(fs.existsSync(disk(OPEN, 'sun 🌞.txt')));
});

test('WebDAV under view: GET, HEAD and a range read the file; PUT, DELETE, MOVE, COPY in, MKCOL and PROPPATCH are refused, the disk unchanged', async () => {
  const name = 'beach +1 ümlaut.txt';
  const before = fs.readFileSync(disk(VIEW, name), 'utf8');
  const treeBefore = tree(disk(VIEW));
  const dav = (method: string, segments: string[], headers: Record<string, string> = {}, body?: string) =>
    fetch(davUrl(...segments), { method, headers: { authorization: LEO_DAV(), ...headers }, body });
  const got = await dav('GET', [HOME, VIEW, name]);
  assert.is(got.status, 200);
  assert.is(await got.text(), before);
  const head = await dav('HEAD', [HOME, VIEW, name]);
  assert.is(head.status, 200);
  assert.is(head.headers.get('content-length'), String(Buffer.byteLength(before)));
  const range = await dav('GET', [HOME, VIEW, name], { range: 'bytes=2-11' });
  assert.is(range.status, 206);
  assert.is(await range.text(), Buffer.from(before).subarray(2, 12).toString());
  // The folder is listed (PROPFIND) with its files.
  const listed = await dav('PROPFIND', [HOME, VIEW], { depth: '1' });
  assert.is(listed.status, 207);
  assert.ok((await listed.text()).includes('beach'));
  const refusals: [string, Response][] = [
    ['PUT over', await dav('PUT', [HOME, VIEW, name], {}, 'scribbled')],
    ['DELETE', await dav('DELETE', [HOME, VIEW, name])],
    ['DELETE the folder', await dav('DELETE', [HOME, VIEW])],
    ['MOVE out', await dav('MOVE', [HOME, VIEW, name], { destination: davUrl(HOME, OPEN, 'beach.txt') })],
    ['MOVE within', await dav('MOVE', [HOME, VIEW, name], { destination: davUrl(HOME, VIEW, 'renamed #2.txt') })],
    ['COPY in', await dav('COPY', [HOME, OPEN, 'sun 🌞.txt'], { destination: davUrl(HOME, VIEW, 'sun copy 🌞.txt') })],
    ['MKCOL', await dav('MKCOL', [HOME, VIEW, 'Album «Été» & co'])],
    [
      'PROPPATCH',
      await dav(
        'PROPPATCH',
        [HOME, VIEW, name],
        { 'content-type': 'application/xml' },
        '<?xml version="1.0"?><d:propertyupdate xmlns:d="DAV:" xmlns:z="urn:x"><d:set><d:prop><z:tag>x</z:tag></d:prop></d:set></d:propertyupdate>',
      ),
    ],
  ];
  for (const [what, a] of refusals) {
    const text = await a.text();
    // PROPPATCH answers per property (207 with a 403 inside) as RFC 4918 §9.2 has it.
    if (what === 'PROPPATCH')
      assert.ok(a.status === 403 || (a.status === 207 && text.includes('403')), `${what}: ${a.status} ${text}`);
    else assert.is(a.status, 403, `${what}: ${text}`);
    leaksNothing(text, `WebDAV ${what}`);
  }
  assert.is(fs.readFileSync(disk(VIEW, name), 'utf8'), before);
  assert.equal(tree(disk(VIEW)), treeBefore);
  assert.ok(fs.existsSync(disk(OPEN, 'sun 🌞.txt')));
  assert.not.ok(fs.existsSync(disk(OPEN, 'beach.txt')));
  // The parent, whom no rule names, may: the same DELETE through WebDAV goes to the trash.
  fs.writeFileSync(disk(VIEW, 'old ticket #3.txt'), 'a ticket');
  const parentDelete = await fetch(davUrl(HOME, VIEW, 'old ticket #3.txt'), {
    method: 'DELETE',
    headers: { authorization: davAuth('ana', ANA_PASSWORD) },
  });
  assert.is(parentDelete.status, 204);
  assert.not.ok(fs.existsSync(disk(VIEW, 'old ticket #3.txt')));
  const ticket = (await ana.get('/api/trash')).json.items.find((i: any) => i.name === 'old ticket #3.txt');
  assert.is((await ana.delete(`/api/trash/items/${ticket.id}`)).status, 204);
});

test('uploads: TUS and multipart into a view-only or hidden folder are refused at creation, a relativePath leading into one too', async () => {
  const before = { view: tree(disk(VIEW)), secret: tree(disk(SECRET)), home: tree(disk()) };
  const create = (c: Client, uploadTo: string, name: string, relativePath?: string, base = '/api/upload/tus') =>
    c.request('POST', base, undefined, {
      ...TUS,
      'Upload-Length': '4',
      'Upload-Metadata': [
        `filename ${b64(name)}`,
        `uploadTo ${b64(uploadTo)}`,
        ...(relativePath ? [`relativePath ${b64(relativePath)}`] : []),
      ].join(','),
    });
  refusedWith(await create(leo, `${HOME}/${VIEW}`, 'crab 🦀.txt'), 403, 'READ_ONLY');
  refusedWith(await create(leo, `${HOME}/${SECRET}`, 'crab 🦀.txt'), 404);
  refusedWith(await create(leo, HOME, 'crab 🦀.txt', `${VIEW}/crab 🦀.txt`), 403, 'READ_ONLY');
  refusedWith(await create(leo, HOME, 'crab 🦀.txt', `${SECRET}/crab 🦀.txt`), 404);
  refusedWith(await create(leo, HOME, 'crab 🦀.txt', `${VIEW}/deeper ünder/crab 🦀.txt`), 403, 'READ_ONLY');
  refusedWith(await create(leoRead, `${HOME}/${OPEN}`, 'crab 🦀.txt'), 403);
  // Through the child's link.
  const viaLink = `/api/share/${linkToken}/tus`;
  refusedWith(await create(linkHolder, `share/${linkToken}/${VIEW}`, 'crab 🦀.txt', undefined, viaLink), 403);
  refusedWith(await create(linkHolder, `share/${linkToken}`, 'crab 🦀.txt', `${VIEW}/crab 🦀.txt`, viaLink), 403);
  refusedWith(await create(linkHolder, `share/${linkToken}`, 'crab 🦀.txt', `${SECRET}/crab 🦀.txt`, viaLink), 404);
  // Multipart, the same relativePath.
  const form = (relativePath: string) => {
    const fd = new FormData();
    fd.append('uploadTo', HOME);
    fd.append('relativePath', relativePath);
    fd.append('filedata', new Blob(['crab']), 'crab 🦀.txt');
    return fd;
  };
  refusedWith(await leo.post('/api/upload', form(`${VIEW}/crab 🦀.txt`)), 403, 'READ_ONLY');
  refusedWith(await leo.post('/api/upload', form(`${SECRET}/crab 🦀.txt`)), 404);
  assert.equal(tree(disk(VIEW)), before.view);
  assert.equal(tree(disk(SECRET)), before.secret);
  assert.equal(tree(disk()), before.home);
  // The parent may: the same multipart lands.
  const ok = await ana.post('/api/upload', form(`${VIEW}/crab 🦀.txt`));
  assert.is(ok.status, 201, ok.text);
  fs.rmSync(disk(VIEW, 'crab 🦀.txt'));
});

test('a TUS upload accepted at creation is refused at placement when the folder became view-only meanwhile', async () => {
  fs.mkdirSync(disk(OPEN, 'Comics & Co'), { recursive: true });
  const created = await leo.request('POST', '/api/upload/tus', undefined, {
    ...TUS,
    'Upload-Length': '5',
    'Upload-Metadata': `filename ${b64('hero ü 🦸.txt')},uploadTo ${b64(`${HOME}/${OPEN}/Comics & Co`)}`,
  });
  assert.is(created.status, 201, created.text);
  const id = await rule(`${HOME}/${OPEN}/Comics & Co`, 'view');
  const patch = await leo.request('PATCH', created.headers.get('location')!.replace(PUBLIC, ''), 'heroe', {
    ...TUS,
    'Upload-Offset': '0',
    'Content-Type': 'application/offset+octet-stream',
  });
  assert.is(patch.status, 403, patch.text);
  assert.equal(tree(disk(OPEN, 'Comics & Co')), []);
  await unrule(id);
});

test('trash: what was trashed from a hidden folder is not listed, read, purged or emptied; restoring needs write there now', async () => {
  fs.writeFileSync(disk(SECRET, 'old statement.txt'), 'the quokkasalary statement');
  fs.writeFileSync(disk(VIEW, 'old postcard.txt'), 'a postcard');
  for (const [folder, name] of [
    [SECRET, 'old statement.txt'],
    [VIEW, 'old postcard.txt'],
  ] as const) {
    const del = await admin.request('DELETE', '/api/files', { items: [{ path: `${HOME}/${folder}`, name }] });
    assert.ok(del.status === 200 || del.status === 204, del.text);
  }
  const all = (await ana.get('/api/trash')).json.items;
  const statement = all.find((i: any) => i.name === 'old statement.txt');
  const postcard = all.find((i: any) => i.name === 'old postcard.txt');
  assert.ok(statement && postcard, JSON.stringify(all));
  for (const c of [leo, leoRead]) {
    const list = await c.get('/api/trash');
    assert.is(list.status, 200);
    leaksNothing(list.text, 'the trash list');
    assert.ok(
      list.json.items.some((i: any) => i.name === 'old postcard.txt'),
      'what she may view is listed',
    );
    refusedWith(await c.get(`/api/trash/items/${statement.id}/text`), 404);
  }
  refusedWith(await leo.post(`/api/trash/items/${statement.id}/restore`, {}), 404);
  refusedWith(await leo.delete(`/api/trash/items/${statement.id}`), 404);
  refusedWith(await leo.post(`/api/trash/items/${postcard.id}/restore`, {}), 403, 'READ_ONLY');
  refusedWith(await leo.delete(`/api/trash/items/${postcard.id}`), 403);
  refusedWith(await leoRead.delete(`/api/trash/items/${postcard.id}`), 403);
  // Her own trashed drawing restored into a view-only or hidden folder: refused.
  fs.writeFileSync(disk(OPEN, 'cat & dog.txt'), 'meow');
  await leo.request('DELETE', '/api/files', { items: [{ path: `${HOME}/${OPEN}`, name: 'cat & dog.txt' }] });
  const drawing = (await leo.get('/api/trash')).json.items.find((i: any) => i.name === 'cat & dog.txt');
  refusedWith(
    await leo.post(`/api/trash/items/${drawing.id}/restore`, { destination: `${HOME}/${VIEW}` }),
    403,
    'READ_ONLY',
  );
  refusedWith(await leo.post(`/api/trash/items/${drawing.id}/restore`, { destination: `${HOME}/${SECRET}` }), 404);
  // Emptying her trash takes what she may delete, and nothing of the others.
  const emptied = await leo.delete('/api/trash');
  assert.is(emptied.status, 200, emptied.text);
  const left = (await ana.get('/api/trash')).json.items.map((i: any) => i.name).sort();
  assert.equal(left, ['old postcard.txt', 'old statement.txt']);
  assert.equal(tree(disk(SECRET)), ['salary 2024 +1.txt']);
  // The parent restores it where it was.
  assert.is((await ana.post(`/api/trash/items/${statement.id}/restore`, {})).status, 200);
  assert.ok(fs.existsSync(disk(SECRET, 'old statement.txt')));
  fs.rmSync(disk(SECRET, 'old statement.txt'));
});

test('versions: listed and read under view, restored only with write; a hidden file has none for her', async () => {
  const viewFile = `${HOME}/${VIEW}/beach +1 ümlaut.txt`;
  const hiddenFile = `${HOME}/${SECRET}/salary 2024 +1.txt`;
  for (const [p, text] of [
    [viewFile, 'a sandcastle, second draft\n'],
    [hiddenFile, 'the quokkasalary, revised\n'],
  ] as const)
    assert.is((await admin.put('/api/editor', { path: p, content: text })).status, 200);
  const viewVersions = (await ana.get(`/api/versions?path=${q(viewFile)}`)).json.items;
  const hiddenVersions = (await ana.get(`/api/versions?path=${q(hiddenFile)}`)).json.items;
  assert.is(viewVersions.length, 1);
  assert.is(hiddenVersions.length, 1);
  for (const c of [leo, leoRead]) {
    const list = await c.get(`/api/versions?path=${q(viewFile)}`);
    assert.is(list.status, 200, list.text);
    assert.is(list.json.items.length, 1);
    assert.is((await c.get(`/api/versions/${viewVersions[0].id}/text`)).status, 200);
    refusedWith(await c.get(`/api/versions?path=${q(hiddenFile)}`), 404);
    refusedWith(await c.get(`/api/versions/${hiddenVersions[0].id}/text`), 404);
  }
  refusedWith(await leo.post(`/api/versions/${viewVersions[0].id}/restore`, {}), 403, 'READ_ONLY');
  refusedWith(await leo.post(`/api/versions/${viewVersions[0].id}/restore-copy`, {}), 403);
  refusedWith(await leo.post(`/api/versions/${hiddenVersions[0].id}/restore`, {}), 404);
  refusedWith(await leo.delete(`/api/versions/${viewVersions[0].id}`), 403);
  refusedWith(await leoRead.post(`/api/versions/${viewVersions[0].id}/restore`, {}), 403);
  assert.is(fs.readFileSync(disk(VIEW, 'beach +1 ümlaut.txt'), 'utf8'), 'a sandcastle, second draft\n');
  assert.is((await ana.get(`/api/versions?path=${q(viewFile)}`)).json.items.length, 1);
});

test('favourites and recent destinations: a folder hidden after it was kept disappears from both, and comes back with the rule gone', async () => {
  const club = `${HOME}/${OPEN}/Secret club – Léo`;
  fs.mkdirSync(disk(OPEN, 'Secret club – Léo'), { recursive: true });
  fs.writeFileSync(disk(OPEN, 'map #1.txt'), 'treasure');
  assert.is((await leo.post('/api/favorites', { path: club, label: 'Club 🏴‍☠️' })).status, 201);
  const copied = await leo.post('/api/files/copy', {
    items: [{ path: `${HOME}/${OPEN}`, name: 'map #1.txt' }],
    destination: club,
  });
  assert.is(copied.status, 200, copied.text);
  const named = async (c: Client) => ({
    favorites: (await c.get('/api/favorites')).text,
    recent: (await c.get('/api/files/recent-destinations')).text,
  });
  const shown = await named(leo);
  assert.ok(shown.favorites.includes('Secret club') && shown.recent.includes('Secret club'), JSON.stringify(shown));
  const id = await rule(club, 'hidden');
  for (const c of [leo, leoRead]) {
    const now = await named(c);
    assert.not.ok(now.favorites.includes('Secret club'), now.favorites);
    assert.not.ok(now.recent.includes('Secret club'), now.recent);
  }
  await unrule(id);
  const back = await named(leo);
  assert.ok(back.favorites.includes('Secret club') && back.recent.includes('Secret club'), 'kept, only not shown');
});

test("WOPI CheckFileInfo's UserCanWrite follows the rule at that moment", async () => {
  const info = async (c: { fileId: string; access_token: string }) => {
    const a = await fetch(
      `${s.url}/api/officeeditor/wopi/files/${c.fileId}?access_token=${encodeURIComponent(c.access_token)}`,
      { headers: { authorization: `Bearer ${c.access_token}`, origin: editorBase } },
    );
    assert.is(a.status, 200);
    return (await a.json()) as { UserCanWrite: boolean; ReadOnly: boolean };
  };
  const viewed = await leo.post('/api/officeeditor/config', {
    path: `${HOME}/${VIEW}/Zoë’s letter.docx`,
    mode: 'edit',
  });
  if (viewed.status === 200) assert.is((await info(viewed.json)).UserCanWrite, false);
  else assert.is(viewed.status, 403, viewed.text);
  const story = await leo.post('/api/officeeditor/config', { path: `${HOME}/${OPEN}/story.docx`, mode: 'edit' });
  assert.is(story.status, 200, story.text);
  assert.is((await info(story.json)).UserCanWrite, true);
  const id = await rule(`${HOME}/${OPEN}`, 'view');
  const later = await info(story.json);
  assert.is(later.UserCanWrite, false);
  assert.is(later.ReadOnly, true);
  const put = await fetch(
    `${s.url}/api/officeeditor/wopi/files/${story.json.fileId}/contents?access_token=${encodeURIComponent(story.json.access_token)}`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${story.json.access_token}`, origin: editorBase, 'X-WOPI-Override': 'PUT' },
      body: 'overwritten',
    },
  );
  assert.ok(put.status === 401 || put.status === 403 || put.status === 409, String(put.status));
  assert.is(fs.readFileSync(disk(OPEN, 'story.docx'), 'utf8'), 'docx bytes of a story');
  await unrule(id);
  assert.is((await info(story.json)).UserCanWrite, true);
  // A token for a file of the hidden folder is never issued.
  refusedWith(
    await leo.post('/api/officeeditor/config', { path: `${HOME}/${SECRET}/salary 2024 +1.txt`, mode: 'view' }),
    404,
  );
});

test('live events: no event of the hidden folder reaches her, the parent hears it; the activity log is not hers to read', async () => {
  const connect = (c: Client) => {
    const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}/api/live`, {
      headers: { cookie: c.cookieHeader },
      origin: s.url,
    });
    const messages: any[] = [];
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
    return { ws, messages, open: new Promise((r) => ws.on('open', r)) };
  };
  const child = connect(leo);
  const parent = connect(ana);
  await Promise.all([child.open, parent.open]);
  for (const l of [child, parent]) {
    l.ws.send(JSON.stringify({ type: 'watch', path: HOME }));
    l.ws.send(JSON.stringify({ type: 'watch', path: `${HOME}/${SECRET}` }));
  }
  await waitFor(() => child.messages.filter((m) => m.type === 'watching' || m.type === 'closed').length >= 2, {
    what: 'both answers to the child',
    seen: () => child.messages,
  });
  await waitFor(() => parent.messages.filter((m) => m.type === 'watching').length >= 2, {
    what: 'both answers to the parent',
    seen: () => parent.messages,
  });
  fs.writeFileSync(disk(SECRET, 'bonus statement.txt'), 'quokkasalary bonus');
  // Each rule before its item exists: made first, the item's event could reach her before the rule.
  const hidden2 = await rule(`${HOME}/Finances 2 – statement`, 'hidden');
  fs.mkdirSync(disk('Finances 2 – statement'), { recursive: true });
  await rule(`${HOME}/drawing – statement of love.txt`, 'hidden');
  fs.writeFileSync(disk('drawing – statement of love.txt'), 'hearts');
  // A file she may see, written last: once she hears it, she would have heard the others.
  fs.writeFileSync(disk('last 🏁.txt'), 'done');
  await waitFor(() => JSON.stringify(parent.messages).includes('bonus statement'), {
    what: 'the parent hearing the hidden write',
    seen: () => parent.messages,
  });
  await waitFor(() => JSON.stringify(child.messages).includes('last 🏁'), {
    what: 'the child hearing her own folder',
    seen: () => child.messages,
  });
  // Her own watch of the hidden folder is answered "closed", naming only what she asked.
  leaksNothing(JSON.stringify(child.messages.filter((m) => m.type !== 'closed')), 'live events');
  assert.equal(
    child.messages.filter((m) => m.type === 'closed').map((m) => [m.path, m.code]),
    [[`${HOME}/${SECRET}`, 'NOT_FOUND']],
  );
  child.ws.close();
  parent.ws.close();
  await unrule(hidden2);
  fs.rmSync(disk(SECRET, 'bonus statement.txt'));
  // The activity log is the administrator's: neither her session nor her token reads it.
  refusedWith(await leo.get('/api/activity'), 403);
  refusedWith(await leoRead.get('/api/activity'), 403);
  assert.ok((await admin.get('/api/activity')).text.includes('access.rule-set'));
});

test.run();
