// Every route that takes a path or a term in its query string, with names as people write them
// (test/support/names.ts), sent the way each real client sends them: a browser's
// URLSearchParams, Python's urlencode (python3), a real curl --data-urlencode, the native app's
// URLComponents (space `%20`, `+` raw) and encodeURIComponent. Each answer must be the named
// file's own: `a+b.txt` and `a b.txt` sit side by side, so reading a `+` the wrong way shows.
// Query values that are not valid percent-encoding answer 400 with the envelope on every route.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import yazl from 'yazl';
import { Client, envelope } from '../support/client.ts';
import { issueToken, setupAdmin } from '../support/auth.ts';
import { makeDirs, removeDirs, startServer, type TestServer } from '../support/server.ts';
import { png } from '../support/media.ts';
import { waitFor } from '../support/wait.ts';
import {
  ALL,
  CLIENTS,
  FOLDER,
  VOLUME,
  buildTree,
  contentOf,
  deepFolders,
  pythonQuery,
  virtualOf,
  type Fields,
  type QueryClient,
  type SendInit,
} from '../support/names.ts';

let s: TestServer;
let admin: Client;
let token: string;
let link: string;
let hostFolder: string;
const ARCHIVE = 'My Backup 2024 + old & #2.zip';
const PHOTO = 'Été 2025 — Beach & Sunset #1 + 100% 🌅.png'.normalize('NFD');
const IN_ARCHIVE = 'Photos + Trips/Holiday 2025';
const DIR = `${VOLUME}/${FOLDER}`;
type Hit = { path: string; name: string };
const twinPlus = () => ALL().find((f) => f.name === 'a+b.txt')!;

/** Scripts (Python, curl) sign in with an API token, the others with the session cookie. */
function auth(client: QueryClient, sessionOnly = false): Record<string, string> {
  return !sessionOnly && /Python|curl/.test(client.name)
    ? { authorization: `Bearer ${token}` }
    : { cookie: admin.cookieHeader };
}

async function ask(client: QueryClient, route: string, fields: Fields, init: SendInit = {}) {
  const sent = await client.send(s.url + route, fields, init);
  const text = sent.body.toString('utf8');
  const where = `${client.name}: ${route}?${sent.query} → ${sent.status} ${text.slice(0, 300)}`;
  return { ...sent, text, where };
}

