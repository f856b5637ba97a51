// The configuration cache's rule on a cluster (src/cluster/config-cache.ts), where a server
// cannot stage it: two instances' caches on one real PostgreSQL, each stream listening but the
// other's NOTIFY not read yet (as when its backend waits for a core on a loaded machine). A
// setting written through instance A is what instance B answers to a request that arrives after
// A's write returned; work outside a request trusts B's cache until the stream drops it.
// cluster.test.ts covers the same through three servers, where the NOTIFY usually wins the race.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createConfigCache, type ConfigSignals } from '../../src/cluster/config-cache.ts';
import { nextArrival, requestContext } from '../../src/core/log.ts';
import { loadMigrations, runMigrations } from '../../src/db/migrations.ts';
import { PostgresDatabase } from '../../src/db/postgres.ts';
import { createSettings } from '../../src/settings/service.ts';
import { createSettingsStore } from '../../src/settings/store.ts';
import { testPostgres } from '../support/postgres.ts';

/** A stream that listens and has not read the other instance's NOTIFY yet; `deliver` reads it. */
function slowStream() {
  const heard: (() => void)[] = [];
  const signals: ConfigSignals = {
    listening: () => true,
    on: (_topic, fn) => {
      heard.push(() => fn({}));
      return () => {};
    },
  };
  return { signals, deliver: () => heard.forEach((fn) => fn()) };
}

/** As the HTTP server runs a request: in its context, counted as it arrives. */
const request = <T>(fn: () => T): T => requestContext.run({ requestId: 'r', arrival: nextArrival() }, fn);

test('a setting written through one instance is what another answers to the next request, its NOTIFY not read yet', async () => {
  const url = await (await testPostgres()).database();
  const [dbA, dbB] = [new PostgresDatabase(url), new PostgresDatabase(url)];
  try {
    runMigrations(dbA, loadMigrations());
    const instance = (db: PostgresDatabase) => {
      const cache = createConfigCache(db);
      const stream = slowStream();
      cache.listen(stream.signals);
      return { settings: createSettings({ store: createSettingsStore(db), cache }), stream };
    };
    const [a, b] = [instance(dbA), instance(dbB)];
    // B has read the section (a request, then work outside one): its cache holds it.
    assert.is(
      request(() => b.settings.branding().appName),
      'Burrow',
    );
    assert.is(b.settings.branding().appName, 'Burrow');

    const name = 'Müller & Söhne #2 — Dateien 🦔';
    request(() => a.settings.setBranding({ appName: name }));
    // The next request through B: the version row says the cache is old.
    assert.is(
      request(() => b.settings.branding().appName),
      name,
    );

    request(() => a.settings.setBranding({ appName: 'Zoë’s files' }));
    // Outside a request B trusts its stream, which has not read the NOTIFY yet…
    assert.is(b.settings.branding().appName, name);
    // …until it does.
    b.stream.deliver();
    assert.is(b.settings.branding().appName, 'Zoë’s files');
  } finally {
    dbA.close();
    dbB.close();
  }
});

test.run();
