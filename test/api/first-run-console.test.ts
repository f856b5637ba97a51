// The first lines a person sees in a terminal are words, not JSON: where to open Burrow on this
// computer and from every LAN address, where the data lives, how to stop. Run under a real
// pseudo-terminal (node-pty). Without a terminal the log stays JSON, and no browser is opened
// outside a desktop session.
import os from 'node:os';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as pty from '@lydell/node-pty';
import { makeDirs, removeDirs, serverCommand } from '../support/server.ts';
import { browserCommand, lanAddresses, localUrl, shouldOpenBrowser } from '../../src/console.ts';
import { waitFor } from '../support/wait.ts';

/** Burrow started in a pseudo-terminal on `dirs`, with `env` over this run's environment (null removes a variable). */
function inTerminal(dirs: ReturnType<typeof makeDirs>, env: Record<string, string | null>) {
  const c = serverCommand();
  const full: Record<string, string> = {
    ...c.env,
    PORT: '0',
    MDNS_ENABLED: 'false',
    CONFIG_DIR: dirs.config,
    CACHE_DIR: dirs.cache,
    VOLUME_ROOT: dirs.volumes,
    TERM: 'xterm',
  };
  for (const [k, v] of Object.entries(env)) {
    if (v === null) delete full[k];
    else full[k] = v;
  }
  const term = pty.spawn(c.file, c.args, { cols: 160, rows: 50, env: full, cwd: dirs.root });
  let out = '';
  term.onData((d) => {
    out += d;
  });
  const exited = new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
  return { term, exited, output: () => out };
}

