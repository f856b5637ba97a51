// The whole test suite: typecheck, then each uvu group in its own process. Prints
// `N passed, N failed` as its last line. `npm test -- unit api` runs only those groups.
// After typecheck and unit (alone, first) the executables are built, then the groups run one after
// the other; `--lanes` runs them in two lanes at once (LANE_TWO), not yet the default (below).
//
// Groups: unit; api (test/api against a server from source); api-executable (the same
// test/api files against the built executable, BURROW_TEST_SERVER=executable); inprocess
// (tests that inject in-process fakes, from source only); api-postgres (a subset of
// test/api with every store in a test PostgreSQL, from source); e2e (a real browser, file by file; the
// journey files — test/e2e/journey/*.test.ts and test/e2e/journey-*.test.ts — against the executable);
// binary (the executable as a user runs it); binary-arm64 (the same on linux-arm64 under qemu).
//
// Counting tells the truth: no retries; a test uvu reports as skipped (test.skip, a leftover
// test.only) did not run and counts as failed; a group that crashed before uvu could count
// is one failure.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureBinary } from './binary/harness.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

interface Group {
  dir: string;
  label: string;
  env?: Record<string, string>;
  fileByFile?: boolean;
  needsBinary?: boolean;
  /** The journey suite (test/e2e/journey/ and test/e2e/journey-*.test.ts): these files run against the executable. */
  journeys?: boolean;
  /** Only these files of the folder, each in its own process (or in runs, with `batchesOf`). */
  only?: readonly string[];
  /** Files of the folder this group leaves out (another group runs them: see where it is set). */
  except?: readonly string[];
  /**
   * The files in runs of this many, each run one process (a test PostgreSQL of its own), so that
   * no run nears the 40-minute deadline a run has.
   */
  batchesOf?: number;
}
/** One uvu run: a whole group's folder, or one file of it. */
interface Unit {
  dir: string;
  file: string | null;
  /** Several files of the folder in this one run. */
  files?: readonly string[];
  env?: Record<string, string>;
}
const JOURNEY_ENV = { BURROW_TEST_SERVER: 'executable' };
/**
 * The API files run again with every store in PostgreSQL (BURROW_TEST_DATABASE=postgres: a
 * test PostgreSQL, a database per server), one file per store whose statements differ most
 * between the engines: sessions, links, WebDAV locks, resumable uploads, the activity log, tags
 * and the notification outbox — a subset, to keep the added time to a few minutes. From source
 * only: postgres.test.ts (in api, so also through the executable) covers the executable's own
 * PostgreSQL bridge, migrations and 503s.
 */
const POSTGRES_SUBSET = [
  'auth-sessions.test.ts',
  'shares-links.test.ts',
  'webdav-locks.test.ts',
  'uploads-tus.test.ts',
  'activity-log.test.ts',
  'tags.test.ts',
  'tags-groups.test.ts',
  'notify-outbox.test.ts',
];
const POSTGRES_ENV = { BURROW_TEST_DATABASE: 'postgres' };
/**
 * Files that start Burrow processes of their own (serverCommand(): `node src/main.ts` from
 * source, the executable in api-executable) — the command line, doctor, db copy, service
 * install, the instance lock, a kill -9 at startup, three instances migrating one PostgreSQL —
 * or, like cluster.test.ts and haproxy.test.ts, several servers on one PostgreSQL of their own
 * (cluster-ldap.test.ts: three beside an OpenLDAP of its own, holding their database writes
 * with a lock of the test's until each process waits on it). They run once, in
 * api-executable: against the executable they test what ships, and from source they only
 * tested the same code again, each process compiling the sources as it starts (the slowest
 * files of the group from source: doctor-postgres 130 s, db-copy 100 s, cli-help 93 s).
 * cluster.test.ts sets its own DATABASE_URL, so api-postgres ran it unchanged a third time.
 */
