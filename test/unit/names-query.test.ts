// The query string both ways: the UI writes every value with encodeURIComponent (a space is
// `%20`, never a bare `+`), and the server's one reader (src/http/query.ts) reads terms as form
// data and a path's raw `+` as whichever reading names something.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { queryString } from '../../ui/src/api/client.ts';
import { queryPath, readQuery, type QueryPathProbe } from '../../src/http/query.ts';
import { AppError } from '../../src/core/errors.ts';
import { NAMES } from '../support/names.ts';

const schema = z.object({
  q: z.string().optional(),
  path: queryPath('virtual', z.string().optional()),
  entry: queryPath('inner', z.string().optional()),
});
const ctx = { caller: null, req: {} as never, params: {} };
const existing =
  (...paths: string[]): QueryPathProbe =>
  async (_kind, p) =>
    paths.includes(p);
const read = (query: string, probe: QueryPathProbe = existing()) => readQuery(query, schema, probe, ctx);

test('the UI`s query string: no bare `+`, and every hard name reads back exactly', async () => {
  for (const f of NAMES) {
    const text = queryString({ q: f.name, path: `Home Media/${f.name}`, entry: `Photos + Trips/${f.name}` });
    assert.not.match(text, /\+/, f.label);
    assert.match(text, /%20/, f.label);
    assert.equal(await read(text), { q: f.name, path: `Home Media/${f.name}`, entry: `Photos + Trips/${f.name}` });
  }
  assert.is(queryString({ a: 'x', b: undefined }), 'a=x');
});

test('no query string in ui/src is built with URLSearchParams (it writes a space as `+`)', () => {
  const root = path.resolve(import.meta.dirname, '../../ui/src');
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.tsx?$/.test(e.name)) {
        fs.readFileSync(full, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            // Reading one (the router reads the address bar) is fine; building one is not.
            if (/new URLSearchParams\((?!window\.location\.search|location\.search)/.test(line))
              offenders.push(`${path.relative(root, full)}:${i + 1}: ${line.trim()}`);
          });
      }
    }
  };
  walk(root);
  assert.equal(offenders, []);
});

test('terms are form data; a client that writes spaces as %20 keeps its `+`', async () => {
  assert.equal(await read('q=Morning+Tune'), { q: 'Morning Tune' });
  assert.equal(await read('q=C%2B%2B'), { q: 'C++' });
  assert.equal(await read('q=Notes%20+%20ideas'), { q: 'Notes + ideas' });
  // A form encoder's %2F says its `+` are spaces whatever else the query holds.
  assert.equal(await read('q=a+b&path=x%2Fy%20z'), { q: 'a b', path: 'x/y z' });
});

test('a path: the reading the spelling points to when it exists, else the other one, else the first', async () => {
  const probe = existing('Files/a+b.txt', 'Files/a b.txt', 'Home Media/Beach day.txt', 'Files/C++.txt');
  // The native app (raw `/`, %20): the plus.
  assert.equal(await read('path=Files/a+b.txt', probe), { path: 'Files/a+b.txt' });
  // A form encoder (%2F): the space.
  assert.equal(await read('path=Files%2Fa+b.txt', probe), { path: 'Files/a b.txt' });
  // The pointed-to reading names nothing: the other one.
  assert.equal(await read('path=Home+Media/Beach+day.txt', probe), { path: 'Home Media/Beach day.txt' });
  assert.equal(await read('path=Files%2FC++.txt', probe), { path: 'Files/C++.txt' });
  // Neither exists: the pointed-to reading (the route answers 404 for it).
  assert.equal(await read('path=Files%2FNo+such.txt', probe), { path: 'Files/No such.txt' });
  assert.equal(await read('path=Files/No+such.txt', probe), { path: 'Files/No+such.txt' });
  // Nothing says, both exist: the plus (wire-shapes rule 4).
  assert.equal(await read('path=a+b.txt', existing('a+b.txt', 'a b.txt')), { path: 'a+b.txt' });
  // A probe that fails counts as "not there".
  const failing: QueryPathProbe = async () => {
    throw new Error('cannot tell');
  };
  assert.equal(await read('path=Files/a+b.txt', failing), { path: 'Files/a+b.txt' });
});

test('a name inside another follows the reading the path beside it turned out to be', async () => {
  const probe = existing('Backup 2024.zip');
  assert.equal(await read('path=Backup+2024.zip&entry=My+Photo.jpg', probe), {
    path: 'Backup 2024.zip',
    entry: 'My Photo.jpg',
  });
  assert.equal(await read('path=Backup+2024.zip&entry=My+Photo.jpg', existing('Backup+2024.zip')), {
    path: 'Backup+2024.zip',
    entry: 'My+Photo.jpg',
  });
});

test('invalid percent-encoding is a 400 naming the field', async () => {
  for (const bad of ['path=%E9', 'path=%zz', 'q=100%', 'path=%C3%28', 'q%ZZ=1']) {
    try {
      await read(bad);
      assert.unreachable(bad);
    } catch (err) {
      assert.instance(err, AppError, bad);
      assert.is((err as AppError).code, 'INVALID_QUERY', bad);
      assert.is((err as AppError).status, 400, bad);
    }
  }
});

test.run();