test.before(async () => {
  // The tree is there before the server starts, as a home folder is (its first walk finds it).
  const dirs = makeDirs();
  hostFolder = buildTree(dirs.volumes);
  fs.mkdirSync(path.join(dirs.volumes, 'Files'));
  fs.writeFileSync(path.join(dirs.volumes, VOLUME, 'Beach day.txt'), 'sand\n');
  fs.writeFileSync(path.join(dirs.volumes, 'Files', 'C++.txt'), 'plus plus\n');
  fs.writeFileSync(path.join(hostFolder, PHOTO), await png(64, 48));
  // Every case starts with an older text: the editor's save below makes the current one, so
  // each file has one version and nothing is written beside the server while it indexes.
  for (const f of ALL())
    fs.writeFileSync(path.join(dirs.volumes, ...virtualOf(f).split('/')), `${contentOf(f)}(before the save)\n`);
  s = await startServer({ dirs, volumes: [] });
  admin = await setupAdmin(s);
  token = await issueToken(admin, 'write');
  // Dot-files are shown to this account (search leaves them out otherwise).
  assert.is((await admin.patch('/api/settings', { user: { showHiddenFiles: true } })).status, 200);
  // One version of every file: the editor's save keeps the replaced text.
  for (const f of ALL()) {
    const saved = await admin.put('/api/editor', { path: virtualOf(f), content: contentOf(f) });
    assert.is(saved.status, 200, `${f.label}: ${saved.text}`);
  }
  // An archive whose own name and entries' names are hard too.
  const zip = new yazl.ZipFile();
  for (const f of ALL()) zip.addBuffer(Buffer.from(contentOf(f)), `${IN_ARCHIVE}/${f.name}`);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  fs.writeFileSync(path.join(hostFolder, ARCHIVE), Buffer.concat(chunks));
  // A link to the folder.
  const created = await admin.post('/api/shares', { sourcePath: DIR, sharingType: 'anyone' });
  assert.is(created.status, 201, created.text);
  link = created.json.shareToken;
  // Upload destinations, one per client.
  CLIENTS.forEach((_, i) => fs.mkdirSync(path.join(hostFolder, `Inbox + ${i} & #`)));
  // Every case findable by its content before the search rows run (the index fills in the
  // background).
  for (const f of ALL()) {
    await waitFor(
      async () => {
        const r = await admin.get(`/api/search?q=${f.word}&path=${encodeURIComponent(VOLUME)}`);
        return r.status === 200 && r.json.items.some((i: Hit) => i.name === f.name);
      },
      { what: `the index to hold ${f.label}`, timeoutMs: 30_000 },
    );
  }
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

for (const client of CLIENTS) {
  test(`${client.name}: raw, preview, editor and versions read the named file`, async () => {
    for (const f of ALL()) {
      const fields: Fields = [['path', virtualOf(f)]];
      const raw = await ask(client, '/api/raw', fields, { headers: auth(client) });
      assert.is(raw.status, 200, raw.where);
      assert.is(raw.text, contentOf(f), raw.where);
      const preview = await ask(client, '/api/preview', fields, { headers: auth(client) });
      assert.is(preview.status, 200, preview.where);
      assert.is(preview.text, contentOf(f), preview.where);
      const editor = await ask(client, '/api/editor', fields, { headers: auth(client) });
      assert.is(editor.status, 200, editor.where);
      assert.is(JSON.parse(editor.text).content, contentOf(f), editor.where);
      const versions = await ask(client, '/api/versions', fields, { headers: auth(client) });
      assert.is(versions.status, 200, versions.where);
      assert.is(JSON.parse(versions.text).items.length, 1, versions.where);
    }
  });

  test(`${client.name}: search by name and by content, in a folder given in the query`, async () => {
    for (const f of ALL()) {
      for (const [q, at] of [
        [f.term, DIR],
        [f.word, VOLUME],
      ] as const) {
        const found = await ask(
          client,
          '/api/search',
          [
            ['q', q],
            ['path', at],
          ],
          { headers: auth(client) },
        );
        assert.is(found.status, 200, found.where);
        const paths = JSON.parse(found.text).items.map((i: Hit) => `${i.path}/${i.name}`);
        assert.ok(paths.includes(virtualOf(f)), `${f.label}: ${found.where}`);
      }
    }
  });

  test(`${client.name}: an archive's listing and its entries`, async () => {
    const archive = `${DIR}/${ARCHIVE}`;
    const listing = await ask(
      client,
      '/api/archive/list',
      [
        ['path', archive],
        ['inside', IN_ARCHIVE],
      ],
      { headers: auth(client) },
    );
    assert.is(listing.status, 200, listing.where);
    assert.equal(
      JSON.parse(listing.text)
        .entries.map((e: { name: string }) => e.name)
        .sort(),
      ALL()
        .map((f) => f.name)
        .sort(),
      listing.where,
    );
    for (const f of ALL()) {
      const entry = await ask(
        client,
        '/api/archive/entry',
        [
          ['path', archive],
          ['entry', `${IN_ARCHIVE}/${f.name}`],
        ],
        { headers: auth(client) },
      );
      assert.is(entry.status, 200, entry.where);
      assert.is(entry.text, contentOf(f), entry.where);
    }
  });

  test(`${client.name}: a link's file and shared editor`, async () => {
    for (const f of ALL()) {
      const rel = virtualOf(f).slice(DIR.length + 1);
      const file = await ask(client, `/api/share/${link}/file`, [
        ['path', rel],
        ['mode', 'raw'],
      ]);
      // `path=a+b.txt&mode=raw` is the same bytes from a form encoder meaning `a b.txt` and from
      // the native app meaning `a+b.txt`: when both exist and nothing else in the query tells,
      // the plus is read (wire-shapes rule 4). Any other name is the client's own.
      const expected = /^[^%/]*$/.test(file.query) && f.name === 'a b.txt' ? contentOf(twinPlus()) : contentOf(f);
      assert.is(file.status, 200, file.where);
      assert.is(file.text, expected, file.where);
      const editor = await ask(client, `/api/share/${link}/editor`, [['path', rel]]);
      assert.is(editor.status, 200, editor.where);
      assert.is(JSON.parse(editor.text).content, expected, editor.where);
    }
  });

  test(`${client.name}: a link's thumbnail of a photo`, async () => {
    const thumb = await ask(client, `/api/share/${link}/thumbnail`, [
      ['path', PHOTO],
      ['size', '200'],
    ]);
    assert.is(thumb.status, 200, thumb.where);
    assert.is(thumb.contentType, 'image/webp', thumb.where);
  });

  test(`${client.name}: an upload whose destination and relative path are in the query`, async () => {
    const inbox = `Inbox + ${CLIENTS.indexOf(client)} & #`;
    for (const f of ALL()) {
      const relative = `New + folder & #/${f.name}`;
      const up = await ask(
        client,
        '/api/upload',
        [
          ['uploadTo', `${DIR}/${inbox}`],
          ['relativePath', relative],
        ],
        { method: 'POST', headers: auth(client), file: Buffer.from(contentOf(f)) },
      );
      assert.is(up.status, 201, up.where);
      assert.is(JSON.parse(up.text)[0].name, f.name, up.where);
      assert.is(fs.readFileSync(path.join(hostFolder, inbox, 'New + folder & #', f.name), 'utf8'), contentOf(f));
    }
  });

  test(`${client.name}: the administrator's host folder picker`, async () => {
    const answer = await ask(client, '/api/admin/browse-directories', [['path', hostFolder]], {
      headers: auth(client, true),
    });
    assert.is(answer.status, 200, answer.where);
    const listed = JSON.parse(answer.text);
    assert.is(listed.current, hostFolder, answer.where);
    assert.ok(
      listed.directories.some((d: { name: string }) => d.name === deepFolders()[0]),
      answer.where,
    );
  });
}

test('a raw `+` names the file that exists, whichever reading the query points to first', async () => {
  const text = async (query: string) => (await admin.get(`/api/raw?${query}`)).text;
  const twin = (name: string) => contentOf(ALL().find((f) => f.name === name)!);
  // The native app: `/` raw and spaces as %20, so its raw `+` is a plus.
  const native = (p: string) => p.replace(/ /g, '%20').replace(/&/g, '%26').replace(/#/g, '%23');
  assert.is(await text(`path=${native(`${DIR}/a+b.txt`)}`), twin('a+b.txt'));
  // A form encoder: `%2B` and `%2F`, so its raw `+` is a space.
  assert.is(await text(new URLSearchParams({ path: `${DIR}/a b.txt` }).toString()), twin('a b.txt'));
  // Typed by hand: `/` raw points to the plus, which names nothing; the spaces do.
  assert.is(await text('path=Home+Media/Beach+day.txt'), 'sand\n');
  // And the other way round: `%2F` points to a space, which names nothing; the plus does.
  assert.is(await text('path=Files%2FC++.txt'), 'plus plus\n');
  // Neither names anything: 404, with the envelope.
  const missing = await admin.get('/api/raw?path=Files%2FNo+such.txt');
  assert.is(missing.status, 404);
  envelope(missing);
});

test('a volume named with a space, alone in the query (nothing else says how `+` was meant)', async () => {
  for (const client of CLIENTS) {
    const found = await ask(
      client,
      '/api/search',
      [
        ['q', 'zebrafinch'],
        ['path', VOLUME],
      ],
      { headers: auth(client) },
    );
    assert.is(found.status, 200, found.where);
    assert.ok(JSON.parse(found.text).items.length > 0, found.where);
  }
});

test('a search term is form data: a `+` is a space unless the query spells spaces as %20', async () => {
  const paths = async (query: string) =>
    (await admin.get(`/api/search?${query}`)).json.items.map((i: Hit) => `${i.path}/${i.name}`);
  // A hand-typed curl URL: `Holiday+2025` is "Holiday 2025".
  assert.ok((await paths('q=Holiday+2025')).includes(`${DIR}/Holiday 2025 plan.txt`));
  // Python's encoding of "a+b" (%2B) finds the plus file.
  assert.ok((await paths(await pythonQuery([['q', 'a+b']]))).includes(`${DIR}/a+b.txt`));
});

test('the activity log`s search term, from every client', async () => {
  assert.is((await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 7 } })).status, 200);
  const made = await admin.post('/api/files/folder', { path: DIR, name: 'Tom & Jerry + Spike 🎬' });
  assert.is(made.status, 201, made.text);
  for (const client of CLIENTS) {
    const rows = await ask(client, '/api/activity', [['q', 'Jerry + Spike 🎬']], { headers: auth(client, true) });
    assert.is(rows.status, 200, rows.where);
    assert.is(JSON.parse(rows.text).rows.length, 1, rows.where);
  }
});

