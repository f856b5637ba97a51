// Live folders (issue 30): the watcher of outside changes is bounded. Each folder on screen is
// one inotify watch, MAX_FOLDERS (4,096) at most, however many pages watch however many
// folders; a folder past the bound is answered `outside: 'rescan'`, the log says the rest are
// heard by the rescan, and a file written there by something else still reaches the index when
// the folder is re-checked (listing it). The watches are counted where the kernel keeps them:
// /proc/<pid>/fdinfo of the server's inotify descriptors, matched to the folders' inodes.
// Past the bound, the index's periodic rescan brings what it finds to the pages (on one server
// too), and only to those whose account may see the folder.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { createUser, me, setupAdmin } from '../support/auth.ts';
import type { Client } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { MAX_FOLDERS } from '../../src/live/watcher.ts';

let s: TestServer;
let admin: Client;

/** Folders watched by one socket at most (src/live/capability.ts MAX_WATCHES). */
const PER_SOCKET = 16;
const PAST = 5;
const COUNT = MAX_FOLDERS + PAST;
const PARENT = 'Files/Scans & Belege #2024';
const folder = (i: number) => `${PARENT}/Ordner ${String(i).padStart(4, '0')} – Überweisung + 50%`;

interface Live {
  ws: WebSocket;
  answers: Map<string, any>;
  messages: any[];
}

