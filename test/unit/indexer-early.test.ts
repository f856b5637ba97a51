// The walker's thread started while the executable loads (src/indexer/early.ts): only on a server
// start that owes a full walk, never for the other modes or when nothing is indexed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEarlyWalker } from '../../src/indexer/early.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/core/log.ts';
import { RequestLoad } from '../../src/core/load.ts';
import { Database } from '../../src/db/database.ts';
import { Indexer, walkerAhead } from '../../src/indexer/indexer.ts';
import { WalkerClient } from '../../src/indexer/worker-client.ts';
import type { EntryRecord, WalkJob } from '../../src/indexer/protocol.ts';
import { waitFor } from '../support/wait.ts';

function sandbox() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-early-'));
  const env = {
    CONFIG_DIR: path.join(dir, 'config'),
    CACHE_DIR: path.join(dir, 'cache'),
    VOLUME_ROOT: path.join(dir, 'volumes'),
    LOG_LEVEL: 'error',
  };
  return { dir, env, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

test('a first start (no index file yet) starts the walker thread', async () => {
  const s = sandbox();
  try {
    const early = startEarlyWalker([], s.env);
    assert.ok(early, 'no thread started');
    assert.ok(early.client.running);
    await early.client.close();
    assert.not.ok(early.client.running);
  } finally {
    s.done();
  }
});

test('the cache folder given on the command line is the one looked at', async () => {
  const s = sandbox();
  try {
    const cache = path.join(s.dir, 'other-cache');
    fs.mkdirSync(cache);
    fs.writeFileSync(path.join(cache, 'index.db'), '');
    assert.is(startEarlyWalker(['--cache', cache], s.env), undefined);
    const early = startEarlyWalker(['--cache', cache], { ...s.env, FOLDER_SIZE_REBUILD: 'true' });
    assert.ok(early, 'a rebuild owes a full walk');
    await early.client.close();
  } finally {
    s.done();
  }
});

test('an index file already there (no rebuild asked): nothing starts before the database says what is owed', () => {
  const s = sandbox();
  try {
    fs.mkdirSync(s.env.CACHE_DIR, { recursive: true });
    fs.writeFileSync(path.join(s.env.CACHE_DIR, 'index.db'), '');
    assert.is(startEarlyWalker([], s.env), undefined);
  } finally {
    s.done();
  }
});

test('nothing starts for the other modes, a refused command line or configuration, or when nothing is indexed', () => {
  const s = sandbox();
  try {
    for (const argv of [
      ['doctor'],
      ['doctor', '--json'],
      ['service', 'status'],
      ['--help'],
      ['-h'],
      ['--version'],
      ['-v'],
      ['--self-check'],
      ['--check-addons'],
      ['--no-such-option'],
      ['positional'],
    ])
      assert.is(startEarlyWalker(argv, s.env), undefined, argv.join(' '));
    assert.is(startEarlyWalker([], { ...s.env, FOLDER_SIZE_MODE: 'off', SEARCH_INDEX_ENABLED: 'false' }), undefined);
    assert.is(startEarlyWalker([], { ...s.env, FOLDER_SIZE_MODE: 'sideways' }), undefined, 'a refused configuration');
  } finally {
    s.done();
  }
});

const quiet = createLogger('error', {}, () => {});

/** A volume of `folders` folders of two files each (3 + 5 bytes). */
function volume(dir: string, name: string, folders: number): string {
  for (let i = 0; i < folders; i++) {
    const d = path.join(dir, name, `f${i}`);
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, 'a'), 'abc');
    fs.writeFileSync(path.join(d, 'b'), 'abcde');
  }
  return fs.realpathSync(path.join(dir, name));
}

const job = (root: string): Omit<WalkJob, 'id'> => ({
  root,
  rel: '',
  concurrency: 8,
  batch: 0,
  pauseMs: 0,
  emit: 'dirs',
  excludes: [],
  sync: true,
  content: false,
});

