// The whole test suite: typecheck, then each uvu group in its own process. Prints
// `N passed, N failed` as its last line. `node test/run.ts unit api` runs only those groups.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const groups = ['unit', 'api', 'e2e', 'binary'];
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const selected = wanted.length ? wanted : ['typecheck', ...groups];
const uvu = path.join(root, 'node_modules', 'uvu', 'bin.js');
const env = { ...process.env, PATH: `${path.join(root, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}`, FORCE_COLOR: '0' };

let passed = 0;
let failed = 0;
const summary: string[] = [];

for (const group of selected) {
  const started = Date.now();
  if (group === 'typecheck') {
    const r = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--noEmit'], { cwd: root, env, stdio: 'inherit' });
    if (r.status === 0) passed++; else failed++;
    summary.push(`typecheck: ${r.status === 0 ? 'ok' : 'FAILED'} (${Date.now() - started} ms)`);
    continue;
  }
  const dir = path.join(root, 'test', group);
  if (!fs.existsSync(dir) || !fs.readdirSync(dir).some((f) => f.endsWith('.test.ts'))) {
    summary.push(`${group}: no tests`);
    continue;
  }
  console.log(`\n=== ${group} ===`);
  const r = spawnSync(process.execPath, [uvu, path.join('test', group), '\\.test\\.ts$'], { cwd: root, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: 40 * 60_000 });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.replace(/\x1b\[[0-9;]*m/g, '');
  process.stdout.write(out);
  const total = Number(/Total:\s+(\d+)/.exec(out)?.[1] ?? NaN);
  const ok = Number(/Passed:\s+(\d+)/.exec(out)?.[1] ?? NaN);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(out)?.[1] ?? 0);
  if (Number.isNaN(total) || Number.isNaN(ok)) {
    // The group crashed before uvu could count: one failure, so CI cannot go green on it.
    failed++;
    summary.push(`${group}: CRASHED (exit ${r.status}${r.signal ? `, ${r.signal}` : ''})`);
    continue;
  }
  const bad = Math.max(total - ok - skipped, r.status === 0 ? 0 : 1);
  passed += ok;
  failed += bad;
  summary.push(`${group}: ${ok} passed, ${bad} failed${skipped ? `, ${skipped} skipped` : ''} (${Math.round((Date.now() - started) / 1000)} s)`);
}

console.log('\n' + summary.join('\n'));
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
