// A real Burrow for tests: the HTTP server on port 0 with temp VOLUME_ROOT, CONFIG_DIR and
// CACHE_DIR and the real database file. `restart()` keeps the folders (state survives).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/http/log.ts';

export interface TestDirs { root: string; volumes: string; config: string; cache: string; users: string }

export interface TestServer {
  url: string;
  app: App;
  dirs: TestDirs;
  /** Lines the server logged (JSON objects). */
  logs: Record<string, any>[];
  restart(extraEnv?: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

export function makeDirs(prefix = 'burrow-test-'): TestDirs {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const dirs = { root, volumes: path.join(root, 'volumes'), config: path.join(root, 'config'), cache: path.join(root, 'cache'), users: path.join(root, 'users') };
  fs.mkdirSync(dirs.volumes, { recursive: true });
  return dirs;
}

export async function startServer(options: { env?: Record<string, string>; dirs?: TestDirs; volumes?: string[]; uiDir?: string | null } = {}): Promise<TestServer> {
  const dirs = options.dirs ?? makeDirs();
  for (const v of options.volumes ?? ['Files']) fs.mkdirSync(path.join(dirs.volumes, v), { recursive: true });
  const logs: Record<string, any>[] = [];
  const log: Logger = createLogger('debug', {}, (line) => { logs.push(JSON.parse(line)); });
  let env: Record<string, string> = {
    HOST: '127.0.0.1', PORT: '0', VOLUME_ROOT: dirs.volumes, CONFIG_DIR: dirs.config, CACHE_DIR: dirs.cache, USER_ROOT: dirs.users,
    ...options.env,
  };
  const boot = async () => {
    const app = createApp(loadConfig(env), { log, uiDir: options.uiDir ?? null }, env);
    const address = await app.listen(0, '127.0.0.1');
    return { app, url: `http://127.0.0.1:${address.port}` };
  };
  let current = await boot();
  const server: TestServer = {
    get url() { return current.url; },
    get app() { return current.app; },
    dirs, logs,
    async restart(extraEnv = {}) {
      await current.app.close(1000);
      env = { ...env, ...extraEnv };
      current = await boot();
    },
    async close() {
      await current.app.close(1000);
    },
  };
  return server;
}

/** Removes a test's folders (best effort; read-only bits are reset first). */
export function removeDirs(dirs: TestDirs): void {
  fs.rmSync(dirs.root, { recursive: true, force: true, maxRetries: 3 });
}
