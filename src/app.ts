// The composition root: builds every service with its dependencies and the route table.
// The only global state is the Config and the database handle passed in from here.
import fs from 'node:fs';
import path from 'node:path';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import { Database } from './db/database.ts';
import { acquireInstanceLock, loadOrCreateSecret, type InstanceLock } from './db/instance-lock.ts';
import { loadMigrations, runMigrations } from './db/migrations.ts';
import { createChangeSink } from './changes.ts';
import { parseTrustProxy } from './http/address.ts';
import { createLogger, type Logger } from './core/log.ts';
import { RequestLoad } from './core/load.ts';
import type { RouteDef } from './http/route.ts';
import type { Capability } from './core/capability.ts';
import { createHttpServer } from './http/server.ts';
import { createUiHandler } from './http/static.ts';
import { createFilesCapability } from './files/capability.ts';
import { createBrowseCapability } from './browse/capability.ts';
import { createDownloadsCapability } from './downloads/capability.ts';
import { createEditorCapability } from './editor/capability.ts';
import { createPreviewsCapability } from './previews/capability.ts';
import { createTrashCapability } from './trash/capability.ts';
import { createVersionsCapability } from './versions/capability.ts';
import { createFavoritesCapability } from './favorites/capability.ts';
import { createFolderPrefsCapability } from './folderprefs/capability.ts';
import { createVolumesCapability } from './volumes/capability.ts';
import { createUploadsCapability } from './uploads/capability.ts';
import { createSharesCapability } from './shares/capability.ts';
import { createWebdavCapability } from './webdav/capability.ts';
import { createArchivesCapability } from './archives/capability.ts';
import { createIndexes, openIndexer, walkerAhead } from './indexer/capability.ts';
import type { EarlyWalker } from './indexer/early.ts';
import { createFolderSizes } from './foldersize/service.ts';
import { folderSizeRoutes } from './foldersize/routes.ts';
import { createSearch } from './search/service.ts';
import { searchRoutes } from './search/routes.ts';
import { createIdentity } from './auth/identity.ts';
import { authRoutes } from './auth/routes.ts';
import { tokenRoutes } from './tokens/routes.ts';
import { usersRoutes } from './users/routes.ts';
import { activityRoutes } from './activity/routes.ts';
import { settingsRoutes } from './settings/routes.ts';
import { SettingsService } from './settings/service.ts';
import { installationSwitches } from './settings/switches.ts';
import { createTwoFactorCapability } from './twofactor/capability.ts';
import { createPasskeysCapability } from './passkeys/capability.ts';
import { createOidcCapability } from './oidc/capability.ts';
import { createTerminalCapability } from './terminal/capability.ts';
import { createPermissionsCapability } from './permissions/capability.ts';
import { createNativeAddons, type NativeAddons } from './native.ts';
import type { Caller } from './core/caller.ts';
import { systemRoutes } from './system/routes.ts';
import { networkSection } from './system/network.ts';
import { VERSION } from './version.ts';
import { createIdleCollector } from './core/idle-gc.ts';

export interface AppOptions {
  log?: Logger;
  /** Tests: a module giving the indexer's worker its file-system layer (simulated stalled mounts). */
  indexerWorker?: { fsModule: string; fsOptions?: unknown };
  /** Folder of the built UI (`ui/dist`); null serves a plain notice instead. */
  uiDir?: string | null;
  /** Tests: the native add-ons as a host where one cannot load would have them. */
  addons?: NativeAddons;
  /** The walker's thread main.ts started while the modules loaded (indexer/early.ts), with its request counter. */
  walker?: EarlyWalker;
}

export interface App {
  readonly config: Config;
  readonly db: Database;
  readonly server: http.Server;
  readonly routes: readonly RouteDef[];
  listen(port?: number, host?: string): Promise<AddressInfo>;
  /** Stops accepting, lets in-flight requests finish (bounded), stops background work, closes the database. */
  close(graceMs?: number): Promise<void>;
}

export function defaultUiDir(): string {
  return path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'ui', 'dist');
}

/** First start on the default volume root: make it, with one sample volume. */
function prepareVolumeRoot(config: Config, log: Logger, explicit: boolean): void {
  if (fs.existsSync(config.storage.volumeRoot)) return;
  if (explicit) {
    // A configured root that is missing is usually an unmounted disk: never create it.
    log.warn('VOLUME_ROOT does not exist; no volumes are shown until it does', {
      volumeRoot: config.storage.volumeRoot,
    });
    return;
  }
  fs.mkdirSync(path.join(config.storage.volumeRoot, 'Files'), { recursive: true });
  log.info('created the default volume root with a sample volume', { volumeRoot: config.storage.volumeRoot });
}

