// `burrow doctor` (also `--self-check`): a checklist a person can read, of everything Burrow
// needs on this computer, each line ok / warn / FAIL with what it means. Essential failures
// (a data folder it cannot write, the port taken by something else, a database from a newer
// Burrow, PostgreSQL that cannot be reached) make the exit status non-zero; `--json` gives the same checks as one JSON object.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { Config } from '../config.ts';
import { fsReason } from '../config/dirs.ts';
import { isExecutable } from '../assets.ts';
import { checkInChild } from '../native.ts';
import { VERSION } from '../version.ts';
import { readDatabaseRelease } from '../db/release.ts';
import { probeInstanceLock } from '../db/instance-lock.ts';
import { postgresChecks } from '../db/postgres-check.ts';
import { isNetworkFs, mountOf, readMounts, type Mount } from '../indexer/mounts.ts';
import { httpsCheck } from '../tls/doctor.ts';
import { readAnnounced } from '../mdns/announced.ts';
import { directoryCheck } from '../ldap/doctor.ts';

export type Status = 'ok' | 'warn' | 'fail';
export interface Check {
  name: string;
  status: Status;
  detail: string;
}

const MB = 1024 ** 2;

function freeSpace(dir: string): string {
  try {
    const s = fs.statfsSync(dir);
    const free = Number(s.bavail) * Number(s.bsize);
    return free >= 1024 ** 3 ? `${(free / 1024 ** 3).toFixed(1)} GB free` : `${Math.round(free / MB)} MB free`;
  } catch {
    return 'free space unknown';
  }
}

/** Can this process make the folder and write a file in it? */
function writableFolder(name: string, dir: string): Check {
  try {
    if (!fs.existsSync(dir)) {
      // Nothing is made here: the nearest existing parent must let Burrow make it at start.
      let parent = path.dirname(dir);
      while (!fs.existsSync(parent) && path.dirname(parent) !== parent) parent = path.dirname(parent);
      if (!fs.statSync(parent).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
      fs.accessSync(parent, fs.constants.W_OK | fs.constants.X_OK);
      return {
        name,
        status: 'ok',
        detail: `${dir} will be made at the first start (${parent} is writable, ${freeSpace(parent)})`,
      };
    }
    const probe = path.join(dir, `.burrow-doctor-${process.pid}`);
    fs.writeFileSync(probe, 'x');
    fs.rmSync(probe, { force: true });
    return { name, status: 'ok', detail: `${dir} is writable, ${freeSpace(dir)}` };
  } catch (err) {
    return {
      name,
      status: 'fail',
      detail: `${dir} cannot be written: ${fsReason(err)}. Point ${name} at a folder Burrow may write, or fix its permissions.`,
    };
  }
}

/** Is `pid` a live process here? (EPERM: alive, another user's.) */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What the process `pid` runs, where the system says (Linux /proc): for naming a stale pid's owner. */
function commandOf(pid: number): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ').slice(0, 120) || null;
  } catch {
    return null;
  }
}

/**
 * The instance lock's line: held (by whom), free (and what a leftover burrow.pid names), or
 * unreadable. A free lock is kept until `release()`, so the database is read with no Burrow
 * starting meanwhile.
 */
function lockCheck(
  configDir: string,
  databaseFile: string,
): { check: Check; holder: { pid: number | null } | null; leftoverRemoved: boolean; release(): void } {
  const name = 'instance lock';
  const lock = probeInstanceLock(configDir, databaseFile);
  const none = { leftoverRemoved: false, release: () => {} };
  if (lock.state === 'held') {
    const h = lock.holder;
    const who = h
      ? `pid ${h.pid}${h.started ? `, started ${h.started}` : ''}${h.release ? `, Burrow ${h.release}` : ''}`
      : 'its burrow.pid is missing';
    return {
      check: {
        name,
        status: 'ok',
        detail: `held by a running Burrow (${who}); the checks below see the folders as that server would`,
      },
      holder: { pid: h?.pid ?? null },
      ...none,
    };
  }
  if (lock.state === 'unknown')
    return {
      check: { name, status: 'warn', detail: `cannot be read (${lock.reason}); a start will say whether it is free` },
      holder: null,
      ...none,
    };
  const free = 'free: no Burrow is running with this config folder';
  const stale = lock.stale;
  const { leftoverRemoved, release } = lock;
  if (!stale || stale.pid === process.pid)
    return { check: { name, status: 'ok', detail: free }, holder: null, leftoverRemoved, release };
  const command = alive(stale.pid) ? commandOf(stale.pid) : null;
  const now = alive(stale.pid)
    ? `now a process that is not Burrow's${command ? ` (${command})` : ''}`
    : 'no longer running';
  return {
    check: {
      name,
      status: 'ok',
      detail: `${free}. burrow.pid is left from a stop that did not clean up and names pid ${stale.pid}, ${now}; it is ignored and replaced at the next start`,
    },
    holder: null,
    leftoverRemoved,
    release,
  };
}