const OWN_PROCESSES = [
  'announced-name.test.ts',
  'auth-ldap.test.ts',
  'cli-help.test.ts',
  'cluster-duties.test.ts',
  'cluster-jobs.test.ts',
  'cluster-journal.test.ts',
  'cluster-ldap.test.ts',
  'cluster-uploads.test.ts',
  'cluster.test.ts',
  'db-copy.test.ts',
  'doctor-postgres.test.ts',
  'doctor.test.ts',
  'first-run-console.test.ts',
  'haproxy.test.ts',
  'https.test.ts',
  'instance-lock.test.ts',
  'mdns.test.ts',
  'postgres-migrate-once.test.ts',
  'release.test.ts',
  'service-install.test.ts',
  'startup.test.ts',
  'upgrade.test.ts',
];
/**
 * Issue 31's cluster: API files through three executables on one PostgreSQL and one shared
 * volume folder behind a round-robin balancer (BURROW_TEST_SERVER=cluster, test/support/server.ts),
 * every request on another instance than the last; the files are unchanged. Each file's server
 * is three executables and a balancer, started together on a copy of a database migrated once
 * (CREATE DATABASE … TEMPLATE). Every test/api file is in CLUSTER_FILES (run through the cluster
 * by CI) or in CLUSTER_CANNOT with the reason it cannot (test/run.ts refuses a file in neither).
 */
