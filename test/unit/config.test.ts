import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, allVariables, loadConfig, parseSize } from '../../src/config.ts';

const ctx = { dataDir: '/data/burrow', cacheDir: '/cache/burrow' };

test('sizes accept plain bytes and K/M/G/T units with or without B', () => {
  assert.is(parseSize('1048576'), 1048576);
  assert.is(parseSize('512M'), 512 * 1024 ** 2);
  assert.is(parseSize('64GB'), 64 * 1024 ** 3);
  assert.is(parseSize('1.5GiB'), 1.5 * 1024 ** 3);
  assert.is(parseSize('2 t'), 2 * 1024 ** 4);
  assert.is(parseSize('12 apples'), null);
  assert.is(parseSize('-1M'), null);
});

test('defaults come from the per-user data folders', () => {
  const c = loadConfig({}, ctx);
  assert.is(c.server.port, 3000);
  assert.is(c.storage.volumeRoot, '/data/burrow/volumes');
  assert.is(c.storage.configDir, '/data/burrow/config');
  assert.is(c.storage.cacheDir, '/cache/burrow');
  assert.is(c.auth.mode, 'both');
  assert.is(c.uploads.maxDirectUploadSize, 64 * 1024 ** 3);
  assert.is(c.folderSize.subtreeBatch, 100);
  assert.ok(Object.isFrozen(c) && Object.isFrozen(c.storage));
});

test('a bad value stops with one line naming the variable and what it accepts', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: 'eighty' }, /^PORT="eighty" is not valid: it accepts a whole number from 0 to 65535\.$/],
    [{ PORT: '70000' }, /^PORT=/],
    [{ MAX_DIRECT_UPLOAD_SIZE: 'big' }, /^MAX_DIRECT_UPLOAD_SIZE=.*512M/],
    [{ AUTH_MODE: 'sometimes' }, /^AUTH_MODE=.*local, oidc, both, disabled/],
    [{ USER_DIR_ENABLED: 'maybe' }, /^USER_DIR_ENABLED=.*true or false/],
    [{ FOLDER_SIZE_MODE: 'deep' }, /^FOLDER_SIZE_MODE=.*off, full, shallow/],
    [{ PUBLIC_URL: 'files.example.org' }, /^PUBLIC_URL=/],
    [{ OIDC_MOBILE_REDIRECT_URIS: 'https://evil.example' }, /^OIDC_MOBILE_REDIRECT_URIS=/],
  ];
  for (const [env, pattern] of cases) {
    try {
      loadConfig(env, ctx);
      assert.unreachable(`accepted ${JSON.stringify(env)}`);
    } catch (err) {
      assert.instance(err, ConfigError);
      assert.match((err as Error).message, pattern);
      assert.not.match((err as Error).message, /\n/);
    }
  }
});

test('AUTH_ENABLED=false means AUTH_MODE=disabled; subtree knobs follow the reconcile ones', () => {
  assert.is(loadConfig({ AUTH_ENABLED: 'false' }, ctx).auth.mode, 'disabled');
  const c = loadConfig({ FOLDER_SIZE_RECONCILE_BATCH: '7', FOLDER_SIZE_RECONCILE_PAUSE_MS: '9' }, ctx);
  assert.is(c.folderSize.subtreeBatch, 7);
  assert.is(c.folderSize.subtreePauseMs, 9);
});

test('the README table lists exactly the variables the config reads, with the same defaults', () => {
  const readme = fs.readFileSync(
    path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'README.md'),
    'utf8',
  );
  const rows = new Map<string, string>();
  for (const line of readme.split('\n')) {
    const m = /^\|\s*`([A-Z][A-Z0-9_]+)`\s*\|\s*([^|]*?)\s*\|/.exec(line);
    if (m) rows.set(m[1]!, m[2]!.replace(/^`|`$/g, ''));
  }
  const vars = allVariables();
  for (const v of vars) {
    assert.ok(rows.has(v.name), `README is missing ${v.name}`);
    assert.is(rows.get(v.name), v.defaultText, `README default of ${v.name}`);
  }
  const names = new Set(vars.map((v) => v.name));
  for (const name of rows.keys()) assert.ok(names.has(name), `README lists ${name}, which the config does not read`);
});

test.run();
