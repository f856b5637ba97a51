// The router (src/http/router.ts) against the real route table: createApp's rows, the office
// plugin's included. Every row's path, its parameters filled with the world's names (spaces,
// `+`, `&`, `#`, `%` with and without hex digits, quotes, NFC and NFD, emoji, a leading dot, 255
// bytes, 40 folders deep) and spelled as a browser (encodeURIComponent) and as the native app
// (RFC 3986 path characters left raw: `+`, `&`, `'`…) spell it, reaches exactly its row with
// exactly those names; every spelling reaches the row the whole-table scan it replaced reached;
// a request tests a handful of rows, not the table; a path that is no row answers the 404
// envelope through the real server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readPath } from '../../src/http/path.ts';
import { RouteMatcher, compileRoute } from '../../src/http/router.ts';
import type { RouteDef } from '../../src/http/route.ts';
import { startInProcess, type InProcessApp } from '../support/inprocess.ts';
import { makeDirs } from '../support/server.ts';
import { envelope } from '../support/client.ts';
import { DEEP_FILE, FOLDER, NAMES, VOLUME, deepFolders } from '../support/names.ts';

let s: InProcessApp;
let routes: readonly RouteDef[];
let matcher: RouteMatcher;

test.before(async () => {
  s = await startInProcess(makeDirs(), {
    AUTH_MODE: 'disabled',
    LOG_LEVEL: 'error',
    PUBLIC_URL: 'http://127.0.0.1',
    OFFICEEDITOR_URL: 'http://127.0.0.1:9/office',
    OFFICEEDITOR_SECRET: 'router-test-secret-router-test-secret',
    ONLYOFFICE_URL: 'http://127.0.0.1:9/onlyoffice',
    ONLYOFFICE_SECRET: 'router-test-secret-router-test-secret',
  });
  routes = s.app.routes;
  matcher = new RouteMatcher(routes);
  compiled = routes.map((row) => ({ row, pattern: compileRoute(row.path).pattern }));
});

test.after(async () => {
  await s?.close();
});

