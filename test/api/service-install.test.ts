// `burrow service install | uninstall | status --dry-run` on every platform: the exact files and
// programs, checked as the platform would read them (the plist and the task XML parsed by a real
// parser), and nothing changed on this computer.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { serverCommand } from '../support/server.ts';

function burrow(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const c = serverCommand();
  const r = spawnSync(c.file, [...c.args, ...args], { env: c.env, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The text of a file the dry run would write. */
function written(out: string, file: string): string {
  const start = out.indexOf(`write ${file} `);
  assert.ok(start >= 0, `writes ${file}:\n${out}`);
  const body = out.slice(out.indexOf('----8<----\n', start) + 11, out.indexOf('   ---->8----', start));
  return body
    .split('\n')
    .map((l) => l.replace(/^ {3}/, ''))
    .join('\n');
}

function python(code: string, input: string): string {
  const r = spawnSync('python3', ['-c', code], { input, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  return r.stdout.trim();
}

test('linux: a systemd unit with its own user, state/cache folders, hardening and the volumes writable', () => {
  const before = fs.existsSync('/etc/systemd/system/burrow.service');
  const r = burrow(
    'service',
    'install',
    '--dry-run',
    '--platform',
    'linux',
    '--port',
    '8080',
    '--volumes',
    '/srv/my files',
    '--writable',
    '/data/photos',
  );
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /^burrow service install --dry-run \(linux\): nothing is changed/);
  const unit = written(r.stdout, '/etc/systemd/system/burrow.service');
  for (const line of [
    'User=burrow',
    'Group=burrow',
    'ExecStart=/usr/local/bin/burrow --no-open',
    'StateDirectory=burrow',
    'CacheDirectory=burrow',
    'Environment=CONFIG_DIR=/var/lib/burrow',
    'Environment=CACHE_DIR=/var/cache/burrow',
    'Environment=PORT=8080',
    'ProtectSystem=strict',
    'NoNewPrivileges=true',
    'PrivateTmp=true',
    'StandardOutput=journal',
    'ReadWritePaths="/srv/my files" /data/photos',
    'WantedBy=multi-user.target',
  ]) {
    assert.ok(unit.split('\n').includes(line), `unit has ${line}:\n${unit}`);
  }
  assert.match(
    r.stdout,
    /run: useradd --system --user-group --no-create-home --home-dir \/var\/lib\/burrow --shell \/usr\/sbin\/nologin burrow {3}\(only if `id -u burrow` fails\)/,
  );
  assert.match(r.stdout, /run: systemctl daemon-reload\n/);
  assert.match(r.stdout, /run: systemctl enable burrow.service\n[^\n]*\n\d+\. run: systemctl restart burrow.service/);
  assert.match(r.stdout, /copy <the burrow executable>|copy \/.+ to \/usr\/local\/bin\/burrow/);
  assert.is(fs.existsSync('/etc/systemd/system/burrow.service'), before, 'nothing written');
});

test('linux: --database-url is kept root-only in /etc/burrow/database.env, which the unit reads; the dry run hides the password', () => {
  const url = 'postgres://burrow:Zoë%27s%20p%40ss@db.example.org:5432/burrow';
  const r = burrow('service', 'install', '--dry-run', '--platform', 'linux', '--database-url', url);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /write \/etc\/burrow\/database\.env \(mode 600\): the PostgreSQL address/);
  assert.match(
    written(r.stdout, '/etc/burrow/database.env'),
    /DATABASE_URL=postgres:\/\/burrow:\*\*\*@db\.example\.org:5432\/burrow/,
  );
  assert.not.match(r.stdout, /p%40ss/);
  const unit = written(r.stdout, '/etc/systemd/system/burrow.service');
  assert.ok(unit.split('\n').includes('EnvironmentFile=-/etc/burrow/database.env'), unit);
  // A reinstall without it keeps the file (not written) and the unit still reads it.
  const again = burrow('service', 'install', '--dry-run', '--platform', 'linux');
  assert.not.match(again.stdout, /write \/etc\/burrow\/database\.env/);
  assert.ok(
    written(again.stdout, '/etc/systemd/system/burrow.service').includes('EnvironmentFile=-/etc/burrow/database.env'),
  );
  const bad = burrow('service', 'install', '--dry-run', '--platform', 'linux', '--database-url', 'mysql://x');
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /--database-url must be postgres:\/\//);
});

test('linux: systemd itself reads the unit without a complaint (systemd-analyze verify)', () => {
  // A space (systemd splits words on it) and a % (systemd expands specifiers such as %h).
  const r = burrow('service', 'install', '--dry-run', '--platform', 'linux', '--volumes', '/srv/my files/100%z');
  assert.is(r.status, 0, r.stderr);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-unit-'));
  try {
    const unit = path.join(dir, 'burrow.service');
    fs.writeFileSync(unit, written(r.stdout, '/etc/systemd/system/burrow.service'));
    // The unit names the installed executable; in a mount namespace of its own (root, as CI
    // runs) a stand-in is bound there, so the check is systemd's and this host is not touched.
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'burrow'), '#!/bin/sh\n', { mode: 0o755 });
    const v = spawnSync(
      'unshare',
      [
        '--mount',
        'sh',
        '-c',
        'mkdir -p /usr/local/bin && mount --bind "$1" /usr/local/bin && exec systemd-analyze verify --man=no "$2"',
        'verify',
        bin,
        unit,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.is(v.status, 0, `${v.error ?? ''}${v.stdout}${v.stderr}`);
    // systemd warns and goes on for a setting it cannot read ("…, ignoring"): none may be there.
    assert.is((v.stdout + v.stderr).trim(), '', 'systemd has something to say about the unit');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('linux: uninstall keeps the data; --purge removes all but the volumes', () => {
  const keep = burrow('service', 'uninstall', '--dry-run', '--platform', 'linux');
  assert.is(keep.status, 0, keep.stderr);
  assert.match(keep.stdout, /run: systemctl disable --now burrow.service/);
  assert.match(keep.stdout, /remove \/etc\/systemd\/system\/burrow.service/);
  assert.not.match(keep.stdout, /remove \/var\/lib\/burrow/);
  assert.match(keep.stdout, /Data kept: \/var\/lib\/burrow/);
  const purge = burrow('service', 'uninstall', '--dry-run', '--platform', 'linux', '--purge');
  assert.match(purge.stdout, /remove \/var\/lib\/burrow\n/);
  assert.match(purge.stdout, /remove \/var\/cache\/burrow\n/);
  assert.match(purge.stdout, /run: userdel burrow/);
  assert.not.match(purge.stdout, /remove \/srv\/burrow/);
  assert.match(purge.stdout, /Volumes are never removed: \/srv\/burrow/);
});

test('macos: a launchd daemon (a valid plist) and the ad-hoc signature', () => {
  const r = burrow('service', 'install', '--dry-run', '--platform', 'macos', '--user', 'ana', '--port', '3001');
  assert.is(r.status, 0, r.stderr);
  const plist = written(r.stdout, '/Library/LaunchDaemons/com.burrow.server.plist');
  const parsed = JSON.parse(
    python('import plistlib,sys,json; print(json.dumps(plistlib.loads(sys.stdin.buffer.read())))', plist),
  );
  assert.is(parsed.Label, 'com.burrow.server');
  assert.equal(parsed.ProgramArguments, ['/usr/local/bin/burrow', '--no-open']);
  assert.is(parsed.UserName, 'ana');
  assert.equal(parsed.EnvironmentVariables, {
    CONFIG_DIR: '/Library/Application Support/Burrow',
    CACHE_DIR: '/Library/Caches/Burrow',
    VOLUME_ROOT: '/Users/ana/Burrow',
    PORT: '3001',
  });
  assert.equal(parsed.KeepAlive, { SuccessfulExit: false });
  assert.match(r.stdout, /run: codesign --force --sign - \/usr\/local\/bin\/burrow/);
  assert.match(r.stdout, /run: launchctl bootstrap system \/Library\/LaunchDaemons\/com.burrow.server.plist/);
});

test('windows: a boot task as LocalService (valid task XML), folder rights and the firewall, no extra binary', () => {
  const r = burrow(
    'service',
    'install',
    '--dry-run',
    '--platform',
    'windows',
    '--volumes',
    'D:\\Shared',
    '--port',
    '3002',
  );
  assert.is(r.status, 0, r.stderr);
  const task = written(r.stdout, 'C:\\ProgramData\\Burrow\\burrow-task.xml');
  const parsed = JSON.parse(
    python(
      [
        'import sys,json,xml.etree.ElementTree as E',
        'ns={"t":"http://schemas.microsoft.com/windows/2004/02/mit/task"}',
        'x=E.fromstring(sys.stdin.read().replace("encoding=\\"UTF-16\\"",""))',
        'print(json.dumps({k:x.find(p,ns).text for k,p in {"cmd":".//t:Exec/t:Command","args":".//t:Exec/t:Arguments","user":".//t:Principal/t:UserId","limit":".//t:ExecutionTimeLimit"}.items()}))',
      ].join('\n'),
      task,
    ),
  );
  assert.is(parsed.cmd, 'C:\\Program Files\\Burrow\\burrow.exe');
  assert.is(parsed.user, 'S-1-5-19');
  assert.is(parsed.limit, 'PT0S');
  assert.is(
    parsed.args,
    '--no-open --config "C:\\ProgramData\\Burrow\\Config" --cache "C:\\ProgramData\\Burrow\\Cache" --volumes "D:\\Shared" --port 3002 --log-file "C:\\ProgramData\\Burrow\\Logs\\burrow.log"',
  );
  assert.match(r.stdout, /run: schtasks.exe \/Create \/TN Burrow \/XML C:\\ProgramData\\Burrow\\burrow-task.xml \/F/);
  assert.match(r.stdout, /run: icacls.exe D:\\Shared \/grant \*S-1-5-19:\(OI\)\(CI\)M \/T \/Q/);
  assert.match(r.stdout, /localport=3002/);
  assert.not.match(r.stdout, /sc\.exe|powershell/i);
});

test('status previews the query; a real run for another platform and bad options are refused', () => {
  assert.match(
    burrow('service', 'status', '--dry-run', '--platform', 'linux').stdout,
    /run: systemctl status --no-pager --lines=5 burrow.service/,
  );
  assert.match(
    burrow('service', 'status', '--dry-run', '--platform', 'windows').stdout,
    /run: schtasks.exe \/Query \/TN Burrow/,
  );
  const other = burrow('service', 'install', '--platform', 'windows');
  assert.is(other.status, 2);
  assert.match(other.stderr, /not windows; use --dry-run/);
  assert.is(burrow('service', 'install', '--dry-run', '--port', 'eighty').status, 2);
  assert.is(burrow('service', 'install', '--dry-run', '--platform', 'linux', '--user', 'x; rm -rf /').status, 2);
  assert.is(burrow('service', 'reinstall').status, 2);
});

test.run();
