// The one shape every bench returns, so `npm run bench -- all` can print one table.
//
// A row compares Burrow with a ceiling measured in the same run, on the same machine, with the
// same client: raw fs, `du -sb`, a plain Node HTTP server streaming with 1 MiB reads, `zip -0`,
// zlib level 1, `unzip`, `rclone` to a local folder. A ceiling is what the work costs without
// Burrow: a Burrow figure above its ceiling means the ceiling does less work than Burrow did
// (wrong ceiling), not that Burrow is fast.
//
// `ratio` is always "higher is better for Burrow": burrow / ceiling for rates (MB/s),
// ceiling / burrow for times (s, ms) and sizes (MB). So 1 means level with the ceiling, and a
// goal reads the same way for every row ("≥ 0.95": at least 95 % of the ceiling).

export interface BenchRow {
  /** What was measured, e.g. "download 1 GiB". */
  operation: string;
  /** Burrow's figure, in `unit`. */
  burrow: number;
  /** The ceiling's figure, in `unit`, from the same run. */
  ceiling: number;
  /** "MB/s", "s", "ms", "MB"… */
  unit: string;
  /** Higher is better for Burrow: see above. */
  ratio: number;
  /** The goal: a bound on `ratio` ("≥ 0.95"), on Burrow's figure ("≥ 700 MB/s", "≤ 60 MB"), or prose. */
  goal: string;
  /** What the ceiling is, and anything a reader needs to trust the figure. */
  note?: string;
}

export interface BenchOptions {
  /** Fewer rounds and smaller inputs: a smoke run of the table in a few minutes. */
  quick?: boolean;
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** A row where more is better (throughput): ratio = burrow / ceiling. */
export function rateRow(
  operation: string,
  burrow: number,
  ceiling: number,
  unit: string,
  goal: string,
  note?: string,
): BenchRow {
  return { operation, burrow, ceiling, unit, ratio: round(burrow / ceiling), goal, note };
}

/** A row where less is better (time, memory): ratio = ceiling / burrow. */
export function costRow(
  operation: string,
  burrow: number,
  ceiling: number,
  unit: string,
  goal: string,
  note?: string,
): BenchRow {
  return { operation, burrow, ceiling, unit, ratio: round(ceiling / burrow), goal, note };
}

/**
 * Whether a row meets its goal: "≥ 0.95" bounds the ratio; "≥ 700 MB/s" or "≤ 60 MB" (a bound
 * followed by the row's unit) bounds Burrow's own figure. null when the goal is prose.
 */
export function met(row: BenchRow): boolean | null {
  const m = /^\s*(≥|>=|>|≤|<=|<)\s*([\d.]+)\s*(.*?)\s*$/.exec(row.goal);
  if (!m) return null;
  if (m[3] && m[3] !== row.unit) return null;
  const x = m[3] ? row.burrow : row.ratio;
  const bound = Number(m[2]);
  switch (m[1]) {
    case '>':
      return x > bound;
    case '<':
      return x < bound;
    case '≤':
    case '<=':
      return x <= bound;
    default:
      return x >= bound;
  }
}

function figure(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  return a >= 100 ? String(Math.round(x)) : a >= 10 ? x.toFixed(1) : a >= 1 ? x.toFixed(2) : x.toFixed(3);
}

/** The rows as a Markdown table (what the README carries). */
export function formatTable(rows: BenchRow[]): string {
  const head = ['operation', 'Burrow', 'ceiling', 'unit', 'ratio', 'goal', 'met', 'ceiling is'];
  const body = rows.map((r) => {
    const ok = met(r);
    return [
      r.operation,
      figure(r.burrow),
      figure(r.ceiling),
      r.unit,
      `${r.ratio.toFixed(2)}×`,
      r.goal,
      ok === null ? '' : ok ? 'yes' : 'NO',
      r.note ?? '',
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

/**
 * For a bench file run on its own (`npm run bench -- <name>`): runs its `rows` with the
 * command line's options and prints the table. `main` is the file's `import.meta.main`.
 */
export async function runAlone(
  main: boolean | undefined,
  rows: (opts: BenchOptions) => Promise<BenchRow[]>,
): Promise<void> {
  if (!main) return;
  const opts: BenchOptions = { quick: process.argv.includes('--quick') };
  console.log(formatTable(await rows(opts)));
}
