// `burrow doctor` (and `--self-check`, the same words): a readable checklist, exit 0 on a
// healthy setup; an unwritable cache folder or a port taken by another program is a FAIL line
// saying what to do, and a non-zero exit. `--json` is the same checks for machines.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeDirs, removeDirs, serverCommand, startServer } from '../support/server.ts';

function burrow(
  args: string[],
  env: Record<string, string>,
): { status: number | null; stdout: string; stderr: string } {
  const c = serverCommand();
  const r = spawnSync(c.file, [...c.args, ...args], {
    env: { ...c.env, HOST: '127.0.0.1', ...env },
    encoding: 'utf8',
    timeout: 90_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const line = (out: string, name: string) =>
  out.split('\n').find((l) => new RegExp(`^  (ok  |warn|FAIL)  ${name} `).test(l));

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

test('a healthy setup: every check listed, exit 0; --self-check says the same; --json for machines', async () => {
  const dirs = makeDirs();
  fs.mkdirSync(path.join(dirs.volumes, 'Photos'));
  fs.writeFileSync(path.join(dirs.volumes, 'stray.txt'), 'x');
  const env = {
    CONFIG_DIR: dirs.config,
    CACHE_DIR: dirs.cache,
    VOLUME_ROOT: dirs.volumes,
    PORT: String(await freePort()),
  };
  try {
    const r = burrow(['doctor'], env);
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^Burrow doctor\n/);
    assert.match(line(r.stdout, 'version')!, /ok {4}version +Burrow \S+ \((executable|from source), linux-/);
    assert.match(line(r.stdout, 'Node')!, /v24\./);
    assert.match(line(r.stdout, 'images add-on')!, /^ {2}ok .*loads/);
    assert.match(line(r.stdout, 'terminal add-on')!, /^ {2}ok .*loads/);
    assert.ok(line(r.stdout, 'ffmpeg'), 'ffmpeg presence is reported');
    assert.match(line(r.stdout, 'CONFIG_DIR')!, /^ {2}ok .*(writable|will be made).*free/);
    assert.match(line(r.stdout, 'CACHE_DIR')!, /^ {2}ok .*free/);
    assert.match(line(r.stdout, 'volume Photos')!, /^ {2}ok .*readable and writable/);
    assert.match(line(r.stdout, 'VOLUME_ROOT')!, /^ {2}warn .*1 loose file\(s\) at its top are not shown/);
    assert.match(line(r.stdout, 'port')!, new RegExp(`^  ok .*127\\.0\\.0\\.1:${env.PORT} is free`));
    assert.match(line(r.stdout, 'instance lock')!, /free/);
    // HTTPS is on by default: passkeys work at each name opened over it, no PUBLIC_URL needed.
    assert.match(line(r.stdout, 'PUBLIC_URL')!, /^ {2}ok .*passkeys work at localhost and, over HTTPS, at each name/);
    assert.match(line(r.stdout, 'network name')!, /^ {2}ok +network name +not announced: HOST=127\.0\.0\.1 keeps/);
    const lan = burrow(['doctor'], { ...env, MDNS_ENABLED: 'true' });
    assert.match(
      line(lan.stdout, 'network name')!,
      /^ {2}ok .*burrow\.local is announced on the network \(mDNS\) while Burrow runs/,
    );
    assert.match(r.stdout, /Burrow can run here; \d+ warning\(s\)\.\n$/);
    // Free space moves between two runs (other writers on the disk): compare the text without its figures.
    const withoutFigures = (text: string) => text.replace(/\d+(\.\d+)? [KMGT]?B free/g, 'N free');
    assert.is(
      withoutFigures(burrow(['--self-check'], env).stdout),
      withoutFigures(r.stdout),
      '--self-check is the doctor',
    );
    const j = burrow(['doctor', '--json'], env);
    const parsed = JSON.parse(j.stdout) as { ok: boolean; checks: { name: string; status: string; detail: string }[] };
    assert.is(parsed.ok, true);
    assert.ok(parsed.checks.some((c) => c.name === 'port' && c.status === 'ok'));
    const plain = burrow(['doctor'], { ...env, HTTPS_PORT: 'off' });
    assert.match(line(plain.stdout, 'PUBLIC_URL')!, /^ {2}warn .*passkeys work only at http:\/\/localhost/);
    const https = burrow(['doctor'], { ...env, PUBLIC_URL: 'https://files.example.org' });
    assert.match(line(https.stdout, 'PUBLIC_URL')!, /^ {2}ok .*passkeys are bound to files\.example\.org/);
  } finally {
    removeDirs(dirs);
  }
});

test('an unwritable cache folder and a taken port fail, with a non-zero exit', async () => {
  const dirs = makeDirs();
  const blocker = net.createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  const port = (blocker.address() as net.AddressInfo).port;
  fs.mkdirSync(dirs.config, { recursive: true });
  fs.writeFileSync(path.join(dirs.root, 'a-file'), 'x');
  try {
    // A file where a folder must be: no account, root included, can make the cache there.
    const r = burrow(['doctor'], {
      CONFIG_DIR: dirs.config,
      CACHE_DIR: path.join(dirs.root, 'a-file', 'cache'),
      VOLUME_ROOT: dirs.volumes,
      PORT: String(port),
    });
    assert.is(r.status, 1, r.stdout + r.stderr);
    assert.match(
      line(r.stdout, 'CACHE_DIR')!,
      /^ {2}FAIL {2}CACHE_DIR .*cannot be written: a part of the path is a file\. Point CACHE_DIR at a folder/,
    );
    assert.match(
      line(r.stdout, 'port')!,
      new RegExp(`^  FAIL  port .*127\\.0\\.0\\.1:${port} is in use: another program uses it`),
    );
    assert.match(line(r.stdout, 'CONFIG_DIR')!, /^ {2}ok /);
    assert.match(r.stdout, /2 problem\(s\) stop Burrow from working here/);
    const j = JSON.parse(
      burrow(['doctor', '--json'], {
        CONFIG_DIR: dirs.config,
        CACHE_DIR: path.join(dirs.root, 'a-file', 'cache'),
        VOLUME_ROOT: dirs.volumes,
        PORT: String(port),
      }).stdout,
    );
    assert.is(j.ok, false);
  } finally {
    blocker.close();
    removeDirs(dirs);
  }
});

test('next to a running Burrow: the lock and the port are its own, not a failure', async () => {
  const s = await startServer();
  try {
    const port = new URL(s.url).port;
    const r = burrow(['doctor'], {
      CONFIG_DIR: s.dirs.config,
      CACHE_DIR: s.dirs.cache,
      VOLUME_ROOT: s.dirs.volumes,
      PORT: port,
    });
    assert.is(r.status, 0, r.stdout);
    assert.match(line(r.stdout, 'instance lock')!, /held by a running Burrow \(pid \d+, started [^,]+, Burrow [^)]+\)/);
    assert.match(line(r.stdout, 'port')!, /in use, presumably by the running Burrow/);
  } finally {
    await s.close();
  }
});

test.run();
