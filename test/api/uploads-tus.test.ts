// Resumable uploads through the real server with the real tus-js-client (in Node): resume
// from the server's offset, parallel uploads of one name, relativePath folders, the
// finalize-failed state (500 + Upload-Finalize-Error, HEAD 423, fixed → complete), restart,
// expiry, owner-only access and the protocol's refusals.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as tus from 'tus-js-client';
import { createUser, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { onPostgres } from '../support/postgres.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const TUS = { 'Tus-Resumable': '1.0.0' };
const b64 = (s: string) => Buffer.from(s).toString('base64');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function start(env: Record<string, string> = {}) {
  return startServer({ env: { UPLOAD_CHUNKED_ENABLED: 'true', ...env } });
}

interface Sent {
  url: string;
  error?: tus.DetailedError;
  firstProgress?: number;
}

/** Runs one tus-js-client upload to its end (success or error). */
function send(
  s: TestServer,
  client: Client,
  data: Buffer,
  metadata: Record<string, string>,
  options: Partial<tus.UploadOptions> & { onUpload?: (u: tus.Upload) => void } = {},
): Promise<Sent> {
  return new Promise((resolve) => {
    const sent: Partial<Sent> = {};
    const upload = new tus.Upload(data, {
      endpoint: `${s.url}/api/upload/tus`,
      metadata,
      headers: { cookie: client.cookieHeader },
      retryDelays: null,
      ...options,
      onProgress: (bytes, total) => {
        sent.firstProgress ??= bytes;
        options.onProgress?.(bytes, total);
      },
      onError: (error) => resolve({ url: upload.url!, ...sent, error: error as tus.DetailedError }),
      onSuccess: () => resolve({ url: upload.url!, ...sent }),
    });
    options.onUpload?.(upload);
    upload.start();
  });
}

/** The same account on a restarted server (new port, same cookie). */
function again(s: TestServer, client: Client): Client {
  const c = new Client(s.url);
  c.cookies = new Map(client.cookies);
  return c;
}

function head(client: Client, url: string) {
  return client.request('HEAD', new URL(url).pathname, undefined, TUS);
}

// Parts are staged in Burrow's own folder on the volume's disk: the data folder here (files/own.ts);
// on PostgreSQL and through a cluster, where another instance may take the next PATCH, the
// volume's `.burrow/uploads`.
const stagingDir = (s: TestServer) =>
  onPostgres || s.mode === 'cluster'
    ? path.join(s.dirs.volumes, 'Files', '.burrow', 'uploads')
    : path.join(s.dirs.config, 'files', 'uploads');
const staged = (s: TestServer) => (fs.existsSync(stagingDir(s)) ? fs.readdirSync(stagingDir(s)) : []);

test('OPTIONS advertises TUS 1.0.0 and its extensions; with UPLOAD_CHUNKED_ENABLED=false every TUS row answers 404 UPLOAD_CHUNKED_DISABLED', async () => {
  const on = await start();
  const off = await startServer();
  try {
    const options = await new Client(on.url).request('OPTIONS', '/api/upload/tus');
    assert.is(options.status, 204);
    assert.is(options.headers.get('tus-version'), '1.0.0');
    assert.equal(options.headers.get('tus-extension')!.split(','), [
      'creation',
      'termination',
      'expiration',
      'checksum',
    ]);
    assert.is(options.headers.get('tus-checksum-algorithm'), 'sha256');
    const admin = await setupAdmin(off);
    for (const [method, p] of [
      ['OPTIONS', '/api/upload/tus'],
      ['POST', '/api/upload/tus'],
      ['HEAD', '/api/upload/tus/0123456789abcdef0123456789abcdef'],
      ['PATCH', '/api/upload/tus/0123456789abcdef0123456789abcdef'],
      ['DELETE', '/api/upload/tus/0123456789abcdef0123456789abcdef'],
    ] as const) {
      const answer = await admin.request(method, p, undefined, { ...TUS, 'Upload-Length': '1' });
      assert.is(answer.status, 404, `${method} ${p}`);
      if (method !== 'HEAD') assert.is(envelope(answer).code, 'UPLOAD_CHUNKED_DISABLED');
    }
    assert.is((await new Client(off.url).get('/api/features')).json.uploads.chunked, false);
  } finally {
    await on.close();
    await off.close();
    removeDirs(on.dirs);
    removeDirs(off.dirs);
  }
});

test("a 50 MB upload interrupted mid-way resumes from the server's offset and lands intact", async () => {
  const s = await start();
  // A relay that drops the connection once ~20 MB went through it: the network failing mid-upload.
  const target = new URL(s.url);
  const relay = net.createServer((inbound) => {
    const outbound = net.connect(Number(target.port), target.hostname);
    let through = 0;
    inbound.on('data', (chunk) => {
      through += chunk.length;
      if (through > 20 * 1024 * 1024) {
        inbound.destroy();
        outbound.destroy();
      } else if (!outbound.write(chunk)) {
        inbound.pause();
        outbound.once('drain', () => inbound.resume());
      }
    });
    outbound.pipe(inbound);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
    inbound.on('close', () => outbound.destroy());
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  try {
    const admin = await setupAdmin(s);
    const data = Buffer.alloc(50 * 1024 * 1024);
    for (let i = 0; i < data.length; i += 4096) data.writeUInt32LE(i, i);
    const viaRelay = { ...s, url: `http://127.0.0.1:${(relay.address() as net.AddressInfo).port}` } as TestServer;
    const cut = await send(viaRelay, admin, data, { filename: 'big.bin', uploadTo: 'Files' });
    assert.ok(cut.error, 'the first attempt failed with the connection');
    const url = `${s.url}${new URL(cut.url).pathname}`;
    let offset = 0;
    await waitFor(
      async () => {
        const h = await head(admin, url);
        offset = Number(h.headers.get('upload-offset'));
        return h.status === 200 && offset > 0;
      },
      { what: 'the server to record the bytes it got', seen: () => offset },
    );
    assert.ok(offset < data.length, `offset ${offset} is mid-way`);
    assert.is((await head(admin, url)).headers.get('upload-length'), String(data.length));

    const resumed = await send(s, admin, data, { filename: 'big.bin', uploadTo: 'Files' }, { uploadUrl: url });
    assert.is(resumed.error, undefined, String(resumed.error));
    assert.ok(
      resumed.firstProgress !== undefined && resumed.firstProgress >= offset,
      `the resumed upload started at the server offset ${offset}, not at ${resumed.firstProgress}`,
    );
    const placed = path.join(s.dirs.volumes, 'Files', 'big.bin');
    assert.is(sha(fs.readFileSync(placed)), sha(data));
    const done = await head(admin, url);
    assert.is(done.status, 200);
    assert.is(done.headers.get('upload-offset'), String(data.length));
    assert.is(decodeURIComponent(done.headers.get('upload-file-path')!), 'Files/big.bin');
    assert.equal(staged(s), []);
  } finally {
    relay.close();
    await s.close();
    removeDirs(s.dirs);
  }
});

test('three parallel uploads of one name land as x, x (1), x (2); relativePath creates folders; an empty file works', async () => {
  const s = await start();
  try {
    const admin = await setupAdmin(s);
    const results = await Promise.all(
      [1, 2, 3].map((n) =>
        send(
          s,
          admin,
          Buffer.alloc(300_000 * n, n),
          { filename: 'x.dat', uploadTo: 'Files' },
          { chunkSize: 128 * 1024 },
        ),
      ),
    );
    for (const r of results) assert.is(r.error, undefined, String(r.error));
    const names = fs
      .readdirSync(path.join(s.dirs.volumes, 'Files'))
      .filter((n) => !n.startsWith('.'))
      .sort();
    assert.equal(names, ['x (1).dat', 'x (2).dat', 'x.dat']);
    const sizes = names.map((n) => fs.statSync(path.join(s.dirs.volumes, 'Files', n)).size).sort();
    assert.equal(sizes, [300_000, 600_000, 900_000]);

    const nested = await send(s, admin, Buffer.from('photo'), {
      filename: 'ignored.jpg',
      uploadTo: 'Files',
      relativePath: 'Holiday/2024/beach.jpg',
    });
    assert.is(nested.error, undefined, String(nested.error));
    assert.is(fs.readFileSync(path.join(s.dirs.volumes, 'Files', 'Holiday', '2024', 'beach.jpg'), 'utf8'), 'photo');

    const empty = await send(s, admin, Buffer.alloc(0), { filename: 'empty.txt', uploadTo: 'Files' });
    assert.is(empty.error, undefined, String(empty.error));
    assert.is(fs.statSync(path.join(s.dirs.volumes, 'Files', 'empty.txt')).size, 0);
    assert.equal(staged(s), []);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('placement failure: finishing PATCH 500 + Upload-Finalize-Error, HEAD 423 (retrying), fixed → HEAD complete; survives a restart', async () => {
  const s = await start();
  try {
    let admin = await setupAdmin(s);
    const dest = path.join(s.dirs.volumes, 'Files', 'Inbox');
    fs.mkdirSync(dest);
    const data = Buffer.alloc(3 * 1024 * 1024, 5);
    // After the first chunk, the destination folder is replaced by a file (root ignores chmod).
    const failed = await send(
      s,
      admin,
      data,
      { filename: 'report.pdf', uploadTo: 'Files/Inbox' },
      {
        chunkSize: 1024 * 1024,
        onChunkComplete: (_chunk, accepted) => {
          if (accepted === 1024 * 1024) {
            fs.rmSync(dest, { recursive: true });
            fs.writeFileSync(dest, 'not a folder');
          }
        },
      },
    );
    assert.ok(failed.error, 'the finishing PATCH failed');
    const res = failed.error!.originalResponse!;
    assert.is(res.getStatus(), 500);
    const sentence = decodeURIComponent(res.getHeader('Upload-Finalize-Error')!);
    assert.match(sentence, /could not be placed/);
    assert.is(JSON.parse(res.getBody()).error.code, 'UPLOAD_FINALIZE_FAILED');

    const locked = await head(admin, failed.url);
    assert.is(locked.status, 423);
    assert.match(decodeURIComponent(locked.headers.get('upload-finalize-error')!), /could not be placed/);

    await s.restart();
    admin = again(s, admin);
    const stillLocked = await head(admin, failed.url);
    assert.is(stillLocked.status, 423, 'the failed state survives a restart');

    fs.rmSync(dest);
    fs.mkdirSync(dest);
    const fixed = await head(admin, failed.url);
    assert.is(fixed.status, 200);
    assert.is(fixed.headers.get('upload-offset'), String(data.length));
    assert.is(sha(fs.readFileSync(path.join(dest, 'report.pdf'))), sha(data));
    assert.is((await head(admin, failed.url)).status, 200, 'complete stays complete');
    assert.equal(staged(s), []);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('state lives in the database: complete answers complete after a restart, an unfinished upload resumes after one, a crash before placement is placed by HEAD', async () => {
  const s = await start();
  try {
    let admin = await setupAdmin(s);
    const done = await send(s, admin, Buffer.from('finished before restart'), { filename: 'a.txt', uploadTo: 'Files' });
    assert.is(done.error, undefined);
    const created = await admin.request('POST', '/api/upload/tus', undefined, {
      ...TUS,
      'Upload-Length': '10',
      'Upload-Metadata': `filename ${b64('b.txt')},uploadTo ${b64('Files')}`,
    });
    assert.is(created.status, 201);
    const url = created.headers.get('location')!;
    assert.match(url, /^\/api\/upload\/tus\/[0-9a-f]{32}$/);
    assert.ok(created.headers.get('upload-expires'));
    assert.is(
      (
        await admin.request('PATCH', url, '01234', {
          ...TUS,
          'Upload-Offset': '0',
          'Content-Type': 'application/offset+octet-stream',
        })
      ).status,
      204,
    );

    await s.restart();
    admin = again(s, admin);
    const h = await head(admin, done.url);
    assert.is(h.status, 200);
    assert.is(h.headers.get('upload-offset'), h.headers.get('upload-length'));
    assert.is((await head(admin, s.url + url)).headers.get('upload-offset'), '5');
    const rest = await admin.request('PATCH', url, '56789', {
      ...TUS,
      'Upload-Offset': '5',
      'Content-Type': 'application/offset+octet-stream',
    });
    assert.is(rest.status, 204);
    assert.is(fs.readFileSync(path.join(s.dirs.volumes, 'Files', 'b.txt'), 'utf8'), '0123456789');

    // A crash after the last byte was recorded but before placement: HEAD must not say
    // "complete" until it has placed the file itself.
    const c = await admin.request('POST', '/api/upload/tus', undefined, {
      ...TUS,
      'Upload-Length': '4',
      'Upload-Metadata': `filename ${b64('c.txt')},uploadTo ${b64('Files')}`,
    });
    const cUrl = c.headers.get('location')!;
    assert.is(
      (
        await admin.request('PATCH', cUrl, 'ab', {
          ...TUS,
          'Upload-Offset': '0',
          'Content-Type': 'application/offset+octet-stream',
        })
      ).status,
      204,
    );
    const id = cUrl.split('/').pop()!;
    // Stopped, the part file and its row are changed, and the server starts again.
    await s.withDatabase((db) => {
      fs.appendFileSync(path.join(stagingDir(s), `tus-${id}.part`), 'cd');
      db.run('UPDATE uploads SET upload_offset = upload_length WHERE id = ?', [id]);
    });
    admin = again(s, admin);
    assert.not.ok(fs.existsSync(path.join(s.dirs.volumes, 'Files', 'c.txt')));
    const placed = await head(admin, s.url + cUrl);
    assert.is(placed.status, 200);
    assert.is(placed.headers.get('upload-offset'), '4');
    assert.is(fs.readFileSync(path.join(s.dirs.volumes, 'Files', 'c.txt'), 'utf8'), 'abcd');
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('expiry: the sweep discards an unfinished upload and its bytes after TUS_INCOMPLETE_UPLOAD_TTL_MS; a complete one is forgotten too', async () => {
  const s = await start({ TUS_INCOMPLETE_UPLOAD_TTL_MS: '1000' });
  try {
    const admin = await setupAdmin(s);
    const created = await admin.request('POST', '/api/upload/tus', undefined, {
      ...TUS,
      'Upload-Length': '100',
      'Upload-Metadata': `filename ${b64('slow.bin')},uploadTo ${b64('Files')}`,
    });
    const url = created.headers.get('location')!;
    await admin.request('PATCH', url, 'x'.repeat(40), {
      ...TUS,
      'Upload-Offset': '0',
      'Content-Type': 'application/offset+octet-stream',
    });
    const done = await send(s, admin, Buffer.from('quick'), { filename: 'quick.txt', uploadTo: 'Files' });
    assert.equal(staged(s).length, 1);
    // The sweep (not a request) removes the part file.
    await waitFor(() => staged(s).length === 0, { what: 'the sweep to remove the part file', seen: () => staged(s) });
    assert.is((await head(admin, s.url + url)).status, 404);
    // The complete upload finished after the unfinished one's last byte, so a later sweep forgets it.
    await waitFor(async () => (await head(admin, done.url)).status === 404, {
      what: 'the sweep to forget the complete upload',
    });
    assert.ok(fs.existsSync(path.join(s.dirs.volumes, 'Files', 'quick.txt')), 'a placed file is never swept');
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('only the owner may HEAD, PATCH or DELETE an upload; DELETE removes its bytes', async () => {
  const s = await start();
  try {
    const admin = await setupAdmin(s);
    const other = await createUser(admin, s, { username: 'mallory', password: 'mallory-password-1' });
    const created = await admin.request('POST', '/api/upload/tus', undefined, {
      ...TUS,
      'Upload-Length': '4',
      'Upload-Metadata': `filename ${b64('mine.txt')},uploadTo ${b64('Files')}`,
    });
    const url = created.headers.get('location')!;
    assert.is((await other.request('HEAD', url, undefined, TUS)).status, 404);
    const patch = await other.request('PATCH', url, 'evil', {
      ...TUS,
      'Upload-Offset': '0',
      'Content-Type': 'application/offset+octet-stream',
    });
    assert.is(patch.status, 404);
    assert.is(envelope(patch).code, 'TUS_NOT_FOUND');
    assert.is((await other.request('DELETE', url, undefined, TUS)).status, 404);
    assert.is((await new Client(s.url).request('HEAD', url, undefined, TUS)).status, 401);
    assert.is((await head(admin, s.url + url)).headers.get('upload-offset'), '0', 'untouched by the other account');
    assert.equal(staged(s).length, 1);
    assert.is((await admin.request('DELETE', url, undefined, TUS)).status, 204);
    assert.equal(staged(s), []);
    assert.is((await head(admin, s.url + url)).status, 404);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('a part file removed between two PATCHes (the server keeps it open for the next one): the PATCH that ends the upload answers 404 and nothing is placed', async () => {
  const s = await start();
  try {
    const admin = await setupAdmin(s);
    const meta = `filename ${b64('gone.txt')},uploadTo ${b64('Files')}`;
    const created = await admin.request('POST', '/api/upload/tus', undefined, {
      ...TUS,
      'Upload-Length': '10',
      'Upload-Metadata': meta,
    });
    const url = created.headers.get('location')!;
    const patch = (body: string, offset: number) =>
      admin.request('PATCH', url, body, {
        ...TUS,
        'Content-Type': 'application/offset+octet-stream',
        'Upload-Offset': String(offset),
      });
    assert.is((await patch('abcde', 0)).status, 204);
    for (const name of staged(s)) fs.rmSync(path.join(stagingDir(s), name));
    const last = await patch('fghij', 5);
    assert.is(last.status, 404, last.text);
    assert.is(envelope(last).code, 'TUS_NOT_FOUND');
    assert.not.ok(fs.existsSync(path.join(s.dirs.volumes, 'Files', 'gone.txt')), 'nothing placed');
    assert.is((await head(admin, s.url + url)).status, 404, 'the upload is forgotten');
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('protocol refusals: version 412, bad lengths, metadata, offsets 409, past the length 413, content type 415, checksum 460 — and none moves the offset', async () => {
  const s = await start();
  try {
    const admin = await setupAdmin(s);
    const meta = `filename ${b64('p.txt')},uploadTo ${b64('Files')}`;
    const create = (headers: Record<string, string>) => admin.request('POST', '/api/upload/tus', undefined, headers);
    const refusals: Array<[Record<string, string>, number, string]> = [
      [{ 'Upload-Length': '5', 'Upload-Metadata': meta }, 412, 'TUS_VERSION'],
      [{ 'Tus-Resumable': '0.2.2', 'Upload-Length': '5', 'Upload-Metadata': meta }, 412, 'TUS_VERSION'],
      [{ ...TUS, 'Upload-Length': '-1', 'Upload-Metadata': meta }, 400, 'TUS_BAD_HEADER'],
      [{ ...TUS, 'Upload-Length': '99999999999999999999', 'Upload-Metadata': meta }, 413, 'TUS_TOO_LARGE'],
      [{ ...TUS, 'Upload-Metadata': meta }, 400, 'TUS_BAD_HEADER'],
      [{ ...TUS, 'Upload-Length': '5', 'Upload-Metadata': `filename ${b64('p.txt')}` }, 400, 'TUS_BAD_METADATA'],
      [{ ...TUS, 'Upload-Length': '5', 'Upload-Metadata': 'filename not*base64' }, 400, 'TUS_BAD_METADATA'],
      [
        { ...TUS, 'Upload-Length': '5', 'Upload-Metadata': `filename ${b64('../p.txt')},uploadTo ${b64('Files')}` },
        400,
        'BAD_NAME',
      ],
      [
        {
          ...TUS,
          'Upload-Length': '5',
          'Upload-Metadata': `filename ${b64('p.txt')},uploadTo ${b64('Files/missing')}`,
        },
        404,
        'NOT_FOUND',
      ],
      [{ ...TUS, 'Upload-Length': String(2 ** 50), 'Upload-Metadata': meta }, 507, 'NO_SPACE'],
    ];
    for (const [headers, status, code] of refusals) {
      const answer = await create(headers);
      assert.is(answer.status, status, `${JSON.stringify(headers)}: ${answer.text}`);
      assert.is(envelope(answer).code, code);
      assert.is(answer.headers.get('tus-resumable'), '1.0.0');
    }
    if (true) {
      const wrongVersion = await create({ 'Tus-Resumable': '2.0.0', 'Upload-Length': '5', 'Upload-Metadata': meta });
      assert.is(wrongVersion.headers.get('tus-version'), '1.0.0');
    }
    assert.equal(staged(s), [], 'no refused creation left a part file');

    const url = (await create({ ...TUS, 'Upload-Length': '10', 'Upload-Metadata': meta })).headers.get('location')!;
    const patch = (body: string, headers: Record<string, string>) =>
      admin.request('PATCH', url, body, { ...TUS, 'Content-Type': 'application/offset+octet-stream', ...headers });
    const offset = async () => (await head(admin, s.url + url)).headers.get('upload-offset');
    const digest = (text: string) => `sha256 ${createHash('sha256').update(text).digest('base64')}`;

    assert.is((await patch('abc', { 'Upload-Offset': '3' })).status, 409);
    assert.is((await patch('abc', { 'Upload-Offset': '0', 'Content-Type': 'text/plain' })).status, 415);
    const past = await patch('0123456789AB', { 'Upload-Offset': '0' });
    assert.is(past.status, 413);
    assert.is(envelope(past).code, 'TUS_PAST_LENGTH');
    const mismatch = await patch('abc', { 'Upload-Offset': '0', 'Upload-Checksum': digest('xyz') });
    assert.is(mismatch.status, 460);
    assert.is((await patch('abc', { 'Upload-Offset': '0', 'Upload-Checksum': 'md5 AAAA' })).status, 400);
    assert.is(await offset(), '0', 'no refused PATCH moved the offset');

    const ok = await patch('abcde', { 'Upload-Offset': '0', 'Upload-Checksum': digest('abcde') });
    assert.is(ok.status, 204);
    assert.is(ok.headers.get('upload-offset'), '5');
    assert.is((await patch('fghij', { 'Upload-Offset': '5' })).status, 204);
    assert.is(fs.readFileSync(path.join(s.dirs.volumes, 'Files', 'p.txt'), 'utf8'), 'abcdefghij');
    assert.is((await patch('k', { 'Upload-Offset': '10' })).status, 413, 'a complete upload takes no more bytes');
    assert.is((await admin.request('HEAD', '/api/upload/tus/not-an-id', undefined, TUS)).status, 404);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test.run();
