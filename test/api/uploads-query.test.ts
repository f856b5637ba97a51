// POST /api/upload as scripts and other clients send it: `uploadTo` and `relativePath` in the
// query string (curl -F with a query URL), and fields that arrive after the file (refused with a
// message saying to send them first, since a file is read through before the next part is seen).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { issueToken, setupAdmin } from '../support/auth.ts';
import type { Client } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const run = promisify(execFile);

let s: TestServer;
let admin: Client;
let token: string;
let src: string;

test.before(async () => {
  s = await startServer();
  admin = await setupAdmin(s);
  token = await issueToken(admin, 'write');
  src = path.join(s.dirs.root, 'src');
  fs.mkdirSync(src, { recursive: true });
  fs.writeFileSync(path.join(src, 'report.txt'), 'quarterly numbers\n');
  fs.writeFileSync(path.join(src, 'second.txt'), 'two\n');
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

/** curl, the client the issue names: -F parts in the order given, a bearer token. */
async function curl(url: string, parts: string[]): Promise<{ status: number; body: any }> {
  const args = ['-sS', '-o', '-', '-w', '\n%{http_code}', '-H', `Authorization: Bearer ${token}`];
  for (const p of parts) args.push('-F', p);
  args.push(`${s.url}${url}`);
  const { stdout } = await run('curl', args, { cwd: src });
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: JSON.parse(stdout.slice(0, cut)) };
}

const volume = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const userFiles = () =>
  (fs.readdirSync(volume(), { recursive: true }) as string[]).filter((f) => !f.startsWith('.burrow')).sort();
const stagingDir = () => path.join(s.dirs.config, 'files', 'uploads');
const staged = () => (fs.existsSync(stagingDir()) ? fs.readdirSync(stagingDir()) : []);

function clear(): void {
  for (const f of fs.readdirSync(volume())) if (f !== '.burrow') fs.rmSync(volume(f), { recursive: true, force: true });
}

test('curl -F filedata=@file with uploadTo in the query string stores the file under its name', async () => {
  clear();
  const a = await curl('/api/upload?uploadTo=Files', ['filedata=@report.txt']);
  assert.is(a.status, 201, JSON.stringify(a.body));
  assert.is(a.body.length, 1);
  assert.is(a.body[0].name, 'report.txt');
  assert.is(a.body[0].path, 'Files');
  assert.is(fs.readFileSync(volume('report.txt'), 'utf8'), 'quarterly numbers\n');
});

test('relativePath in the query names the one file, folders made as needed', async () => {
  clear();
  const a = await curl(`/api/upload?uploadTo=Files&relativePath=${encodeURIComponent('Q3/final report.txt')}`, [
    'filedata=@report.txt',
  ]);
  assert.is(a.status, 201, JSON.stringify(a.body));
  assert.equal([a.body[0].path, a.body[0].name], ['Files/Q3', 'final report.txt']);
  assert.ok(fs.existsSync(volume('Q3', 'final report.txt')));
});

test('form fields before a file win over the query; files without fields keep the query destination', async () => {
  clear();
  fs.mkdirSync(volume('Inbox'));
  fs.mkdirSync(volume('Other'));
  const a = await curl('/api/upload?uploadTo=Files/Inbox', [
    'filedata=@report.txt',
    'uploadTo=Files/Other',
    'relativePath=renamed.txt',
    'filedata=@second.txt',
  ]);
  assert.is(a.status, 201, JSON.stringify(a.body));
  assert.equal(
    a.body.map((f: { path: string; name: string }) => `${f.path}/${f.name}`),
    ['Files/Inbox/report.txt', 'Files/Other/renamed.txt'],
  );
});

test('a repeated uploadTo after the file that changes nothing is accepted', async () => {
  clear();
  const a = await curl('/api/upload?uploadTo=Files', ['filedata=@report.txt', 'uploadTo=Files']);
  assert.is(a.status, 201, JSON.stringify(a.body));
  assert.equal(userFiles(), ['report.txt']);
});

test('fields after the file are refused with a message saying to send them first; nothing is kept', async () => {
  clear();
  const cases: Array<[string, string, string[], string, RegExp]> = [
    [
      'uploadTo only after the file',
      '/api/upload',
      ['filedata=@report.txt', 'uploadTo=Files'],
      'MISSING_DESTINATION',
      /before "filedata".*query string/,
    ],
    [
      'relativePath after the last file',
      '/api/upload?uploadTo=Files',
      ['filedata=@report.txt', 'relativePath=named.txt'],
      'WRONG_FIELD',
      /"relativePath" arrived after the last file.*before the file/,
    ],
    [
      'a different uploadTo after the last file',
      '/api/upload',
      ['uploadTo=Files', 'filedata=@report.txt', 'uploadTo=Files/Else'],
      'WRONG_FIELD',
      /"uploadTo" arrived after the last file/,
    ],
    [
      'query relativePath for two files',
      '/api/upload?uploadTo=Files&relativePath=one.txt',
      ['filedata=@report.txt', 'filedata=@second.txt'],
      'INVALID_QUERY',
      /names one file/,
    ],
  ];
  for (const [name, url, parts, code, message] of cases) {
    const a = await curl(url, parts);
    assert.is(a.status, 400, `${name}: ${JSON.stringify(a.body)}`);
    assert.is(a.body.success, false, name);
    const e = a.body.error as { code: string; message: string; statusCode: number; requestId: string };
    assert.is(e.statusCode, 400, name);
    assert.is(e.code, code, name);
    assert.match(e.message, message, name);
    assert.ok(e.requestId, name);
    assert.equal(userFiles(), [], `${name}: nothing kept`);
    await waitFor(() => staged().length === 0, { what: `${name}: staging to empty`, seen: staged });
    assert.equal(staged(), [], `${name}: staging empty`);
  }
});

test('the query parameters are described in the OpenAPI document', async () => {
  const doc = (await admin.get('/api/openapi.json')).json as {
    paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>;
  };
  const names = (doc.paths['/api/upload']!.post!.parameters ?? [])
    .filter((p) => p.in === 'query')
    .map((p) => p.name)
    .sort();
  assert.equal(names, ['conflict', 'relativePath', 'uploadTo']);
});

test.run();
