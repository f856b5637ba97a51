// A WebDAV server for tests before /dav/ is mounted in the app: a plain node:http server that
// authenticates with Basic against one fixed account and hands every request to handleDav,
// built from the real files pieces (resolver, confined I/O, transfer, trash, versions,
// bindings) on a real database with every migration.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createChangeSink, type Change } from '../../src/changes.ts';
import { Database } from '../../src/db/database.ts';
import { loadMigrations, runMigrations } from '../../src/db/migrations.ts';
import type { AccessRule } from '../../src/files/access.ts';
import { createBindings } from '../../src/files/bindings.ts';
import { createFileOps } from '../../src/files/ops.ts';
import { createPathResolver } from '../../src/files/paths.ts';
import { createPersonalFolders } from '../../src/files/personal.ts';
import { createTransfer } from '../../src/files/transfer.ts';
import { createLogger } from '../../src/core/log.ts';
import type { Caller } from '../../src/core/caller.ts';
import { createTrash } from '../../src/trash/service.ts';
import { createVersions, versionBindings } from '../../src/versions/service.ts';
import { handleDav } from '../../src/webdav/handler.ts';
import { parseBasic } from '../../src/webdav/auth.ts';
import { createDavStore, davPropertyBindings } from '../../src/webdav/store.ts';

export interface DavTestServer {
  url: string;
  root: string;
  volumes: string;
  db: Database;
  changes: Change[];
  rules: AccessRule[];
  logs: Record<string, any>[];
  /** Credentials → caller; add accounts or read-only callers here. */
  accounts: Map<string, { password: string; caller: Caller }>;
  close(): Promise<void>;
}

export async function startDavServer(volumes: string[] = ['Files']): Promise<DavTestServer> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-dav-'));
  const volumeRoot = path.join(root, 'volumes');
  for (const v of volumes) fs.mkdirSync(path.join(volumeRoot, v), { recursive: true });
  const db = new Database(path.join(root, 'config', 'burrow.db'));
  runMigrations(db, loadMigrations());
  const logs: Record<string, any>[] = [];
  const log = createLogger('debug', {}, (line) => { logs.push(JSON.parse(line)); });
  const seen: Change[] = [];
  const changes = createChangeSink();
  changes.subscribe((c) => seen.push(c));
  const rules: AccessRule[] = [];
  const personal = createPersonalFolders(db, path.join(root, 'users'));
  const resolver = createPathResolver({
    volumeRoot, userDirEnabled: false, userVolumesEnabled: false, personal,
    privateDirs: [path.join(root, 'config'), path.join(root, 'cache')], accessRules: () => rules,
  });
  const bindings = createBindings(db);
  bindings.register('versions', versionBindings(db));
  const store = createDavStore(db);
  bindings.register('davProperties', davPropertyBindings(store));
  const transfer = createTransfer(db);
  const trash = createTrash(db, resolver, transfer);
  const versions = createVersions(db, resolver, () => volumes.map((v) => fs.realpathSync(path.join(volumeRoot, v))));
  const ops = createFileOps({ resolver, transfer, trash, bindings, changes, recordDestination: () => {} });
  const accounts = new Map<string, { password: string; caller: Caller }>();
  accounts.set('alice', { password: 'alice-password-1', caller: { userId: 'u-alice', username: 'alice', roles: ['admin'], isAdmin: true, via: 'session' } });
  let n = 0;
  const server = http.createServer((req, res) => {
    const requestId = `dav-${++n}`;
    const basic = parseBasic(req.headers.authorization);
    const account = basic ? accounts.get(basic.name) : undefined;
    if (!account || account.password !== basic!.secret) {
      req.resume();
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="Burrow WebDAV"', 'Content-Length': 0 });
      res.end();
      return;
    }
    void handleDav(req, res, { resolver, ops, trash, versions, transfer, bindings, changes, store, log, caller: account.caller, requestId });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`, root, volumes: volumeRoot, db, changes: seen, rules, logs, accounts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      db.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