export function createApp(config: Config, options: AppOptions = {}): App {
  const log = options.log ?? createLogger(config.server.logLevel);
  const dbFile = path.join(config.storage.configDir, 'burrow.db');
  const lock: InstanceLock = acquireInstanceLock(config.storage.configDir, dbFile);
  // Requests in flight, counted by the HTTP server: background work yields to them.
  const load = options.walker?.load ?? new RequestLoad();
  // A full walk owed at any rate (rebuild, first start): the walker's thread boots while the
  // database opens and migrates (main.ts started it earlier still).
  const walker = options.walker?.client ?? walkerAhead(config, log, load, options.indexerWorker);
  let db: Database;
  try {
    fs.mkdirSync(config.storage.cacheDir, { recursive: true });
    db = new Database(dbFile);
    const applied = runMigrations(db, loadMigrations(), {
      backupDir: path.join(config.storage.configDir, 'backups'),
      release: VERSION,
    });
    if (applied.length) log.info('database migrated', { applied });
  } catch (err) {
    void walker?.close();
    lock.release();
    throw err;
  }
  prepareVolumeRoot(config, log, config.storage.volumeRootExplicit);
  // Settings first: folder sizes and the terminal are switches of Administration → Installation
  // (their variable wins when set), read by the indexer and the terminal as they run.
  const settings = new SettingsService(db);
  const switches = installationSwitches(config, settings, log);
  // The index file and the indexer's thread first: the worker boots while the rest is built.
  const indexer = openIndexer({
    config,
    db,
    log,
    load,
    folderSizes: switches.folderSizes,
    ...(options.indexerWorker ? { worker: options.indexerWorker } : {}),
    ...(walker ? { client: walker } : {}),
  });
  const sessionSecret = loadOrCreateSecret(config.storage.configDir, 'session-secret', config.auth.sessionSecret);
  const changes = createChangeSink((err) => log.warn('a change listener failed', { err }));
  const trustProxy = parseTrustProxy(config.server.trustProxy);

  // Identity: accounts and sessions, API tokens, administration of accounts, the activity log,
  // settings — one route group per folder over identity's services (and its background sweep).
  // Other capabilities take `identity.users`, `identity.settings`, `identity.activity`.
  const identity = createIdentity({ config, db, log, sessionSecret, settings, switches });
  const { services } = identity;
  const capabilities: Capability[] = [
    identity.background,
    { routes: authRoutes(services) },
    { routes: tokenRoutes(services) },
    { routes: usersRoutes(services.usersAdmin) },
    { routes: activityRoutes(services.activity, trustProxy) },
    { routes: settingsRoutes(services) },
  ];
  // Sign-in beyond the password: the second factor, passkeys, the identity provider (and its app bridge).
  capabilities.push(
    createTwoFactorCapability(identity),
    createPasskeysCapability({ config, db, log, identity, trustProxy }),
    createOidcCapability({ config, db, log, identity, trustProxy }),
  );
  // Files: the path resolver every other capability takes (`files.resolver`).
  const files = createFilesCapability({
    config,
    db,
    changes,
    log,
    accessRules: () => identity.settings.accessRules(),
    activity: identity.activity,
  });
  const showHidden = (userId: string) => identity.settings.userPrefs(userId)?.showHiddenFiles === true;
  // Uploads: multipart and resumable (TUS), placed through the files resolver and names.
  const uploads = createUploadsCapability({
    config,
    db,
    resolver: files.resolver,
    changes,
    journal: files.journal,
    log,
    activity: identity.activity,
    files: files.ops,
    versions: files.versions,
    trash: files.trash,
    own: files.own,
  });
  capabilities.push(uploads);
  // Previews and thumbnails (mounted with the files family below); a link holder's thumbnails too.
  const previews = createPreviewsCapability({
    resolver: files.resolver,
    cacheDir: config.storage.cacheDir,
    thumbnails: () => identity.settings.thumbnails(),
    log,
  });
  // Shares: links as a space of the files resolver (`share/<token>/…`), bound to their items.
  const shares = createSharesCapability({
    config,
    db,
    files,
    uploads,
    changes,
    activity: identity.activity,
    sessionSecret,
    thumbnails: previews.previews,
  });
  capabilities.push(shares);
  // Archives: list, take out, extract and create, through the files resolver, confined at use.
  capabilities.push(createArchivesCapability({ config, files, changes, showHidden, activity: identity.activity }));
  // WebDAV at /dav/: the same files services, Basic sign-in through identity's checks.
  const webdav = createWebdavCapability({
    enabled: config.features.webdavEnabled,
    db,
    files,
    changes,
    log,
    activity: identity.activity,
    credentials: identity.credentials,
    space: uploads.space,
  });
  capabilities.push(webdav);
  // Indexes: walks and deltas from the `changes` sink as background work; the folder-size and
  // search groups and browse (`indexes.noteViewed`) see them through the narrow `Indexes` view.
  const indexes = createIndexes({
    config,
    db,
    log,
    changes,
    indexer,
    folderSizes: switches.folderSizes,
    served: files.hostVolumes,
    ...(options.indexerWorker ? { worker: options.indexerWorker } : {}),
  });
  const folderSizes = createFolderSizes({ indexes, resolver: files.resolver });
  capabilities.push(
    indexes,
    { routes: folderSizeRoutes(folderSizes) },
    { routes: searchRoutes(createSearch({ config, db, indexes, resolver: files.resolver, showHidden })) },
  );
  // The files family, one route group per folder over the files services (as PocketBase's
  // apis/base.go binds its groups): file operations, browsing, downloads, the editor, previews,
  // trash, versions, favourites, folder preferences, assigned volumes.
  const { resolver } = files;
  const maxTextBytes = config.limits.editorMaxFileSize;
  capabilities.push(
    files,
    createBrowseCapability({
      resolver,
      showHidden,
      viewed: (realPath) => indexes.noteViewed(realPath),
      createdAt: files.versions.createdAt,
      held: (spaceRoot, realPath) => folderSizes.held(spaceRoot, realPath),
    }),
    createDownloadsCapability({ resolver, showHidden }),
    createEditorCapability({
      resolver,
      versions: files.versions,
      changes,
      journal: files.journal,
      maxBytes: maxTextBytes,
      activity: identity.activity,
      locks: files.locks,
    }),
    previews,
    createTrashCapability({ trash: files.trash, ops: files.ops, maxTextBytes, activity: identity.activity }),
    createVersionsCapability({ versions: files.versions, resolver, maxTextBytes }),
    createFavoritesCapability({ db, resolver }),
    createFolderPrefsCapability({ db, resolver }),
    createVolumesCapability({ store: files.userVolumes, config }),
  );
  // Terminal: an administrator's shell over a WebSocket (switched on in Administration → Installation
  // or by TERMINAL_ENABLED), on the lazily loaded pty add-on.
  const addons = options.addons ?? createNativeAddons(config.storage.cacheDir);
  const terminal = createTerminalCapability({
    config: config.terminal,
    enabled: switches.terminal,
    pty: () => addons.pty(),
    ptyProblem: () => addons.check().pty.reason,
    fromSession: (req) => identity.authenticator.fromSession(req),
    adminSessionActive: (id) => identity.authenticator.adminSessionActive(id),
    activity: identity.activity,
    log,
  });
  capabilities.push(terminal);
  // Permissions: mode, owner and group of files inside volumes (administrators).
  capabilities.push(createPermissionsCapability({ resolver: files.resolver }));
  // Office editing: a plugin imported in listen() only when configured; until then the features say off.
  capabilities.push({
    routes: [],
    features: () => ({
      collabora: { enabled: false, extensions: [] },
      officeeditor: { enabled: false, extensions: [] },
      onlyoffice: { enabled: false, extensions: [] },
    }),
  });
  const callerFor = (userId: string): Caller | null => {
    const user = identity.users.get(userId);
    return user
      ? {
          userId: user.id,
          username: user.username,
          roles: user.roles,
          isAdmin: user.roles.includes('admin'),
          via: 'session',
        }
      : null;
  };
  const office = officeEditorOptions(config, log);
  let ready = false;
  const routes: RouteDef[] = [];
  routes.push(
    ...systemRoutes({
      routes: () => routes,
      isReady: () => ready && db.isOpen,
      features: () => Object.assign({}, ...capabilities.map((c) => c.features?.() ?? {})),
      network: (req) => networkSection(req, { publicUrl: config.server.publicUrl, address: () => server.address() }),
      version: VERSION,
    }),
  );
  for (const c of capabilities) routes.push(...c.routes);

  const server = createHttpServer({
    routes,
    auth: identity.authenticator,
    log,
    trustProxy,
    publicUrl: config.server.publicUrl,
    hosts: { listenHost: config.server.host, allowedHosts: config.server.allowedHosts },
    jsonBodyLimit: config.limits.jsonBodyLimit,
    fallback: createUiHandler(options.uiDir === undefined ? defaultUiDir() : options.uiDir, officeOrigins(office)),
    rawMounts: webdav.mount ? [webdav.mount] : [],
    upgrades: [terminal.upgrade],
    load,
    // Which reading of a raw `+` a path in a query means: the one that names something (http/query.ts).
    queryPaths: async (kind, p, { caller, req, params }) => {
      if (kind === 'host') return (await fs.promises.stat(p)).isDirectory();
      if (kind === 'link') return shares.linkPathExists(params.token ?? '', p, caller, req);
      return caller !== null && (await files.resolver.resolve(caller, p)).exists;
    },
  });

  // Memory a burst of requests (or the start) left behind goes back once things are quiet.
  const idle = createIdleCollector();
  server.on('request', () => idle.touch());

  let closing: Promise<void> | undefined;
  return {
    config,
    db,
    server,
    routes,
    async listen(port = config.server.port, host = config.server.host) {
      if (
        office &&
        !capabilities.some((c) =>
          c.routes.some((r) => r.path.startsWith('/api/officeeditor/') || r.path.startsWith('/api/onlyoffice/')),
        )
      ) {
        const { createOfficeEditorCapability } = await import('./plugins/officeeditor/routes.ts');
        const plugin = createOfficeEditorCapability({
          db,
          resolver: files.resolver,
          versions: files.versions,
          changes,
          journal: files.journal,
          log,
          callerFor,
          publicUrl: office.publicUrl,
          wopi: office.wopi,
          onlyoffice: office.onlyoffice,
          activity: identity.activity,
          itemLocks: files.locks,
        });
        capabilities.push(plugin);
        routes.push(...plugin.routes);
      }
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, async () => {
          server.off('error', reject);
          for (const c of capabilities) await c.start?.();
          ready = true;
          idle.touch();
          resolve(server.address() as AddressInfo);
        });
      });
    },
    close(graceMs = 10_000) {
      closing ??= (async () => {
        ready = false;
        idle.stop();
        // Upgraded sockets are not the HTTP server's to close: end the terminals first.
        await terminal.stop?.();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            server.closeAllConnections();
            resolve();
          }, graceMs);
          timer.unref();
          server.close(() => {
            clearTimeout(timer);
            resolve();
          });
          server.closeIdleConnections();
        });
        for (const c of [...capabilities].reverse()) await c.stop?.();
        db.close();
        lock.release();
      })();
      return closing;
    },
  };
}

