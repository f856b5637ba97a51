// A request refused while its body is still arriving (413 over MAX_DIRECT_UPLOAD_SIZE, a JSON
// body over the limit, a TUS refusal, a cross-site refusal) is answered with Connection: close
// and the rest of the body is read away for a while, so the client reads the refusal instead
// of a reset (EPIPE / ECONNRESET) — with Node's fetch and with a raw socket.
import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { issueToken, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

const MiB = 1024 * 1024;

/**
 * Sends `head` then `bodyBytes` zero bytes as fast as the server takes them, and only then
 * reads (as a busy client that answers its own writes first): a server that closes with
 * unread bytes sends a reset, the write fails and the answer is lost.
 */
function rawSend(
  url: string,
  head: string,
  bodyBytes: number,
): Promise<{ answer: string; writeError: string | null; sent: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let answer = '';
    let writeError: string | null = null;
    let sent = 0;
    socket.pause();
    socket.on('data', (d) => {
      answer += d.toString('latin1');
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      writeError = err.code ?? err.message;
    });
    socket.on('close', () => resolve({ answer, writeError, sent }));
    socket.write(head);
    const chunk = Buffer.alloc(256 * 1024);
    const pump = () => {
      while (sent < bodyBytes && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      if (!socket.destroyed) socket.end(() => socket.resume());
    };
    pump();
  });
}

function multipartHead(s: TestServer, cookie: string, boundary: string, length: number): string {
  return `POST /api/upload HTTP/1.1\r\nHost: ${new URL(s.url).host}\r\nCookie: ${cookie}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n\r\n`;
}

test('a multipart upload over MAX_DIRECT_UPLOAD_SIZE: fetch reads the 413, not a reset', async () => {
  const s = await startServer({ env: { MAX_DIRECT_UPLOAD_SIZE: '1M' } });
  try {
    const admin = await setupAdmin(s);
    for (const size of [4 * MiB, 48 * MiB]) {
      const fd = new FormData();
      fd.append('uploadTo', 'Files');
      fd.append('filedata', new Blob([new Uint8Array(size)]), 'big.bin');
      const answer = await admin.post('/api/upload', fd);
      assert.is(answer.status, 413, `${size}: ${answer.text.slice(0, 200)}`);
      assert.is(envelope(answer).code, 'UPLOAD_TOO_LARGE');
      assert.is(answer.headers.get('connection'), 'close');
    }
    // The server still answers afterwards.
    assert.is((await admin.get('/api/volumes')).status, 200);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('a raw socket pushing 24 MiB of multipart body reads the whole 413 answer before the connection ends', async () => {
  const s = await startServer({ env: { MAX_DIRECT_UPLOAD_SIZE: '1M' } });
  try {
    const admin = await setupAdmin(s);
    const boundary = 'XbOuNdArY';
    const preamble = `--${boundary}\r\nContent-Disposition: form-data; name="uploadTo"\r\n\r\nFiles\r\n--${boundary}\r\nContent-Disposition: form-data; name="filedata"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    const total = 24 * MiB;
    const got = await rawSend(
      s.url,
      multipartHead(s, admin.cookieHeader, boundary, preamble.length + total) + preamble,
      total,
    );
    assert.match(got.answer, /^HTTP\/1\.1 413 /, `answer: ${got.answer.slice(0, 80)} (write error ${got.writeError})`);
    assert.match(got.answer, /\r\nconnection: close\r\n/i);
    assert.match(got.answer, /"code":"UPLOAD_TOO_LARGE"/, 'the whole envelope arrived');
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('a JSON body over the limit and a TUS PATCH refused mid-body: both answers arrive (fetch and raw socket)', async () => {
  const s = await startServer({ env: { JSON_BODY_LIMIT: '64K', UPLOAD_CHUNKED_ENABLED: 'true' } });
  try {
    const admin = await setupAdmin(s);
    const big = await fetch(s.url + '/api/files/folder', {
      method: 'POST',
      headers: { cookie: admin.cookieHeader, 'content-type': 'application/json' },
      body: new Uint8Array(32 * MiB).fill(0x20),
    });
    assert.is(big.status, 413);
    assert.is((await big.json()).error.code, 'BODY_TOO_LARGE');
    const raw = await rawSend(
      s.url,
      `POST /api/files/folder HTTP/1.1\r\nHost: ${new URL(s.url).host}\r\nCookie: ${admin.cookieHeader}\r\nContent-Type: application/json\r\nContent-Length: ${24 * MiB}\r\n\r\n`,
      24 * MiB,
    );
    assert.match(raw.answer, /^HTTP\/1\.1 413 /);
    assert.match(raw.answer, /"code":"BODY_TOO_LARGE"/);

    // TUS: a PATCH at the wrong offset is refused while its bytes are still coming.
    const token = await issueToken(admin, 'write');
    const created = await fetch(s.url + '/api/upload/tus', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'tus-resumable': '1.0.0',
        'upload-length': String(64 * MiB),
        'upload-metadata': `filename ${Buffer.from('t.bin').toString('base64')},uploadTo ${Buffer.from('Files').toString('base64')}`,
      },
    });
    assert.is(created.status, 201, await created.text());
    const location = new URL(created.headers.get('location')!, s.url).pathname;
    const patch = await rawSend(
      s.url,
      `PATCH ${location} HTTP/1.1\r\nHost: ${new URL(s.url).host}\r\nAuthorization: Bearer ${token}\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: 5\r\nContent-Type: application/offset+octet-stream\r\nContent-Length: ${24 * MiB}\r\n\r\n`,
      24 * MiB,
    );
    assert.match(patch.answer, /^HTTP\/1\.1 409 /, patch.answer.slice(0, 100));
    const viaFetch = await fetch(s.url + location, {
      method: 'PATCH',
      body: new Uint8Array(48 * MiB),
      headers: {
        authorization: `Bearer ${token}`,
        'tus-resumable': '1.0.0',
        'upload-offset': '7',
        'content-type': 'application/offset+octet-stream',
      },
    });
    assert.is(viaFetch.status, 409);
    assert.is(new Client(s.url, token).bearer, token);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test.run();