const CLUSTER_FILES = [
  'access-doors-table.test.ts',
  'access-doors.test.ts',
  'access-model.test.ts',
  'access-storage-ro.test.ts',
  'access-volumes.test.ts',
  'activity-files.test.ts',
  'activity-log.test.ts',
  'archives-extract-conflicts.test.ts',
  'archives-extract.test.ts',
  'archives-read.test.ts',
  'auth-oidc-confirm.test.ts',
  'auth-oidc-groups.test.ts',
  'auth-oidc.test.ts',
  'auth-passkeys.test.ts',
  'auth-sessions.test.ts',
  'auth-signin.test.ts',
  'auth-totp.test.ts',
  'browse-large.test.ts',
  'cross-site.test.ts',
  'disk-full.test.ts',
  'download-files.test.ts',
  'download-replaced.test.ts',
  'download-zip-compression.test.ts',
  'editor-conflict.test.ts',
  'error-log.test.ts',
  'fetch-from-url.test.ts',
  'files-access.test.ts',
  'files-confinement-race.test.ts',
  'files-conflicts.test.ts',
  'files-created.test.ts',
  'files-odd-names.test.ts',
  'files-ops.test.ts',
  'files-prefs.test.ts',
  'files-previews.test.ts',
  'files-versions-moves.test.ts',
  'foldersize-complete.test.ts',
  'foldersize-hidden.test.ts',
  'host-volumes.test.ts',
  'indexes-confined.test.ts',
  'indexes-search.test.ts',
  'indexes-views.test.ts',
  'live-folders-links.test.ts',
  'live-folders.test.ts',
  'metadata-files.test.ts',
  'names-features.test.ts',
  'names-query.test.ts',
  'names-selection-zip.test.ts',
  'notify-disk.test.ts',
  'notify-email.test.ts',
  'notify-events.test.ts',
  'notify-job-failed.test.ts',
  'notify-live.test.ts',
  'notify-outbox.test.ts',
  'notify-push.test.ts',
  'notify-quiet.test.ts',
  'notify-refusals.test.ts',
  'notify-server-events.test.ts',
  'office-editing.test.ts',
  'office-proof-keys.test.ts',
  'openapi.test.ts',
  'passkeys-names.test.ts',
  'permissions.test.ts',
  'quotas-groups.test.ts',
  'quotas.test.ts',
  'search-fields.test.ts',
  'search-metadata-access.test.ts',
  'search-metadata.test.ts',
  'settings-prefs.test.ts',
  'settings-switches.test.ts',
  'shares-file-requests.test.ts',
  'shares-link-defects.test.ts',
  'shares-link-limits.test.ts',
  'shares-links.test.ts',
  'shares-thumbnails.test.ts',
  'shares-upload-conflicts.test.ts',
  'spec-coverage.test.ts',
  'tags-groups.test.ts',
  'tags.test.ts',
  'terminal.test.ts',
  'thumbnails-heic.test.ts',
  'tokens-guard.test.ts',
  'tokens-lifecycle.test.ts',
  'uploads-multipart.test.ts',
  'uploads-query.test.ts',
  'uploads-tus.test.ts',
  'usage-held.test.ts',
  'users-admin.test.ts',
  'versions-editor.test.ts',
  'volume-for-group.test.ts',
  'webdav-locks.test.ts',
  'webdav.test.ts',
];
/** API files that cannot pass through the cluster, and why (product gaps of issue 31 marked so). */
const CLUSTER_CANNOT: Record<string, string> = {
  ...Object.fromEntries(OWN_PROCESSES.map((f) => [f, 'starts Burrow processes (or several servers) of its own'])),
  'postgres.test.ts': 'stops and starts its own PostgreSQL under one server',
  'thumbnail-kinds.test.ts': "looks into one server process (/proc/<pid>): a cluster's requests reach three",
  'video-play.test.ts': "counts one server process's ffmpeg children",
  'live-folders-bound.test.ts':
    "counts one server process's inotify watches (/proc/<pid>/fdinfo): a cluster's pages reach three",
  'download-pooled.test.ts': 'counts the files one server process holds open',
  'download-zip-pool.test.ts': 'counts the files one server process holds open',
  'files-crash.test.ts': 'kills its server (SIGKILL) mid-write and starts it again on the embedded database',
  'quotas-crash.test.ts': 'kills its server (SIGKILL) mid-write and starts it again on the embedded database',
  'secrets-at-rest.test.ts':
    "reads the embedded database's keys in CONFIG_DIR (on PostgreSQL they are sealed in the database)",
  'features-network.test.ts':
    "compares the LAN addresses a page is given with the port its one server listens on: a cluster's instances each listen on their own, the balancer on another",
  'files-own-folders.test.ts':
    "reads the trash and versions in one server's CONFIG_DIR (a cluster keeps them in the answering instance's) and writes the previous release's rows in SQLite's words (INSERT OR IGNORE)",
  'foundation.test.ts':
    'reads the session secret from CONFIG_DIR/session-secret (on PostgreSQL it is generated once into the database, cluster/secrets.ts)',
  'host-volumes-index.test.ts':
    "reads the index's rows through withDatabase (idx.*): on PostgreSQL the index is each instance's own SQLite file, not in the database",
  'indexes-documents.test.ts':
    "asks when a document was read, which each instance's own index (fed by the change stream) answers for itself",
  'indexes-foldersize.test.ts':
    "compares one index before and after a restart (no new baseline walk, a format bump rebuilds once): a cluster's requests reach three indexes of their own",
  'access-migration.test.ts':
    "starts its own servers on the previous release's embedded database (written in SQLite's words) to compare what every account could do before and after the migration",
  'indexes-documents-limits.test.ts':
    "counts one server process's reader threads (/proc/<pid>/task) and writes its documents on the shared folder from outside at the start: through the cluster only the rescan lease holder's walk finds them (no watcher on shared storage; the rescan every 15 min)",
  'notify-device.test.ts':
    "reads the embedded database's sign_in_devices table to prove the device cookie is kept as an HMAC only (on PostgreSQL the same rows are in the shared database)",
  'lingering-close.test.ts':
    "reads how the server's own HTTP connection ends after a 413 mid-body, on a raw socket: through the tests' balancer that socket is the balancer's",
};
const GROUPS: Record<string, Group> = {
  unit: { dir: 'unit', label: 'unit' },
  api: { dir: 'api', label: 'api', except: OWN_PROCESSES },
  'api-executable': {
    dir: 'api',
    label: 'api (executable)',
    env: { BURROW_TEST_SERVER: 'executable' },
    needsBinary: true,
  },
  inprocess: { dir: 'inprocess', label: 'inprocess (source only)' },
  // One browser session per file keeps a failure's screenshots and state apart.
  e2e: { dir: 'e2e', label: 'e2e', fileByFile: true, journeys: true, needsBinary: true },
  'api-postgres': { dir: 'api', label: 'api on PostgreSQL (subset)', env: POSTGRES_ENV, only: POSTGRES_SUBSET },
  'api-cluster': {
    dir: 'api',
    label: 'api through three instances behind a balancer',
    env: { BURROW_TEST_SERVER: 'cluster' },
    needsBinary: true,
    only: CLUSTER_FILES,
    batchesOf: 25,
  },
  binary: { dir: 'binary', label: 'binary', needsBinary: true },
  // The same smoke suite on the linux-arm64 executable, under qemu-aarch64-static (.ci/run registers binfmt).
  'binary-arm64': {
    dir: 'binary',
    label: 'binary (linux-arm64 under qemu)',
    env: { BURROW_TEST_TARGET: 'linux-arm64' },
    needsBinary: true,
  },
};

