// The name announced on the network is the address Burrow gives out while PUBLIC_URL is unset:
// Burrow runs in a network namespace the test makes (its own link, nobody else's mDNS), in a real
// pseudo-terminal (node-pty) as a person starts it. The banner names https://burrow.local:<port>/
// first for other devices, `burrow doctor` beside the running server says it is announced, and a
// share link made at localhost names it instead of an address no other device can open.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as pty from '@lydell/node-pty';
import { makeDirs, removeDirs, serverCommand } from '../support/server.ts';
import { makeNetnsPair } from '../support/netns.ts';
import { waitFor } from '../support/wait.ts';

function runToEnd(
  file: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', () => resolve({ stdout, stderr }));
  });
}

test('banner, doctor and a link made at localhost name https://burrow.local:<port> once it is announced', async () => {
  const net = makeNetnsPair('named');
  const dirs = makeDirs('burrow-named-');
  const photos = path.join(dirs.volumes, 'Fotos & Videos', 'Sommer 2025 #1');
  fs.mkdirSync(photos, { recursive: true });
  fs.writeFileSync(path.join(photos, 'Strand “Zoë” 🏖.jpg'), 'not really a photo');
  const c = serverCommand();
  const env: Record<string, string> = {
    ...c.env,
    HOST: '0.0.0.0',
    PORT: '0',
    MDNS_ENABLED: 'true',
    CONFIG_DIR: dirs.config,
    CACHE_DIR: dirs.cache,
    VOLUME_ROOT: dirs.volumes,
    TERM: 'xterm',
  };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  const term = pty.spawn('ip', ['netns', 'exec', net.a.name, c.file, ...c.args], {
    cols: 200,
    rows: 50,
    env,
    cwd: dirs.root,
  });
  let out = '';
  term.onData((d) => (out += d));
  const exited = new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
  const inA = (...argv: string[]) => net.a.run(argv);
  try {
    await waitFor(() => out.includes('Stop: press Ctrl+C'), { what: 'the banner', timeoutMs: 90_000, seen: () => out });
    const text = out.replace(/\r/g, '');
    const port = /Open it on this computer: {2}http:\/\/localhost:(\d+)\//.exec(text)?.[1];
    const https = /From other devices: {8}https:\/\/burrow\.local:(\d+)\/ {3}\(announced on the network\)\n/.exec(
      text,
    )?.[1];
    assert.ok(port && https, text);
    // The addresses follow, for a device that does not resolve .local names.
    assert.ok(text.includes(`http://${net.a.address}:${port}/`), text);

    // `burrow doctor` beside the running server (it reads the server's files: run from here).
    const doctor = await runToEnd(c.file, [...c.args, 'doctor'], { ...env, PORT: port! });
    assert.match(
      doctor.stdout,
      new RegExp(`ok +network name +https://burrow\\.local:${https}/ is announced on the network \\(mDNS\\)`),
      doctor.stdout + doctor.stderr,
    );
    assert.match(
      doctor.stdout,
      new RegExp(`PUBLIC_URL +not set: share links made at localhost .*burrow\\.local:${https}/`),
    );

    // A link made at localhost names burrow.local (curl on the server's own machine, as a person would).
    const local = `http://localhost:${port}`;
    const setup = await inA(
      'curl',
      '-sS',
      '-D',
      '-',
      '-o',
      '/dev/null',
      '-H',
      'Content-Type: application/json',
      '--data',
      JSON.stringify({ email: 'zoe@example.org', password: 'Grüße & “Schlüssel” #1' }),
      `${local}/api/auth/setup`,
    );
    const cookie = /set-cookie: (connect\.sid=[^;]+)/i.exec(setup.stdout)?.[1];
    assert.ok(cookie, setup.stdout + setup.stderr);
    const made = await inA(
      'curl',
      '-sS',
      '-H',
      'Content-Type: application/json',
      '-H',
      `Cookie: ${cookie}`,
      '--data',
      JSON.stringify({ sourcePath: 'Fotos & Videos/Sommer 2025 #1' }),
      `${local}/api/shares`,
    );
    const link = JSON.parse(made.stdout);
    assert.match(link.shareUrl, new RegExp(`^https://burrow\\.local:${https}/s/`), made.stdout);
    // The page at localhost is told the name too.
    const features = JSON.parse((await inA('curl', '-sS', `${local}/api/features`)).stdout);
    assert.is(features.network.announced, `https://burrow.local:${https}`);

    term.kill('SIGTERM');
    assert.is(await exited, 0);
    // Withdrawn: the address is no longer given out by doctor.
    assert.not.ok(fs.existsSync(path.join(dirs.config, 'announced')));
  } finally {
    try {
      term.kill('SIGKILL');
    } catch {
      /* ended */
    }
    net.remove();
    removeDirs(dirs);
  }
});

test.run();
