// Holds the line of route rows v2 (src/http/route.ts): in the description of the running
// server every 2xx JSON answer has a schema and every path parameter is validated by one. Rows
// not converted yet are listed in UNCONVERTED; the list may only shrink — a row that is
// converted and still listed fails, and so does a new row that is not converted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import { removeDirs, startServer } from '../support/server.ts';

/** `METHOD /path: what is missing` — empty it as the rows are converted. */
const UNCONVERTED: string[] = [];

interface Operation {
  parameters?: { name: string; in: string; schema?: unknown; 'x-unvalidated'?: boolean }[];
  responses: Record<string, { description?: string; content?: Record<string, { schema?: unknown }>; $ref?: string }>;
}

/** What a described operation lacks. */
function gaps(method: string, path: string, op: Operation): string[] {
  const out: string[] = [];
  for (const [status, answer] of Object.entries(op.responses)) {
    if (!/^2\d\d$/.test(status) || status === '204') continue;
    const content = answer.content ?? {};
    const types = Object.keys(content);
    // A 2xx must say what it carries: a JSON schema, or another content type (a file, a stream).
    if (types.length === 0) out.push(`${method} ${path}: ${status} answer schema`);
    for (const type of types)
      if (/json/.test(type) && !/ndjson/.test(type) && !content[type]!.schema)
        out.push(`${method} ${path}: ${status} answer schema`);
  }
  for (const p of op.parameters ?? []) {
    if (p.in === 'path' && (p['x-unvalidated'] || !p.schema)) out.push(`${method} ${path}: params schema`);
  }
  return [...new Set(out)];
}

test('every 2xx JSON answer has a schema and every path parameter has one (the unconverted rows are listed)', async () => {
  const s = await startServer();
  try {
    const doc = (await new Client(s.url).get('/api/openapi.json')).json;
    const found: string[] = [];
    for (const [p, ops] of Object.entries<Record<string, Operation>>(doc.paths)) {
      for (const [m, op] of Object.entries(ops)) found.push(...gaps(m.toUpperCase(), p, op));
    }
    found.sort();
    const listed = new Set(UNCONVERTED);
    const fresh = found.filter((g) => !listed.has(g));
    const converted = UNCONVERTED.filter((g) => !found.includes(g));
    if (found.length) console.log(`rows still to convert (${found.length}):\n  ${found.join('\n  ')}`);
    assert.equal(
      fresh,
      [],
      `new rows without schemas (give them schemas; do not add them to UNCONVERTED):\n${fresh.join('\n')}`,
    );
    assert.equal(converted, [], `converted, remove from UNCONVERTED:\n${converted.join('\n')}`);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('the error envelope lists the catalogue codes', async () => {
  const s = await startServer();
  try {
    const doc = (await new Client(s.url).get('/api/openapi.json')).json;
    const code = doc.components.responses.Error.content['application/json'].schema.properties.error.properties.code;
    assert.ok(Array.isArray(code.enum) && code.enum.length > 50, 'code is an enum of the catalogue');
    for (const c of [
      'NOT_FOUND',
      'AUTH_TOKEN_READ_ONLY',
      'INVALID_PARAMS',
      'TUS_VERSION',
      'ARCHIVE_ENCRYPTED',
      'CROSS_SITE_REFUSED',
    ])
      assert.ok(code.enum.includes(c), c);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('a converted row describes its path parameter by its schema', async () => {
  const s = await startServer();
  try {
    const doc = (await new Client(s.url).get('/api/openapi.json')).json;
    const rename = doc.paths['/api/auth/tokens/{id}'].patch;
    assert.equal(rename.parameters.find((p: { name: string }) => p.name === 'id').schema, {
      type: 'string',
      minLength: 1,
    });
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test.run();
