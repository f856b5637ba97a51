// The embedded database in WAL (src/db/database.ts): a process killed (SIGKILL) in the middle of
// its transactions leaves its committed ones — and only whole ones — in the file plus its `-wal`,
// replayed at the next open; SQLite never needs shared memory (`-shm`); a clean close writes the
// WAL back and removes it. The index file is WAL too, and its rebuild after an unclean stop
// starts from an empty file without the old WAL's rows.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../src/core/log.ts';
import { Database } from '../../src/db/database.ts';
import { closeIndexFile, openIndexFile } from '../../src/indexer/index-db.ts';

const quiet = createLogger('error', {}, () => {});
const DATABASE = new URL('../../src/db/database.ts', import.meta.url).href;
const INDEX_DB = new URL('../../src/indexer/index-db.ts', import.meta.url).href;
const LOG = new URL('../../src/core/log.ts', import.meta.url).href;

/**
 * Runs `body` (an ES module's text) in a child Node; it prints one line per commit and is
 * killed (SIGKILL) once `killAfter` lines came, or kills itself. Resolves with the lines.
 */
function runKilled(body: string, killAfter = Infinity): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', body], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.split('\n').length - 1 >= killAfter) child.kill('SIGKILL');
    });
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (_code, signal) =>
      signal === 'SIGKILL'
        ? resolve(out.split('\n').filter(Boolean))
        : reject(new Error(`the child ended without being killed: ${err}`)),
    );
  });
}

/** What Burrow's instance lock does once it holds the folder: SQLite's lock directory a kill left goes. */
const leftoverLock = (file: string) => fs.rmSync(`${file}.lock`, { recursive: true, force: true });

const folder = () => fs.mkdtempSync(path.join(os.tmpdir(), 'burrow wal — Ünïcode & 100% #1 '));

test('a kill -9 between and inside transactions keeps every commit, whole, and no half one', async () => {
  const dir = folder();
  const file = path.join(dir, 'burrow.db');
  try {
    // Each transaction: one row in `commits` and 200 rows in `parts` naming it; the line is
    // printed after COMMIT returns. The kill lands anywhere, mostly inside a transaction.
    const lines = await runKilled(
      `
      import { Database } from ${JSON.stringify(DATABASE)};
      import fs from 'node:fs';
      const db = new Database(${JSON.stringify(file)});
      db.exec('CREATE TABLE commits (n INTEGER PRIMARY KEY); CREATE TABLE parts (n INTEGER, k INTEGER, name TEXT)');
      for (let n = 0; ; n++) {
        db.transaction(() => {
          db.run('INSERT INTO commits (n) VALUES (?)', [n]);
          for (let k = 0; k < 200; k++) db.run('INSERT INTO parts (n, k, name) VALUES (?, ?, ?)', [n, k, 'Ma photo – été 2024 😀 ' + k]);
        });
        fs.writeSync(1, n + '\\n');
      }
      `,
      60,
    );
    assert.ok(lines.length >= 60);
    assert.ok(fs.existsSync(`${file}-wal`), 'the commits are in the WAL beside the file');
    assert.not.ok(fs.existsSync(`${file}-shm`), 'no shared memory file');

    leftoverLock(file);
    const db = new Database(file);
    try {
      assert.equal(db.all('PRAGMA journal_mode'), [{ journal_mode: 'wal' }]);
      assert.equal(db.all('PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
      const last = Number(lines.at(-1));
      const { count, max } = db.get<{ count: number; max: number }>(
        'SELECT COUNT(*) AS count, MAX(n) AS max FROM commits',
      )!;
      assert.ok(max >= last, `commit ${last} was printed, the file has up to ${max}`);
      assert.is(count, max + 1, 'the commits from 0 on, none missing');
      assert.equal(
        db.all('SELECT n, COUNT(*) AS c FROM parts GROUP BY n HAVING c <> 200'),
        [],
        'every transaction whole',
      );
      assert.is(
        db.get<{ c: number }>('SELECT COUNT(DISTINCT n) AS c FROM parts')!.c,
        count,
        'no part of a transaction not committed',
      );
    } finally {
      db.close();
    }
    assert.not.ok(fs.existsSync(`${file}-wal`), 'a clean close writes the WAL back and removes it');
    assert.not.ok(fs.existsSync(`${file}-shm`));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the index rebuilt after an unclean stop does not get the old WAL back', async () => {
  const dir = folder();
  const file = path.join(dir, 'index.db');
  try {
    await runKilled(
      `
      import { Database } from ${JSON.stringify(DATABASE)};
      import { openIndexFile } from ${JSON.stringify(INDEX_DB)};
      import { createLogger } from ${JSON.stringify(LOG)};
      const db = new Database(${JSON.stringify(path.join(dir, 'main.db'))});
      openIndexFile(db, ${JSON.stringify(file)}, createLogger('error', {}, () => {}));
      db.run("INSERT INTO idx.idx_meta (key, value) VALUES ('left by the killed run', 'Ünïcode 😀')");
      process.kill(process.pid, 'SIGKILL');
      `,
    );
    assert.ok(fs.existsSync(`${file}-wal`), 'the killed run left its WAL');

    leftoverLock(path.join(dir, 'main.db'));
    const db = new Database(path.join(dir, 'main.db'));
    try {
      assert.is(openIndexFile(db, file, quiet, true), 'FOLDER_SIZE_REBUILD');
      assert.equal(db.all('PRAGMA idx.journal_mode'), [{ journal_mode: 'wal' }]);
      assert.equal(db.all('PRAGMA idx.quick_check'), [{ quick_check: 'ok' }]);
      assert.equal(
        db.all("SELECT key FROM idx.idx_meta WHERE key = 'left by the killed run'"),
        [],
        'a fresh index, without the rows of the old WAL',
      );
      closeIndexFile(db);
    } finally {
      db.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
