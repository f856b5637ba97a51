// SQL is written in stores only: a folder's `store.ts` (or `<name>-store.ts`) holds its
// statements and typed rows, its service calls the store, and nothing else names its tables —
// so a store is the one place to change when the database does (issue 31: PostgreSQL behind one
// store interface per folder). Outside a store, src/db/ (the connection, migrations) and the
// migrations' .sql files, this fails on `.prepare(` and on a string that starts as a statement
// (SELECT, INSERT, UPDATE … SET, DELETE FROM, WITH … AS, REPLACE INTO), wherever it is used:
// passed to `db.run`/`all`/`get`/`exec`, kept in a constant or built in a template.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const SRC = path.resolve(import.meta.dirname, '..', '..', 'src');

/**
 * Files allowed to hold SQL besides stores and src/db/, each with its reason. Both work on the
 * index file (CACHE_DIR/index.db: rebuildable, SQLite's FTS5 and trigram tables by design), not
 * on the database a store abstracts.
 */
const EXCEPTIONS: Record<string, string> = {
  'indexer/index-db.ts': "the index file's schema, format and open flag: what src/db/ is to burrow.db",
  'search/from-index.ts': "search's bounded FTS5 and key-range queries over the index file",
};

const isStore = (file: string) => /(^|-)store\.ts$/.test(path.basename(file));

const STATEMENT =
  /^\s*(SELECT\s+\S|INSERT\s+(OR\s+\w+\s+)?INTO\s|UPDATE\s+[\w."]+\s+SET\s|DELETE\s+FROM\s|WITH\s+(RECURSIVE\s+)?\w+\s*(\([^)]*\)\s*)?AS\s*\(|REPLACE\s+INTO\s)/;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** `file:line  what` for each statement or `.prepare(` the file holds. */
function sqlIn(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const hits: string[] = [];
  const at = (node: ts.Node, what: string) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    hits.push(`${path.relative(SRC, file)}:${line}  ${what.replace(/\s+/g, ' ').slice(0, 90)}`);
  };
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (STATEMENT.test(node.text)) at(node, node.text);
    } else if (ts.isTemplateExpression(node)) {
      // Each `${…}` read as a name (`UPDATE ${table} SET` is a statement).
      const spelled = node.head.text + node.templateSpans.map((s) => `_${s.literal.text}`).join('');
      if (STATEMENT.test(spelled)) at(node, spelled);
    } else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'prepare'
    ) {
      at(node, node.getText(source));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return hits;
}

test('SQL is written in stores only (src/db/ and the migrations aside)', () => {
  const hits = sources(SRC)
    .filter((f) => !isStore(f) && !f.startsWith(path.join(SRC, 'db') + path.sep))
    .filter((f) => !(path.relative(SRC, f).split(path.sep).join('/') in EXCEPTIONS))
    .flatMap(sqlIn);
  assert.equal(
    hits,
    [],
    `${hits.length} statement(s) outside a store — move each into its folder's store.ts:\n${hits.join('\n')}`,
  );
});

test('the check sees SQL in its every form (and not a word of prose)', () => {
  const dir = fs.mkdtempSync(path.join(import.meta.dirname, '.sql-probe-'));
  try {
    const file = path.join(dir, 'probe.ts');
    fs.writeFileSync(
      file,
      [
        "db.get<{ n: number }>('SELECT COUNT(*) AS n FROM users');",
        'db.run(`UPDATE ${table} SET path = ? WHERE id = ?`, [p, id]);',
        'const SQL = "DELETE FROM favorites WHERE user_id = ?";',
        "db.run('INSERT OR IGNORE INTO upload_staging_dirs (dir) VALUES (?)', [dir]);",
        'const stmt = raw.prepare(sql);',
        '// SELECT * FROM users in a comment is prose',
        "const method = 'DELETE';",
        "const message = 'Select a folder to update';",
        "url.searchParams.get('state');",
      ].join('\n'),
    );
    assert.equal(
      sqlIn(file).map((h) => Number(/:(\d+) /.exec(h)![1])),
      [1, 2, 3, 4, 5],
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
