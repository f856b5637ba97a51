// Every row of issue 19's table in one run, through the built executable, each against a
// ceiling measured in the same run, printed as one table (Markdown, what the README carries).
//
//   npm run bench -- all [--quick] [name …]
//
// --quick: smaller inputs and fewer rounds (a few minutes instead of ~10). Names pick benches
// (e.g. `all download zip`). BURROW_TEST_SERVER=source measures the source instead. A bench
// that fails is reported under the table and makes the exit code 1; the others still run.
// Ratios read one way in every row: higher is better for Burrow (see table.ts).
import './support/executable.ts';
// In-process rows run with the server's pool size (src/threadpool.ts).
import '../../src/threadpool.ts';
import fs from 'node:fs';
import os from 'node:os';
import { formatTable, met, type BenchOptions, type BenchRow } from './support/table.ts';

/** In the order. Each file exports `rows(opts): Promise<BenchRow[]>`. */
const BENCHES = [
  'browse',
  'search',
  'upload',
  'download',
  'zip',
  'contention',
  'foldersize',
  'startup',
  'memory',
  'attacks',
  'indexing',
  'extraction',
  'webdav',
  'archives',
  'live',
  'postgres',
  'cluster',
] as const;

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const picked = args.filter((a) => !a.startsWith('--'));
for (const p of picked)
  if (!(BENCHES as readonly string[]).includes(p)) throw new Error(`unknown bench ${p}; names: ${BENCHES.join(' ')}`);
const names = picked.length ? BENCHES.filter((n) => picked.includes(n)) : BENCHES;
// Benches read positional sizes from the command line when run alone: keep the names from them.
process.argv.splice(2, Infinity, ...args.filter((a) => a.startsWith('--')));
const opts: BenchOptions = { quick };

if (process.env.BURROW_TEST_SERVER === 'executable') {
  // Built (when older than the sources) before anything is timed.
  const { ensureBinary } = await import('../binary/harness.ts');
  ensureBinary();
}

const started = Date.now();
const rows: BenchRow[] = [];
const problems: string[] = [];
for (const name of names) {
  const file = new URL(`./${name}.ts`, import.meta.url);
  // A bench without rows() runs its measurements when imported: do not import it.
  if (!/export async function rows\b/.test(fs.readFileSync(file, 'utf8'))) {
    problems.push(`${name}: exports no rows() yet, not measured`);
    continue;
  }
  const t = Date.now();
  console.error(`— ${name}${quick ? ' (quick)' : ''} …`);
  try {
    const mod = (await import(file.href)) as { rows: (o: BenchOptions) => Promise<BenchRow[]> };
    const got = await mod.rows(opts);
    rows.push(...got);
    console.error(`— ${name}: ${got.length} rows in ${((Date.now() - t) / 1000).toFixed(0)} s`);
  } catch (err) {
    problems.push(`${name}: failed: ${(err as Error).stack ?? err}`);
    console.error(`— ${name}: failed after ${((Date.now() - t) / 1000).toFixed(0)} s`);
  }
}

const mode = process.env.BURROW_TEST_SERVER === 'source' ? 'the source' : 'the executable';
console.log(
  `Burrow benchmarks, ${new Date().toISOString().slice(0, 16)} UTC, ${mode}${quick ? ', --quick' : ''}: ` +
    `${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)} at the end, Node ${process.version}, ` +
    `${((Date.now() - started) / 60_000).toFixed(1)} min.`,
);
console.log('Ratio: higher is better for Burrow (burrow/ceiling for rates, ceiling/burrow for times).\n');
console.log(formatTable(rows));
const missed = rows.filter((r) => met(r) === false).length;
console.log(`\n${rows.length} rows, ${rows.filter((r) => met(r) === true).length} meet their goal, ${missed} do not.`);
for (const p of problems) console.log(`! ${p}`);
if (problems.some((p) => p.includes('failed'))) process.exitCode = 1;