function portFree(host: string, port: number): Promise<string | null> {
  if (port === 0) return Promise.resolve(null);
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) =>
      resolve(
        err.code === 'EADDRINUSE'
          ? 'in use'
          : err.code === 'EACCES'
            ? 'not permitted (ports below 1024 need privileges)'
            : err.message,
      ),
    );
    server.listen(port, host, () => server.close(() => resolve(null)));
  });
}

/** What a volume on a network mount loses: live folders hear only Burrow's own writes there. */
export function liveNote(dir: string, mounts: () => readonly Mount[] = readMounts): string {
  let real = dir;
  try {
    real = fs.realpathSync(dir);
  } catch {
    /* judged by the name given */
  }
  const mount = mountOf(real, mounts());
  return mount && isNetworkFs(mount.fsType)
    ? `; on a network mount (${mount.fsType}): folders on screen update live with Burrow's own changes, others' show up at the index's periodic rescan`
    : '';
}

function volumeCheck(name: string, dir: string): Check {
  try {
    fs.readdirSync(dir);
  } catch (err) {
    return { name: `volume ${name}`, status: 'fail', detail: `${dir} cannot be read: ${fsReason(err)}` };
  }
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return {
      name: `volume ${name}`,
      status: 'ok',
      detail: `${dir} readable and writable, ${freeSpace(dir)}${liveNote(dir)}`,
    };
  } catch {
    return {
      name: `volume ${name}`,
      status: 'warn',
      detail: `${dir} is read-only for this account: browsing works, changes are refused${liveNote(dir)}`,
    };
  }
}

function volumeChecks(config: Config, hostVolumes: readonly { label: string; path: string }[]): Check[] {
  const root = config.storage.volumeRoot;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      return [
        {
          name: 'VOLUME_ROOT',
          status: 'ok',
          detail: `${root} does not exist yet (the default one is made at the first start with a sample volume Files; a configured one that is missing is usually an unmounted disk)`,
        },
        ...hostVolumes.map((v) => volumeCheck(v.label, v.path)),
      ];
    }
    const none = hostVolumes.length
      ? 'only the folders added in Administration → Volumes are served'
      : 'no volumes are shown until it can be read';
    return [
      { name: 'VOLUME_ROOT', status: 'warn', detail: `${root}: ${fsReason(err)}; ${none}` },
      ...hostVolumes.map((v) => volumeCheck(v.label, v.path)),
    ];
  }
  const out: Check[] = [];
  const loose = entries.filter((e) => !e.name.startsWith('.') && e.isFile()).length;
  out.push({
    name: 'VOLUME_ROOT',
    status: loose ? 'warn' : 'ok',
    detail: loose
      ? `${root}: ${loose} loose file(s) at its top are not shown — each top-level folder is a volume; move them into a folder`
      : `${root}: each top-level folder is a volume`,
  });
  for (const e of entries) {
    if (e.name.startsWith('.') || !(e.isDirectory() || e.isSymbolicLink())) continue;
    out.push(volumeCheck(e.name, path.join(root, e.name)));
  }
  for (const v of hostVolumes) out.push(volumeCheck(v.label, v.path));
  if (out.length === 1 && !hostVolumes.length)
    out.push({
      name: 'volumes',
      status: 'warn',
      detail: 'none yet: add a host folder in Administration → Volumes, or a folder in VOLUME_ROOT',
    });
  return out;
}

function ffmpegCheck(): Check {
  const r = spawnSync('ffmpeg', ['-hide_banner', '-version'], { encoding: 'utf8', timeout: 10_000, windowsHide: true });
  if (r.status === 0) return { name: 'ffmpeg', status: 'ok', detail: (r.stdout.split('\n')[0] ?? 'found').trim() };
  return {
    name: 'ffmpeg',
    status: 'warn',
    detail: 'not on the PATH: videos get no thumbnails (install ffmpeg to have them)',
  };
}

