// GET /api/search through the real server: ordering (names closest first, then documents by
// relevance with their line), patterns, limit bounds, permission filtering (other accounts'
// personal folders never appear), hostile terms, the live walk and its time budget.
import fs from 'node:fs';
import path from 'node:path';
import yazl from 'yazl';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { setupAdmin, createUser } from '../support/auth.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
let admin: Client;
let bob: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const q = (c: Client, query: string) => c.get(`/api/search?${query}`);

async function docx(file: string, text: string): Promise<void> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from('<?xml version="1.0"?><Types/>'), '[Content_Types].xml');
  zip.addBuffer(
    Buffer.from(
      `<w:document><w:body><w:p><w:r><w:t>Title</w:t></w:r></w:p><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`,
    ),
    'word/document.xml',
  );
  zip.end();
  await new Promise<void>((resolve, reject) =>
    zip.outputStream.pipe(fs.createWriteStream(file)).on('close', resolve).on('error', reject),
  );
}

function indexed(c: Client, query: string, name: string) {
  return waitFor(() => q(c, query), {
    what: `${name} to be found by ${query}`,
    until: (a) => a.json?.items?.some((x: any) => x.name === name),
    seen: (a) => a.json?.items?.map((x: any) => `${x.path}/${x.name}`) ?? a.text,
  });
}

