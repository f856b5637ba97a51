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