/** The name announced on the network by mDNS: read from the running server (mdns/announced.ts). */
function networkNameCheck(config: Config, announced: string | null): Check {
  const name = 'network name';
  if (config.server.publicUrl)
    return { name, status: 'ok', detail: `PUBLIC_URL names the address: ${config.server.publicUrl}` };
  if (!config.mdns.enabled)
    return {
      name,
      status: 'ok',
      detail: config.fromEnvironment.includes('MDNS_ENABLED')
        ? 'MDNS_ENABLED=false: no name is announced; devices open Burrow by address'
        : `not announced: HOST=${config.server.host} keeps Burrow to this computer`,
    };
  if (announced)
    return {
      name,
      status: 'ok',
      detail: `${announced}/ is announced on the network (mDNS): other devices open it there, links made at localhost name it, passkeys work there`,
    };
  return {
    name,
    status: 'ok',
    detail: `${config.mdns.name}.local is announced on the network (mDNS) while Burrow runs (${config.mdns.name}-2.local when another device has it)`,
  };
}

function publicUrlCheck(config: Config, announced: string | null): Check {
  const url = config.server.publicUrl;
  if (!url && announced)
    return {
      name: 'PUBLIC_URL',
      status: 'ok',
      detail: `not set: share links made at localhost or an address name ${announced}/ (announced on the network); passkeys work at localhost and at each name opened over HTTPS`,
    };
  if (!url && config.tls.httpsPort !== null)
    return {
      name: 'PUBLIC_URL',
      status: 'ok',
      detail:
        'not set: share links use the address of each request; passkeys work at localhost and, over HTTPS, at each name Burrow is opened by (burrow.local)',
    };
  if (!url) {
    return {
      name: 'PUBLIC_URL',
      status: 'warn',
      detail:
        'not set: share links use the address of each request; passkeys work only at http://localhost (browsers allow them on https:// or localhost alone) — to sign in with a passkey from other devices, turn HTTPS_PORT on or set PUBLIC_URL',
    };
  }
  const u = new URL(url);
  if (u.protocol === 'https:')
    return {
      name: 'PUBLIC_URL',
      status: 'ok',
      detail: `${url}: HTTPS, cookies are Secure, passkeys are bound to ${u.hostname}`,
    };
  if (u.hostname === 'localhost')
    return { name: 'PUBLIC_URL', status: 'ok', detail: `${url}: passkeys work on this computer only` };
  return {
    name: 'PUBLIC_URL',
    status: 'warn',
    detail: `${url} is plain http: browsers refuse passkeys there and cookies are not Secure; use https://`,
  };
}

/** Single sign-on, when it is on: the provider, and which native apps may come back from it. */
function oidcCheck(config: Config): Check | null {
  const o = config.oidc;
  if (!o.enabled) return null;
  const apps = config.fromEnvironment.includes('OIDC_MOBILE_REDIRECT_URIS')
    ? o.mobileRedirectUris.join(', ')
    : `${o.mobileRedirectUris.join(', ')} (the default: NextExplorer's iOS app, a third-party app that speaks Burrow's API; OIDC_MOBILE_REDIRECT_URIS names your own)`;
  return {
    name: 'single sign-on',
    status: o.issuer ? 'ok' : 'warn',
    detail: `${o.issuer ? `provider ${o.issuer}` : 'OIDC_ISSUER is not set: nobody can sign in through a provider'}; native apps may return to ${apps}`,
  };
}

export interface DoctorInput {
  config: Config;
  env: NodeJS.ProcessEnv;
  /** The add-on check (a child process, so a crashing add-on cannot take the doctor down). */
  addons?: () => Promise<Record<string, { available: boolean; reason?: string }>>;
}

