// The walker's thread started while the executable loads (src/indexer/early.ts): only on a server
// start that owes a full walk, never for the other modes or when nothing is indexed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEarlyWalker } from '../../src/indexer/early.ts';

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

test.run();
