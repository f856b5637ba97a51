#!/usr/bin/env node
// CLI entry: `burrow [--port N] [--config DIR]`, `burrow doctor`, `burrow service …`, `burrow db copy`. Reads the
// environment once, opens the database, starts the HTTP server; SIGTERM/SIGINT/SIGHUP stop it cleanly.
// First: the executable starts itself again with glibc told to give memory back (core/malloc-env.ts).
import './core/malloc-env.ts';
// Then: libuv's pool size, read when the pool starts (threadpool.ts says why).
import './threadpool.ts';
// Then: on a server start that owes a full walk, the walker's thread boots while the rest loads.
import { takeEarlyWalker } from './indexer/early-start.ts';
import { afterEarlyWalks } from './indexer/early.ts';
import fs from 'node:fs';
import { readCommandLine, serverEnv } from './cli-args.ts';
import { ConfigError, loadConfig } from './config.ts';
import { helpText } from './cli-help.ts';
import { fsReason, prepareDataDirs } from './config/dirs.ts';
import { createApp, defaultUiDir } from './app.ts';
import { uiDir } from './assets.ts';
import { checkInChild, createNativeAddons, runForkedAddonHelper } from './native.ts';
import { runPictureChild } from './previews/picture-child.ts';
import { InstanceLockError } from './db/instance-lock.ts';
import { MigrationError } from './db/migrations.ts';
import { createLogger } from './core/log.ts';
import { VERSION } from './version.ts';
import { thirdPartyNotices } from './system/notices.ts';
import { serviceCommand } from './service/cli.ts';
import { dbCommand } from './db/cli.ts';
import { essentialFailed, formatChecks, runDoctor } from './doctor/doctor.ts';
import { consoleLogger, firstRunBanner, localUrl, looseFiles, openBrowser, shouldOpenBrowser } from './console.ts';
import type { Database } from './db/database.ts';
import { UsersStore } from './accounts/users-store.ts';
import type { Config } from './config.ts';

function fatal(message: string): never {
  process.stderr.write(`burrow: ${message}\n`);
  process.exit(1);
}

/** After a write to the log file failed, lines are dropped for this long before it is opened again. */
const LOG_RETRY_MS = 1000;

/**
 * The writer of `--log-file`: the lines appended to the file. A path that cannot be opened stops
 * the start with its reason. A write that fails later (a full disk) must not stop the server: the
 * lines are lost, and a second later the file is opened again — once there is room, the lines go
 * on. (A write stream's error with no listener ended the process.)
 */
function appendingLog(file: string): (chunk: string | Uint8Array) => boolean {
  try {
    fs.closeSync(fs.openSync(file, 'a'));
  } catch (err) {
    fatal(`cannot write the log file ${file}: ${(err as Error).message}`);
  }
  let stream: fs.WriteStream | null = null;
  let failedAt = -Infinity;
  return (chunk) => {
    if (!stream) {
      if (performance.now() - failedAt < LOG_RETRY_MS) return true;
      const opened = fs.createWriteStream(file, { flags: 'a' });
      opened.on('error', () => {
        failedAt = performance.now();
        if (stream === opened) stream = null;
        opened.destroy();
      });
      stream = opened;
    }
    stream.write(chunk);
    return true;
  };
}