/** Origins of the configured editors, which the UI frames (and posts the WOPI token to). */
function officeOrigins(office: ReturnType<typeof officeEditorOptions>): string[] {
  return [office?.wopi?.url, office?.onlyoffice?.url]
    .filter((u): u is string => Boolean(u))
    .map((u) => new URL(u).origin);
}

/** The office integrations that are configured (each needs its URL, its secret and PUBLIC_URL), or null. */
function officeEditorOptions(config: Config, log: Logger) {
  const publicUrl = config.server.publicUrl;
  const o = config.officeEditor;
  const d = config.onlyoffice;
  const wopi =
    o.url && o.secret && publicUrl
      ? {
          url: o.url,
          secret: o.secret,
          discoveryUrl: o.discoveryUrl ?? undefined,
          lang: o.lang,
          extensions: o.fileExtensions.map((e) => e.toLowerCase().replace(/^\./, '')),
        }
      : null;
  const onlyoffice =
    d.url && d.secret && publicUrl
      ? {
          url: d.url,
          secret: d.secret,
          lang: d.lang,
          extensions: d.fileExtensions.map((e) => e.toLowerCase().replace(/^\./, '')),
          forceSave: d.forceSave,
        }
      : null;
  if (!wopi && (o.url || o.secret))
    log.warn('office editing (WOPI) is off: it needs OFFICEEDITOR_URL, OFFICEEDITOR_SECRET and PUBLIC_URL');
  if (!onlyoffice && (d.url || d.secret))
    log.warn('ONLYOFFICE editing is off: it needs ONLYOFFICE_URL, ONLYOFFICE_SECRET and PUBLIC_URL');
  return wopi || onlyoffice ? { publicUrl: publicUrl!, wopi, onlyoffice } : null;
}
