// `burrow service install | uninstall | status [--dry-run] [--platform linux|macos|windows]`.
// The plan (plan.ts) is printed with --dry-run on any host, or carried out here: files written
// under a temporary name and renamed, programs run with execFile (argv, no shell).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { isExecutable } from '../assets.ts';
import {
  defaultVolumeRoot,
  describePlan,
  servicePlan,
  showArgv,
  type Action,
  type Plan,
  type Platform,
} from './plan.ts';

const USAGE = `Usage: burrow service install | uninstall | status [options]

  --dry-run                 print every file it would write and every program it would run; change nothing
  --platform P              linux, macos or windows (default: this computer; with --dry-run any)
  --port N                  port of the service (default 3000)
  --volumes DIR             the service's VOLUME_ROOT (linux /srv/burrow, macOS ~/Burrow, Windows C:\\ProgramData\\Burrow\\Volumes)
  --writable DIR            another folder the service may write (a host folder added as a volume); repeatable
  --user NAME               linux: the service account (burrow); macOS: the account it runs as (the one running sudo)
  --database-url URL        linux: keep the stores in PostgreSQL (postgres://…; default: DATABASE_URL when set), in /etc/burrow/database.env (root only)
  --purge                   uninstall: also remove the database, backups, cache and settings (never the volumes)
`;

export function hostPlatform(): Platform | null {
  return process.platform === 'linux'
    ? 'linux'
    : process.platform === 'darwin'
      ? 'macos'
      : process.platform === 'win32'
        ? 'windows'
        : null;
}

export async function serviceCommand(
  argv: readonly string[],
  out: (s: string) => void = (s) => process.stdout.write(s),
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        'dry-run': { type: 'boolean' },
        platform: { type: 'string' },
        port: { type: 'string' },
        volumes: { type: 'string' },
        writable: { type: 'string', multiple: true },
        user: { type: 'string' },
        purge: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        'no-open': { type: 'boolean' },
        'database-url': { type: 'string' },
      },
    });
  } catch (err) {
    process.stderr.write(`burrow service: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values: v, positionals } = parsed;
  const action = positionals[0] as Action | undefined;
  if (v.help || !action) {
    out(USAGE);
    return v.help ? 0 : 2;
  }
  if (!['install', 'uninstall', 'status'].includes(action) || positionals.length > 1) {
    process.stderr.write(`burrow service: unknown command ${positionals.join(' ')}\n${USAGE}`);
    return 2;
  }
  const host = hostPlatform();
  const platform = (v.platform ?? host) as Platform | null;
  if (!platform || !['linux', 'macos', 'windows'].includes(platform)) {
    process.stderr.write(
      `burrow service: --platform must be linux, macos or windows${platform ? '' : ' (this computer is none of them)'}\n`,
    );
    return 2;
  }
  const dryRun = Boolean(v['dry-run']);
  if (!dryRun && platform !== host) {
    process.stderr.write(
      `burrow service: this computer is not ${platform}; use --dry-run to preview another platform\n`,
    );
    return 2;
  }
  const port = Number(v.port ?? 3000);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    process.stderr.write('burrow service: --port must be a whole number from 1 to 65535\n');
    return 2;
  }
  const user = v.user ?? (platform === 'macos' ? process.env.SUDO_USER || os.userInfo().username : 'burrow');
  if (!/^[a-z_][a-z0-9_-]{0,31}$/i.test(user)) {
    process.stderr.write('burrow service: --user must be an account name (letters, digits, _ and -)\n');
    return 2;
  }
  const p = platform === 'windows' ? path.win32 : path.posix;
  const abs = (d: string) => (p.isAbsolute(d) ? p.normalize(d) : host === platform ? path.resolve(d) : null);
  const volumeRoot = v.volumes ? abs(v.volumes) : defaultVolumeRoot(platform, user);
  const writable = (v.writable ?? []).map(abs);
  if (volumeRoot === null || writable.includes(null)) {
    process.stderr.write(
      'burrow service: give --volumes and --writable as absolute paths when previewing another platform\n',
    );
    return 2;
  }
  // From source there is no single file to install; the preview still shows where it would go.
  const binary = isExecutable() ? process.execPath : dryRun ? `<the burrow executable>` : null;
  if (!binary) {
    process.stderr.write('burrow service: run this from the built executable (npm run build), not from source\n');
    return 2;
  }
  const databaseUrl = (v['database-url'] ?? process.env.DATABASE_URL ?? '').trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\/\S+$/i.test(databaseUrl)) {
    process.stderr.write('burrow service: --database-url must be postgres://user:password@host:5432/database\n');
    return 2;
  }
  if (databaseUrl && platform !== 'linux' && action === 'install') {
    process.stderr.write(
      `burrow service: --database-url is kept by the linux service only; on ${platform} set DATABASE_URL in the service's environment yourself\n`,
    );
    return 2;
  }
  const plan = servicePlan(platform, action, {
    databaseUrl,
    binary,
    port,
    volumeRoot,
    writablePaths: writable as string[],
    user,
    purge: Boolean(v.purge),
  });
  if (dryRun) {
    out(describePlan(plan));
    return 0;
  }
  if (platform !== 'windows' && action !== 'status' && typeof process.getuid === 'function' && process.getuid() !== 0) {
    process.stderr.write(
      `burrow service ${action}: run it as root (sudo ${showArgv([process.execPath, 'service', ...argv])})\n`,
    );
    return 1;
  }
  return carryOut(plan, out);
}

