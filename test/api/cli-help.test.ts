// `burrow --help` as a person reads it, from source and from the executable: a short screen
// (usage, the common options, where the data lives, `burrow doctor`, `burrow service`), the whole
// list of variables behind `--help all`; NextExplorer's app address is accepted but never shown
// as Burrow's own (help, doctor).
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allVariables } from '../../src/config.ts';
import { makeDirs, removeDirs, serverCommand } from '../support/server.ts';

const dirs = makeDirs('burrow-help-');
// A person's folders with a space and an accent, given by the variables the help then names.
const env = {
  CONFIG_DIR: `${dirs.root}/Réglages Burrow`,
  VOLUME_ROOT: `${dirs.root}/Mes volumes`,
  CACHE_DIR: `${dirs.root}/cache`,
};

function burrow(args: string[], extra: Record<string, string> = {}) {
  const c = serverCommand();
  const r = spawnSync(c.file, [...c.args, ...args], {
    env: { ...c.env, ...env, ...extra },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

test.after(() => removeDirs(dirs));

test('--help is one screen: usage, options, where the data lives, the doctor and the service', () => {
  const { status, out, err } = burrow(['--help']);
  assert.is(status, 0, err);
  const lines = out.trimEnd().split('\n');
  assert.ok(lines.length <= 40, `${lines.length} lines:\n${out}`);
  assert.match(lines[0]!, /^Burrow \S+: a self-hosted web file manager\.$/);
  for (const option of ['--port N', '--host ADDRESS', '--volumes DIR', '--config DIR', '--no-open', '--help [all]'])
    assert.ok(out.includes(option), option);
  assert.match(out, /burrow doctor \[--json\]/);
  assert.match(out, /burrow service install/);
  assert.match(out, /burrow db copy --to URL/);
  assert.ok(out.includes(`Volumes                     ${env.VOLUME_ROOT}`), out);
  assert.ok(out.includes(`Database and settings       ${env.CONFIG_DIR}`), out);
  assert.ok(out.includes(`Cache                       ${env.CACHE_DIR}`), out);
  assert.match(out, /PUBLIC_URL/);
  assert.match(out, new RegExp(`burrow --help all lists all ${allVariables().length} variables`));
  // Not the wall: the tuning knobs are behind --help all.
  for (const knob of ['FOLDER_SIZE_RECONCILE_BATCH', 'TUS_INCOMPLETE_UPLOAD_TTL_MS', 'OIDC_MOBILE_REDIRECT_URIS'])
    assert.not.ok(out.includes(knob), knob);
  assert.not.match(out, /nextexplorer/i);
  // The options set the folders the help names.
  const moved = burrow(['--help', '--config', `${dirs.root}/elsewhere`]);
  assert.ok(moved.out.includes(`Database and settings       ${dirs.root}/elsewhere`), moved.out);
  assert.is(burrow(['-h']).out, out);
});

test('--help all (and `burrow help all`) lists every variable with its default', () => {
  const { status, out, err } = burrow(['--help', 'all']);
  assert.is(status, 0, err);
  for (const v of allVariables()) assert.ok(out.includes(`  ${v.name} `), v.name);
  assert.match(out, /\[3000\] HTTP port/);
  assert.is(burrow(['help', 'all']).out, out);
  assert.is(burrow(['--help', 'ALL']).out, out);
  const mobile = out.split('\n').find((l) => l.includes('OIDC_MOBILE_REDIRECT_URIS'))!;
  assert.not.match(mobile, /\[nextexplorer/, 'not shown as a default of ours');
  assert.match(mobile, /NextExplorer's iOS app \(a third-party app/);
});

test('a word help does not know stops with one line', () => {
  const r = burrow(['--help', 'everything']);
  assert.is(r.status, 1);
  assert.is(r.out, '');
  assert.is(r.err, "burrow: Unexpected argument 'everything' (see burrow --help)\n");
});

test('the doctor names the default app address as NextExplorer’s, not Burrow’s', () => {
  const r = burrow(['doctor', '--json'], {
    OIDC_ENABLED: 'true',
    OIDC_ISSUER: 'https://id.example.org',
    OIDC_CLIENT_ID: 'burrow',
    PORT: '0',
  });
  const checks = JSON.parse(r.out).checks as { name: string; status: string; detail: string }[];
  const sso = checks.find((c) => c.name === 'single sign-on')!;
  assert.is(sso.status, 'ok');
  assert.match(sso.detail, /provider https:\/\/id\.example\.org/);
  assert.match(sso.detail, /nextexplorer:\/\/oidc-callback \(the default: NextExplorer's iOS app, a third-party app/);
  const own = burrow(['doctor', '--json'], {
    OIDC_ENABLED: 'true',
    OIDC_ISSUER: 'https://id.example.org',
    OIDC_MOBILE_REDIRECT_URIS: 'myfiles://signed-in',
    PORT: '0',
  });
  const mine = (JSON.parse(own.out).checks as { name: string; detail: string }[]).find(
    (c) => c.name === 'single sign-on',
  )!;
  assert.match(mine.detail, /native apps may return to myfiles:\/\/signed-in$/);
});

test.run();
