// What a person sees when they start Burrow in a terminal: where to open it (this computer and
// every LAN address), where the data lives and how to stop; then short log lines instead of
// JSON. Without a terminal (a service, a test, a pipe) the log stays one JSON object per line.
// On a desktop session the browser opens on the setup page of a new installation.
import fs from 'node:fs';
import os from 'node:os';
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import { createLogger, type Level, type Logger } from './core/log.ts';
import { VERSION } from './version.ts';
import { lanAddresses } from './system/network.ts';

export { lanAddresses } from './system/network.ts';

/** Short human log lines: `12:03:04 warn  message  key=value`. */
export function consoleLogger(level: Level, write: (s: string) => void = (s) => process.stdout.write(s)): Logger {
  return createLogger(level, {}, (line) => {
    const { time, level: lvl, msg, ...rest } = JSON.parse(line) as Record<string, unknown>;
    const fields = Object.entries(rest)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' ');
    write(`${String(time).slice(11, 19)} ${String(lvl).padEnd(5)} ${String(msg)}${fields ? `  ${fields}` : ''}\n`);
  });
}

export function looseFiles(volumeRoot: string): string[] {
  try {
    return fs
      .readdirSync(volumeRoot, { withFileTypes: true })
      .filter((e) => e.isFile() && !e.name.startsWith('.'))
      .map((e) => e.name);
  } catch {
    return [];
  }
}

const isLoopback = (address: string) =>
  address.startsWith('127.') || address === '::1' || address === '::ffff:127.0.0.1';

/**
 * The address to open on this computer: localhost for every interface and for a loopback one
 * (a passkey needs a name — at 127.0.0.1 the browser refuses it — and localhost is a secure
 * context over plain http), else the address listened on.
 */
export function localUrl(address: AddressInfo): string {
  const a = address.address;
  const host = a === '0.0.0.0' || a === '::' || isLoopback(a) ? 'localhost' : a.includes(':') ? `[${a}]` : a;
  return `http://${host}:${address.port}/`;
}

export function firstRunBanner(o: {
  address: AddressInfo;
  config: Config;
  needsSetup: boolean;
  /** The name announced on the network, as an origin (mdns/announced.ts): the address other devices open first. */
  announced?: string | null;
  interfaces?: NodeJS.Dict<os.NetworkInterfaceInfo[]>;
}): string {
  const { address, config } = o;
  const port = address.port;
  const all = address.address === '0.0.0.0' || address.address === '::';
  const local = localUrl(address);
  const lines = [`Burrow ${VERSION} is running.`, ''];
  lines.push(`  Open it on this computer:  ${local}`);
  if (o.announced) lines.push(`  From other devices:        ${o.announced}/   (announced on the network)`);
  if (all) {
    const lan = lanAddresses(o.interfaces).filter((a) => address.address === '::' || a.family === 'IPv4');
    if (lan.length === 0 && !o.announced)
      lines.push('  Other devices:             no network address found (not connected?)');
    lan.forEach((a, i) =>
      lines.push(
        `  ${i === 0 && !o.announced ? 'From other devices:       ' : '                          '} http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${port}/   (${a.name})`,
      ),
    );
  } else if (isLoopback(address.address)) {
    lines.push(`  Other devices cannot reach it: HOST=${config.server.host} keeps Burrow to this computer.`);
  }
  if (o.needsSetup) lines.push('', '  First start: open that address and create the administrator account.');
  lines.push('');
  lines.push(`  Database and settings:     ${config.storage.configDir}`);
  lines.push(
    `  Volumes:                   each folder in ${config.storage.volumeRoot}, and the host folders added in Administration → Volumes`,
  );
  const loose = looseFiles(config.storage.volumeRoot);
  if (loose.length)
    lines.push(
      `  Note: ${loose.length} file(s) at the top of ${config.storage.volumeRoot} are not shown (only folders there are volumes): move them into a folder.`,
    );
  lines.push(`  Cache:                     ${config.storage.cacheDir}`);
  lines.push(
    '',
    '  Stop: press Ctrl+C.  Check this computer: burrow doctor.  Run at boot: burrow service install.',
    '',
  );
  return lines.join('\n') + '\n';
}

/**
 * Open a browser only for a person at a desktop: a terminal, not --no-open, not CI or a test,
 * not a service (systemd sets INVOCATION_ID, launchd XPC_SERVICE_NAME), and on Linux only
 * with a graphical session.
 */
export function shouldOpenBrowser(o: {
  env: NodeJS.ProcessEnv;
  noOpen: boolean;
  tty: boolean;
  needsSetup: boolean;
  platform?: NodeJS.Platform;
}): boolean {
  const { env } = o;
  const platform = o.platform ?? process.platform;
  if (o.noOpen || !o.tty || !o.needsSetup) return false;
  if (env.CI || env.BURROW_NO_OPEN || env.INVOCATION_ID || (env.XPC_SERVICE_NAME && env.XPC_SERVICE_NAME !== '0'))
    return false;
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

export function browserCommand(url: string, platform: NodeJS.Platform = process.platform): [string, string[]] {
  if (platform === 'darwin') return ['open', [url]];
  // `start` is a cmd built-in: the empty title keeps the URL from being taken as the title.
  // The URL is ours (http://localhost:<port>/), never user input.
  if (platform === 'win32') return ['cmd.exe', ['/d', '/c', 'start', '""', url]];
  return ['xdg-open', [url]];
}

export function openBrowser(url: string, log: Logger): void {
  const [file, args] = browserCommand(url);
  const child = execFile(file, args, { windowsHide: true, timeout: 30_000 }, (err) => {
    if (err) log.info(`could not open a browser (${file}): open ${url} yourself`);
  });
  child.unref();
}