function carryOut(plan: Plan, out: (s: string) => void): number {
  for (const s of plan.steps) {
    try {
      if (s.kind === 'run') {
        if (s.unless && spawnSync(s.unless[0]!, s.unless.slice(1), { stdio: 'ignore', windowsHide: true }).status === 0)
          continue;
        out(`$ ${showArgv(s.argv)}\n`);
        if (plan.action === 'status') {
          const r = spawnSync(s.argv[0]!, s.argv.slice(1), { stdio: 'inherit', windowsHide: true });
          return r.status ?? 1;
        }
        try {
          execFileSync(s.argv[0]!, s.argv.slice(1), { stdio: ['ignore', 'inherit', 'inherit'], windowsHide: true });
        } catch (err) {
          if (!s.mayFail) throw err;
        }
      } else if (s.kind === 'copy') {
        if (path.resolve(s.from) === path.resolve(s.to)) continue;
        out(`copy ${s.from} -> ${s.to}\n`);
        fs.mkdirSync(path.dirname(s.to), { recursive: true });
        const temp = `${s.to}.new`;
        fs.copyFileSync(s.from, temp);
        fs.chmodSync(temp, s.mode);
        fs.renameSync(temp, s.to);
      } else if (s.kind === 'mkdir') {
        fs.mkdirSync(s.dir, { recursive: true });
      } else if (s.kind === 'remove') {
        out(`remove ${s.target}\n`);
        fs.rmSync(s.target, { recursive: true, force: true });
      } else {
        if (s.keepExisting && fs.existsSync(s.file)) continue;
        out(`write ${s.file}\n`);
        fs.mkdirSync(path.dirname(s.file), { recursive: true });
        const temp = `${s.file}.new`;
        const bytes = s.utf16
          ? Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s.content.replace(/\n/g, '\r\n'), 'utf16le')])
          : s.content;
        fs.writeFileSync(temp, bytes, { mode: s.mode });
        fs.renameSync(temp, s.file);
      }
    } catch (err) {
      process.stderr.write(`burrow service ${plan.action}: ${(err as Error).message.split('\n')[0]}\n`);
      return 1;
    }
  }
  out(
    `\nDone. Config: ${plan.folders.config}; cache: ${plan.folders.cache}; volumes: ${plan.folders.volumes}; log: ${plan.folders.logs}\n`,
  );
  for (const note of plan.notes) out(`${note}\n`);
  return 0;
}
