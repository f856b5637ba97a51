// What `burrow service install | uninstall | status` does on each platform, as data: the files
// it writes and the programs it runs (argv arrays, never shell strings). The same plan is
// printed by --dry-run and carried out by run.ts, so the preview is exactly what happens.
import path from 'node:path';
import { MALLOC_TUNABLES } from '../core/malloc-env.ts';

export type Platform = 'linux' | 'macos' | 'windows';
export type Action = 'install' | 'uninstall' | 'status';

export interface ServiceOptions {
  /** The executable to install (this one). */
  binary: string;
  port: number;
  /** VOLUME_ROOT of the service. */
  volumeRoot: string;
  /** Extra folders the service may write (host folders added as volumes). */
  writablePaths: readonly string[];
  /** linux: the dedicated account; macos: the account the daemon runs as. */
  user: string;
  purge: boolean;
  /** DATABASE_URL of the service (PostgreSQL), kept in a file only root reads; null: the embedded database. */
  databaseUrl?: string | null;
}

export type Step =
  | {
      kind: 'write';
      file: string;
      content: string;
      mode: number;
      keepExisting?: boolean;
      utf16?: boolean;
      /** A password inside: the dry run shows it hidden. */
      secret?: boolean;
      why: string;
    }
  | { kind: 'copy'; from: string; to: string; mode: number; why: string }
  | { kind: 'mkdir'; dir: string; why: string }
  | { kind: 'remove'; target: string; why: string }
  /** A program run with execFile. `mayFail`: its failure is expected in some states (e.g. not running yet). `unless`: skipped when this probe succeeds. */
  | { kind: 'run'; argv: string[]; why: string; mayFail?: boolean; unless?: string[] };

export interface Plan {
  platform: Platform;
  action: Action;
  /** Where data lives for this service (shown after install). */
  folders: { config: string; cache: string; volumes: string; logs: string };
  steps: Step[];
  /** Printed after the steps (how to reach it, what stays). */
  notes: string[];
}

export const SERVICE_NAME = 'burrow';
/** linux: DATABASE_URL of the service, root-only. */
export const DATABASE_ENV = '/etc/burrow/database.env';

/** systemd unit: a dedicated unprivileged user, folders made by systemd, the file system read-only except what it must write. */
export function systemdUnit(o: ServiceOptions, dirs: Plan['folders'], binary: string): string {
  const writable = [o.volumeRoot, ...o.writablePaths].map(unitWord).join(' ');
  const env = (name: string, value: string | number) => `Environment=${unitWord(`${name}=${value}`)}`;
  return `# Burrow as a systemd service, written by \`burrow service install\` (run it again to change
# the port or the volumes; other settings go in /etc/burrow/burrow.env, see \`burrow --help\`).
[Unit]
Description=Burrow web file manager
After=network-online.target local-fs.target
Wants=network-online.target

[Service]
Type=simple
User=${o.user}
Group=${o.user}
ExecStart=${unitWord(binary)} --no-open
# systemd makes and owns these for the service user (/var/lib/burrow, /var/cache/burrow).
StateDirectory=burrow
StateDirectoryMode=0750
CacheDirectory=burrow
CacheDirectoryMode=0750
${env('CONFIG_DIR', dirs.config)}
${env('CACHE_DIR', dirs.cache)}
${env('VOLUME_ROOT', o.volumeRoot)}
${env('PORT', o.port)}
# glibc's allocator gives freed memory back (src/core/malloc-env.ts; set here, Burrow need not start itself again).
${env('GLIBC_TUNABLES', MALLOC_TUNABLES)}
EnvironmentFile=-/etc/burrow/burrow.env
# DATABASE_URL (PostgreSQL), when the service has one: root-only, kept across installs.
EnvironmentFile=-${DATABASE_ENV}
WorkingDirectory=${dirs.config}
# The log is one JSON object per line on stdout: journalctl -u burrow.
StandardOutput=journal
StandardError=journal
# SIGTERM: Burrow stops accepting, finishes requests in flight, closes its database, exits 0.
KillSignal=SIGTERM
TimeoutStopSec=30
Restart=on-failure
RestartSec=3
UMask=0027
NoNewPrivileges=true
PrivateTmp=true
PrivateDevices=true
ProtectSystem=strict
ProtectHome=read-only
ProtectKernelTunables=true
ProtectKernelModules=true
ProtectControlGroups=true
RestrictSUIDSGID=true
LockPersonality=true
# Everything else is read-only: the volumes Burrow may write are listed here.
ReadWritePaths=${writable}

[Install]
WantedBy=multi-user.target
`;
}

