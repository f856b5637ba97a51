// The walker's thread, started while the executable's modules are still loading (early-start.ts,
// which src/main.ts imports before any other module, so it runs before the server's code is
// even evaluated): on a start that owes a full walk (FOLDER_SIZE_REBUILD, or no index file yet) the
// worker's boot (~80-160 ms in the executable) overlaps the loading of the server, the opening
// of the database and its migrations, and the first walk starts as soon as discover() posts it.
// Only the thread starts here; what is walked is decided later, from the configuration and the
// database, exactly as without it. Nothing starts for the other modes (doctor, service, help,
// version, checks), for a command line or configuration that main would refuse, or when
// nothing is indexed.
import { loadConfig } from '../config.ts';
import { readCommandLine, serverEnv, startsServer } from '../cli-args.ts';
import { RequestLoad } from '../core/load.ts';
import { createLogger } from '../core/log.ts';
import { walkerAhead } from './indexer.ts';
import type { WalkerClient } from './worker-client.ts';

export interface EarlyWalker {
  /** The request counter the worker was given: the server's own (the worker reads its buffer). */
  load: RequestLoad;
  client: WalkerClient;
}

/** The walker thread a server start with this command line and environment should start now, if any. */
export function startEarlyWalker(argv: readonly string[], env: NodeJS.ProcessEnv): EarlyWalker | undefined {
  try {
    const line = readCommandLine(argv);
    if (!startsServer(line)) return undefined;
    const config = loadConfig(serverEnv(line, env));
    const load = new RequestLoad();
    // The server's logger replaces this one when the indexer takes the thread over.
    const client = walkerAhead(config, createLogger(config.server.logLevel), load);
    return client ? { load, client } : undefined;
  } catch {
    // main reads the same command line and configuration again, and says what is wrong.
    return undefined;
  }
}

/** Polled while the early walker still walks (cheap: one number read). */
const REST_POLL_MS = 100;
/** Past this, start work waits no longer (a large tree's catalogue runs for minutes). */
const REST_MAX_MS = 10_000;

/**
 * Runs `work` `delayMs` from now, or, on a start whose first walks run in the early walker's
 * thread, once that thread has no walk left (at most REST_MAX_MS later). For start work that
 * burns a core of its own — the add-on check boots a second process of this executable — which,
 * run beside the first walk on a two-core machine, took CPU from it (launch -> sized 3.26x -> 3.02x
 * du, interleaved launches, once deferred).
 */
export function afterEarlyWalks(early: EarlyWalker | undefined, delayMs: number, work: () => void): void {
  const until = Date.now() + delayMs + REST_MAX_MS;
  const check = () => {
    if (!early || early.client.busy === 0 || Date.now() >= until) work();
    else setTimeout(check, REST_POLL_MS).unref();
  };
  setTimeout(check, delayMs).unref();
}
