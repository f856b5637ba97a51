// The allocator's settings the executable starts itself again with (src/core/malloc-env.ts):
// added on Linux, beside a person's other glibc tunables, never over a malloc tunable they chose.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MALLOC_TUNABLES, mallocEnvironment } from '../../src/core/malloc-env.ts';
import { systemdUnit } from '../../src/service/plan.ts';

test('Linux without GLIBC_TUNABLES: the malloc tunables are added, the rest of the environment kept', () => {
  const env = mallocEnvironment({ PORT: '3000', VOLUME_ROOT: '/srv/Fotos & Filme' }, 'linux');
  assert.equal(env, { PORT: '3000', VOLUME_ROOT: '/srv/Fotos & Filme', GLIBC_TUNABLES: MALLOC_TUNABLES });
  assert.match(MALLOC_TUNABLES, /glibc\.malloc\.arena_max=2/);
  assert.match(MALLOC_TUNABLES, /glibc\.malloc\.mmap_threshold=131072/);
});

test("a person's other tunables stay, ours follow them", () => {
  const env = mallocEnvironment({ GLIBC_TUNABLES: 'glibc.pthread.rseq=0' }, 'linux');
  assert.is(env?.GLIBC_TUNABLES, `glibc.pthread.rseq=0:${MALLOC_TUNABLES}`);
});

test('a malloc tunable the person set wins, and the already started process is not started again', () => {
  assert.is(mallocEnvironment({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=8' }, 'linux'), null);
  assert.is(mallocEnvironment({ GLIBC_TUNABLES: MALLOC_TUNABLES }, 'linux'), null);
});

test('other systems: nothing (no glibc)', () => {
  assert.is(mallocEnvironment({}, 'darwin'), null);
  assert.is(mallocEnvironment({}, 'win32'), null);
});

test('the systemd unit sets them, so the service starts once', () => {
  const unit = systemdUnit(
    {
      binary: '/usr/local/bin/burrow',
      user: 'burrow',
      port: 3000,
      volumeRoot: '/srv/Familie Müller',
      writablePaths: [],
      purge: false,
    },
    { config: '/var/lib/burrow', cache: '/var/cache/burrow', volumes: '/srv/Familie Müller', logs: '' },
    '/usr/local/bin/burrow',
  );
  assert.ok(unit.includes(`Environment=GLIBC_TUNABLES=${MALLOC_TUNABLES}`), unit);
});

test.run();
