// POST /api/upload through the real server: FileItem answers, free names, folders from
// relativePath, every refusal (wrong field, too big, too many, aborted, no space) keeping
// nothing — neither in the volume nor in the staging folder.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { issueToken, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { mountTmpfs } from '../support/mount.ts';
import { makeDirs, removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

function form(parts: Array<[string, string] | [string, Blob, string]>): FormData {
  const fd = new FormData();
  for (const p of parts) {
    if (p.length === 2) fd.append(p[0], p[1]);
    else fd.append(p[0], p[1], p[2]);
  }
  return fd;
}

/** Everything under the volume except Burrow's own hidden folder, plus what is staged. */
function volumeState(s: TestServer, volume = 'Files'): { files: string[]; staged: string[] } {
  const root = path.join(s.dirs.volumes, volume);
  const files = (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => !f.startsWith('.burrow')).sort();
  // Parts are staged in Burrow's own folder on the volume's disk: the data folder (files/own.ts)
  // of the server that takes the upload (any instance of a cluster), or a `.burrow` on a disk of its own.
  const owns = fs.existsSync(path.join(root, '.burrow'))
    ? [path.join(root, '.burrow')]
    : s.configDirs.map((c) => path.join(c, 'files'));
  const staged = owns.flatMap((own) => {
    const stagingDir = path.join(own, 'uploads');
    return fs.existsSync(stagingDir) ? fs.readdirSync(stagingDir) : [];
  });
  return { files, staged };
}

test('a file lands under its name with folders from relativePath; the answer is a FileItem array; a taken name becomes "name (1)"', async () => {
  const s = await startServer();
  try {
    const admin = await setupAdmin(s);
    const body = () =>
      form([
        ['uploadTo', 'Files'],
        ['relativePath', 'Trip/Day 1/notes.txt'],
        ['filedata', new Blob(['hello world']), 'ignored.txt'],
      ]);
    const first = await admin.post('/api/upload', body());
    assert.is(first.status, 201, first.text);
    assert.ok(Array.isArray(first.json));
    const item = first.json[0];
    assert.is(item.name, 'notes.txt');
    assert.is(item.path, 'Files/Trip/Day 1');
    assert.is(item.size, 11);
    assert.is(item.kind, 'txt');
    assert.match(item.dateModified, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const second = await admin.post('/api/upload', body());
    assert.is(second.status, 201, second.text);
    assert.is(second.json[0].name, 'notes (1).txt');
    const dir = path.join(s.dirs.volumes, 'Files', 'Trip', 'Day 1');
    assert.equal(fs.readdirSync(dir).sort(), ['notes (1).txt', 'notes.txt']);
    assert.is(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8'), 'hello world');
    assert.equal(volumeState(s).staged, [], 'nothing left in staging');

    // Without relativePath the part's filename names the file; several files in one request keep their order.
    const many = await admin.post(
      '/api/upload',
      form([
        ['uploadTo', 'Files/Trip'],
        ['filedata', new Blob(['a']), 'a.JPG'],
        ['relativePath', 'b'],
        ['filedata', new Blob(['bb']), 'whatever'],
      ]),
    );
    assert.is(many.status, 201, many.text);
    assert.equal(
      many.json.map((i: { name: string; kind: string; path: string }) => [i.name, i.kind, i.path]),
      [
        ['a.JPG', 'jpg', 'Files/Trip'],
        ['b', 'unknown', 'Files/Trip'],
      ],
    );
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test("a file's own name as clients send it (raw UTF-8 from fetch's FormData and curl -F, RFC 5987 filename*) is kept exactly", async () => {
  const s = await startServer();
  try {
    const admin = await setupAdmin(s);
    const names = ['Rechnung März.pdf', 'cafe\u0301 crème (NFD).txt', '😀 party #1 & 50% + more.jpg'];
    const fetched = await admin.post(
      '/api/upload',
      form([['uploadTo', 'Files'], ...names.map((n): [string, Blob, string] => ['filedata', new Blob([n]), n])]),
    );
    assert.is(fetched.status, 201, fetched.text);
    assert.equal(
      fetched.json.map((i: { name: string }) => i.name),
      names,
    );
    const local = path.join(s.dirs.root, 'Grüße aus Köln.txt');
    fs.writeFileSync(local, 'hallo');
    // Not spawnSync: from source the server answers in this very process.
    const curl = spawn('curl', [
      '-sS',
      '-b',
      admin.cookieHeader,
      '-H',
      'Accept: application/json',
      '-F',
      'uploadTo=Files',
      '-F',
      `filedata=@${local}`,
      `${s.url}/api/upload`,
    ]);
    let out = '';
    curl.stdout.on('data', (d) => (out += d));
    curl.stderr.on('data', (d) => (out += d));
    await new Promise((resolve) => curl.on('close', resolve));
    assert.is(JSON.parse(out)[0].name, 'Grüße aus Köln.txt', out);
    const b = 'Boundary-5987';
    const extended = await fetch(`${s.url}/api/upload?uploadTo=Files`, {
      method: 'POST',
      headers: { cookie: admin.cookieHeader, 'content-type': `multipart/form-data; boundary=${b}` },
      body: `--${b}\r\nContent-Disposition: form-data; name="filedata"; filename="fallback.txt"; filename*=UTF-8''%C3%89t%C3%A9%20%C3%A0%20Paris.txt\r\n\r\nx\r\n--${b}--\r\n`,
    });
    assert.is(((await extended.json()) as { name: string }[])[0]!.name, 'Été à Paris.txt');
    assert.equal(
      fs
        .readdirSync(path.join(s.dirs.volumes, 'Files'))
        .filter((n) => !n.startsWith('.'))
        .sort(),
      [...names, 'Grüße aus Köln.txt', 'Été à Paris.txt'].sort(),
    );
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('three parallel uploads of one name land as x, x (1), x (2) with their own bytes', async () => {
  const s = await startServer();
  try {
    const admin = await setupAdmin(s);
    const answers = await Promise.all(
      [0, 1, 2].map((i) =>
        admin.post(
          '/api/upload',
          form([
            ['uploadTo', 'Files'],
            ['relativePath', 'x.bin'],
            ['filedata', new Blob([Buffer.alloc(200_000 + i, i)]), 'x.bin'],
          ]),
        ),
      ),
    );
    for (const a of answers) assert.is(a.status, 201, a.text);
    assert.equal(answers.map((a) => a.json[0].name).sort(), ['x (1).bin', 'x (2).bin', 'x.bin']);
    for (const a of answers) {
      const bytes = fs.readFileSync(path.join(s.dirs.volumes, 'Files', a.json[0].name));
      assert.is(bytes.length, a.json[0].size);
      assert.ok(
        bytes.every((b) => b === bytes.length - 200_000),
        'each file holds its own upload',
      );
    }
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('refusals keep nothing: wrong field (400), no uploadTo (400), bad names (400), the top (400), too big and too many (413 naming the limit)', async () => {
  const s = await startServer({ env: { MAX_DIRECT_UPLOAD_SIZE: '1M', MAX_FILES_PER_UPLOAD: '2' } });
  try {
    const admin = await setupAdmin(s);
    const big = new Blob([Buffer.alloc(3 * 1024 * 1024, 1)]);
    const cases: Array<[string, FormData, number, string, RegExp?]> = [
      [
        'wrong field',
        form([
          ['uploadTo', 'Files'],
          ['relativePath', 'new/a.txt'],
          ['attachment', new Blob(['x']), 'a.txt'],
        ]),
        400,
        'WRONG_FIELD',
        /filedata/,
      ],
      [
        'file before uploadTo',
        form([
          ['filedata', new Blob(['x']), 'a.txt'],
          ['uploadTo', 'Files'],
        ]),
        400,
        'MISSING_DESTINATION',
      ],
      [
        'dot-dot in relativePath',
        form([
          ['uploadTo', 'Files'],
          ['relativePath', '../escape.txt'],
          ['filedata', new Blob(['x']), 'a.txt'],
        ]),
        400,
        'BAD_NAME',
      ],
      [
        'reserved name',
        form([
          ['uploadTo', 'Files'],
          ['relativePath', '.burrow/x.txt'],
          ['filedata', new Blob(['x']), 'a.txt'],
        ]),
        400,
        'BAD_NAME',
      ],
      [
        'escaping uploadTo',
        form([
          ['uploadTo', 'Files/../..'],
          ['filedata', new Blob(['x']), 'a.txt'],
        ]),
        400,
        'BAD_PATH',
      ],
      [
        'the top',
        form([
          ['uploadTo', ''],
          ['filedata', new Blob(['x']), 'a.txt'],
        ]),
        400,
        'BAD_DESTINATION',
      ],
      ['no file', form([['uploadTo', 'Files']]), 400, 'NO_FILE'],
      [
        'too big after a good file',
        form([
          ['uploadTo', 'Files'],
          ['relativePath', 'new/ok.txt'],
          ['filedata', new Blob(['fine']), 'ok.txt'],
          ['relativePath', 'new/big.bin'],
          ['filedata', big, 'big.bin'],
        ]),
        413,
        'UPLOAD_TOO_LARGE',
        /MAX_DIRECT_UPLOAD_SIZE \(1 MiB\)/,
      ],
      [
        'too many',
        form([
          ['uploadTo', 'Files'],
          ['filedata', new Blob(['1']), '1.txt'],
          ['filedata', new Blob(['2']), '2.txt'],
          ['filedata', new Blob(['3']), '3.txt'],
        ]),
        413,
        'UPLOAD_TOO_MANY_FILES',
        /MAX_FILES_PER_UPLOAD \(2\)/,
      ],
    ];
    for (const [name, body, status, code, message] of cases) {
      const answer = await admin.post('/api/upload', body);
      assert.is(answer.status, status, `${name}: ${answer.text}`);
      const e = envelope(answer);
      assert.is(e.code, code, name);
      if (message) assert.match(e.message, message, name);
      await waitFor(() => volumeState(s).staged.length === 0, {
        what: `${name}: staging empty`,
        seen: () => volumeState(s).staged,
      });
      assert.equal(volumeState(s).files, [], `${name}: nothing kept in the volume`);
    }
    const notMultipart = await admin.post('/api/upload', { uploadTo: 'Files' });
    assert.is(notMultipart.status, 400);
    assert.is(envelope(notMultipart).code, 'NOT_MULTIPART');
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('a placement failing midway takes back the files and the folders this request made (and only those)', async () => {
  const s = await startServer();
  try {
    const admin = await setupAdmin(s);
    const root = path.join(s.dirs.volumes, 'Files');
    fs.mkdirSync(path.join(root, 'kept'));
    fs.writeFileSync(path.join(root, 'plain.txt'), 'a file, not a folder');
    const answer = await admin.post(
      '/api/upload',
      form([
        ['uploadTo', 'Files'],
        ['relativePath', 'fresh/deeper/one.txt'],
        ['filedata', new Blob(['1']), 'one.txt'],
        ['relativePath', 'kept/two.txt'],
        ['filedata', new Blob(['2']), 'two.txt'],
        ['relativePath', 'plain.txt/three.txt'],
        ['filedata', new Blob(['3']), 'three.txt'],
      ]),
    );
    assert.is(answer.status, 409, answer.text);
    assert.is(envelope(answer).code, 'NOT_A_FOLDER');
    assert.equal(
      volumeState(s),
      { files: ['kept', 'plain.txt'], staged: [] },
      'fresh/ is gone, kept/ stays, no file of the request remains',
    );
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('an upload aborted mid-stream leaves nothing behind, and the server keeps serving', async () => {
  const s = await startServer();
  try {
    const admin = await setupAdmin(s);
    const boundary = 'Boundary-abc123';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="uploadTo"\r\n\r\nFiles\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="relativePath"\r\n\r\ndeep/er/half.bin\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="filedata"; filename="half.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const url = new URL(s.url + '/api/upload');
    const req = http.request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: {
        cookie: admin.cookieHeader,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + 10_000_000),
      },
    });
    req.on('error', () => {});
    req.write(head);
    req.write(Buffer.alloc(3_000_000, 9));
    await waitFor(() => volumeState(s).staged.length === 1, {
      what: 'a part file to appear',
      seen: () => volumeState(s).staged,
    });
    req.destroy();
    await waitFor(() => volumeState(s).staged.length === 0, {
      what: 'the part file to go',
      seen: () => volumeState(s).staged,
    });
    assert.equal(volumeState(s).files, [], 'no file and no folder from relativePath');
    const after = await admin.post(
      '/api/upload',
      form([
        ['uploadTo', 'Files'],
        ['filedata', new Blob(['ok']), 'ok.txt'],
      ]),
    );
    assert.is(after.status, 201);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('credentials: none → 401, a read token → 403 AUTH_TOKEN_READ_ONLY, a write token uploads', async () => {
  const s = await startServer();
  try {
    const admin = await setupAdmin(s);
    const body = () =>
      form([
        ['uploadTo', 'Files'],
        ['filedata', new Blob(['x']), 'a.txt'],
      ]);
    const anonymous = await new Client(s.url).post('/api/upload', body());
    assert.is(anonymous.status, 401);
    const reader = await new Client(s.url, await issueToken(admin, 'read')).post('/api/upload', body());
    assert.is(reader.status, 403);
    assert.is(envelope(reader).code, 'AUTH_TOKEN_READ_ONLY');
    const writer = await new Client(s.url, await issueToken(admin, 'write')).post('/api/upload', body());
    assert.is(writer.status, 201, writer.text);
    assert.equal(volumeState(s).files, ['a.txt']);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('no space: 507 from the free-space probe (UPLOAD_FREE_SPACE_RESERVE larger than the disk) before a byte is stored', async () => {
  const s = await startServer({ env: { UPLOAD_FREE_SPACE_RESERVE: '1000T' } });
  try {
    const admin = await setupAdmin(s);
    const answer = await admin.post(
      '/api/upload',
      form([
        ['uploadTo', 'Files'],
        ['filedata', new Blob(['x']), 'a.txt'],
      ]),
    );
    assert.is(answer.status, 507, answer.text);
    assert.is(envelope(answer).code, 'NO_SPACE');
    assert.equal(volumeState(s), { files: [], staged: [] });
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('no space mid-stream: a real full filesystem (tmpfs) answers 507 and keeps nothing', async () => {
  const dirs = makeDirs();
  const tiny = mountTmpfs(path.join(dirs.volumes, 'Tiny'), '2m');
  let s: TestServer | undefined;
  try {
    s = await startServer({ dirs, env: { UPLOAD_FREE_SPACE_RESERVE: '0' } });
    const admin = await setupAdmin(s);
    // Chunked (no Content-Length), so the probe cannot refuse it up front: the disk fills.
    const stream = new ReadableStream({
      start(controller) {
        const b = 'Boundary-full';
        controller.enqueue(
          new TextEncoder().encode(
            `--${b}\r\nContent-Disposition: form-data; name="uploadTo"\r\n\r\nTiny\r\n--${b}\r\nContent-Disposition: form-data; name="filedata"; filename="f.bin"\r\n\r\n`,
          ),
        );
        for (let i = 0; i < 12; i++) controller.enqueue(new Uint8Array(256 * 1024).fill(1));
        controller.enqueue(new TextEncoder().encode(`\r\n--${b}--\r\n`));
        controller.close();
      },
    });
    const res = await fetch(s.url + '/api/upload', {
      method: 'POST',
      body: stream,
      duplex: 'half',
      headers: {
        cookie: admin.cookieHeader,
        'content-type': 'multipart/form-data; boundary=Boundary-full',
        accept: 'application/json',
      },
    } as RequestInit);
    const json = (await res.json()) as { error: { code: string } };
    assert.is(res.status, 507, JSON.stringify(json));
    assert.is(json.error.code, 'NO_SPACE');
    await waitFor(() => volumeState(s!, 'Tiny').staged.length === 0, {
      what: 'staging empty',
      seen: () => volumeState(s!, 'Tiny').staged,
    });
    assert.equal(volumeState(s, 'Tiny').files, []);
  } finally {
    await s?.close();
    tiny.unmount();
    removeDirs(dirs);
  }
});

test.run();
