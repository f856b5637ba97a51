// The terminal on a host where the pty add-on cannot load (no prebuilt binary for the
// platform, a C library too old): the features say why and the ticket route answers 503 with
// that reason, through the real HTTP server. The add-ons are injected (AppOptions.addons), so
// this runs from source only.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/core/log.ts';
import type { NativeAddons } from '../../src/native.ts';
import { setupAdmin } from '../support/auth.ts';
import { envelope } from '../support/client.ts';
import { makeDirs, removeDirs, type TestServer } from '../support/server.ts';

const REASON = 'pty.node: cannot open shared object file (test host without the add-on)';
const noPty: NativeAddons = {
  image: () => null,
  pty: () => null,
  check: () => ({
    image: { available: false, reason: 'not needed here' },
    pty: { available: false, reason: REASON },
  }),
};

test('without the pty add-on: features say why, the ticket route answers 503 TERMINAL_UNAVAILABLE', async () => {
  const dirs = makeDirs();
  const env = {
    CONFIG_DIR: dirs.config,
    VOLUME_ROOT: dirs.volumes,
    CACHE_DIR: dirs.cache,
    PORT: '0',
    TERMINAL_ENABLED: 'true',
  };
  const app = await createApp(loadConfig(env), {
    log: createLogger('error', {}, () => {}),
    uiDir: null,
    addons: noPty,
  });
  try {
    const { port } = await app.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${port}`;
    const admin = await setupAdmin({ url } as TestServer);
    const features = (await admin.get('/api/features')).json;
    assert.is(features.terminal.enabled, true);
    assert.is(features.terminal.available, false);
    assert.match(
      features.terminal.reason,
      /add-on \(@lydell\/node-pty\) cannot load on this host: pty\.node: cannot open/,
    );
    const r = await admin.post('/api/terminal/session', { cols: 80, rows: 24 }, { origin: url });
    assert.is(r.status, 503);
    assert.is(envelope(r).code, 'TERMINAL_UNAVAILABLE');
    assert.match(envelope(r).message, /cannot open shared object/);
    assert.ok(r.json.requestId ?? r.json.error?.requestId, 'the envelope carries the request id');
  } finally {
    await app.close(0);
    removeDirs(dirs);
  }
});

test.run();
