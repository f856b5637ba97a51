// Live folders (issue 30): a page that shows a folder hears its changes over one WebSocket
// (/api/live), from Burrow's writes by anyone and from anything else that writes on the disk,
// coalesced, checked against the listener's access at every message; a client that was away
// watches again and fetches the folder (no replay). Real `ws` clients against the real server
// (source and executable); another account, a hidden rule, a token, no session and another
// site's page are the attacker table.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type WebSocket from 'ws';
import { createUser, issueToken, setupAdmin } from '../support/auth.ts';
import type { Client } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { liveSocket, refusal } from '../support/live.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
let admin: Client;
let alice: Client;
let bob: Client;

const FOLDER = 'Files/Family photos & "Trips" #2';
const TUS = { 'Tus-Resumable': '1.0.0' };
const b64 = (v: string) => Buffer.from(v).toString('base64');

interface Live {
  ws: WebSocket;
  messages: any[];
  closed: Promise<number>;
  watch(path: string): Promise<any>;
  /** Every event heard for `folder`, flattened. */
  events(folder: string): any[];
}

function connect(
  client: Client | null,
  opts: { origin?: string; headers?: Record<string, string> } = {},
): Promise<Live> {
  const { ws, messages, opened } = liveSocket(s.url, {
    headers: { ...(client ? { cookie: client.cookieHeader } : {}), ...opts.headers },
    origin: opts.origin,
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  const live: Live = {
    ws,
    messages,
    closed,
    async watch(p) {
      const from = messages.length;
      ws.send(JSON.stringify({ type: 'watch', path: p }));
      return waitFor(
        () =>
          messages
            .slice(from)
            .find((m) => (m.type === 'watching' || m.type === 'closed') && m.path.normalize() === p.normalize()),
        { what: `the answer to watching ${p}`, seen: () => messages },
      );
    },
    events: (folder) => messages.filter((m) => m.type === 'changes' && m.path === folder).flatMap((m) => m.events),
  };
  return opened.then(() => live);
}

function heard(live: Live, folder: string, match: (e: any) => boolean, what: string) {
  return waitFor(() => live.events(folder).find(match), { what, seen: () => live.messages });
}

/** What GET /api/browse says is in the folder, as sorted names. */
async function listed(client: Client, folder: string): Promise<string[]> {
  const r = await client.get(`/api/browse/${folder.split('/').map(encodeURIComponent).join('/')}`);
  assert.is(r.status, 200, r.text);
  return r.json.items.map((i: any) => i.name).sort();
}

test.before(async () => {
  s = await startServer({ env: { USER_DIR_ENABLED: 'true', UPLOAD_CHUNKED_ENABLED: 'true' } });
  admin = await setupAdmin(s);
  alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  fs.mkdirSync(path.join(s.dirs.volumes, FOLDER, 'Hütte 2023'), { recursive: true });
});

test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('features name the socket', async () => {
  assert.equal((await alice.get('/api/features')).json.live, { enabled: true, socketPath: '/api/live' });
});

test("one account's upload, rename and delete through the API are heard by another's page", async () => {
  const other = await connect(bob);
  const w = await other.watch(FOLDER);
  assert.equal(w, { type: 'watching', path: FOLDER, outside: 'live' });
  const name = 'Strand ☀️ 2024 + Ålesund.jpg';
  const fd = new FormData();
  fd.append('uploadTo', FOLDER);
  fd.append('filedata', new Blob([Buffer.from('jpeg bytes of the beach')]), name);
  assert.is((await alice.post('/api/upload', fd)).status, 201);
  await heard(other, FOLDER, (e) => e.type === 'created' && e.name === name, 'the upload heard');

  // TUS too (the phone's resumable path).
  const tusName = 'Video #3 – 50% “final”.mp4';
  const created = await alice.request('POST', '/api/upload/tus', undefined, {
    ...TUS,
    'Upload-Length': '5',
    'Upload-Metadata': `uploadTo ${b64(FOLDER)},filename ${b64(tusName)}`,
  });
  assert.is(created.status, 201, created.text);
  const patched = await alice.request(
    'PATCH',
    new URL(created.headers.get('location')!, alice.base).pathname,
    'video',
    {
      ...TUS,
      'Upload-Offset': '0',
      'Content-Type': 'application/offset+octet-stream',
    },
  );
  assert.is(patched.status, 204, patched.text);
  await heard(other, FOLDER, (e) => e.type === 'created' && e.name === tusName, 'the TUS upload heard');

  const renamed = "Strand – Mamas Lieblingsbild's.jpg";
  assert.is((await alice.post('/api/files/rename', { path: FOLDER, name, newName: renamed })).status, 200);
  await heard(other, FOLDER, (e) => e.type === 'renamed' && e.name === name && e.to === renamed, 'the rename heard');

  assert.is((await alice.delete('/api/files', { items: [{ path: FOLDER, name: renamed }] })).status, 200);
  await heard(other, FOLDER, (e) => e.type === 'deleted' && e.name === renamed, 'the delete heard');

  // A write inside a sub-folder moves that sub-folder's size in the folder on screen.
  const r = await alice.post('/api/files/file', {
    path: `${FOLDER}/Hütte 2023`,
    name: 'Packliste.txt',
    content: 'Stiefel',
  });
  assert.is(r.status, 201, r.text);
  await heard(other, FOLDER, (e) => e.type === 'size' && e.name === 'Hütte 2023', 'the sub-folder size moved');
  assert.equal(await listed(bob, FOLDER), ['Hütte 2023', tusName]);
  other.ws.close();
  await other.closed;
});

test('a file written, renamed and removed on the disk by something else is heard', async () => {
  const live = await connect(alice);
  await live.watch(FOLDER);
  const dir = path.join(s.dirs.volumes, FOLDER);
  const nfd = 'Cafe\u0301 de l’Église.txt'.normalize('NFD');
  fs.writeFileSync(path.join(dir, nfd), 'written by a shell');
  await heard(
    live,
    FOLDER,
    (e) => e.type === 'created' && e.name === nfd && e.isDirectory === false,
    'the shell’s file',
  );
  fs.renameSync(path.join(dir, nfd), path.join(dir, 'Kaffee & Kuchen.txt'));
  await heard(live, FOLDER, (e) => e.type === 'created' && e.name === 'Kaffee & Kuchen.txt', 'the new name');
  await heard(live, FOLDER, (e) => e.type === 'deleted' && e.name === nfd, 'the old name gone');
  fs.mkdirSync(path.join(dir, 'Scans from the NAS'));
  await heard(
    live,
    FOLDER,
    (e) => e.type === 'created' && e.name === 'Scans from the NAS' && e.isDirectory,
    'a new folder',
  );
  fs.rmSync(path.join(dir, 'Kaffee & Kuchen.txt'));
  await heard(live, FOLDER, (e) => e.type === 'deleted' && e.name === 'Kaffee & Kuchen.txt', 'the removal');
  // Burrow's own temporaries and dot files (not shown to this account) are never heard.
  fs.writeFileSync(path.join(dir, '.DS_Store'), 'x');
  fs.writeFileSync(path.join(dir, 'marker.txt'), 'x');
  await heard(live, FOLDER, (e) => e.name === 'marker.txt', 'the marker');
  assert.not.ok(live.events(FOLDER).some((e) => e.name === '.DS_Store'));
  live.ws.close();
  await live.closed;
});

test('another account hears nothing of a folder it may not see', async () => {
  assert.is((await alice.post('/api/files/folder', { path: 'personal', name: 'Tagebuch' })).status, 201);
  assert.is((await bob.post('/api/files/folder', { path: 'personal', name: 'Tagebuch' })).status, 201);
  const a = await connect(alice);
  const b = await connect(bob);
  await a.watch('personal/Tagebuch');
  await b.watch('personal/Tagebuch'); // bob's own folder of the same name
  assert.is(
    (await alice.post('/api/files/file', { path: 'personal/Tagebuch', name: 'Geheim.txt', content: 'x' })).status,
    201,
  );
  await heard(a, 'personal/Tagebuch', (e) => e.name === 'Geheim.txt', 'alice hears her own write');
  // bob's own write comes after; anything about alice's would have come before it.
  assert.is(
    (await bob.post('/api/files/file', { path: 'personal/Tagebuch', name: 'Bobs.txt', content: 'y' })).status,
    201,
  );
  await heard(b, 'personal/Tagebuch', (e) => e.name === 'Bobs.txt', 'bob hears his own write');
  assert.equal(
    b.events('personal/Tagebuch').map((e) => e.name),
    ['Bobs.txt'],
  );

  // A folder hidden by an access rule cannot be watched, and one hidden while watched stops being heard.
  fs.mkdirSync(path.join(s.dirs.volumes, 'Files', 'Payroll 2024'));
  await b.watch('Files/Payroll 2024');
  assert.is(
    (
      await admin.patch('/api/settings', {
        access: { rules: [{ id: 'p', path: 'Files/Payroll 2024', recursive: true, permissions: 'hidden' }] },
      })
    ).status,
    200,
  );
  const refused = await b.watch('Files/Payroll 2024');
  assert.is(refused.type, 'closed');
  assert.is(refused.code, 'NOT_FOUND');
  fs.writeFileSync(path.join(s.dirs.volumes, 'Files', 'Payroll 2024', 'salaries.csv'), 'name,amount');
  const closed = await waitFor(() => b.messages.filter((m) => m.type === 'closed' && m.path === 'Files/Payroll 2024'), {
    what: 'the watched folder closed by the rule',
    until: (m) => m.length === 2,
    seen: () => b.messages,
  });
  assert.is(closed[1].code, 'NOT_FOUND');
  assert.not.ok(b.events('Files/Payroll 2024').length);
  assert.is((await admin.patch('/api/settings', { access: { rules: [] } })).status, 200);
  a.ws.close();
  b.ws.close();
});

test('refused upgrades: another site, no session, an API token', async () => {
  const cross = await refusal(connect(alice, { origin: 'http://evil.example' }));
  assert.is(cross.status, 403);
  assert.is(cross.body.error.code, 'CROSS_SITE_REFUSED');
  const lookalike = await refusal(connect(alice, { origin: s.url.replace('127.0.0.1', '127.0.0.1.evil.example') }));
  assert.is(lookalike.status, 403);
  const none = await refusal(connect(null));
  assert.is(none.status, 401);
  const token = await issueToken(alice, 'read', { password: 'alice-password-1' });
  const t = await refusal(connect(null, { headers: { authorization: `Bearer ${token}` } }));
  assert.is(t.status, 403);
  assert.is(t.body.error.code, 'AUTH_TOKEN_NOT_ALLOWED');
  // Watching the list of volumes, a file or a path that is not there is answered, not heard.
  const live = await connect(alice);
  assert.is((await live.watch('')).code, 'TOP_LEVEL');
  assert.is((await live.watch(`${FOLDER}/marker.txt`)).code, 'BAD_REQUEST');
  assert.is((await live.watch('Files/../../etc')).type, 'closed');
  live.ws.close();
});

test('a client that was away watches again and its listing equals the disk', async () => {
  const live = await connect(alice);
  await live.watch(FOLDER);
  live.ws.terminate(); // lost Wi-Fi
  await live.closed;
  const dir = path.join(s.dirs.volumes, FOLDER);
  for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(dir, `IMG_${String(i).padStart(4, '0')} (Kopie).jpg`), 'j');
  assert.is((await bob.delete('/api/files', { items: [{ path: FOLDER, name: 'marker.txt' }] })).status, 200);
  const back = await connect(alice);
  assert.is((await back.watch(FOLDER)).type, 'watching');
  const disk = fs
    .readdirSync(dir)
    .filter((n) => !n.startsWith('.'))
    .sort();
  assert.equal(await listed(alice, FOLDER), disk);
  back.ws.close();
});

test.run();