/** A new installation: nobody can sign in yet, so the address shows the setup page. */
function accountsMissing(db: Database, config: Config): boolean {
  if (config.auth.mode === 'disabled') return false;
  try {
    return new UsersStore(db).count() === 0;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  let line;
  try {
    line = readCommandLine(argv);
  } catch (err) {
    fatal(`${(err as Error).message} (see burrow --help)`);
  }
  if (line.service) process.exit(await serviceCommand(argv.slice(1)));
  if (line.db) process.exit(await dbCommand(argv.slice(1), process.env));
  const { doctor, values: args } = line;
  if (args['picture-child'] !== undefined) return runPictureChild(args['picture-child']);
  if (args.help) {
    process.stdout.write(helpText(serverEnv(line, process.env), line.helpAll));
    return;
  }
  if (args.version) {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  if (args.licenses) {
    process.stdout.write(thirdPartyNotices());
    return;
  }
  const env = serverEnv(line, process.env);
  // A log reader that goes away (its pipe closed, journald restarted) must not stop the server:
  // the lines it would have read are lost, the requests go on being served.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  if (args['log-file'] !== undefined) {
    // A service without a log collector (the Windows task): the same lines, appended to a file.
    const write = appendingLog(args['log-file']) as typeof process.stdout.write;
    process.stdout.write = write;
    process.stderr.write = write;
  }

  if (args['check-addons']) {
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
  if (doctor || args['self-check']) {
    let config;
    try {
      config = loadConfig(env);
    } catch (err) {
      fatal((err as Error).message);
    }
    const checks = await runDoctor({ config, env });
    process.stdout.write(
      args.json
        ? JSON.stringify({ version: VERSION, ok: !essentialFailed(checks), checks }) + '\n'
        : formatChecks(checks),
    );
    process.exitCode = essentialFailed(checks) ? 1 : 0;
    return;
  }
  const human = process.stdout.isTTY === true && args['log-file'] === undefined;
  // In a terminal the banner comes first: startup lines wait for it.
  let held: string[] | null = [];
  const consoleWrite = (s: string) => (held ? held.push(s) : process.stdout.write(s));
  let app;
  const walker = takeEarlyWalker();
  try {
    const config = loadConfig(env);
    prepareDataDirs(config, config.storage.volumeRootExplicit);
    app = await createApp(config, {
      // Unpacked on the first page asked, not at the start (src/http/static.ts).
      uiDir: () => uiDir(config.storage.cacheDir, defaultUiDir()),
      walker,
      ...(human ? { log: consoleLogger(config.server.logLevel, consoleWrite) } : {}),
    });
  } catch (err) {
    if (err instanceof ConfigError || err instanceof InstanceLockError || err instanceof MigrationError)
      fatal(err.message);
    const e = err as NodeJS.ErrnoException;
    // A data file or folder the process may not use: say which, in one line.
    if (typeof e?.code === 'string' && typeof e.syscall === 'string')
      fatal(`cannot start: ${e.path ? `${e.path}: ` : ''}${fsReason(e)}.`);
    throw err;
  }
  const log = human
    ? consoleLogger(app.config.server.logLevel, consoleWrite)
    : createLogger(app.config.server.logLevel);
  let stopping = false;
  // The add-on check's child writes into CACHE_DIR: a stop ends it and waits for it, as for
  // the server's own work, so nothing of this server writes there after it has stopped.
  const addonCheck = new AbortController();
  let checking: Promise<unknown> = Promise.resolve();
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping', { signal });
    addonCheck.abort();
    Promise.all([app.close(), checking]).then(
      () => process.exit(0),
      (err) => {
        log.error('stop failed', { err });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // The terminal it was started in closed (on Windows: its console window): stopped as cleanly.
  process.on('SIGHUP', () => stop('SIGHUP'));
  try {
    const address = await app.listen();
    // This computer's own address is opened as localhost, never 127.0.0.1: passkeys need a name
    // (at a numeric address the browser refuses them), and localhost is a secure context.
    const url = localUrl(address);
    const needsSetup = accountsMissing(app.db, app.config);
    if (human) {
      // The name announced on the network is the address to give other devices: the banner waits
      // for the announcement (about a second of probing), never long.
      const announced = await Promise.race([
        app.announcement(),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 5000).unref()),
      ]);
      process.stdout.write(firstRunBanner({ address, config: app.config, needsSetup, announced }));
      for (const line of held ?? []) process.stdout.write(line);
      held = null;
    } else {
      log.info('Burrow is listening', {
        url,
        port: address.port,
        configDir: app.config.storage.configDir,
        volumeRoot: app.config.storage.volumeRoot,
      });
      const loose = looseFiles(app.config.storage.volumeRoot);
      if (loose.length)
        log.warn(
          'files at the top of VOLUME_ROOT are not shown: only its folders are volumes; move them into a folder',
          { volumeRoot: app.config.storage.volumeRoot, files: loose.slice(0, 20) },
        );
    }
    // The setup page is the address itself while no account exists.
    if (shouldOpenBrowser({ env, noOpen: Boolean(args['no-open']), tty: human, needsSetup })) openBrowser(url, log);
    // Add-on check, off the request path and in a child process (`--check-addons`): loading the
    // image add-on costs ~35 MB that an idle server should not carry, and a crashing add-on
    // must not take the server down. Not beside a first walk: it would take one of its cores.
    afterEarlyWalks(walker, 250, () => {
      if (stopping) return;
      checking = checkInChild(env, { signal: addonCheck.signal, cacheDir: app.config.storage.cacheDir }).then(
        (parts) => {
          if (stopping) return;
          if (!human || Object.values(parts).some((p) => !p.available)) log.info('optional parts', parts);
        },
      );
    });
  } catch (err) {
    for (const line of held ?? []) process.stdout.write(line);
    held = null;
    await app.close(0);
    fatal(`cannot listen on ${app.config.server.host}:${app.config.server.port}: ${(err as Error).message}`);
  }
}

// On Windows the pty add-on re-runs this executable as its helper: be that helper, not a server.
if (!runForkedAddonHelper())
  main().catch((err) => {
    // One line; the stack (paths of the machine that built the executable) only when asked for.
    const detail = process.env.LOG_LEVEL?.trim().toLowerCase() === 'debug' ? (err as Error)?.stack : undefined;
    process.stderr.write(`burrow: ${detail ?? (err as Error)?.message ?? err}\n`);
    process.exit(1);
  });
