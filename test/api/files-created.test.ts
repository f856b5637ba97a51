// "Created" in Details stays when a file is saved (issue 26). Every save replaces the file by
// rename (the editor, WebDAV, a restored version), so the file system's birth time belonged to
// the newest copy and moved with each save; Burrow keeps the first one per path, carried by
// renames and moves, and drops it when the file is replaced behind its back.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
let c: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const NAME = 'Shopping list — März & more #2.md';

const created = async (virtual: string) => {
  const r = await c.get(`/api/metadata/${virtual.split('/').map(encodeURIComponent).join('/')}`);
  assert.is(r.status, 200, r.text);
  return r.json.dateCreated as string;
};

/** DAV:creationdate of each resource a PROPFIND answers, by its decoded href. */
async function davCreated(virtual: string, depth: '0' | '1'): Promise<Map<string, string>> {
  const r = await fetch(`${s.url}/dav/${virtual.split('/').map(encodeURIComponent).join('/')}`, {
    method: 'PROPFIND',
    headers: { depth, 'content-type': 'application/xml' },
    body: '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:creationdate/></D:prop></D:propfind>',
  });
  const xml = await r.text();
  assert.is(r.status, 207, xml);
  const out = new Map<string, string>();
  for (const m of xml.matchAll(/<D:href>([^<]*)<\/D:href>.*?<D:creationdate>([^<]*)<\/D:creationdate>/gs))
    out.set(decodeURIComponent(m[1]!), m[2]!);
  return out;
}
/** An ISO time as DAV:creationdate writes it (RFC 3339, whole seconds). */
const davTime = (iso: string) => iso.replace(/\.\d{3}Z$/, 'Z');

/** Until the clock is past `iso` by a few ms: a file made now is born later than that. */
function after(iso: string): Promise<boolean> {
  const t = Date.parse(iso) + 5;
  return waitFor(() => Date.now() > t, { what: `the clock to pass ${iso}`, everyMs: 2 });
}

test.before(async () => {
  s = await startServer({ env: { AUTH_MODE: 'disabled' } });
  c = new Client(s.url);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('saves, a restored version, a rename and a move keep the creation time; an outside replace does not', async () => {
  fs.mkdirSync(vol('Notes 2025'), { recursive: true });
  fs.writeFileSync(vol('Notes 2025', NAME), '- milk\n');
  const born = await created(`Files/Notes 2025/${NAME}`);
  assert.is(born, fs.statSync(vol('Notes 2025', NAME)).birthtime.toISOString(), 'the birth time at first');

  // DAV:creationdate has whole seconds: the saves come in a later second than the birth.
  await after(new Date(Math.floor(Date.parse(born) / 1000) * 1000 + 995).toISOString());
  for (const content of ['- milk\n- bread\n', '- milk\n- bread\n- café\n']) {
    await after(born);
    const save = await c.put('/api/editor', { path: `Files/Notes 2025/${NAME}`, content });
    assert.is(save.status, 200, save.text);
    assert.is(fs.readFileSync(vol('Notes 2025', NAME), 'utf8'), content);
    assert.is.not(
      fs.statSync(vol('Notes 2025', NAME)).birthtime.toISOString(),
      born,
      'the save made a new file (so the disk alone would move Created)',
    );
    assert.is(await created(`Files/Notes 2025/${NAME}`), born, 'Created stays');
  }
  // WebDAV's creationdate is the same date, for the file itself and as a folder's member.
  assert.is.not(davTime(fs.statSync(vol('Notes 2025', NAME)).birthtime.toISOString()), davTime(born));
  const href = `/dav/Files/Notes 2025/${NAME}`;
  assert.equal([...(await davCreated(`Files/Notes 2025/${NAME}`, '0'))], [[href, davTime(born)]]);
  assert.is((await davCreated('Files/Notes 2025', '1')).get(href), davTime(born), 'a member of a Depth 1 answer');
  // A save through WebDAV keeps it too.
  await after(born);
  const put = await fetch(s.url + href.split('/').map(encodeURIComponent).join('/'), {
    method: 'PUT',
    body: '- milk\n- bread\n- café\n- tea\n',
  });
  assert.is(put.status, 204, await put.text());
  assert.is(await created(`Files/Notes 2025/${NAME}`), born, 'a WebDAV save');
  assert.is((await davCreated(`Files/Notes 2025/${NAME}`, '0')).get(href), davTime(born));

  const versions = (await c.get(`/api/versions?path=${encodeURIComponent(`Files/Notes 2025/${NAME}`)}`)).json.items;
  assert.is((await c.post(`/api/versions/${versions.at(-1).id}/restore`)).status, 200);
  assert.is(fs.readFileSync(vol('Notes 2025', NAME), 'utf8'), '- milk\n');
  assert.is(await created(`Files/Notes 2025/${NAME}`), born, 'a restore is a save too');

  const renamed = 'Einkaufsliste 🛒.md';
  assert.is(
    (await c.post('/api/files/rename', { path: 'Files/Notes 2025', name: NAME, newName: renamed })).status,
    200,
  );
  assert.is(await created(`Files/Notes 2025/${renamed}`), born, 'carried by a rename');
  fs.mkdirSync(vol('Archive'));
  const moved = await c.post('/api/files/move', {
    destination: 'Files/Archive',
    items: [{ path: 'Files/Notes 2025', name: renamed }],
  });
  assert.is(moved.status, 200, moved.text);
  assert.is(await created(`Files/Archive/${renamed}`), born, 'carried by a move');
  await after(born);
  assert.is((await c.put('/api/editor', { path: `Files/Archive/${renamed}`, content: 'moved and saved' })).status, 200);
  assert.is(await created(`Files/Archive/${renamed}`), born, 'and still kept by a save after the move');

  // Replaced outside Burrow (a sync tool, SMB): that file's own birth time.
  const temp = vol('Archive', 'outside.tmp');
  fs.writeFileSync(temp, 'from elsewhere');
  fs.renameSync(temp, vol('Archive', renamed));
  assert.is(
    await created(`Files/Archive/${renamed}`),
    fs.statSync(vol('Archive', renamed)).birthtime.toISOString(),
    'a file Burrow did not save is not given another file’s date',
  );
  assert.is(
    (await davCreated(`Files/Archive/${renamed}`, '0')).get(`/dav/Files/Archive/${renamed}`),
    davTime(fs.statSync(vol('Archive', renamed)).birthtime.toISOString()),
  );
});

test.run();