export async function runDoctor({ config, env, addons = () => checkInChild(env) }: DoctorInput): Promise<Check[]> {
  const checks: Check[] = [];
  checks.push({
    name: 'version',
    status: 'ok',
    detail: `Burrow ${VERSION} (${isExecutable() ? 'executable' : 'from source'}, ${process.platform}-${process.arch})`,
  });
  checks.push({ name: 'Node', status: 'ok', detail: `${process.version}, V8 ${process.versions.v8}` });
  const parts = await addons();
  const labels: Record<string, string> = { image: 'images add-on', pty: 'terminal add-on' };
  for (const [name, s] of Object.entries(parts)) {
    checks.push({
      name: labels[name] ?? name,
      status: s.available ? 'ok' : 'warn',
      detail: s.available
        ? `loads (${name === 'image' ? 'thumbnails, picture sizes' : 'the admin terminal'})`
        : `does not load, that feature is off: ${s.reason ?? 'unknown reason'}`,
    });
  }
  checks.push(ffmpegCheck());
  const configCheck = writableFolder('CONFIG_DIR', config.storage.configDir);
  checks.push(configCheck, writableFolder('CACHE_DIR', config.storage.cacheDir));

  const db = path.join(config.storage.configDir, 'burrow.db');
  const { check: lock, holder, leftoverRemoved, release } = lockCheck(config.storage.configDir, db);
  checks.push(lock);
  let hostVolumes: { label: string; path: string }[] = [];
  if (config.storage.databaseUrl) {
    // Every store is in PostgreSQL: burrow.db is not used.
    checks.push(...(await postgresChecks(config.storage.databaseUrl)));
  } else if (!fs.existsSync(db)) {
    checks.push({ name: 'database', status: 'ok', detail: `${db} will be created at the first start` });
  } else if (holder) {
    checks.push({ name: 'database', status: 'ok', detail: `${db} is open in the running Burrow` });
  } else if (configCheck.status === 'ok') {
    // An unclean stop leaves the last commits in the WAL: reading the file writes them back.
    const wal = fs.existsSync(`${db}-wal`);
    try {
      const info = readDatabaseRelease(db);
      hostVolumes = info.hostVolumes;
      checks.push(
        info.newer
          ? {
              name: 'database',
              status: 'fail',
              detail: `${db} was written by a newer Burrow (${info.release ?? 'unknown release'}; ${info.unknown.join(', ')}): this ${VERSION} will not start on it. Install that release or newer, or restore a backup from ${path.join(config.storage.configDir, 'backups')}`,
            }
          : {
              name: 'database',
              status: 'ok',
              detail: `${db}, last written by Burrow ${info.release ?? 'before releases were recorded'}${info.pending ? `; ${info.pending} migration(s) will run at the next start (a backup is made first)` : ''}${leftoverRemoved ? "; SQLite's lock directory left by an unclean stop was removed" : ''}${wal && !fs.existsSync(`${db}-wal`) ? '; the commits an unclean stop left in burrow.db-wal were written back' : ''}`,
            },
      );
    } catch (err) {
      checks.push({ name: 'database', status: 'fail', detail: `${db} cannot be read: ${(err as Error).message}` });
    }
  }
  release();
  checks.push(...volumeChecks(config, hostVolumes));

  const { host, port } = config.server;
  const portProblem = await portFree(host, port);
  checks.push(
    portProblem === null
      ? {
          name: 'port',
          status: 'ok',
          detail: port === 0 ? 'PORT=0: a free port is picked at start' : `${host}:${port} is free`,
        }
      : holder && portProblem === 'in use'
        ? {
            name: 'port',
            status: 'ok',
            detail: `${host}:${port} is in use, presumably by the running Burrow${holder.pid ? ` (pid ${holder.pid})` : ''}`,
          }
        : {
            name: 'port',
            status: 'fail',
            detail: `${host}:${port} is ${portProblem}: another program uses it. Stop it or choose another port (PORT or --port)`,
          },
  );
  checks.push(httpsCheck(config, Boolean(holder)));
  const announced = holder ? readAnnounced(config.storage.configDir) : null;
  checks.push(networkNameCheck(config, announced));
  checks.push(publicUrlCheck(config, announced));
  const oidc = oidcCheck(config);
  if (oidc) checks.push(oidc);
  const directory = await directoryCheck(config);
  if (directory) checks.push(directory);
  return checks;
}

export function formatChecks(checks: readonly Check[]): string {
  const mark: Record<Status, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };
  const width = Math.max(...checks.map((c) => c.name.length));
  const lines = checks.map((c) => `  ${mark[c.status]}  ${c.name.padEnd(width)}  ${c.detail}`);
  const fails = checks.filter((c) => c.status === 'fail').length;
  const warns = checks.filter((c) => c.status === 'warn').length;
  const verdict = fails
    ? `${fails} problem(s) stop Burrow from working here${warns ? `, ${warns} warning(s)` : ''}.`
    : warns
      ? `Burrow can run here; ${warns} warning(s).`
      : 'Burrow can run here.';
  return `Burrow doctor\n${lines.join('\n')}\n\n${verdict}\n`;
}

export const essentialFailed = (checks: readonly Check[]) => checks.some((c) => c.status === 'fail');
