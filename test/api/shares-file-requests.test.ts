// File requests through the real server with tus-js-client: an upload-only link to a folder —
// no listing, no downloads, TUS with resume, names never overwrite, a file-count limit, and the
// owner sees the count on the share and a row per arrival in the activity log.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as tus from 'tus-js-client';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { setupAdmin } from '../support/auth.ts';

let s: TestServer;
let owner: Client;
let token: string;
let shareId: string;
const inbox = () => path.join(s.dirs.volumes, 'Files', 'Inbox');

function send(
  data: Buffer,
  name: string,
  options: Partial<tus.UploadOptions> & { onUpload?: (u: tus.Upload) => void } = {},
): Promise<{ url: string; error?: tus.DetailedError }> {
  return new Promise((resolve) => {
    const upload = new tus.Upload(data, {
      endpoint: `${s.url}/api/share/${token}/tus`,
      metadata: { filename: name, uploadTo: `share/${token}`, relativePath: name },
      retryDelays: null,
      ...options,
      onError: (error) => resolve({ url: upload.url!, error: error as tus.DetailedError }),
      onSuccess: () => resolve({ url: upload.url! }),
    });
    options.onUpload?.(upload);
    upload.start();
  });
}

test.before(async () => {
  s = await startServer({ env: { UPLOAD_CHUNKED_ENABLED: 'true' }, volumes: ['Files'] });
  owner = await setupAdmin(s);
  fs.mkdirSync(inbox());
  fs.writeFileSync(path.join(inbox(), 'report.txt'), "the owner's own");
  assert.is((await owner.patch('/api/settings', { activity: { enabled: true, retentionDays: 30 } })).status, 200);
  const created = await owner.post('/api/shares', {
    sourcePath: 'Files/Inbox',
    sharingType: 'anyone',
    fileRequest: { maxFiles: 3 },
    label: 'Homework',
  });
  assert.is(created.status, 201, created.text);
  token = created.json.shareToken;
  shareId = created.json.id;
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('the drop page sees no listing and cannot download', async () => {
  const a = new Client(s.url);
  const info = (await a.get(`/api/share/${token}/info`)).json;
  assert.is(info.isFileRequest, true);
  assert.is(info.allow.upload, true);
  assert.is(info.allow.download, false);
  for (const p of [
    `/api/share/${token}/browse/`,
    `/api/share/${token}/file?path=report.txt`,
    `/api/share/${token}/download/report.txt`,
    `/api/share/${token}/editor?path=report.txt`,
  ]) {
    const r = await a.get(p);
    assert.is(r.status, 403, p);
    envelope(r);
  }
  assert.is((await a.post(`/api/share/${token}/files/folder`, { path: '', name: 'x' })).status, 403);
});

test('TUS through the link resumes, and a taken name never overwrites', async () => {
  const data = Buffer.from('0123456789abcdefghij');
  let first: tus.Upload | undefined;
  const aborted = await new Promise<string>((resolve) => {
    void send(data, 'report.txt', {
      chunkSize: 5,
      onUpload: (u) => {
        first = u;
      },
      onChunkComplete: () => {
        void first!.abort().then(() => resolve(first!.url!));
      },
    });
  });
  assert.ok(aborted.includes(`/api/share/${token}/tus/`), aborted);
  const resumed = await send(data, 'report.txt', { uploadUrl: aborted, chunkSize: 5 });
  assert.is(resumed.error, undefined, String(resumed.error));
  assert.is(fs.readFileSync(path.join(inbox(), 'report.txt'), 'utf8'), "the owner's own");
  assert.is(fs.readFileSync(path.join(inbox(), 'report (1).txt'), 'utf8'), data.toString());
});

test('the file-count limit holds; the owner sees the count and the activity rows', async () => {
  assert.is((await send(Buffer.from('two'), 'two.txt')).error, undefined);
  assert.is((await send(Buffer.from('three'), 'three.txt')).error, undefined);
  const refused = await send(Buffer.from('four'), 'four.txt');
  assert.is(refused.error?.originalResponse?.getStatus(), 413);
  assert.not.ok(fs.existsSync(path.join(inbox(), 'four.txt')));
  const mine = (await owner.get('/api/shares')).json.shares.find((x: any) => x.id === shareId);
  assert.is(mine.fileRequest.receivedFiles, 3);
  assert.is(mine.fileRequest.maxFiles, 3);
  const log = await owner.get('/api/activity?action=share.file-request.received');
  assert.is(log.status, 200, log.text);
  const names = log.json.rows.map((r: any) => JSON.stringify(r.detail ?? r));
  assert.is(names.length, 3, names.join('\n'));
  assert.ok(names.some((n: string) => n.includes('report (1).txt')));
});

test('the byte limit holds for TUS and multipart; what is refused leaves nothing; a body without a length is refused', async () => {
  fs.mkdirSync(path.join(s.dirs.volumes, 'Files', 'Bytes'));
  const made = await owner.post('/api/shares', {
    sourcePath: 'Files/Bytes',
    sharingType: 'anyone',
    fileRequest: { maxBytes: 4000 },
  });
  assert.is(made.status, 201, made.text);
  const bytesToken = made.json.shareToken;
  const folder = (name: string) => path.join(s.dirs.volumes, 'Files', 'Bytes', name);
  const viaTus = (data: Buffer, name: string) =>
    new Promise<tus.DetailedError | undefined>((resolve) => {
      new tus.Upload(data, {
        endpoint: `${s.url}/api/share/${bytesToken}/tus`,
        metadata: { filename: name, uploadTo: `share/${bytesToken}`, relativePath: name },
        retryDelays: null,
        onError: (error) => resolve(error as tus.DetailedError),
        onSuccess: () => resolve(undefined),
      }).start();
    });
  const viaForm = (data: Buffer, name: string) => {
    const form = new FormData();
    form.append('uploadTo', `share/${bytesToken}`);
    form.append('relativePath', name);
    form.append('filedata', new Blob([new Uint8Array(data)]), name);
    return new Client(s.url).request('POST', `/api/share/${bytesToken}/upload`, form);
  };
  assert.is(await viaTus(Buffer.alloc(3000, 1), 'big.bin'), undefined);
  const overTus = await viaTus(Buffer.alloc(1500, 2), 'over-tus.bin');
  assert.is(overTus?.originalResponse?.getStatus(), 413);
  const overForm = await viaForm(Buffer.alloc(2000, 3), 'over-form.bin');
  assert.is(overForm.status, 413, overForm.text);
  assert.is(envelope(overForm).code, 'LINK_FILE_REQUEST_FULL');
  // A chunked body (no Content-Length) would claim nothing: refused before it is read.
  const boundary = 'x-boundary';
  const chunked = await fetch(`${s.url}/api/share/${bytesToken}/upload`, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: new ReadableStream({
      start(c) {
        c.enqueue(
          new TextEncoder().encode(
            `--${boundary}\r\nContent-Disposition: form-data; name="filedata"; filename="chunked.bin"\r\n\r\n${'z'.repeat(5000)}\r\n--${boundary}--\r\n`,
          ),
        );
        c.close();
      },
    }),
    duplex: 'half',
  } as RequestInit);
  assert.is(chunked.status, 411);
  assert.is((await chunked.json()).error.code, 'LINK_FILE_REQUEST_LENGTH');
  // Malformed lengths are refused and give back nothing they never claimed.
  for (const length of ['-1', '-4000', 'x']) {
    const r = await fetch(`${s.url}/api/share/${bytesToken}/tus`, {
      method: 'POST',
      headers: {
        'tus-resumable': '1.0.0',
        'upload-length': length,
        'upload-metadata': `filename ${Buffer.from('m.bin').toString('base64')}`,
      },
    });
    assert.is(r.status, 400, `Upload-Length ${length}`);
  }
  const small = await viaForm(Buffer.alloc(400, 4), 'small.bin');
  assert.is(small.status, 201, small.text);
  assert.equal(
    fs
      .readdirSync(path.join(s.dirs.volumes, 'Files', 'Bytes'))
      .filter((n) => n !== '.burrow')
      .sort(),
    ['big.bin', 'small.bin'],
  );
  assert.is(fs.statSync(folder('big.bin')).size, 3000);
  const mine = (await owner.get('/api/shares')).json.shares.find((x: any) => x.id === made.json.id);
  assert.is(mine.fileRequest.maxBytes, 4000);
  assert.is(mine.fileRequest.receivedBytes, 3400);
  assert.is(mine.fileRequest.receivedFiles, 2);
});

test.run();
