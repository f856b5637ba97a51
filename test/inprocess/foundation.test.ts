// The foundation's parts that are built in this process (an HTTP layer with test routes, two
// apps on one folder, migrations on a bare database): they cannot run against the executable.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { Database } from '../../src/db/database.ts';
import { InstanceLockError } from '../../src/db/instance-lock.ts';
import { MigrationError, runMigrations } from '../../src/db/migrations.ts';
import { parseTrustProxy } from '../../src/http/address.ts';
import { createLogger } from '../../src/core/log.ts';
import { route } from '../../src/http/route.ts';
import { createHttpServer } from '../../src/http/server.ts';
import { Client, envelope } from '../support/client.ts';
import { makeDirs, removeDirs } from '../support/server.ts';

test('http layer: malformed JSON, oversized body, schema errors and crashes are enveloped', async () => {
  const lines: any[] = [];
  const log = createLogger('debug', {}, (l) => lines.push(JSON.parse(l)));
  const routes = [
    route({
      method: 'POST',
      path: '/api/echo',
      access: 'public',
      tags: ['Test'],
      summary: 'echo',
      body: z.object({ name: z.string().min(1), count: z.number().int() }),
      responses: { 200: 'ok' },
      handler: ({ body }) => {
        log.info('echo handled');
        return body;
      },
    }),
    route({
      method: 'GET',
      path: '/api/crash',
      access: 'public',
      tags: ['Test'],
      summary: 'crash',
      responses: { 200: 'never' },
      handler: () => {
        throw new Error('secret detail /srv/private/path');
      },
    }),
  ];
  const server = createHttpServer({
    routes,
    log,
    jsonBodyLimit: 1024,
    trustProxy: parseTrustProxy('false'),
    auth: { anonymousCaller: () => null, fromSession: () => null, fromToken: () => null },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const c = new Client(`http://127.0.0.1:${(server.address() as any).port}`);
  try {
    const ok = await c.post('/api/echo', { name: 'a', count: 2 });
    assert.equal(ok.json, { name: 'a', count: 2 });
    const handled = lines.find((l) => l.msg === 'echo handled');
    assert.is(handled.requestId, ok.headers.get('x-request-id'), 'log lines carry the request id');

    const bad = await c.request('POST', '/api/echo', '{"name": ', { 'content-type': 'application/json' });
    assert.is(bad.status, 400);
    assert.is(envelope(bad).code, 'INVALID_JSON');

    const field = await c.post('/api/echo', { name: 'a', count: 'x' });
    assert.is(field.status, 400);
    assert.match(envelope(field).message, /count/);

    const big = await c.post('/api/echo', { name: 'x'.repeat(5000), count: 1 });
    assert.is(big.status, 413);
    envelope(big);

    const crash = await c.get('/api/crash');
    assert.is(crash.status, 500);
    const e = envelope(crash);
    assert.not.match(crash.text, /secret detail|\/srv\//);
    const logged = lines.find((l) => l.msg === 'unhandled error');
    assert.is(logged.requestId, e.requestId);
    assert.match(JSON.stringify(logged), /secret detail/);
  } finally {
    server.close();
  }
});

test('a second instance on the same config folder refuses; a crash-left lock is cleared', async () => {
  const dirs = makeDirs();
  const env = { CONFIG_DIR: dirs.config, VOLUME_ROOT: dirs.volumes, CACHE_DIR: dirs.cache, PORT: '0' };
  const log = createLogger('error', {}, () => {});
  const first = await createApp(loadConfig(env), { log, uiDir: null });
  try {
    const refused = await createApp(loadConfig(env), { log, uiDir: null }).then(
      (app) => app,
      (err: Error) => err,
    );
    assert.ok(refused instanceof InstanceLockError && /already running/.test(refused.message));
  } finally {
    await first.close(0);
  }
  // What a crash leaves: a pid file of a dead process and SQLite's lock directory.
  fs.writeFileSync(path.join(dirs.config, 'burrow.pid'), '999999\n');
  fs.mkdirSync(path.join(dirs.config, 'burrow.db.lock'));
  const again = await createApp(loadConfig(env), { log, uiDir: null });
  try {
    assert.ok(again.db.get('SELECT 1 AS one'));
  } finally {
    await again.close(0);
    removeDirs(dirs);
  }
});

test('a failing migration changes nothing and names itself', () => {
  const dirs = makeDirs();
  const db = new Database(path.join(dirs.config, 'm.db'));
  try {
    runMigrations(db, [{ id: 'a/001_first', sql: 'CREATE TABLE first (x INTEGER);' }]);
    assert.throws(
      () =>
        runMigrations(db, [
          { id: 'a/001_first', sql: 'CREATE TABLE first (x INTEGER);' },
          { id: 'a/002_second', sql: 'CREATE TABLE second (x INTEGER);' },
          { id: 'b/003_broken', sql: 'CREATE TABLE oops (;' },
        ]),
      (err: Error) => err instanceof MigrationError && /b\/003_broken/.test(err.message),
    );
    assert.is(db.get("SELECT name FROM sqlite_master WHERE name = 'second'"), undefined);
    assert.equal(db.all('SELECT id FROM schema_migrations'), [{ id: 'a/001_first' }]);
  } finally {
    db.close();
    removeDirs(dirs);
  }
});

test.run();
