// The app started inside the test's own process (createApp), for what only source can do:
// the indexer's worker given a file-system layer of the test's (test/inprocess/fixtures/*-fs.ts)
// that holds a walk where the test needs it. Served on a free port like the real server, with
// its JSON log lines kept for the test to wait on.
//
//   dirs = makeDirs(); …files written…
//   s = await startInProcess(dirs, { AUTH_MODE: 'disabled' }, { fsModule, fsOptions });
//   await waitFor(() => s.logs.some((l) => l.msg === 'index catalogue finished'), { what: 'the catalogue' });
//   …
//   await s.close(); // the app, then its folders
import { createApp, type App, type AppOptions } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/core/log.ts';
import { Client } from './client.ts';
import { removeDirs, serverEnv, type TestDirs } from './server.ts';

export interface InProcessApp {
  app: App;
  client: Client;
  /** Every log line so far, parsed (debug and above). */
  logs: Record<string, any>[];
  /** Closes the app (1 s for requests in flight) and removes its folders. */
  close(): Promise<void>;
}

/** `env` is added to the folders' own settings (serverEnv). */
export async function startInProcess(
  dirs: TestDirs,
  env: Record<string, string>,
  indexerWorker?: AppOptions['indexerWorker'],
): Promise<InProcessApp> {
  const logs: Record<string, any>[] = [];
  const app = await createApp(loadConfig({ ...serverEnv(dirs), ...env }), {
    log: createLogger('debug', {}, (line) => {
      logs.push(JSON.parse(line));
    }),
    uiDir: null,
    ...(indexerWorker ? { indexerWorker } : {}),
  });
  const { port } = await app.listen(0, '127.0.0.1');
  return {
    app,
    client: new Client(`http://127.0.0.1:${port}`),
    logs,
    async close() {
      await app.close(1000);
      removeDirs(dirs);
    },
  };
}
