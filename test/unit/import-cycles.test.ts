// The folders of src/ import each other one way only: a folder below (accounts, core, files) never
// imports one above it (auth, tokens, trash, versions, app.ts), so each can be read, tested and
// changed without the ones that build on it. Every import counts: `import`, `import type`,
// `export … from` and `import()` (a type-only import is a dependency of the design as much as
// any, and core⇄http was one). A top-level file and the folder of the same name are one unit
// (`config.ts` is the face of `config/`).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const SRC = path.resolve(import.meta.dirname, '..', '..', 'src');

/** `files/ops.ts` → `files`; `config.ts` → `config`; `app.ts` → `app`. */
const unitOf = (file: string) =>
  path
    .relative(SRC, file)
    .split(path.sep)[0]!
    .replace(/\.tsx?$/, '');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** unit → unit → the import lines that make that edge (`files/ops.ts → ../trash/service.ts`). */
function folderEdges(): Map<string, Map<string, string[]>> {
  const edges = new Map<string, Map<string, string[]>>();
  for (const file of sources(SRC)) {
    // preProcessFile reads every import, export-from and import() (type-only ones included),
    // never one in a comment or a string.
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), fileName);
      if (!target.startsWith(SRC + path.sep)) continue;
      const from = unitOf(file);
      const to = unitOf(target);
      if (from === to) continue;
      const out = edges.get(from) ?? edges.set(from, new Map()).get(from)!;
      const lines = out.get(to) ?? out.set(to, []).get(to)!;
      lines.push(`${path.relative(SRC, file)} → ${fileName}`);
    }
  }
  return edges;
}

/** The strongly connected groups of more than one unit (Tarjan): each is a cycle of folders. */
function cycles(edges: Map<string, Map<string, string[]>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) found.push(group.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('the walk sees the imports: type-only, export-from and import() included', () => {
  const edges = folderEdges();
  assert.ok(edges.get('app')?.has('plugins'), 'app.ts imports the office plugin with import()');
  assert.ok(edges.get('http')?.has('core'), 'http imports core (errors, caller: type-only among them)');
  assert.ok(edges.get('auth')?.has('accounts'), 'auth imports the stores of accounts');
  assert.ok(
    edges.get('trash')?.has('files') && edges.get('versions')?.has('files'),
    'trash and versions build on files',
  );
  assert.ok(edges.size > 30, `${edges.size} folders import others`);
});

test('no two folders of src/ import each other, directly or around a circle', () => {
  const edges = folderEdges();
  const found = cycles(edges);
  const explain = found.map((group) => {
    const lines = group.flatMap((from) =>
      group.flatMap((to) => (edges.get(from)?.get(to) ?? []).slice(0, 2).map((line) => `    ${from} → ${to}: ${line}`)),
    );
    return `  ${group.join(' ⇄ ')}\n${lines.join('\n')}`;
  });
  assert.equal(found, [], `import cycles between folders:\n${explain.join('\n')}`);
});

test.run();