/**
 * The groups of the second lane (the rest run in the first): the browser, the executable as a
 * user runs it (both architectures), and the small source-only groups — against the API groups
 * through the source, the executable and the cluster in the first. Measured on a 2-core
 * machine one after the other (2026-12-02, early morning): api 392 s, api-executable 732, api-cluster 865 (1,989 s) against
 * e2e 1,289, binary-arm64 311 and the small ones (about 1,750 s). Two lanes, clean clone, the
 * same machine (2026-12-02): 2,727 passed in 3,639 s against 3,903 one after the other — the
 * processors were then 90-100 % busy, so each group took longer (api 766 s, api-executable
 * 1,632, e2e 1,856) and the second lane ended 15 minutes before the first's api-cluster (1,066 s
 * alone). Balanced better (api-cluster's runs of 25 files taken by whichever lane is free), the
 * run would end sooner. Not the default: the second such run failed twice — two restarted
 * executables both took HTTPS's default port 3443 (mended in test/support/server.ts), and
 * cluster.test.ts's "an outside change one instance's index finds" timed out under the load, as
 * it had once one after the other beside other work — so `npm test` runs the groups one after the
 * other until a two-lane run is clean again.
 */
const LANE_TWO = ['inprocess', 'e2e', 'api-postgres', 'binary', 'binary-arm64'];

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
for (const w of wanted) {
  if (w !== 'typecheck' && !GROUPS[w]) {
    console.error(`unknown test group "${w}"; groups: typecheck, ${Object.keys(GROUPS).join(', ')}`);
    process.exit(2);
  }
}
const selected = wanted.length ? wanted : ['typecheck', ...Object.keys(GROUPS)];
const uvu = path.join(root, 'node_modules', 'uvu', 'bin.js');
const baseEnv = {
  ...process.env,
  PATH: `${path.join(root, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}`,
  FORCE_COLOR: '0',
};

let passed = 0;
let failed = 0;
const summary = new Map<string, string>();
const suiteStarted = Date.now();
const seconds = (since: number) => Math.round((Date.now() - since) / 1000);

/**
 * Where a group's output goes. The first lane streams it as it comes (a CI log shows progress);
 * the second keeps each uvu run's output and prints it whole when the run ends, headed by its
 * lane, so the two lanes' lines never interleave.
 */
interface Printer {
  write(text: string): void;
  /** A uvu run (labelled) ended: what it kept is printed now. */
  ended(label: string): void;
}
const streamed: Printer = { write: (text) => process.stdout.write(text), ended: () => {} };
function kept(lane: string): Printer {
  let held = '';
  return {
    write: (text) => (held += text),
    ended: (label) => {
      process.stdout.write(`\n--- ${lane}: ${label} (its output, kept until it ended) ---\n${held}`);
      held = '';
    },
  };
}

