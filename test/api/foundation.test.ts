import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer } from '../support/server.ts';

test('health, readiness, features and the description are public', async () => {
  const s = await startServer();
  try {
    const c = new Client(s.url);
    assert.is((await c.get('/healthz')).json.status, 'ok');
    assert.is((await c.get('/readyz')).json.status, 'ok');
    const features = await c.get('/api/features');
    assert.is(features.status, 200);
    assert.type(features.json, 'object');
    const doc = await c.get('/api/openapi.json');
    assert.is(doc.json.openapi, '3.1.0');
    assert.is(doc.json.info.version, 'unversioned');
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('the description lists exactly the mounted routes', async () => {
  const s = await startServer();
  try {
    const doc = (await new Client(s.url).get('/api/openapi.json')).json;
    const described = new Set<string>();
    for (const [p, ops] of Object.entries<Record<string, unknown>>(doc.paths))
      for (const m of Object.keys(ops)) described.add(`${m.toUpperCase()} ${p}`);
    const routes = await s.routes();
    const mounted = new Set(routes.map((r) => `${r.method} ${r.path}`));
    assert.equal([...described].sort(), [...mounted].sort());
    assert.is(mounted.size, routes.length, 'no route is mounted twice');
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('unknown API paths, wrong methods and the UI fallback answer clearly', async () => {
  const s = await startServer();
  try {
    const c = new Client(s.url);
    const missing = await c.get('/api/no/such/thing');
    assert.is(missing.status, 404);
    assert.is(envelope(missing).code, 'NOT_FOUND');
    const wrong = await c.request('DELETE', '/api/features');
    assert.is(wrong.status, 405);
    assert.is(wrong.headers.get('allow'), 'GET');
    envelope(wrong);
    const res = await fetch(s.url + '/api/features');
    assert.is(res.headers.get('x-content-type-options'), 'nosniff');
    assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'self'/);
    assert.is(res.headers.get('referrer-policy'), 'same-origin');
    // From source the test server has no UI (503); the executable carries its own.
    const ui = await fetch(s.url + '/some/page');
    if (s.mode === 'source') assert.is(ui.status, 503, 'no UI built in this test server');
    else {
      assert.is(ui.status, 200);
      assert.match(ui.headers.get('content-type') ?? '', /^text\/html/);
    }
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('the session secret is generated once and kept', async () => {
  const s = await startServer();
  try {
    const secret = fs.readFileSync(path.join(s.dirs.config, 'session-secret'), 'utf8');
    assert.ok(secret.length >= 40);
    await s.restart();
    assert.is(fs.readFileSync(path.join(s.dirs.config, 'session-secret'), 'utf8'), secret);
    assert.is((fs.statSync(path.join(s.dirs.config, 'session-secret')).mode & 0o777).toString(8), '600');
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('GET /licenses.txt: the third-party notices as text/plain with nosniff, to anyone', async () => {
  const s = await startServer();
  try {
    const res = await fetch(`${s.url}/licenses.txt`);
    assert.is(res.status, 200);
    assert.is(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.is(res.headers.get('x-content-type-options'), 'nosniff');
    const text = await res.text();
    assert.match(text, /^libheif-js \S+: LGPL-3\.0/m);
    assert.match(text, /^7z-wasm \S+: LGPL-2\.1-or-later with the unRAR licence restriction/m);
    assert.match(text, /^Node\.js \d+\.\d+\.\d+: MIT/m);
    assert.match(text, /GNU LESSER GENERAL PUBLIC LICENSE/);
    // pdf.js's fonts (served by the web interface's PDF viewer) under their own licences.
    assert.match(text, /standard_fonts\/LICENSE_LIBERATION/);
    assert.match(text, /LIBERATION FONT SOFTWARE/);
    assert.match(text, /standard_fonts\/LICENSE_FOXIT/);
    const doc = (await new Client(s.url).get('/api/openapi.json')).json;
    assert.ok(doc.paths['/licenses.txt']?.get, 'described in the OpenAPI document');
    // Its other methods are the route's 405 with Allow (they fell through to the web interface),
    // as are those of the other rows outside /api; a path without a row is still the UI's.
    for (const [method, path] of [
      ['POST', '/licenses.txt'],
      ['PUT', '/licenses.txt'],
      ['PATCH', '/licenses.txt'],
      ['DELETE', '/licenses.txt'],
      ['POST', '/LICENSES.TXT'],
      ['POST', '/healthz'],
      ['DELETE', '/readyz'],
    ] as const) {
      const r = await fetch(`${s.url}${path}`, { method, headers: { origin: s.url } });
      const body = await r.json();
      assert.is(r.status, 405, `${method} ${path}`);
      assert.is(r.headers.get('allow'), 'GET', `${method} ${path}`);
      assert.is(body.error.code, 'METHOD_NOT_ALLOWED');
      assert.ok(body.error.requestId);
    }
    const ui = await fetch(`${s.url}/no-such-page.txt`, { method: 'POST', headers: { origin: s.url } });
    assert.is.not(ui.status, 405);
    await ui.arrayBuffer();
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test.run();