test.before(async () => {
  s = await startServer({ env: { USER_DIR_ENABLED: 'true', FOLDER_SIZE_FLUSH_MS: '20' }, volumes: ['Files'] });
  fs.mkdirSync(vol('Work', 'reports'), { recursive: true });
  fs.writeFileSync(vol('report'), 'exact name, no extension');
  fs.writeFileSync(vol('Work', 'report.pdf'), '%PDF-1.4');
  fs.writeFileSync(vol('Work', 'reports', 'reporting-2024.xlsx'), 'not a zip');
  fs.writeFileSync(vol('Work', 'annual-report.txt'), 'numbers');
  fs.writeFileSync(vol('Work', 'misreported.txt'), 'typo');
  fs.writeFileSync(vol('Work', 'notes.md'), 'first line\nthe quarterly reportage is late\nlast');
  fs.writeFileSync(vol('Work', 'memo.txt'), 'report report report — the report');
  await docx(vol('Work', 'letter.docx'), 'Dear board, the reporter asked &amp; waited');
  fs.writeFileSync(vol('--pre=x.txt'), 'hostile name');
  fs.writeFileSync(vol('100%_done.txt'), 'percent');
  fs.writeFileSync(vol('say "hi".txt'), 'quotes');
  await s.restart({ FOLDER_SIZE_REBUILD: 'true' });
  admin = await setupAdmin(s);
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('names first, closest first (exact, prefix, word start, contains), then documents by relevance with their line', async () => {
  const a = await indexed(admin, 'q=report&path=Files', 'letter.docx');
  assert.is(a.status, 200);
  const names = a.json.items.map((i: any) => `${i.path}|${i.name}|${i.kind}`);
  assert.equal(names.slice(0, 7), [
    'Files|report|file',
    'Files/Work|report.pdf|file',
    'Files/Work|reports|dir',
    'Files/Work/reports|reporting-2024.xlsx|file',
    'Files/Work|annual-report.txt|file',
    'Files/Work|misreported.txt|file',
    'Files/Work|memo.txt|file',
  ]);
  const docs = a.json.items.slice(6);
  assert.equal(docs.map((i: any) => i.name).sort(), ['letter.docx', 'memo.txt', 'notes.md']);
  assert.is(docs[0].name, 'memo.txt', 'the document saying it most often ranks first');
  const notes = docs.find((i: any) => i.name === 'notes.md');
  assert.equal([notes.matchLine, notes.matchLineNumber], ['the quarterly reportage is late', 2]);
  const letter = docs.find((i: any) => i.name === 'letter.docx');
  assert.is(letter.matchLine, 'Dear board, the reporter asked & waited');
  assert.is(a.json.truncated, false);
  assert.is(a.json.complete, true);
});

test('patterns match whole names; wildcard-only patterns and short terms are refused', async () => {
  const a = await q(admin, 'q=*.txt&path=Files/Work');
  assert.equal(a.json.items.map((i: any) => i.name).sort(), ['annual-report.txt', 'memo.txt', 'misreported.txt']);
  const b = await q(admin, 'q=rep?rt.*');
  assert.equal(
    b.json.items.map((i: any) => i.name),
    ['report.pdf'],
  );
  for (const bad of ['q=ab', 'q=', '', 'q=***', 'q=%3F%3F%3F', 'q=%20%20ab%20']) {
    const r = await q(admin, bad);
    assert.is(r.status, 400, bad);
    envelope(r);
  }
});

test('limit bounds: 1..500, default 100; a short page is not complete', async () => {
  for (const bad of ['0', '501', 'x', '-1', '2.5']) {
    const r = await q(admin, `q=report&limit=${bad}`);
    assert.is(r.status, 400, bad);
    envelope(r);
  }
  const one = await q(admin, 'q=report&limit=1');
  assert.equal(
    one.json.items.map((i: any) => i.name),
    ['report'],
  );
  assert.is(one.json.complete, false);
  assert.is((await q(admin, 'q=report&limit=500')).status, 200);
});

test('hostile terms are plain text: --pre=x, %_, quotes, FTS syntax', async () => {
  assert.equal(
    (await q(admin, 'q=--pre%3Dx')).json.items.map((i: any) => i.name),
    ['--pre=x.txt'],
  );
  assert.equal(
    (await q(admin, 'q=%25_done')).json.items.map((i: any) => i.name),
    ['100%_done.txt'],
  );
  assert.equal(
    (await q(admin, 'q=%22hi%22')).json.items.map((i: any) => i.name),
    ['say "hi".txt'],
  );
  for (const term of [
    '%22%22%22',
    'NEAR(a b)',
    'a OR b*',
    '%5B%5D%5B',
    "x'; DROP TABLE idx_entries; --",
    '^^^',
    '***a',
  ]) {
    const r = await q(admin, `q=${encodeURIComponent(decodeURIComponent(term))}`);
    assert.is(r.status, 200, `${term}: ${r.status} ${r.text}`);
  }
  assert.is((await q(admin, 'q=report')).status, 200, 'the index survived');
  const outside = await q(admin, 'q=report&path=Files/..%2F..');
  assert.is(outside.status, 400, outside.text);
});

test("other accounts' personal folders never appear; own personal folder does", async () => {
  const put = await bob.post('/api/files/file', {
    path: 'personal',
    name: 'bob-secret-report.txt',
    content: 'report of bob',
  });
  assert.is(put.status, 201, put.text);
  await indexed(bob, 'q=secret', 'bob-secret-report.txt');
  const mine = await q(bob, 'q=secret');
  assert.equal(
    mine.json.items.map((i: any) => [i.path, i.name]),
    [['personal', 'bob-secret-report.txt']],
  );
  const theirs = await q(admin, 'q=secret');
  assert.equal(theirs.json.items, []);
  const byContent = await q(admin, 'q=bob');
  assert.equal(
    byContent.json.items.filter((i: any) => /bob/.test(i.name)),
    [],
  );
});

test('without the index: a bounded live walk with the same rules, truncated when the budget runs out', async () => {
  await s.restart({ SEARCH_INDEX_ENABLED: 'false', FOLDER_SIZE_MODE: 'off' });
  admin = await setupAdminOrSignIn();
  const a = await q(admin, 'q=report&path=Files/Work');
  assert.equal(
    a.json.items.slice(0, 3).map((i: any) => i.name),
    ['report.pdf', 'reports', 'reporting-2024.xlsx'],
  );
  const notes = a.json.items.find((i: any) => i.name === 'notes.md');
  assert.is(notes.matchLineNumber, 2);
  assert.is(a.json.complete, true);
  // A wide tree and a 50 ms budget: the walk stops and says so.
  for (let i = 0; i < 3000; i++) fs.mkdirSync(vol('Wide', `d${i}`, 'x'), { recursive: true });
  await s.restart({ SEARCH_TIME_BUDGET_MS: '50' });
  admin = await setupAdminOrSignIn();
  const started = Date.now();
  const t = await q(admin, 'q=zzzzzz');
  assert.is(t.status, 200);
  assert.is(t.json.truncated, true);
  assert.is(t.json.complete, false);
  assert.ok(Date.now() - started < 3000);
});

async function setupAdminOrSignIn(): Promise<Client> {
  const c = new Client(s.url);
  const r = await c.post('/api/auth/login', { identifier: 'admin', password: 'admin-password-1' });
  assert.is(r.status, 200, r.text);
  return c;
}

test.run();
