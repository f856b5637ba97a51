// One release label everywhere: `burrow --version`, /api/features `version` and
// /api/openapi.json `x-release` agree; info.version keeps the spec's `unversioned`.
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { serverCommand, startServer } from '../support/server.ts';

test('--version, /api/features and /api/openapi.json name the same release', async () => {
  const c = serverCommand();
  const v = spawnSync(c.file, [...c.args, '--version'], { env: c.env, encoding: 'utf8', timeout: 30_000 });
  assert.is(v.status, 0, v.stderr);
  const release = v.stdout.trim();
  assert.match(release, /^\d+\.\d+\.\d+(-[\w.]+)?$/);
  const s = await startServer();
  try {
    const features = (await (await fetch(`${s.url}/api/features`)).json()) as { version: string };
    const doc = (await (await fetch(`${s.url}/api/openapi.json`)).json()) as {
      info: { version: string };
      'x-release': string;
    };
    assert.is(features.version, release);
    assert.is(doc['x-release'], release);
    assert.is(doc.info.version, 'unversioned');
    if (s.mode === 'executable') assert.not.match(release, /-dev$/, 'the executable carries its stamped release');
  } finally {
    await s.close();
  }
});

test.run();
