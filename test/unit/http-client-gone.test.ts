// isClientGone: an answer piped after the client already left fails with
// ERR_STREAM_UNABLE_TO_PIPE (Node's pipeline refuses a destroyed destination) — the client
// leaving, not the server failing (a thumbnail whose <img> a reload dropped was logged as an
// "unhandled error" 500).
import http from 'node:http';
import net from 'node:net';
import { Readable, pipeline } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isClientGone } from '../../src/http/send.ts';

test('a pipe into an answer whose client left is the client leaving', async () => {
  let verdict: { code?: string; gone: boolean } | undefined;
  const done = new Promise<void>((resolve) => {
    const server = http.createServer((req, res) => {
      // The answer is written only once the client has gone.
      res.once('close', () => {
        const judge = (err: unknown) => {
          verdict = { code: (err as NodeJS.ErrnoException | undefined)?.code, gone: isClientGone(err, res) };
          server.close();
          resolve();
        };
        // Node throws this one at once rather than handing it to the callback.
        try {
          pipeline(Readable.from([Buffer.from('picture')]), res, judge);
        } catch (err) {
          judge(err);
        }
      });
    });
    server.listen(0, '127.0.0.1', () => {
      const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1', () => {
        socket.write('GET /api/thumbnails-cache/x.webp HTTP/1.1\r\nHost: localhost\r\n\r\n', () => socket.destroy());
      });
    });
  });
  await done;
  assert.is(verdict?.code, 'ERR_STREAM_UNABLE_TO_PIPE');
  assert.ok(verdict?.gone, 'counted as the client leaving');
});

test.run();
