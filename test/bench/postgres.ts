// The embedded database against PostgreSQL (issue 31: "SQLite vs PostgreSQL for the listing,
// search and small-request rows"), through the executable, in one run: two servers on the same
// kind of volume, one on its embedded SQLite (the ceiling), one with DATABASE_URL on a
// PostgreSQL the bench starts (test/support/postgres.ts: initdb in a temporary folder, loopback,
// fsync off — these rows read, they do not commit). Each asked the same requests, interleaved,
// by a signed-in account over one keep-alive connection:
//   - a small request: GET /api/auth/me (the session is looked up in the database);
//   - the listing of a 1,000-file folder;
//   - a name search (the index is its own SQLite file on both: the session and access checks
//     are what differ).
//
// Measured (2026-11-29, --quick, the executable, load 21): the small request 13.7 ms against 3.31
// on SQLite (each statement crosses the bridge to the worker's connection: 2.7-5.2 ms against
// 20-42 µs), the listing 160 against 102 ms, the search 8.6 against 22.6 ms (the index is SQLite
// on both; on PostgreSQL it is a file of its own, on SQLite it shares burrow.db's connection).
// Again with the configuration cache (2026-11-30, 41 rounds, the executable, load 19): 6.35
// against 1.56 ms, 27.0 against 15.0, 10.5 against 2.55; the listing and the search read the
// cache's version row once each (cluster/config-cache.ts), the small request not at all.
// Needs PostgreSQL's programs (Debian `postgresql`, as CI installs).
//
// Run: npm run bench -- postgres [--quick]     (the source: BURROW_TEST_SERVER=source)
import './support/executable.ts';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setupAdmin } from '../support/auth.ts';
import { testPostgres } from '../support/postgres.ts';
import { makeDirs, removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { median, quiet } from './support/measure.ts';
import { costRow, runAlone, type BenchOptions, type BenchRow } from './support/table.ts';

const FOLDER = 'Files/Lettres & factures 2026 — Zoë #4';

/** Milliseconds for one GET of `url` to its last byte over `agent`, with `cookie`. */
function timedGet(agent: http.Agent, url: string, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    http
      .get(url, { agent, headers: { cookie } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode}`));
        res.resume();
        res.on('end', () => resolve(performance.now() - t));
      })
      .on('error', reject);
  });
}

async function serverOn(
  database: 'sqlite' | 'postgres',
): Promise<{ s: TestServer; ask: (p: string) => Promise<number> }> {
  const env: Record<string, string> = { LOG_LEVEL: 'error' };
  if (database === 'postgres') env.DATABASE_URL = await (await testPostgres()).database();
  // The folder is there before the server starts: its first walk catalogues it.
  const dirs = makeDirs();
  const dir = path.join(dirs.volumes, FOLDER);
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < 1000; i++) fs.writeFileSync(path.join(dir, `Lettre n°${i} à Zoë & Bob.txt`), `lettre ${i}\n`);
  const s = await startServer({ env, dirs });
  const admin = await setupAdmin(s);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ask = (p: string) => timedGet(agent, `${s.url}${p}`, admin.cookieHeader);
  // The first walk has catalogued the folder when a search finds its last letter.
  await waitFor(
    async () => {
      const r = await admin.get(`/api/search?q=${encodeURIComponent('Lettre n°999')}`);
      return r.status === 200 && r.json.items?.length > 0;
    },
    { what: `the ${database} server's index`, timeoutMs: 120_000 },
  );
  if (s.mode === 'executable') await quiet(s.pid());
  return { s, ask };
}

export async function rows(opts: BenchOptions = {}): Promise<BenchRow[]> {
  const rounds = opts.quick ? 15 : 41;
  const servers: TestServer[] = [];
  try {
    const lite = await serverOn('sqlite');
    servers.push(lite.s);
    const pg = await serverOn('postgres');
    servers.push(pg.s);
    const requests = {
      'a signed-in small request (GET /api/auth/me)': '/api/auth/me',
      'list a 1,000-file folder': `/api/browse/${FOLDER.split('/').map(encodeURIComponent).join('/')}`,
      'search a name': `/api/search?q=${encodeURIComponent('Lettre n°512')}`,
    };
    const out: BenchRow[] = [];
    for (const [what, p] of Object.entries(requests)) {
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i <= rounds; i++) {
        const x = await lite.ask(p);
        const y = await pg.ask(p);
        // Round 0 warms both (compilation, caches, connections).
        if (i > 0) (a.push(x), b.push(y));
      }
      out.push(
        costRow(
          `${what}, on PostgreSQL (p50)`,
          median(b),
          median(a),
          'ms',
          'reference',
          `the same request on the embedded SQLite, same run, interleaved, ${rounds} each (${lite.s.mode})`,
        ),
      );
    }
    return out;
  } finally {
    for (const s of servers) {
      await s.close();
      removeDirs(s.dirs);
    }
  }
}

await runAlone(import.meta.main, rows);
