// Route rows v2 through the real HTTP server: path parameters validated by the row's schema
// (400 INVALID_PARAMS), the one match giving the parameters, conditional GET, NDJSON streams.
import http from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { parseTrustProxy } from '../../src/http/address.ts';
import { etagMatches, isNotModified, parseEtagList } from '../../src/http/conditional.ts';
import { openEventStream } from '../../src/http/ndjson.ts';
import { silentLogger } from '../../src/core/log.ts';
import { AppError } from '../../src/core/errors.ts';
import { reply, route } from '../../src/http/route.ts';
import { createHttpServer } from '../../src/http/server.ts';
import { Client, envelope } from '../support/client.ts';

type Events = {
  start: { total: number };
  progress: { done: number };
  error: { message: string; statusCode: number; code: string };
  done: { total: number };
};

async function serve() {
  let streamAborted: Promise<boolean> | undefined;
  const routes = [
    route({
      method: 'GET',
      path: '/api/things/:id/*',
      access: 'public',
      tags: ['Test'],
      summary: 'a thing',
      params: z.object({ id: z.string().regex(/^\d+$/).transform(Number), path: z.string() }),
      responses: { 200: { description: 'the thing', schema: z.object({ id: z.number(), path: z.string() }) } },
      handler: ({ params }) => ({ id: params.id, path: params.path }),
    }),
    route({
      method: 'GET',
      path: '/api/tagged',
      access: 'public',
      tags: ['Test'],
      summary: 'etag',
      responses: { 200: { description: 'x', schema: z.object({ ok: z.boolean() }) }, 304: 'unchanged' },
      handler: ({ req }) =>
        isNotModified(req, { etag: '"v1"' })
          ? reply(304, undefined, { ETag: '"v1"' })
          : reply(200, { ok: true }, { ETag: '"v1"' }),
    }),
    route({
      method: 'POST',
      path: '/api/stream',
      access: 'public',
      tags: ['Test'],
      summary: 'ndjson',
      query: z.object({ n: z.coerce.number().default(3), fail: z.string().optional() }),
      responses: { 200: { description: 'events', contentType: 'application/x-ndjson' } },
      handler: async ({ res, query }) => {
        const stream = openEventStream<Events>(res);
        streamAborted = new Promise((resolve) => stream.signal.addEventListener('abort', () => resolve(true)));
        await stream.send('start', { total: query.n });
        for (let i = 1; i <= query.n && !stream.signal.aborted; i++) {
          await stream.send('progress', { done: i });
          // A long stream is paced on purpose, so a client can leave while it is written.
          if (query.n > 10) await new Promise((r) => setTimeout(r, 5));
        }
        if (query.fail) return stream.fail(new AppError('NO_SPACE'));
        await stream.done({ total: query.n });
      },
    }),
  ];
  const server = createHttpServer({
    routes,
    log: silentLogger,
    jsonBodyLimit: 1024,
    trustProxy: parseTrustProxy('false'),
    auth: { anonymousCaller: () => null, fromSession: () => null, fromToken: () => null },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { server, port, c: new Client(`http://127.0.0.1:${port}`), aborted: () => streamAborted };
}

test('path parameters: validated and transformed by the row schema; a bad one is 400 INVALID_PARAMS', async () => {
  const { server, c } = await serve();
  try {
    assert.equal((await c.get('/api/things/42/a%20b/c')).json, { id: 42, path: 'a b/c' });
    const bad = await c.get('/api/things/x1/a');
    assert.is(bad.status, 400);
    assert.is(envelope(bad).code, 'INVALID_PARAMS');
    assert.match(envelope(bad).message, /^Invalid path parameter: id: /);
    assert.is(envelope(await c.get('/api/things/1/a%2Fb')).code, 'BAD_PATH', 'encoded slash in the wildcard');
    // Letter case is the row's (patterns match case-insensitively, as they always did); a doubled
    // slash is judged by the guard but does not reach the row (as before: 404).
    assert.equal((await c.get('/API/Things/7/x')).json, { id: 7, path: 'x' });
    assert.is((await c.get('/api//things/1/a')).status, 404);
  } finally {
    server.close();
  }
});

test('conditional GET: strong, weak, lists and * give 304; others 200', async () => {
  const { server, c } = await serve();
  try {
    for (const inm of ['"v1"', 'W/"v1"', '"x", "v1"', '"a,b", W/"v1"', '*'])
      assert.is((await c.request('GET', '/api/tagged', undefined, { 'if-none-match': inm })).status, 304, inm);
    for (const inm of ['"v2"', '"v1x"', 'v1'])
      assert.is((await c.request('GET', '/api/tagged', undefined, { 'if-none-match': inm })).status, 200, inm);
    assert.equal(parseEtagList('"a,b" , W/"c",*'), ['"a,b"', 'W/"c"', '*']);
    assert.ok(etagMatches('W/"q"', '"q"') && etagMatches('"q"', 'W/"q"'));
    const req = {
      headers: { 'if-modified-since': new Date(2_000_000_000_000).toUTCString() },
    } as unknown as http.IncomingMessage;
    assert.ok(isNotModified(req, { etag: '"z"', lastModified: new Date(1_999_999_999_000).toUTCString() }));
    assert.not.ok(isNotModified(req, { etag: '"z"', lastModified: new Date(2_000_000_100_000).toUTCString() }));
  } finally {
    server.close();
  }
});

test('NDJSON stream: start, progress, done framing; a final error event; the stream notices a client that left', async () => {
  const { server, c, port, aborted } = await serve();
  try {
    const ok = await c.request('POST', '/api/stream?n=2');
    assert.is(ok.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
    assert.equal(
      ok.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
      [
        { type: 'start', total: 2 },
        { type: 'progress', done: 1 },
        { type: 'progress', done: 2 },
        { type: 'done', total: 2 },
      ],
    );
    const failed = (await c.request('POST', '/api/stream?n=1&fail=1')).text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(failed.at(-1), { type: 'error', message: 'The volume is full.', statusCode: 507, code: 'NO_SPACE' });
    // A client that reads the first line and hangs up: the writer aborts instead of writing on.
    await new Promise<void>((resolve, reject) => {
      const req = http.request({ port, host: '127.0.0.1', method: 'POST', path: '/api/stream?n=100000' }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => {});
      req.end();
      // A deadline, not a pause: the first line is waited for as it comes.
      setTimeout(() => reject(new Error('no first line')), 5000).unref();
    });
    assert.is(await aborted(), true);
  } finally {
    server.close();
  }
});

test.run();
