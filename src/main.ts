#!/usr/bin/env node
// CLI entry: `burrow [--port N] [--config DIR]`. Reads the environment once, opens the
// database, starts the HTTP server; SIGTERM/SIGINT stop it cleanly.
import { parseArgs } from 'node:util';
import { ConfigError, allVariables, loadConfig } from './config.ts';
import { fsReason, prepareDataDirs } from './config/dirs.ts';
import { createApp, defaultUiDir } from './app.ts';
import { uiDir } from './assets.ts';
import { checkInChild, createNativeAddons, runForkedAddonHelper } from './native.ts';
import { InstanceLockError } from './db/instance-lock.ts';
import { MigrationError } from './db/migrations.ts';
import { createLogger } from './core/log.ts';
import { VERSION } from './version.ts';

const USAGE = `Burrow ${VERSION}: a self-hosted web file manager.

Usage: burrow [--port N] [--host ADDRESS] [--config DIR] [--volumes DIR] [--self-check]

Every setting is an environment variable (--port, --host, --config and --volumes set PORT,
HOST, CONFIG_DIR and VOLUME_ROOT; --self-check reports which optional native parts load). Variables:
`;

function fatal(message: string): never {
  process.stderr.write(`burrow: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({
      options: {
        port: { type: 'string', short: 'p' }, host: { type: 'string' }, config: { type: 'string', short: 'c' },
        volumes: { type: 'string' }, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' },
        'self-check': { type: 'boolean' },
      },
    }).values;
  } catch (err) {
    fatal(`${(err as Error).message} (see burrow --help)`);
  }
  if (args.help) {
    process.stdout.write(USAGE + allVariables().map((v) => `  ${v.name.padEnd(38)} ${v.defaultText ? `[${v.defaultText}] ` : ''}${v.doc}`).join('\n') + '\n');
    return;
  }
  if (args.version) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  const env = { ...process.env };
  if (args.port !== undefined) env.PORT = args.port;
  if (args.host !== undefined) env.HOST = args.host;
  if (args.config !== undefined) env.CONFIG_DIR = args.config;
  if (args.volumes !== undefined) env.VOLUME_ROOT = args.volumes;

  if (args['self-check']) {
    // Loads the optional native parts in this process and reports which work (JSON, one line).
    let cacheDir;
    try {
      cacheDir = loadConfig(env).storage.cacheDir;
    } catch (err) {
      fatal((err as Error).message);
    }
    process.stdout.write(JSON.stringify(createNativeAddons(cacheDir).check()) + '\n');
    return;
  }
  let app;
  try {
    const config = loadConfig(env);
    prepareDataDirs(config, Boolean(env.VOLUME_ROOT?.trim()));
    app = createApp(config, { uiDir: uiDir(config.storage.cacheDir, defaultUiDir()) }, env);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof InstanceLockError || err instanceof MigrationError) fatal(err.message);
    const e = err as NodeJS.ErrnoException;
    // A data file or folder the process may not use: say which, in one line.
    if (typeof e?.code === 'string' && typeof e.syscall === 'string') fatal(`cannot start: ${e.path ? `${e.path}: ` : ''}${fsReason(e)}.`);
    throw err;
  }
  const log = createLogger(app.config.server.logLevel);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping', { signal });
    app.close().then(() => process.exit(0), (err) => {
      log.error('stop failed', { err });
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  try {
    const address = await app.listen();
    const shownHost = address.address === '0.0.0.0' || address.address === '::' ? 'localhost' : address.address;
    log.info('Burrow is listening', { url: `http://${shownHost}:${address.port}/`, port: address.port, configDir: app.config.storage.configDir, volumeRoot: app.config.storage.volumeRoot });
    // Self-check, off the request path and in a child process (`--self-check`): loading the
    // image add-on costs ~35 MB that an idle server should not carry, and a crashing add-on
    // must not take the server down.
    setTimeout(() => void checkInChild().then((parts) => log.info('optional parts', parts)), 250).unref();
  } catch (err) {
    await app.close(0);
    fatal(`cannot listen on ${app.config.server.host}:${app.config.server.port}: ${(err as Error).message}`);
  }
}

// On Windows the pty add-on re-runs this executable as its helper: be that helper, not a server.
if (!runForkedAddonHelper()) main().catch((err) => {
  // One line; the stack (paths of the machine that built the executable) only when asked for.
  const detail = process.env.LOG_LEVEL?.trim().toLowerCase() === 'debug' ? (err as Error)?.stack : undefined;
  process.stderr.write(`burrow: ${detail ?? (err as Error)?.message ?? err}\n`);
  process.exit(1);
});