function connect(client: Client = admin): Promise<Live> {
  const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}/api/live`, {
    headers: { cookie: client.cookieHeader },
    origin: s.url,
  });
  const answers = new Map<string, any>();
  const messages: any[] = [];
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString());
    messages.push(m);
    if (m.type === 'watching' || m.type === 'closed') answers.set(m.path, m);
  });
  return new Promise((resolve, reject) => {
    ws.on('open', () => resolve({ ws, answers, messages }));
    ws.on('error', reject);
  });
}

/** Pages watching every folder, as many per page as one page may, in order: the first MAX_FOLDERS are live. */
async function watchEveryFolder(): Promise<Live[]> {
  const pages: Live[] = [];
  for (let first = 0; first < COUNT; first += PER_SOCKET) {
    const page = await connect();
    pages.push(page);
    const wanted: string[] = [];
    for (let i = first; i < Math.min(first + PER_SOCKET, COUNT); i++) {
      wanted.push(folder(i));
      page.ws.send(JSON.stringify({ type: 'watch', path: folder(i) }));
    }
    await waitFor(() => wanted.every((p) => page.answers.has(p)), {
      what: `the answers to watching folders ${first}…`,
      timeoutMs: 60_000,
      seen: () => [...page.answers.values()],
    });
  }
  return pages;
}

/** The inodes the server's inotify descriptors watch now (hex, as fdinfo writes them). */
function inotifyWatches(pid: number): string[] {
  const inodes: string[] = [];
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let target = '';
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    if (target !== 'anon_inode:inotify') continue;
    const info = fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
    for (const m of info.matchAll(/^inotify wd:\S+ ino:([0-9a-f]+) /gm)) inodes.push(m[1]!);
  }
  return inodes;
}

test.before(async () => {
  s = await startServer({ env: { FOLDER_SIZE_MODE: 'full', FOLDER_SIZE_FLUSH_MS: '20' } });
  for (let i = 0; i < COUNT; i++) fs.mkdirSync(path.join(s.dirs.volumes, folder(i)), { recursive: true });
  await s.restart({ FOLDER_SIZE_REBUILD: 'true' });
  admin = await setupAdmin(s);
  await waitFor(() => s.logs.some((l) => l.msg === 'index catalogue finished'), {
    what: 'the index catalogue to finish',
    timeoutMs: 120_000,
    seen: () => s.logs.map((l) => l.msg).slice(-20),
  });
});

test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test(`more folders on screen than the bound: ${MAX_FOLDERS} inotify watches, the rest by the rescan`, async () => {
  const mine = new Map<string, number>();
  for (let i = 0; i < COUNT; i++) mine.set(fs.statSync(path.join(s.dirs.volumes, folder(i))).ino.toString(16), i);

  const pages = await watchEveryFolder();
  const answers = pages.flatMap((p) => [...p.answers.values()]);
  assert.is(answers.length, COUNT);
  assert.equal(
    answers.filter((a) => a.type !== 'watching'),
    [],
  );
  const rescan = answers
    .filter((a) => a.outside === 'rescan')
    .map((a) => a.path)
    .sort();
  assert.is(answers.filter((a) => a.outside === 'live').length, MAX_FOLDERS);
  assert.equal(
    rescan,
    Array.from({ length: PAST }, (_, k) => folder(MAX_FOLDERS + k)),
  );

  // The kernel's count: one watch per live folder, none for the folders past the bound.
  const watched = inotifyWatches(s.pid()).filter((ino) => mine.has(ino));
  assert.is(watched.length, MAX_FOLDERS);
  assert.is(new Set(watched).size, MAX_FOLDERS);
  assert.ok(
    watched.every((ino) => mine.get(ino)! < MAX_FOLDERS),
    'only the folders within the bound are watched',
  );

  // The log says so, once.
  const said = s.logs.filter((l) => l.msg === 'live folders: too many folders watched; more are heard by the rescan');
  assert.is(said.length, 1, JSON.stringify(said));
  assert.is(said[0]!.max, MAX_FOLDERS);

  // A file written by something else into a folder past the bound: the index learns it when the
  // folder is re-checked (listed), as the `rescan` answer said.
  await waitFor(() => admin.get('/api/admin/index'), {
    what: 'every indexed root ready',
    until: (a) => a.status === 200 && a.json.roots.length > 0 && a.json.roots.every((r: any) => r.state === 'ready'),
    seen: (a) => a.json?.roots ?? a.text,
    timeoutMs: 120_000,
  });
  const last = folder(COUNT - 1);
  const q = (v: string) => encodeURIComponent(v);
  const search = async () => {
    const r = await admin.get(`/api/search?q=okapi&path=${q(last)}`);
    assert.is(r.status, 200, r.text);
    return r.json.items.map((i: any) => i.name);
  };
  fs.writeFileSync(path.join(s.dirs.volumes, last, 'okapi Kontoauszug (März).pdf'), 'pdf');
  assert.equal(await search(), []);
  const listed = await admin.get(`/api/browse/${last.split('/').map(q).join('/')}`);
  assert.is(listed.status, 200, listed.text);
  assert.equal(
    listed.json.items.map((i: any) => i.name),
    ['okapi Kontoauszug (März).pdf'],
  );
  assert.equal(
    await waitFor(search, { what: 'the re-check to bring the file into the index', until: (f) => f.length > 0 }),
    ['okapi Kontoauszug (März).pdf'],
  );

  // Pages closed: their watches go.
  for (const p of pages) p.ws.close();
  await waitFor(() => inotifyWatches(s.pid()).filter((ino) => mine.has(ino)).length, {
    what: 'every watch removed once the pages closed',
    until: (n) => n === 0,
    timeoutMs: 30_000,
  });
});

test('past the bound, a file written from outside reaches the pages once the rescan has run', async () => {
  // The rescan soon and often, over every folder (it runs on this one server: no cluster lease).
  await s.restart({
    FOLDER_SIZE_REBUILD: 'false',
    FOLDER_SIZE_RECONCILE_MS: '1000',
    FOLDER_SIZE_RECONCILE_MAX_DIRECTORIES: '0',
    FOLDER_SIZE_RECONCILE_BATCH: '1000',
    FOLDER_SIZE_RECONCILE_PAUSE_MS: '0',
  });
  const bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  const pages = await watchEveryFolder();
  const target = folder(COUNT - 2);
  const mine = pages.find((p) => p.answers.has(target))!;
  assert.is(mine.answers.get(target).outside, 'rescan');

  // bob watches the folder while he may see it; then an access rule hides it from his account.
  const other = await connect(bob);
  other.ws.send(JSON.stringify({ type: 'watch', path: target }));
  await waitFor(() => other.answers.get(target), { what: "bob's answer", seen: () => other.messages });
  assert.is(other.answers.get(target).type, 'watching');
  assert.is(other.answers.get(target).outside, 'rescan');
  other.answers.delete(target);
  const hide = await admin.put('/api/access/rules', {
    path: target,
    subject: { kind: 'account', id: (await me(bob)).id },
    level: 'hidden',
  });
  assert.is(hide.status, 200, hide.text);

  const name = 'Zebra „Kontoauszug“ #7 + 100% & Co 🦓.pdf';
  fs.writeFileSync(path.join(s.dirs.volumes, target, name), 'pdf');
  const events = () => mine.messages.filter((m) => m.type === 'changes' && m.path === target).flatMap((m) => m.events);
  assert.equal(
    await waitFor(events, {
      what: 'the rescan to bring the outside file to the page',
      until: (e) => e.some((x: any) => x.type === 'created' && x.name === name),
      seen: () => mine.messages.slice(-5),
      timeoutMs: 120_000,
    }).then((e) => e.filter((x: any) => x.name === name).map((x: any) => x.type)),
    ['created'],
  );
  // bob's page heard the same rescan as its folder gone from his sight, and nothing of the file.
  const closed = await waitFor(() => other.answers.get(target), {
    what: "bob's watch closed by the rule",
    seen: () => other.messages,
  });
  assert.is(closed.type, 'closed');
  assert.is(closed.code, 'NOT_FOUND');
  assert.equal(
    other.messages.filter((m) => m.type === 'changes'),
    [],
  );

  other.ws.close();
  for (const p of pages) p.ws.close();
});

test.run();