/**
 * One word of a unit setting: `%` doubled (systemd expands specifiers such as %h in these
 * settings), and quoted when it holds a space, a quote or a backslash (systemd splits on spaces).
 */
function unitWord(word: string): string {
  const w = word.replace(/%/g, '%%');
  return /[\s"\\]/.test(w) ? `"${w.replace(/(["\\])/g, '\\$1')}"` : w;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function launchdPlist(o: ServiceOptions, dirs: Plan['folders'], binary: string): string {
  const env = { CONFIG_DIR: dirs.config, CACHE_DIR: dirs.cache, VOLUME_ROOT: o.volumeRoot, PORT: String(o.port) };
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Burrow as a launchd daemon, written by \`burrow service install\`. -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>com.burrow.server</string>
  <key>ProgramArguments</key>
  <array>
    <string>${xml(binary)}</string>
    <string>--no-open</string>
  </array>
  <key>UserName</key>
  <string>${xml(o.user)}</string>
  <key>EnvironmentVariables</key>
  <dict>
${Object.entries(env)
  .map(([k, v]) => `    <key>${k}</key>\n    <string>${xml(v)}</string>`)
  .join('\n')}
  </dict>
  <key>WorkingDirectory</key>
  <string>${xml(dirs.config)}</string>
  <key>RunAtLoad</key>
  <true/>
  <!-- Restart after a crash, not after a clean stop (launchctl bootout sends SIGTERM). -->
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>ExitTimeOut</key>
  <integer>30</integer>
  <key>StandardOutPath</key>
  <string>${xml(dirs.logs)}/burrow.log</string>
  <key>StandardErrorPath</key>
  <string>${xml(dirs.logs)}/burrow.log</string>
</dict>
</plist>
`;
}

/** Windows: a Task Scheduler task (see windowsPlan for why not a Service Control Manager service). */
export function windowsTask(o: ServiceOptions, dirs: Plan['folders'], binary: string): string {
  const quote = (s: string) => `"${s}"`;
  const args = [
    '--no-open',
    '--config',
    quote(dirs.config),
    '--cache',
    quote(dirs.cache),
    '--volumes',
    quote(o.volumeRoot),
    '--port',
    String(o.port),
    '--log-file',
    quote(path.win32.join(dirs.logs, 'burrow.log')),
  ].join(' ');
  return `<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>Burrow web file manager (written by burrow service install)</Description>
    <URI>\\Burrow</URI>
  </RegistrationInfo>
  <Triggers>
    <BootTrigger><Enabled>true</Enabled></BootTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">
      <UserId>S-1-5-19</UserId>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>999</Count>
    </RestartOnFailure>
    <StartWhenAvailable>true</StartWhenAvailable>
    <Hidden>true</Hidden>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>${xml(binary)}</Command>
      <Arguments>${xml(args)}</Arguments>
      <WorkingDirectory>${xml(dirs.config)}</WorkingDirectory>
    </Exec>
  </Actions>
</Task>
`;
}

function linuxPlan(action: Action, o: ServiceOptions): Plan {
  const binary = '/usr/local/bin/burrow';
  const unit = '/etc/systemd/system/burrow.service';
  const folders = {
    config: '/var/lib/burrow',
    cache: '/var/cache/burrow',
    volumes: o.volumeRoot,
    logs: 'journald (journalctl -u burrow)',
  };
  const steps: Step[] = [];
  const notes: string[] = [];
  if (action === 'status') {
    steps.push({
      kind: 'run',
      argv: ['systemctl', 'status', '--no-pager', '--lines=5', 'burrow.service'],
      why: 'state of the service and its last log lines',
      mayFail: true,
    });
    return { platform: 'linux', action, folders, steps, notes };
  }
  if (action === 'install') {
    steps.push(
      {
        kind: 'run',
        argv: [
          'useradd',
          '--system',
          '--user-group',
          '--no-create-home',
          '--home-dir',
          folders.config,
          '--shell',
          '/usr/sbin/nologin',
          o.user,
        ],
        unless: ['id', '-u', o.user],
        why: `a system account that owns nothing but Burrow's own folders`,
      },
      {
        kind: 'copy',
        from: o.binary,
        to: binary,
        mode: 0o755,
        why: 'the executable (replaced atomically; a running service keeps the old one until restart)',
      },
      { kind: 'mkdir', dir: '/etc/burrow', why: 'settings folder' },
      {
        kind: 'write',
        file: '/etc/burrow/burrow.env',
        content: '# Burrow settings, one NAME=value per line (see `burrow --help` for every variable).\n',
        mode: 0o640,
        keepExisting: true,
        why: 'settings file (kept when it exists)',
      },
      ...(o.databaseUrl
        ? [
            {
              kind: 'write' as const,
              file: DATABASE_ENV,
              content: `DATABASE_URL=${o.databaseUrl}\n`,
              mode: 0o600,
              secret: true,
              why: 'the PostgreSQL address the service keeps its stores in (root only: it holds the password)',
            },
          ]
        : []),
      {
        kind: 'run',
        argv: ['install', '-d', '-m', '0750', '-o', o.user, '-g', o.user, o.volumeRoot],
        unless: ['test', '-d', o.volumeRoot],
        why: 'the volume root, only when missing (an existing disk is never re-owned)',
      },
      { kind: 'write', file: unit, content: systemdUnit(o, folders, binary), mode: 0o644, why: 'the service unit' },
      { kind: 'run', argv: ['systemctl', 'daemon-reload'], why: 'systemd reads the unit' },
      { kind: 'run', argv: ['systemctl', 'enable', 'burrow.service'], why: 'start at boot' },
      {
        kind: 'run',
        argv: ['systemctl', 'restart', 'burrow.service'],
        why: 'start it now (or restart an upgraded one)',
      },
    );
    notes.push(
      `Open http://<this computer's address>:${o.port}/ — \`burrow service status\` shows its state, \`journalctl -u burrow\` its log.`,
    );
    notes.push(
      `Volumes: each folder in ${o.volumeRoot} (readable and writable by the account ${o.user}); add host folders in Administration → Volumes — a folder the service must write needs \`--writable <folder>\` here (ProtectSystem=strict).`,
    );
    return { platform: 'linux', action, folders, steps, notes };
  }
  steps.push(
    {
      kind: 'run',
      argv: ['systemctl', 'disable', '--now', 'burrow.service'],
      mayFail: true,
      why: 'stop it and no longer start at boot',
    },
    { kind: 'remove', target: unit, why: 'the service unit' },
    { kind: 'run', argv: ['systemctl', 'daemon-reload'], why: 'systemd forgets the unit' },
    { kind: 'remove', target: binary, why: 'the installed executable' },
  );
  if (o.purge) {
    steps.push(
      { kind: 'remove', target: folders.config, why: '--purge: the database, secrets and backups' },
      { kind: 'remove', target: folders.cache, why: '--purge: thumbnails and extracted add-ons' },
      { kind: 'remove', target: '/etc/burrow', why: '--purge: settings' },
      { kind: 'run', argv: ['userdel', o.user], mayFail: true, why: '--purge: the service account' },
    );
    notes.push(`Volumes are never removed: ${o.volumeRoot} stays as it is.`);
  } else {
    notes.push(
      `Data kept: ${folders.config} (database, backups), ${folders.cache}, /etc/burrow and ${o.volumeRoot}. \`burrow service uninstall --purge\` removes all but the volumes.`,
    );
  }
  return { platform: 'linux', action, folders, steps, notes };
}

function macosPlan(action: Action, o: ServiceOptions): Plan {
  const binary = '/usr/local/bin/burrow';
  const plist = '/Library/LaunchDaemons/com.burrow.server.plist';
  const folders = {
    config: '/Library/Application Support/Burrow',
    cache: '/Library/Caches/Burrow',
    volumes: o.volumeRoot,
    logs: '/Library/Logs/Burrow',
  };
  const steps: Step[] = [];
  const notes: string[] = [];
  if (action === 'status') {
    steps.push({
      kind: 'run',
      argv: ['launchctl', 'print', 'system/com.burrow.server'],
      why: 'state of the daemon',
      mayFail: true,
    });
    return { platform: 'macos', action, folders, steps, notes };
  }
  if (action === 'install') {
    steps.push(
      {
        kind: 'run',
        argv: ['launchctl', 'bootout', 'system', plist],
        mayFail: true,
        why: 'stop a running copy (fails harmlessly on a first install)',
      },
      { kind: 'copy', from: o.binary, to: binary, mode: 0o755, why: 'the executable' },
      // The Node inside was re-written when Burrow was injected into it; macOS kills unsigned arm64 programs.
      {
        kind: 'run',
        argv: ['codesign', '--force', '--sign', '-', binary],
        why: "ad-hoc signature (the injection broke Node's own)",
      },
      ...[folders.config, folders.cache, folders.logs].map((dir): Step => ({
        kind: 'mkdir',
        dir,
        why: "Burrow's own folder",
      })),
      {
        kind: 'run',
        argv: ['chown', o.user, folders.config, folders.cache, folders.logs],
        why: `owned by ${o.user}, the account the daemon runs as`,
      },
      {
        kind: 'run',
        argv: ['install', '-d', '-o', o.user, o.volumeRoot],
        unless: ['test', '-d', o.volumeRoot],
        why: 'the volume root, only when missing',
      },
      { kind: 'write', file: plist, content: launchdPlist(o, folders, binary), mode: 0o644, why: 'the launchd daemon' },
      { kind: 'run', argv: ['launchctl', 'bootstrap', 'system', plist], why: 'start it now and at boot' },
    );
    notes.push(`Open http://localhost:${o.port}/ — log: ${folders.logs}/burrow.log.`);
    notes.push(
      `It runs as ${o.user} (not a hidden account) so that it can read that person's folders; macOS asks before it reads Documents, Desktop or Downloads.`,
    );
    return { platform: 'macos', action, folders, steps, notes };
  }
  steps.push(
    { kind: 'run', argv: ['launchctl', 'bootout', 'system', plist], mayFail: true, why: 'stop it' },
    { kind: 'remove', target: plist, why: 'the launchd daemon' },
    { kind: 'remove', target: binary, why: 'the installed executable' },
  );
  if (o.purge) {
    for (const dir of [folders.config, folders.cache, folders.logs])
      steps.push({ kind: 'remove', target: dir, why: '--purge' });
    notes.push(`Volumes are never removed: ${o.volumeRoot} stays as it is.`);
  } else
    notes.push(
      `Data kept: ${folders.config}, ${folders.cache}, ${folders.logs} and ${o.volumeRoot}. --purge removes all but the volumes.`,
    );
  return { platform: 'macos', action, folders, steps, notes };
}

/**
 * Windows: Burrow is a console program and does not answer the Service Control Manager's
 * protocol, so `sc.exe create` would register a service that Windows kills after 30 s
 * (error 1053) unless a wrapper binary (WinSW, NSSM) sat in between. A Task Scheduler task
 * started at boot as LocalService, restarted on failure, needs nothing but schtasks.exe.
 */
function windowsPlan(action: Action, o: ServiceOptions): Plan {
  const programData = 'C:\\ProgramData\\Burrow';
  const installDir = 'C:\\Program Files\\Burrow';
  const binary = path.win32.join(installDir, 'burrow.exe');
  const folders = {
    config: path.win32.join(programData, 'Config'),
    cache: path.win32.join(programData, 'Cache'),
    volumes: o.volumeRoot,
    logs: path.win32.join(programData, 'Logs'),
  };
  const taskFile = path.win32.join(programData, 'burrow-task.xml');
  const steps: Step[] = [];
  const notes: string[] = [];
  if (action === 'status') {
    steps.push({
      kind: 'run',
      argv: ['schtasks.exe', '/Query', '/TN', 'Burrow', '/V', '/FO', 'LIST'],
      why: 'state of the task',
      mayFail: true,
    });
    return { platform: 'windows', action, folders, steps, notes };
  }
  if (action === 'install') {
    steps.push(
      {
        kind: 'run',
        argv: ['schtasks.exe', '/End', '/TN', 'Burrow'],
        mayFail: true,
        why: 'stop a running copy (fails harmlessly on a first install)',
      },
      { kind: 'mkdir', dir: installDir, why: 'program folder' },
      { kind: 'copy', from: o.binary, to: binary, mode: 0o755, why: 'the executable' },
      ...[folders.config, folders.cache, folders.logs, o.volumeRoot].map((dir): Step => ({
        kind: 'mkdir',
        dir,
        why: "Burrow's folders and the volume root",
      })),
      // LocalService (S-1-5-19) may change its own folders and the volumes, nothing else.
      ...[folders.config, folders.cache, folders.logs, o.volumeRoot, ...o.writablePaths].map((dir): Step => ({
        kind: 'run',
        argv: ['icacls.exe', dir, '/grant', '*S-1-5-19:(OI)(CI)M', '/T', '/Q'],
        why: 'LocalService may write here',
      })),
      {
        kind: 'write',
        file: taskFile,
        content: windowsTask(o, folders, binary),
        mode: 0o644,
        utf16: true,
        why: 'the task definition (Task Scheduler reads UTF-16)',
      },
      {
        kind: 'run',
        argv: ['schtasks.exe', '/Create', '/TN', 'Burrow', '/XML', taskFile, '/F'],
        why: 'start at boot as LocalService, restarted after a failure',
      },
      {
        kind: 'run',
        argv: ['netsh.exe', 'advfirewall', 'firewall', 'delete', 'rule', 'name=Burrow'],
        mayFail: true,
        why: 'drop an older firewall rule',
      },
      {
        kind: 'run',
        argv: [
          'netsh.exe',
          'advfirewall',
          'firewall',
          'add',
          'rule',
          'name=Burrow',
          'dir=in',
          'action=allow',
          'protocol=TCP',
          `localport=${o.port}`,
        ],
        why: 'reachable from the LAN',
      },
      { kind: 'run', argv: ['schtasks.exe', '/Run', '/TN', 'Burrow'], why: 'start it now' },
    );
    notes.push(`Open http://localhost:${o.port}/ — log: ${folders.logs}\\burrow.log.`);
    return { platform: 'windows', action, folders, steps, notes };
  }
  steps.push(
    { kind: 'run', argv: ['schtasks.exe', '/End', '/TN', 'Burrow'], mayFail: true, why: 'stop it' },
    {
      kind: 'run',
      argv: ['schtasks.exe', '/Delete', '/TN', 'Burrow', '/F'],
      mayFail: true,
      why: 'no longer start at boot',
    },
    {
      kind: 'run',
      argv: ['netsh.exe', 'advfirewall', 'firewall', 'delete', 'rule', 'name=Burrow'],
      mayFail: true,
      why: 'the firewall rule',
    },
    { kind: 'remove', target: taskFile, why: 'the task definition' },
    { kind: 'remove', target: binary, why: 'the installed executable' },
  );
  if (o.purge) {
    for (const dir of [folders.config, folders.cache, folders.logs])
      steps.push({ kind: 'remove', target: dir, why: '--purge' });
    notes.push(`Volumes are never removed: ${o.volumeRoot} stays as it is.`);
  } else
    notes.push(
      `Data kept: ${programData} (database, backups, cache, logs) and ${o.volumeRoot}. --purge removes all but the volumes.`,
    );
  return { platform: 'windows', action, folders, steps, notes };
}

export function defaultVolumeRoot(platform: Platform, user: string): string {
  if (platform === 'windows') return 'C:\\ProgramData\\Burrow\\Volumes';
  if (platform === 'macos') return `/Users/${user}/Burrow`;
  return '/srv/burrow';
}

export function servicePlan(platform: Platform, action: Action, o: ServiceOptions): Plan {
  if (platform === 'linux') return linuxPlan(action, o);
  if (platform === 'macos') return macosPlan(action, o);
  return windowsPlan(action, o);
}

/** An argv as a person would type it (display only: nothing is ever run through a shell). */
export function showArgv(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./\\*()-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** The --dry-run text: every file in full and every program with its arguments. */
export function describePlan(plan: Plan): string {
  const out: string[] = [
    `burrow service ${plan.action} --dry-run (${plan.platform}): nothing is changed. It would:`,
    '',
  ];
  let n = 0;
  for (const s of plan.steps) {
    n++;
    if (s.kind === 'run') {
      out.push(
        `${n}. run: ${showArgv(s.argv)}${s.unless ? `   (only if \`${showArgv(s.unless)}\` fails)` : ''}${s.mayFail ? '   (a failure here is expected when there is nothing to stop)' : ''}`,
      );
      out.push(`   ${s.why}`);
    } else if (s.kind === 'copy') {
      out.push(`${n}. copy ${s.from} to ${s.to} (mode ${s.mode.toString(8)})`, `   ${s.why}`);
    } else if (s.kind === 'mkdir') {
      out.push(`${n}. make folder ${s.dir}`, `   ${s.why}`);
    } else if (s.kind === 'remove') {
      out.push(`${n}. remove ${s.target}`, `   ${s.why}`);
    } else {
      out.push(
        `${n}. write ${s.file} (mode ${s.mode.toString(8)}${s.keepExisting ? ', only when missing' : ''}${s.utf16 ? ', UTF-16' : ''}): ${s.why}`,
      );
      out.push(
        '   ----8<----',
        ...(s.secret ? s.content.replace(/(:\/\/[^:@/\s]*:)[^@\s]*@/g, '$1***@') : s.content)
          .replace(/\n$/, '')
          .split('\n')
          .map((l) => `   ${l}`),
        '   ---->8----',
      );
    }
  }
  if (plan.notes.length) out.push('', ...plan.notes);
  return out.join('\n') + '\n';
}