test('a query that is not valid percent-encoding answers 400 with the envelope, on every route', async () => {
  const routes = [
    '/api/raw?path=',
    '/api/preview?path=',
    '/api/editor?path=',
    '/api/versions?path=',
    '/api/search?q=Holiday&path=',
    '/api/archive/list?path=',
    `/api/archive/entry?path=${encodeURIComponent(`${DIR}/${ARCHIVE}`)}&entry=`,
    `/api/share/${link}/file?path=`,
    `/api/share/${link}/editor?path=`,
    `/api/share/${link}/thumbnail?path=`,
    '/api/admin/browse-directories?path=',
    '/api/activity?q=',
  ];
  for (const route of routes) {
    for (const bad of ['%E9t%E9.txt', 'Home%20Media/%zz', '100%', '%C3%28']) {
      const answer = await admin.get(route + bad);
      assert.is(answer.status, 400, `${route}${bad}: ${answer.text}`);
      const e = envelope(answer);
      assert.is(e.code, 'INVALID_QUERY', `${route}${bad}`);
    }
  }
  const upload = await fetch(`${s.url}/api/upload?uploadTo=Home%20Media%2F%E9`, {
    method: 'POST',
    headers: { cookie: admin.cookieHeader },
    body: new FormData(),
  });
  assert.is(upload.status, 400);
  assert.is(((await upload.json()) as { error: { code: string } }).error.code, 'INVALID_QUERY');
  assert.equal(fs.readdirSync(hostFolder).filter((n) => n.startsWith('Inbox')).length, CLIENTS.length);
});

test.run();
