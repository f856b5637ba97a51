// Upgrades never lose data: a database made by the first released schema (its migrations as
// they were, test/fixtures/schema-first-release) is migrated by this Burrow, every row is
// still there, a snapshot was kept in CONFIG_DIR/backups first, and the account signs in. A
// database written by a newer Burrow is refused with a clear line and left byte-for-byte alone.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/db/database.ts';
import { runMigrations, type Migration } from '../../src/db/migrations.ts';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { signIn, me } from '../support/auth.ts';
import { makeDirs, removeDirs, serverCommand, startServer } from '../support/server.ts';

const fixture = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'fixtures', 'schema-first-release');

function firstReleaseMigrations(): Migration[] {
  return fs
    .readdirSync(fixture)
    .filter((f) => f.endsWith('.sql') && f.includes('--'))
    .map((f) => ({ id: f.replace('--', '/').slice(0, -4), sql: fs.readFileSync(path.join(fixture, f), 'utf8') }));
}

type Rows = Record<string, Record<string, unknown>[]>;

function allRows(db: Database, tables?: string[]): Rows {
  const names =
    tables ??
    db
      .all<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('schema_migrations', 'burrow_meta')",
      )
      .map((r) => r.name);
  return Object.fromEntries(names.map((t) => [t, db.all(`SELECT * FROM "${t}" ORDER BY rowid`)]));
}

async function firstReleaseDatabase(file: string): Promise<Rows> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const root = path.join(path.dirname(file), '..', 'first-release-files');
  for (const f of ['.trash/tr-1', '.versions/v-1', 'part', 'src', 'tmp']) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), 'old');
  }
  fs.mkdirSync(path.join(root, 'staging'), { recursive: true });
  fs.mkdirSync(path.join(root, 'photos'), { recursive: true });
  const db = new Database(file);
  try {
    runMigrations(db, firstReleaseMigrations());
    const hash = await hashPassword('first-release-pw');
    db.exec(
      fs
        .readFileSync(path.join(fixture, 'seed.sql'), 'utf8')
        .replaceAll('@HASH@', () => hash)
        .replaceAll('@ROOT@', () => root)
        .replaceAll('@NOW@', () => new Date().toISOString()),
    );
    // The first release had no burrow_meta table (runMigrations of this tree adds it).
    db.exec('DROP TABLE burrow_meta');
    return allRows(db);
  } finally {
    db.close();
  }
}

test('a database of the first released schema is backed up, migrated, and keeps every row', async () => {
  const dirs = makeDirs();
  fs.mkdirSync(path.join(dirs.volumes, 'Files'), { recursive: true });
  const before = await firstReleaseDatabase(path.join(dirs.config, 'burrow.db'));
  // Every table but the crash-recovery journal, which each start replays and empties.
  const empty = Object.entries(before)
    .filter(([t, r]) => !r.length && t !== 'file_op_journal')
    .map(([t]) => t);
  assert.equal(empty, [], 'the seed fills every table');
  const s = await startServer({ dirs });
  try {
    const backups = fs.readdirSync(path.join(dirs.config, 'backups'));
    assert.is(backups.length, 1, backups.join(','));
    assert.match(backups[0]!, /^burrow-before-release-record-\d{8}T\d{6}\.db$/);
    // The snapshot is the database as the first release left it.
    const snap = new Database(path.join(dirs.config, 'backups', backups[0]!));
    try {
      assert.equal(allRows(snap, Object.keys(before)), before);
    } finally {
      snap.close();
    }
    const admin = await signIn(s, 'admin', 'first-release-pw');
    assert.is((await me(admin)).username, 'admin');
    // Found by its email in another case, through the key written when the store first opened it.
    assert.is((await me(await signIn(s, 'ADMIN@Example.ORG', 'first-release-pw'))).username, 'admin');
    const features = await admin.request('GET', '/api/features');
    await s.withDatabase((db) => {
      assert.equal(
        db.all('SELECT id, name_key, email_key FROM users ORDER BY id'),
        [
          { id: 'u-admin', name_key: 'admin', email_key: 'admin@example.org' },
          { id: 'u-bob', name_key: 'bob', email_key: null },
        ],
        "every account's keys are written",
      );
      const after = allRows(db, Object.keys(before));
      for (const [table, rows] of Object.entries(before)) {
        for (const row of rows) {
          const kept = after[table]!.some((r) =>
            Object.entries(row).every(
              ([k, v]) => k === 'last_used_at' || k === 'renewed_at' || k === 'updated_at' || r[k] === v,
            ),
          );
          assert.ok(kept, `${table} keeps ${JSON.stringify(row)}`);
        }
      }
      assert.is(
        db.get<{ value: string }>("SELECT value FROM burrow_meta WHERE key = 'release'")?.value,
        features.json.version,
        'the release that migrated it is recorded',
      );
    });
  } finally {
    await s.close();
    removeDirs(dirs);
  }
});

function runToExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const c = serverCommand();
  return new Promise((resolve) => {
    const child = spawn(c.file, c.args, {
      env: { ...c.env, HOST: '127.0.0.1', PORT: '0', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => {
      stderr += d;
    });
    // A deadline, not a pause: a server that does not exit is killed.
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

test('a database written by a newer Burrow is refused with one clear line and not touched', async () => {
  const dirs = makeDirs();
  const file = path.join(dirs.config, 'burrow.db');
  try {
    await firstReleaseDatabase(file);
    const db = new Database(file);
    db.exec(
      "CREATE TABLE burrow_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO burrow_meta VALUES ('release', '9.0.0');",
    );
    db.run('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)', [
      'future/001_hologram_shares',
      new Date().toISOString(),
    ]);
    db.close();
    const hash = () => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
    const was = hash();
    const r = await runToExit({ CONFIG_DIR: dirs.config, CACHE_DIR: dirs.cache, VOLUME_ROOT: dirs.volumes });
    assert.is(r.code, 1, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.is(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /written by a newer Burrow \(9\.0\.0\)/);
    assert.match(lines[0]!, /future\/001_hologram_shares/);
    assert.match(lines[0]!, /Nothing was changed/);
    assert.is(hash(), was, 'the file is unchanged');
    assert.not.ok(fs.existsSync(path.join(dirs.config, 'backups')), 'no backup either: nothing was about to change');
  } finally {
    removeDirs(dirs);
  }
});

test('backups are bounded: the oldest go first', async () => {
  const { snapshotDatabase } = await import('../../src/db/migrations.ts');
  const dirs = makeDirs();
  const db = new Database(path.join(dirs.config, 'burrow.db'));
  try {
    db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1);');
    const backupDir = path.join(dirs.config, 'backups');
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      const f = snapshotDatabase(db, backupDir, `r${i}`, 5);
      made.push(path.basename(f));
    }
    const left = fs.readdirSync(backupDir).sort();
    assert.is(left.length, 5, left.join(','));
    assert.equal(left, made.slice(2).sort());
  } finally {
    db.close();
    removeDirs(dirs);
  }
});

test.run();