function typecheck(): void {
  const started = Date.now();
  // The server and tests, the UI, and the formatter's verdict: each one pass or one failure.
  const checks: [string, string[]][] = [
    ['server', [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--noEmit']],
    [
      'ui',
      [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join('ui', 'tsconfig.json'), '--noEmit'],
    ],
    [
      'format',
      [path.join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), '--check', '--log-level', 'warn', '.'],
    ],
  ];
  const verdicts = checks.map(([label, args]) => {
    const r = spawnSync(process.execPath, args, { cwd: root, env: baseEnv, stdio: 'inherit' });
    if (r.status === 0) passed++;
    else failed++;
    return `${label} ${r.status === 0 ? 'ok' : 'FAILED'}`;
  });
  summary.set('typecheck', `typecheck: ${verdicts.join(', ')} (${seconds(started)} s)`);
}

const testFiles = (dir: string) =>
  fs.existsSync(path.join(root, 'test', dir))
    ? fs
        .readdirSync(path.join(root, 'test', dir))
        .filter((f) => f.endsWith('.test.ts'))
        .sort()
    : [];

/** A group's uvu runs; the lists this file keeps are checked against the tree first (exits 2). */
function unitsOf(name: string): Unit[] {
  const group = GROUPS[name]!;
  const files = testFiles(group.dir).filter((f) => !group.except?.includes(f));
  for (const f of [
    ...(group.only ?? []),
    ...(group.except ?? []),
    ...(name === 'api-cluster' ? Object.keys(CLUSTER_CANNOT) : []),
  ])
    if (!fs.existsSync(path.join(root, 'test', group.dir, f))) {
      // A listed file that was renamed or removed would silently run nowhere (or everywhere).
      console.error(`test/run.ts lists ${f}, which is not in test/${group.dir}`);
      process.exit(2);
    }
  if (name === 'api-cluster')
    for (const f of testFiles(group.dir)) {
      // A new API file runs through the cluster, or says why it cannot: never silently neither.
      const places = [CLUSTER_FILES.includes(f), f in CLUSTER_CANNOT].filter(Boolean).length;
      if (places !== 1) {
        console.error(`test/run.ts: ${f} must be in exactly one of CLUSTER_FILES and CLUSTER_CANNOT`);
        process.exit(2);
      }
    }
  // A group with no tests is a broken tree, not a pass (no run: counted as one failure).
  if (!files.length) return [];
  const journeyFiles = group.journeys ? testFiles(path.join(group.dir, 'journey')) : [];
  return group.batchesOf
    ? Array.from({ length: Math.ceil((group.only ?? files).length / group.batchesOf) }, (_, i) => ({
        dir: group.dir,
        file: null,
        files: (group.only ?? files).slice(i * group.batchesOf!, (i + 1) * group.batchesOf!),
      }))
    : group.only
      ? group.only.map((f) => ({ dir: group.dir, file: f }))
      : group.fileByFile
        ? [
            ...files.map((f) => ({
              dir: group.dir,
              file: f,
              env: group.journeys && f.startsWith('journey-') ? JOURNEY_ENV : undefined,
            })),
            ...journeyFiles.map((f) => ({ dir: path.join(group.dir, 'journey'), file: f, env: JOURNEY_ENV })),
          ]
        : [{ dir: group.dir, file: null }];
}

/** Builds the executable a group needs (when missing or older than the sources): the reason when it cannot. */
function built(group: Group): string | null {
  if (!group.needsBinary) return null;
  try {
    ensureBinary(group.env?.BURROW_TEST_TARGET);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

async function runGroup(name: string, units: Unit[], print: Printer): Promise<void> {
  const group = GROUPS[name]!;
  const started = Date.now();
  if (!units.length) {
    failed++;
    summary.set(name, `${group.label}: NO TESTS FOUND in test/${group.dir}`);
    return;
  }
  print.write(`\n=== ${group.label} ===\n`);
  const notes: string[] = [];
  // Built before any lane starts (a build blocks this process): here it is only found.
  const cannot = built(group);
  if (cannot) {
    failed++;
    summary.set(name, `${group.label}: FAILED, no executable: ${cannot}`);
    return;
  }
  let groupPassed = 0;
  let groupFailed = 0;
  let groupSkipped = 0;
  let journeySeconds = 0;
  for (const unit of units) {
    const started = Date.now();
    const label = unit.file
      ? path.join(unit.dir, unit.file).replace(/\.test\.ts$/, '')
      : unit.files
        ? `${unit.dir} (${unit.files[0]} … ${unit.files.at(-1)})`
        : unit.dir;
    const result = await runUvu(group, unit, print);
    print.ended(`${group.label}, ${label}`);
    if (result.crashed) notes.push(`${label} CRASHED (${result.crashed})`);
    else if (unit.file && result.failed) notes.push(`${label}: ${result.failed} failed`);
    if (unit.env === JOURNEY_ENV) journeySeconds += (Date.now() - started) / 1000;
    groupPassed += result.passed;
    groupFailed += result.failed;
    groupSkipped += result.skipped;
  }
  if (groupSkipped) notes.push(`${groupSkipped} skipped, counted as failed`);
  if (journeySeconds) notes.push(`journeys ${Math.round(journeySeconds)} s`);
  passed += groupPassed;
  failed += groupFailed + groupSkipped;
  summary.set(
    name,
    `${group.label}: ${groupPassed} passed, ${groupFailed + groupSkipped} failed (${seconds(started)} s)${notes.length ? ` [${notes.join('; ')}]` : ''}`,
  );
}

const units = new Map(selected.filter((n) => n !== 'typecheck').map((n) => [n, unitsOf(n)] as const));
if (selected.includes('typecheck')) typecheck();
// `unit` first and alone: a broken module shows there in a minute, before the long groups.
if (units.has('unit')) await runGroup('unit', units.get('unit')!, streamed);
const rest = [...units.keys()].filter((n) => n !== 'unit');
// Every executable the rest needs, built now: a build inside a lane would stall the other's output.
const buildStarted = Date.now();
const builds = new Set(rest.filter((n) => GROUPS[n]!.needsBinary).map((n) => GROUPS[n]!.env?.BURROW_TEST_TARGET));
for (const target of builds)
  try {
    ensureBinary(target);
  } catch {
    // Said by each group that needs it (runGroup).
  }
if (builds.size) console.log(`executables ready in ${seconds(buildStarted)} s`);
if (!process.argv.includes('--lanes')) for (const n of rest) await runGroup(n, units.get(n)!, streamed);
else {
  // Two lanes at once (--lanes): LANE_TWO's groups in the second, the rest in the first, each
  // lane in the order given. Measured, it gains little on 2 cores (LANE_TWO's comment).
  const second = rest.filter((n) => LANE_TWO.includes(n));
  const first = rest.filter((n) => !second.includes(n));
  const lane = async (names: string[], print: Printer) => {
    for (const n of names) await runGroup(n, units.get(n)!, print);
  };
  await Promise.all([lane(first, streamed), lane(second, kept('second lane'))]);
}

/** Runs uvu on a group (or one file of it) and reads its own count. */
async function runUvu(
  group: Group,
  unit: Unit,
  print: Printer,
): Promise<{ passed: number; failed: number; skipped: number; crashed?: string }> {
  const escape = (f: string) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = unit.file
    ? `^${escape(unit.file)}$`
    : unit.files
      ? `^(${unit.files.map(escape).join('|')})$`
      : '\\.test\\.ts$';
  // Streamed as it comes (a CI log shows progress), and kept to read uvu's count at the end.
  const ignore = unit.file ? [] : (group.except ?? []).flatMap((f) => ['-i', `^${escape(f)}$`]);
  const child = spawn(process.execPath, [uvu, path.join('test', unit.dir), pattern, ...ignore], {
    cwd: root,
    env: { ...baseEnv, ...group.env, ...unit.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  // Each file's time, from its name line to the next one's (or the end): the slowest are named
  // after the run, where the time of a group goes.
  const files: { name: string; ms: number }[] = [];
  let fileStarted = Date.now();
  let scanned = 0;
  const take = (chunk: Buffer) => {
    const text = chunk.toString('utf8').replace(/\x1b\[[0-9;]*m/g, '');
    out += text;
    print.write(text);
    for (let nl = out.indexOf('\n', scanned); nl >= 0; nl = out.indexOf('\n', scanned)) {
      const name = /^(\S+\.test\.ts)$/.exec(out.slice(scanned, nl))?.[1];
      scanned = nl + 1;
      if (!name) continue;
      const at = Date.now();
      if (files.length) files[files.length - 1]!.ms = at - fileStarted;
      files.push({ name, ms: 0 });
      fileStarted = at;
    }
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  // A deadline, not a pause: a group that hangs is killed after 40 minutes.
  const timer = setTimeout(() => child.kill('SIGKILL'), 40 * 60_000);
  const r = await new Promise<{ status: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (status, signal) => resolve({ status, signal })),
  );
  clearTimeout(timer);
  if (files.length) files[files.length - 1]!.ms = Date.now() - fileStarted;
  if (files.length > 1) {
    const slowest = [...files].sort((a, b) => b.ms - a.ms).slice(0, 8);
    print.write(`slowest files: ${slowest.map((f) => `${f.name} ${Math.round(f.ms / 1000)} s`).join(', ')}\n`);
  }
  // uvu's own count closes its output (the last match: a test may print such words too).
  const last = (re: RegExp) => [...out.matchAll(re)].pop()?.[1];
  const total = Number(last(/^\s*Total:\s+(\d+)$/gm) ?? NaN);
  const ok = Number(last(/^\s*Passed:\s+(\d+)$/gm) ?? NaN);
  const skipped = Number(last(/^\s*Skipped:\s+(\d+)$/gm) ?? 0);
  if (Number.isNaN(total) || Number.isNaN(ok)) {
    // Crashed (or timed out) before uvu could count: one failure, so CI cannot go green on it.
    return { passed: 0, failed: 1, skipped: 0, crashed: `exit ${r.status}${r.signal ? `, ${r.signal}` : ''}` };
  }
  // uvu's Total counts the tests that ran (a skipped test is not among them): failed = Total - Passed.
  // A non-zero exit with nothing failed (an error after the last test) is one failure.
  return { passed: ok, failed: Math.max(total - ok, r.status === 0 ? 0 : 1), skipped };
}

// A selected group with no line of its own never ran: a failure, never a silent gap.
for (const n of selected)
  if (!summary.has(n)) {
    failed++;
    summary.set(n, `${n}: did not run, counted as failed`);
  }
console.log('\n' + selected.map((n) => summary.get(n)).join('\n'));
console.log(`whole run: ${seconds(suiteStarted)} s`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