test('in a terminal: the address here and on the LAN, the data folders, how to stop; short log lines', async () => {
  const dirs = makeDirs();
  fs.mkdirSync(path.join(dirs.volumes, 'Files'));
  fs.writeFileSync(path.join(dirs.volumes, 'loose.txt'), 'x');
  // No DISPLAY: a terminal without a desktop never opens a browser.
  const { term, exited, output } = inTerminal(dirs, { HOST: '0.0.0.0', DISPLAY: null, WAYLAND_DISPLAY: null });
  try {
    await waitFor(() => output().includes('Stop: press Ctrl+C'), {
      what: 'the banner to end',
      timeoutMs: 60_000,
      seen: output,
    });
    const text = output().replace(/\r/g, '');
    assert.ok(text.includes('Stop: press Ctrl+C'), text);
    const lines = text.split('\n');
    assert.match(lines[0]!, /^Burrow \S+ is running\.$/, 'the first line is words');
    assert.not.match(text.slice(0, text.indexOf('Stop: press')), /\{"time"/, 'no JSON before the banner ends');
    const port = /Open it on this computer: {2}http:\/\/localhost:(\d+)\//.exec(text)?.[1];
    assert.ok(port, text);
    for (const a of lanAddresses().filter((x) => x.family === 'IPv4')) {
      assert.ok(
        text.includes(`http://${a.address}:${port}/   (${a.name})`),
        `LAN address ${a.address} (${a.name}) listed:\n${text}`,
      );
    }
    assert.match(text, /First start: open that address and create the administrator account\./);
    assert.ok(text.includes(`Database and settings:     ${dirs.config}`), text);
    assert.ok(text.includes(`each folder in ${dirs.volumes}`), text);
    assert.match(text, /Note: 1 file\(s\) at the top of .* are not shown/);
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.is(res.status, 200);
    term.kill('SIGINT');
    assert.is(await exited, 0);
    assert.match(
      output().replace(/\r/g, ''),
      /\n\d\d:\d\d:\d\d info {2}stopping {2}signal=SIGINT\n/,
      'later log lines are short words too',
    );
  } finally {
    try {
      term.kill('SIGKILL');
    } catch {
      /* gone */
    }
    removeDirs(dirs);
  }
});

test('without a terminal the log is JSON from the first line (services, tests)', async () => {
  const dirs = makeDirs();
  const c = serverCommand();
  const child = spawn(c.file, c.args, {
    env: {
      ...c.env,
      HOST: '127.0.0.1',
      PORT: '0',
      CONFIG_DIR: dirs.config,
      CACHE_DIR: dirs.cache,
      VOLUME_ROOT: dirs.volumes,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  try {
    await waitFor(() => out.includes('Burrow is listening'), {
      what: 'the listening line',
      timeoutMs: 60_000,
      seen: () => out,
    });
    const first = out.split('\n')[0]!;
    assert.is(typeof JSON.parse(first).msg, 'string', first);
    assert.ok(
      out
        .split('\n')
        .filter(Boolean)
        .every((l) => l.startsWith('{')),
      out,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
    removeDirs(dirs);
  }
});

test('HOST=127.0.0.1: the browser is opened at http://localhost:<port>/, never 127.0.0.1 (passkeys need a name)', async () => {
  const dirs = makeDirs();
  // A desktop session whose "browser" notes the address it was asked to open.
  const bin = path.join(dirs.root, 'bin');
  const opened = path.join(dirs.root, 'opened.txt');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o755 });
  const { term, exited, output } = inTerminal(dirs, {
    PATH: `${bin}:${serverCommand().env.PATH ?? '/usr/bin:/bin'}`,
    DISPLAY: ':0',
    HOST: '127.0.0.1',
    CI: null,
    BURROW_NO_OPEN: null,
    INVOCATION_ID: null,
    XPC_SERVICE_NAME: null,
  });
  try {
    await waitFor(() => fs.existsSync(opened) && fs.readFileSync(opened, 'utf8') !== '', {
      what: 'the browser to be asked to open an address',
      timeoutMs: 60_000,
      seen: output,
    });
    const text = output().replace(/\r/g, '');
    const port = /Open it on this computer: {2}http:\/\/localhost:(\d+)\//.exec(text)?.[1];
    assert.ok(port, text);
    assert.is(fs.readFileSync(opened, 'utf8'), `http://localhost:${port}/`);
    assert.match(text, /Other devices cannot reach it: HOST=127\.0\.0\.1 keeps Burrow to this computer\./);
    term.kill('SIGINT');
    assert.is(await exited, 0);
  } finally {
    try {
      term.kill('SIGKILL');
    } catch {
      /* gone */
    }
    removeDirs(dirs);
  }
});

test('the browser opens only for a person at a desktop on a new installation', () => {
  const base = { noOpen: false, tty: true, needsSetup: true };
  assert.ok(shouldOpenBrowser({ ...base, env: { DISPLAY: ':0' }, platform: 'linux' }));
  assert.ok(shouldOpenBrowser({ ...base, env: { WAYLAND_DISPLAY: 'wayland-0' }, platform: 'linux' }));
  assert.not.ok(shouldOpenBrowser({ ...base, env: {}, platform: 'linux' }), 'no desktop session');
  assert.ok(shouldOpenBrowser({ ...base, env: {}, platform: 'darwin' }));
  assert.ok(shouldOpenBrowser({ ...base, env: {}, platform: 'win32' }));
  assert.not.ok(shouldOpenBrowser({ ...base, noOpen: true, env: { DISPLAY: ':0' }, platform: 'linux' }), '--no-open');
  assert.not.ok(shouldOpenBrowser({ ...base, tty: false, env: { DISPLAY: ':0' }, platform: 'linux' }), 'no terminal');
  assert.not.ok(shouldOpenBrowser({ ...base, env: { DISPLAY: ':0', CI: 'true' }, platform: 'linux' }), 'CI');
  assert.not.ok(
    shouldOpenBrowser({ ...base, env: { DISPLAY: ':0', INVOCATION_ID: 'x' }, platform: 'linux' }),
    'systemd service',
  );
  assert.not.ok(
    shouldOpenBrowser({ ...base, env: { XPC_SERVICE_NAME: 'com.burrow.server' }, platform: 'darwin' }),
    'launchd',
  );
  assert.not.ok(
    shouldOpenBrowser({ ...base, needsSetup: false, env: { DISPLAY: ':0' }, platform: 'linux' }),
    'already set up',
  );
  assert.equal(browserCommand('http://localhost:3000/', 'linux'), ['xdg-open', ['http://localhost:3000/']]);
  assert.equal(browserCommand('http://localhost:3000/', 'darwin'), ['open', ['http://localhost:3000/']]);
  assert.equal(browserCommand('http://localhost:3000/', 'win32'), [
    'cmd.exe',
    ['/d', '/c', 'start', '""', 'http://localhost:3000/'],
  ]);
  const fake = {
    eth0: [
      { address: '192.168.1.20', family: 'IPv4', internal: false },
      { address: 'fe80::1', family: 'IPv6', internal: false },
    ],
    lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
    wg0: [{ address: '10.8.0.2', family: 'IPv4', internal: false }],
  } as unknown as NodeJS.Dict<os.NetworkInterfaceInfo[]>;
  assert.equal(
    lanAddresses(fake).map((a) => `${a.name} ${a.address}`),
    ['eth0 192.168.1.20', 'wg0 10.8.0.2'],
  );
  const at = (address: string, family = 'IPv4') => localUrl({ address, family, port: 3000 });
  assert.is(at('127.0.0.1'), 'http://localhost:3000/');
  assert.is(at('127.0.1.1'), 'http://localhost:3000/');
  assert.is(at('::1', 'IPv6'), 'http://localhost:3000/');
  assert.is(at('0.0.0.0'), 'http://localhost:3000/');
  assert.is(at('192.168.1.20'), 'http://192.168.1.20:3000/');
  assert.is(at('fd00::2', 'IPv6'), 'http://[fd00::2]:3000/');
});

test.run();
