// Three link defects found by checking the API from outside (issue 26, item 4), each through the
// real server:
// - a writable link to one file saves through the shared editor (it answered 403 PATH_OUTSIDE:
//   the save opened the file's parent, outside a file link's root), and the replaced text is
//   kept as the owner's version;
// - "download off" means view but do not take away: the holder reads in the shared editor and
//   views inline (their listing says canRead), but cannot download, zip, or take a file that
//   would come as an attachment; the editor's ETag differs between the two states;
// - the listing of a link to one file shows that file under its own name and kind (it showed one
//   item named after the token, of kind `unknown`), and the item opens by that name.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { setupAdmin } from '../support/auth.ts';
import { png } from '../support/media.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let owner: Client;
const home = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const LIST = 'Shopping list + ideas 🛒.md';
const RECIPE = 'Rezept für Crème brûlée (Oma’s).txt'.normalize('NFD');
const PAGE = 'Party invite & map.html';
const PHOTO = 'Sunset #2 + 🌅.png';

async function link(body: Record<string, unknown>): Promise<{ id: string; token: string }> {
  const r = await owner.post('/api/shares', { sharingType: 'anyone', ...body });
  assert.is(r.status, 201, r.text);
  return { id: r.json.id, token: r.json.shareToken };
}

test.before(async () => {
  s = await startServer();
  owner = await setupAdmin(s);
  fs.mkdirSync(home('Kitchen & Home'), { recursive: true });
  fs.mkdirSync(home('Photos + Trips'), { recursive: true });
  fs.writeFileSync(home('Kitchen & Home', LIST), '# Shopping\n- [ ] eggs\n- [x] milk\n');
  fs.writeFileSync(home('Kitchen & Home', RECIPE), 'Sugar, cream, 6 yolks.\n');
  fs.writeFileSync(home('Kitchen & Home', PAGE), '<h1>Party</h1><script>alert(1)</script>');
  fs.writeFileSync(home('Photos + Trips', PHOTO), await png(40, 30));
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('a writable link to one file saves through the shared editor; the replaced text is the owner`s version', async () => {
  const { token } = await link({ sourcePath: `Files/Kitchen & Home/${LIST}`, allowEdit: true });
  const visitor = new Client(s.url);
  const read = await visitor.get(`/api/share/${token}/editor`);
  assert.is(read.status, 200, read.text);
  assert.is(read.json.content, '# Shopping\n- [ ] eggs\n- [x] milk\n');
  const etag = read.headers.get('etag')!;
  const saved = await visitor.put(
    `/api/share/${token}/editor`,
    { path: '', content: '# Shopping\n- [x] eggs\n- [x] milk\n- [ ] flour\n' },
    { 'if-match': etag },
  );
  assert.is(saved.status, 200, saved.text);
  assert.is(fs.readFileSync(home('Kitchen & Home', LIST), 'utf8'), '# Shopping\n- [x] eggs\n- [x] milk\n- [ ] flour\n');
  const next = await visitor.get(`/api/share/${token}/editor`);
  assert.is(next.headers.get('etag'), saved.headers.get('etag'));
  // A save over a stale copy is refused and writes nothing.
  const stale = await visitor.put(`/api/share/${token}/editor`, { path: '', content: 'lost' }, { 'if-match': etag });
  assert.is(stale.status, 412);
  assert.is(envelope(stale).code, 'EDITOR_CHANGED');
  assert.is(fs.readFileSync(home('Kitchen & Home', LIST), 'utf8'), '# Shopping\n- [x] eggs\n- [x] milk\n- [ ] flour\n');
  // The owner finds the text the link replaced.
  const versions = await owner.get(`/api/versions?path=${encodeURIComponent(`Files/Kitchen & Home/${LIST}`)}`);
  assert.is(versions.status, 200, versions.text);
  assert.is(versions.json.items.length, 1);
  const old = await owner.get(`/api/versions/${encodeURIComponent(versions.json.items[0].id)}/text`);
  assert.is(old.json.content, '# Shopping\n- [ ] eggs\n- [x] milk\n');
  // Nothing of the save is left beside the file.
  assert.equal(fs.readdirSync(home('Kitchen & Home')).sort(), [LIST, PAGE, RECIPE].sort());
  // A link to one file without edit still refuses the save.
  const readOnly = await link({ sourcePath: `Files/Kitchen & Home/${RECIPE}` });
  const refused = await visitor.put(`/api/share/${readOnly.token}/editor`, { path: '', content: 'x' });
  assert.is(refused.status, 403);
  assert.is(envelope(refused).code, 'LINK_NOT_ALLOWED');
  assert.is(fs.readFileSync(home('Kitchen & Home', RECIPE), 'utf8'), 'Sugar, cream, 6 yolks.\n');
});

test('download off: the holder views and reads, but cannot download, zip or take an attachment', async () => {
  const { id, token } = await link({ sourcePath: 'Files/Kitchen & Home', allowDownload: true });
  const visitor = new Client(s.url);
  const rel = encodeURIComponent(RECIPE);
  const onEtag = (await visitor.get(`/api/share/${token}/editor?path=${rel}`)).headers.get('etag')!;
  assert.is((await owner.put(`/api/shares/${id}`, { allowDownload: false })).status, 200);

  const listing = await visitor.get(`/api/share/${token}/browse/`);
  assert.is(listing.status, 200, listing.text);
  assert.is(listing.json.access.canRead, true);
  assert.is(listing.json.access.canDownload, false);
  // Read in the shared editor, with an ETag of its own for this state.
  const read = await visitor.get(`/api/share/${token}/editor?path=${rel}`, { 'if-none-match': onEtag });
  assert.is(read.status, 200, read.text);
  assert.is(read.json.content, 'Sugar, cream, 6 yolks.\n');
  const offEtag = read.headers.get('etag')!;
  assert.is.not(offEtag, onEtag);
  assert.is((await visitor.get(`/api/share/${token}/editor?path=${rel}`, { 'if-none-match': offEtag })).status, 304);
  // Viewed inline (sandboxed), also in part (a player's Range).
  for (const mode of ['inline', 'raw']) {
    const view = await fetch(`${s.url}/api/share/${token}/file?path=${rel}&mode=${mode}`);
    assert.is(view.status, 200, mode);
    assert.match(view.headers.get('content-disposition')!, /^inline/);
    assert.match(view.headers.get('content-security-policy')!, /sandbox/);
    assert.is(await view.text(), 'Sugar, cream, 6 yolks.\n');
  }
  const part = await fetch(`${s.url}/api/share/${token}/file?path=${rel}&mode=inline`, {
    headers: { range: 'bytes=0-4' },
  });
  assert.is(part.status, 206);
  assert.is(await part.text(), 'Sugar');
  // Never taken away: the download mode, a download, a zip, an active page (which only comes as
  // an attachment).
  const refusals = [
    await visitor.get(`/api/share/${token}/file?path=${rel}&mode=download`),
    await visitor.get(`/api/share/${token}/file?path=${rel}`),
    await visitor.get(`/api/share/${token}/download/${rel}`),
    await visitor.get(`/api/share/${token}/download/`),
    await visitor.post(`/api/share/${token}/download`, { paths: [RECIPE, LIST] }),
    await visitor.get(`/api/share/${token}/file?path=${encodeURIComponent(PAGE)}&mode=inline`),
    await visitor.get(`/api/share/${token}/file?path=${encodeURIComponent(PAGE)}&mode=raw`),
  ];
  for (const r of refusals) {
    assert.is(r.status, 403, r.text);
    assert.is(envelope(r).code, 'LINK_NOT_ALLOWED');
    assert.not.ok(r.text.includes('yolks'));
  }
  // Back on: the first ETag again, and the download works.
  assert.is((await owner.put(`/api/shares/${id}`, { allowDownload: true })).status, 200);
  assert.is((await visitor.get(`/api/share/${token}/editor?path=${rel}`, { 'if-none-match': onEtag })).status, 304);
  const taken = await fetch(`${s.url}/api/share/${token}/file?path=${rel}&mode=download`);
  assert.is(taken.status, 200);
  assert.match(taken.headers.get('content-disposition')!, /^attachment/);
});

test('the listing of a link to one file shows the file under its name and kind, and it opens by that name', async () => {
  const { token } = await link({ sourcePath: `Files/Kitchen & Home/${LIST}` });
  const visitor = new Client(s.url);
  const listing = await visitor.get(`/api/share/${token}/browse/`);
  assert.is(listing.status, 200, listing.text);
  assert.is(listing.json.current.isDirectory, false);
  assert.is(listing.json.items.length, 1);
  const [item] = listing.json.items;
  assert.is(item.name, LIST);
  assert.is(item.kind, 'md');
  assert.is(item.size, fs.statSync(home('Kitchen & Home', LIST)).size);
  assert.is(item.path, `share/${token}`);
  // The item's name reaches the file on every link row (as a folder link's items do).
  const byName = encodeURIComponent(item.name);
  const file = await visitor.get(`/api/share/${token}/file?path=${byName}&mode=raw`);
  assert.is(file.status, 200, file.text);
  assert.match(file.text, /^# Shopping/);
  assert.is((await visitor.get(`/api/share/${token}/download/${byName}`)).status, 200);
  assert.is((await visitor.get(`/api/share/${token}/editor?path=${byName}`)).status, 200);
  // A link to one photo: listed under its name, its thumbnail by that name or by the link itself.
  const photo = await link({ sourcePath: `Files/Photos + Trips/${PHOTO}` });
  const shown = await visitor.get(`/api/share/${photo.token}/browse/`);
  assert.equal(
    shown.json.items.map((i: { name: string; kind: string; supportsThumbnail?: boolean }) => [
      i.name,
      i.kind,
      i.supportsThumbnail,
    ]),
    [[PHOTO, 'png', true]],
  );
  for (const p of ['', PHOTO]) {
    const thumb = await fetch(`${s.url}/api/share/${photo.token}/thumbnail?path=${encodeURIComponent(p)}`);
    assert.is(thumb.status, 200, p);
    assert.is(thumb.headers.get('content-type'), 'image/webp');
  }
  // Any other name is still nothing.
  assert.is((await visitor.get(`/api/share/${token}/file?path=${encodeURIComponent(RECIPE)}`)).status, 404);
});

test.run();
