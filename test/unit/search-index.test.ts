// Search answered from the index (src/search/from-index.ts) on a real index file: names and
// documents from one scope, and an answer the time budget cut short says so — also when the
// budget runs out after the name lookups, before the documents are looked up.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../src/core/log.ts';
import { Database } from '../../src/db/database.ts';
import { closeIndexFile, openIndexFile } from '../../src/indexer/index-db.ts';
import { IndexStore } from '../../src/indexer/store.ts';
import { searchIndex, type Scope } from '../../src/search/from-index.ts';
import { parseTerm } from '../../src/search/term.ts';

const FOLDER = 'Letters & Notes + 2025';
const LETTER = 'Brief an Zoé #1 🐈.txt';
const NOTE = 'Marmelade 100% – Rezept.txt';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-search-unit-'));
const db = new Database(path.join(dir, 'main.db'));
openIndexFile(
  db,
  path.join(dir, 'index.db'),
  createLogger('error', {}, () => {}),
);
const store = new IndexStore(db, true);
const root = store.addRoot('/home/zoé', 0);
store.write(
  root.id,
  [
    { dir: '', name: FOLDER, isDir: true, size: 0, mtime: 0 },
    { dir: FOLDER, name: LETTER, isDir: false, size: 40, mtime: 0 },
    { dir: FOLDER, name: NOTE, isDir: false, size: 60, mtime: 0 },
  ],
  [{ dir: FOLDER, name: LETTER, text: 'Liebe Zoé,\ndie Marmelade ist fertig.\n' }],
  1,
);
const scope: Scope = { rootId: root.id, rootPath: root.path, rel: FOLDER };
const term = parseTerm('Marmelade');
const budget = () => Date.now() + 60_000;

test.after(() => {
  closeIndexFile(db);
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('within the budget: the name and the document are found, the answer is not truncated', () => {
  const found = searchIndex(db, scope, term, budget(), true);
  assert.equal(
    found.names.map((n) => n.rel),
    [`${FOLDER}/${NOTE}`],
  );
  assert.equal(
    found.docs.map((d) => d.rel),
    [`${FOLDER}/${LETTER}`],
  );
  assert.is(found.truncated, false);
});

test('the budget runs out after the name lookups: the documents not looked up leave the answer truncated', () => {
  const deadline = budget();
  // The last name lookup (the trigram phrase) is slow: it ends past the deadline — the clock is
  // moved past it there, so the lookups before it are in time however loaded the machine is.
  const now = Date.now;
  const slow = Object.create(db) as Database;
  slow.get = ((sql: string, params?: any) => {
    const row = db.get(sql, params);
    if (sql.includes('idx_names MATCH')) Date.now = () => deadline + 1;
    return row;
  }) as Database['get'];
  let found;
  try {
    found = searchIndex(slow, scope, term, deadline, true);
  } finally {
    Date.now = now;
  }
  assert.equal(
    found.names.map((n) => n.rel),
    [`${FOLDER}/${NOTE}`],
    'the names looked up in time are kept',
  );
  assert.equal(found.docs, []);
  assert.is(found.truncated, true, 'documents were not looked up: the answer is not whole');
});

test.run();
