// One instance against three (issue 31: "one instance vs three on this machine, ratios only"):
// the same installation on PostgreSQL (test/support/postgres.ts: initdb in a temporary folder,
// loopback, fsync off) served once by one executable and once by three executables on one
// database and one shared folder behind the tests' round-robin balancer (test/support/balancer.ts,
// every request on another instance than the last; it runs in this process, as a balancer on
// the same machine would). Each is asked the same requests by CLIENTS signed-in clients at once,
// each over its own keep-alive connection, interleaved round by round:
//   - a small request: GET /api/auth/me (the session is read from the database);
//   - the listing of a 200-file folder.
// The row is requests per second through three against through one. On two cores three
// instances cannot do more than the two cores do: one instance already has its database
// bridge's thread and the pool's beside its main thread, so what three add is mostly the
// main threads' work spread over both cores, less the balancer's own hops.
//
// Measured (2026-11-30, --quick, the executable, load 26-37): the small request 215 req/s through
// three against 564 through one (0.38×: the balancer's own hop, a new connection to an instance
// for each request, costs more than three instances gain on two cores); the listing 122 against
// 54.3 (2.25×: one instance waits on its statements one after another over its one connection).
//
// Needs PostgreSQL's programs (Debian `postgresql`, as CI installs).
// Run: npm run bench -- cluster [--quick]     (the source: BURROW_TEST_SERVER=source; three is
// always the executable, as issue 31's deployment is)
import './support/executable.ts';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setupAdmin } from '../support/auth.ts';
import { testPostgres } from '../support/postgres.ts';
import { makeDirs, removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { median } from './support/measure.ts';
import { rateRow, runAlone, type BenchOptions, type BenchRow } from './support/table.ts';

const FOLDER = 'Files/Relevés & notes — Zoë #7';
const CLIENTS = 12;

/** One GET of `url` to its last byte over `agent`, with `cookie`. */
function get(agent: http.Agent, url: string, cookie: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { cookie } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode}`));
        res.resume();
        res.on('end', () => resolve());
      })
      .on('error', reject);
  });
}

interface Served {
  s: TestServer;
  /** Requests per second for `count` GETs of `p`, CLIENTS at a time. */
  rate(p: string, count: number): Promise<number>;
}

async function serve(three: boolean): Promise<Served> {
  const dirs = makeDirs();
  const dir = path.join(dirs.volumes, FOLDER);
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(dir, `Relevé n°${i} à Zoë & Bob.txt`), `relevé ${i}\n`);
  const env = { LOG_LEVEL: 'error', DATABASE_URL: await (await testPostgres()).migratedDatabase() };
  const s = await startServer({ env, dirs, cluster: three });
  const admin = await setupAdmin(s);
  // Every instance has walked the folder when the listing names its last file CLIENTS times in a row.
  const listing = `/api/browse/${FOLDER.split('/').map(encodeURIComponent).join('/')}`;
  await waitFor(
    async () => {
      for (let i = 0; i < 3; i++) {
        const r = await admin.get(listing);
        if (r.status !== 200 || !r.text.includes('Relevé n°199')) return false;
      }
      return true;
    },
    { what: 'the folder on every instance', timeoutMs: 120_000 },
  );
  const agents = Array.from({ length: CLIENTS }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  return {
    s,
    async rate(p, count) {
      let next = 0;
      const t = performance.now();
      await Promise.all(
        agents.map(async (agent) => {
          while (next < count) {
            next++;
            await get(agent, `${s.url}${p}`, admin.cookieHeader);
          }
        }),
      );
      return count / ((performance.now() - t) / 1000);
    },
  };
}

export async function rows(opts: BenchOptions = {}): Promise<BenchRow[]> {
  const rounds = opts.quick ? 3 : 7;
  const count = opts.quick ? 300 : 1000;
  const servers: TestServer[] = [];
  try {
    const one = await serve(false);
    servers.push(one.s);
    const three = await serve(true);
    servers.push(three.s);
    const requests = {
      'a signed-in small request (GET /api/auth/me)': '/api/auth/me',
      'list a 200-file folder': `/api/browse/${FOLDER.split('/').map(encodeURIComponent).join('/')}`,
    };
    const out: BenchRow[] = [];
    for (const [what, p] of Object.entries(requests)) {
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i <= rounds; i++) {
        const x = await one.rate(p, count);
        const y = await three.rate(p, count);
        // Round 0 warms both (compilation, caches, connections).
        if (i > 0) (a.push(x), b.push(y));
      }
      out.push(
        rateRow(
          `${what}, ${CLIENTS} clients at once, three instances behind a balancer`,
          median(b),
          median(a),
          'req/s',
          'reference',
          `one instance on the same PostgreSQL, same run, interleaved, ${rounds} rounds of ${count} each (${one.s.mode}); 2 cores: three cannot use more than the two`,
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
