// Walks the spec's endpoint tables and the native client's route list (wire-shapes) and checks
// every endpoint is mounted and described, except those listed below as not built yet, each
// with the capability it waits for. The list may only shrink: an entry that is mounted fails.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import { removeDirs, startServer } from '../support/server.ts';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const shared = path.resolve(repo, '..', 'shared');

/** Not built yet: `METHOD /path` → what it waits for. */
const PENDING: Record<string, string> = {};

const METHOD = '(GET|POST|PUT|PATCH|DELETE|HEAD)';

function specEndpoints(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const row = new RegExp(`^\\| ${METHOD} \\| ([^|]+)\\|`).exec(line);
    if (!row) continue;
    let method = row[1]!;
    for (const part of row[2]!.split(',')) {
      const m = new RegExp(`(?:${METHOD}\\s+)?\`([^\`]+)\``).exec(part.trim());
      if (!m) continue;
      method = m[1] ?? method;
      out.push(`${method} ${m[2]}`);
    }
  }
  return out;
}

function clientEndpoints(text: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`(?:^### |^\\| )${METHOD} (/[^\\s|?]+)`, 'gm');
  for (const m of text.matchAll(re)) out.push(`${m[1]} ${m[2]}`);
  return out;
}

/** Both sides compared with parameters blanked: `/api/shares/{id}` → `/api/shares/{}`. */
const shape = (p: string) => p.replace(/\{[^}]+\}/g, '{}').replace(/\/$/, '');

test('every endpoint of the spec and of the native client is mounted and described (or listed as pending)', async () => {
  const wanted = new Set(
    [
      ...specEndpoints(fs.readFileSync(path.join(shared, 'spec', 'file-manager-api.md'), 'utf8')),
      ...clientEndpoints(fs.readFileSync(path.join(shared, 'contracts', 'wire-shapes.md'), 'utf8')),
    ].map((e) => e.replace(/ (.*)$/, (_m, p: string) => ` ${shape(p)}`)),
  );
  assert.ok(wanted.size > 60, `parsed only ${wanted.size} endpoints`);

  // The office plugins' rows exist only where configured: configure both (nothing is fetched until used).
  const s = await startServer({
    env: {
      PUBLIC_URL: 'http://127.0.0.1:9',
      OFFICEEDITOR_URL: 'http://127.0.0.1:9',
      OFFICEEDITOR_SECRET: 'coverage-secret',
      ONLYOFFICE_URL: 'http://127.0.0.1:9',
      ONLYOFFICE_SECRET: 'coverage-secret',
    },
  });
  try {
    const doc = (await new Client(s.url).get('/api/openapi.json')).json;
    // A trailing `{path}` is a wildcard route (`/api/browse/*`): it covers any deeper spec path.
    const described: { method: string; path: string; wildcard: boolean }[] = [];
    for (const [p, ops] of Object.entries<Record<string, unknown>>(doc.paths))
      for (const m of Object.keys(ops))
        described.push({ method: m.toUpperCase(), path: shape(p), wildcard: p.endsWith('/{path}') });
    const mounted = new Set((await s.routes()).map((r) => `${r.method} ${shape(r.path)}`));
    const covers = (endpoint: string) => {
      const [method, p] = endpoint.split(' ') as [string, string];
      return described.some(
        (d) =>
          d.method === method &&
          (d.path === p ||
            (d.wildcard && p.startsWith(d.path.slice(0, -2)) && d.path.split('/').length <= p.split('/').length)),
      );
    };
    const missing = [...wanted].filter((e) => !covers(e) && !PENDING[e]).sort();
    assert.equal(missing, [], `not mounted and not listed as pending:\n${missing.join('\n')}`);
    const done = Object.keys(PENDING).filter((e) => covers(e));
    assert.equal(done, [], `mounted now, remove from PENDING:\n${done.join('\n')}`);
    for (const d of described)
      assert.ok(mounted.has(`${d.method} ${d.path}`), `${d.method} ${d.path} described but not mounted`);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test.run();