/** A browser, the UI's client, Python's quote(safe=''), curl's --url-query: every byte but unreserved escaped. */
const browser = (name: string) => encodeURIComponent(name);
/** Foundation's URLComponents path: RFC 3986 pchar left raw (`+`, `&`, `'`, `(`, `;`, `=`, `@`…). */
function native(name: string): string {
  let out = '';
  for (const ch of name) {
    if (/[A-Za-z0-9\-._~!$&'()*+,;=:@]/.test(ch)) out += ch;
    else for (const b of Buffer.from(ch)) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
const SPELLINGS = { browser, native };

const FILES = [...NAMES.map((n) => n.name), DEEP_FILE.name];
/** What a wildcard holds: a path inside the world's folder, once 40 folders deep. */
const WILDCARDS = [
  ...NAMES.map((n) => [VOLUME, FOLDER, n.name]),
  [VOLUME, FOLDER, ...deepFolders(), DEEP_FILE.name],
  [VOLUME],
];

/** A row's path with its parameters filled; `expected` is what the handler must receive. */
function fill(
  row: RouteDef,
  name: string,
  wildcard: string[],
  encode: (s: string) => string,
): { url: string; expected: Record<string, string> } {
  const expected: Record<string, string> = {};
  const segments = row.path
    .split('/')
    .slice(1)
    .map((segment) => {
      if (segment === '*') {
        expected.path = wildcard.join('/');
        return wildcard.map(encode).join('/');
      }
      if (segment.startsWith(':')) {
        expected[segment.slice(1)] = name;
        return encode(name);
      }
      return segment;
    });
  return { url: '/' + segments.join('/'), expected };
}

/** The router it replaced: every row's pattern, in table order (the whole table per request). */
let compiled: { row: RouteDef; pattern: RegExp }[] = [];
const hitsOf = (path: string) =>
  compiled.filter(({ pattern: p }) => p.test(path) || p.test(path + '/')).map(({ row }) => row);
function scanned(method: string, path: string): RouteDef | undefined {
  const want = method.toUpperCase();
  const hits = hitsOf(path);
  return hits.find((r) => r.method === want) ?? (want === 'HEAD' ? hits.find((r) => r.method === 'GET') : undefined);
}

const label = (r: RouteDef) => `${r.method} ${r.path}`;

test('the table is the real one: every group, the office plugin included', () => {
  assert.ok(routes.length >= 150, `${routes.length} rows`);
  for (const path of ['/api/browse/*', '/api/share/:token/tus/:id', '/healthz', '/api/openapi.json'])
    assert.ok(
      routes.some((r) => r.path === path),
      path,
    );
  assert.ok(
    routes.some((r) => r.path.startsWith('/wopi/') || r.path.includes('onlyoffice')),
    'the office rows are mounted',
  );
});

test("every row's path, filled with every name in every client's spelling, reaches exactly its row and names", () => {
  let checked = 0;
  for (const row of routes) {
    const named = row.path.includes(':') || row.path.includes('*');
    for (const [client, encode] of Object.entries(SPELLINGS)) {
      for (let i = 0; i < (named ? FILES.length : 1); i++) {
        const { url, expected } = fill(row, FILES[i]!, WILDCARDS[i % WILDCARDS.length]!, encode);
        const path = readPath(url);
        const what = `${label(row)} as ${client}: ${url}`;
        assert.is(path.refusal, undefined, what);
        const { row: judged, dispatch } = matcher.match(row.method, path.normalised, path.raw);
        assert.is(judged && label(judged), label(row), `judged: ${what}`);
        assert.is(dispatch?.row && label(dispatch.row), label(row), `dispatched: ${what}`);
        assert.equal(dispatch!.readParams(), expected, `params: ${what}`);
        if (row.method === 'GET' && !routes.some((r) => r.method === 'HEAD' && r.path === row.path))
          assert.is(matcher.match('HEAD', path.normalised, path.raw).dispatch?.row, row, `HEAD falls back: ${what}`);
        checked++;
      }
    }
  }
  assert.ok(checked > routes.length * 2, `${checked} paths`);
});

test('a name keeps its exact bytes: NFC and NFD stay apart, `+` is a plus, `%25E9` is `%E9`', () => {
  const row = routes.find((r) => r.method === 'GET' && r.path === '/api/browse/*')!;
  for (const f of NAMES) {
    for (const encode of Object.values(SPELLINGS)) {
      const url = '/api/browse/' + [VOLUME, FOLDER, f.name].map(encode).join('/');
      const path = readPath(url);
      const { dispatch } = matcher.match('GET', path.normalised, path.raw);
      assert.is(dispatch?.row, row, url);
      const got = dispatch!.readParams().path!.split('/').pop()!;
      assert.is(Buffer.from(got).toString('hex'), Buffer.from(f.name).toString('hex'), f.label);
    }
  }
});

test('every spelling reaches the row the whole-table scan reached (case, slashes, encodings, methods)', () => {
  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', 'MKCOL'];
  const spellings = (url: string) => [
    url,
    url.toUpperCase(),
    url + '/',
    url.replace(/\//g, '//'),
    url.replace('/api/', '/api%2F'),
    url.replace('/api/', '/%2561pi/'),
    url.replace(/\//g, '\\'),
    url + '/extra',
    url.split('/').slice(0, -1).join('/') || '/',
    url.replace(/[a-z]$/, 'x'),
  ];
  let compared = 0;
  for (const row of routes) {
    const { url } = fill(row, FILES[1]!, WILDCARDS[1]!, browser);
    for (const spelled of spellings(url)) {
      const path = readPath(spelled);
      if (path.refusal) continue;
      for (const method of methods) {
        const want = scanned(method, path.normalised);
        const got = matcher.match(method, path.normalised, path.raw).row;
        assert.is(got && label(got), want && label(want), `${method} ${spelled}`);
        compared++;
      }
      const methodsScanned = [...new Set(hitsOf(path.normalised).map((r) => r.method))];
      assert.equal(matcher.methodsFor(path.normalised), methodsScanned, `methods of ${spelled}`);
    }
  }
  for (const path of ['/', '/index.html', '/assets/app.js', '/api', '/api/', '/apix', '/api/openapiXjson', '/dav/x'])
    for (const method of methods)
      assert.is(matcher.find(method, readPath(path).normalised), scanned(method, readPath(path).normalised), path);
  assert.ok(compared > routes.length * 50, `${compared} comparisons`);
});

test('a request tests the rows its leading segments allow, not the whole table', () => {
  let most = 0;
  for (const row of routes) {
    const { url } = fill(row, FILES[0]!, WILDCARDS[0]!, browser);
    const n = matcher.candidates(row.method, readPath(url).normalised).length;
    most = Math.max(most, n);
  }
  // Today the most is 8 of ~160 (a link's rows under /api/share/:token/…, one method).
  assert.ok(most <= 12, `at most ${most} of ${routes.length} rows tested for one request`);
});

test('a path that is no row answers the 404 envelope, whatever names it holds', async () => {
  for (const f of NAMES) {
    for (const url of [
      `/api/no-such-row/${browser(f.name)}`,
      `/api/browsing/${browser(VOLUME)}/${native(f.name)}`,
      `/api/favorites/${browser(f.name)}/extra/${browser(f.name)}`,
      // A row's static `.` is a dot, not any character.
      '/api/openapiXjson',
    ]) {
      const answer = await s.client.get(url);
      assert.is(answer.status, 404, url);
      const e = envelope(answer);
      assert.is(e.code, 'NOT_FOUND', url);
    }
  }
});

test.run();