test('a walk posted ahead is taken over by the same job (fields in any order), with every batch it sent', async () => {
  const s = sandbox();
  const client = new WalkerClient({ ioTimeoutMs: 0, maxStalledIo: 2 }, quiet);
  try {
    // With files: more records than the worker sends unacknowledged.
    const root = volume(s.dir, 'Data', 1000);
    client.prewalk({ ...job(root), emit: 'all' });
    // The worker runs into its credit limit: as many batches held, unacknowledged, as it may send
    // (CREDITS in walker.worker.ts; the client's own record of them, read here only).
    const held = () => (client as unknown as { prewalks: { batches: unknown[] }[] }).prewalks[0]?.batches.length;
    await waitFor(held, { what: 'the walk posted ahead to send its 4 batches', until: (n) => (n ?? 0) >= 4 });
    const { sync, ...rest } = { ...job(root), emit: 'all' as const };
    const records: EntryRecord[] = [];
    const run = client.walk({ sync, ...rest }, (entries) => {
      records.push(...entries);
      client.ack(run.id);
    });
    assert.is(run.id, 1, 'the walk posted ahead');
    const summary = await run.done;
    assert.is(summary.dirs, 1001);
    assert.is(records.length, 3001, 'each folder and file once');
    assert.is(records.find((r) => r.dir === '' && r.name === '')?.totalSize, 1000 * 8);
    assert.is(client.busy, 0);
  } finally {
    await client.close();
    s.done();
  }
});

test('a walk posted ahead that nobody asks for is cancelled; another job is walked afresh', async () => {
  const s = sandbox();
  const client = new WalkerClient({ ioTimeoutMs: 0, maxStalledIo: 2 }, quiet);
  try {
    const root = volume(s.dir, 'Data', 1000);
    client.prewalk(job(root));
    const other = client.walk({ ...job(root), emit: 'all' }, () => {});
    assert.is.not(other.id, 1, 'not the walk posted ahead');
    client.cancel(other.id);
    await other.done;
    client.dropPrewalks();
    await waitFor(() => client.busy === 0, { what: 'the walk posted ahead to end', seen: () => client.busy });
    assert.is(client.busy, 0, 'the walk posted ahead still runs');
    const records: EntryRecord[] = [];
    const again = client.walk(job(root), (entries) => records.push(...entries));
    again.done.catch(() => {}); // ended by close()
    assert.is.not(again.id, 1);
  } finally {
    await client.close();
    s.done();
  }
});

test('a first start walks the first volume ahead, and the indexer writes the same rows as without it', async () => {
  const s = sandbox();
  const dbs: Database[] = [];
  try {
    volume(path.join(s.dir, 'volumes'), 'A', 30);
    volume(path.join(s.dir, 'volumes'), 'B', 20);
    const config = loadConfig({ ...s.env, FOLDER_SIZE_MODE: 'full' });
    const rows = async (ahead: boolean, cache: string) => {
      const load = new RequestLoad();
      const file = path.join(cache, 'index.db');
      fs.mkdirSync(cache, { recursive: true });
      const client = ahead ? walkerAhead(config, quiet, load, undefined, file) : undefined;
      if (ahead) assert.ok(client && client.busy === 1, 'the first volume is walked ahead');
      const db = new Database(path.join(cache, 'main.db'));
      dbs.push(db);
      const indexer = new Indexer({ config, db, log: quiet, load, file, ...(client ? { client } : {}) });
      indexer.open();
      const sized = new Promise<void>((resolve) => {
        const off = indexer.onRootReady(() => {
          if (indexer.store.roots().every((r) => r.state === 'ready')) {
            off();
            resolve();
          }
        });
      });
      indexer.discover();
      await sized;
      const out = db.all<Record<string, unknown>>(
        'SELECT r.path, e.dir, e.name, e.is_dir, e.size, e.entries, e.total_size, e.total_entries, e.complete FROM idx.idx_entries e JOIN idx.idx_roots r ON r.id = e.root_id ORDER BY r.path, e.dir, e.name',
      );
      await indexer.stop();
      return out;
    };
    const ahead = await rows(true, path.join(s.dir, 'cache-ahead'));
    const plain = await rows(false, path.join(s.dir, 'cache-plain'));
    assert.is(ahead.length, 1 + 30 + 60 + (1 + 20 + 40), 'each volume, folder and file once');
    assert.equal(ahead, plain);
  } finally {
    for (const db of dbs) db.close();
    s.done();
  }
});

test.run();
