// The composition root: builds every service with its dependencies and the route table.
// The only global state is the Config and the database handle passed in from here.
import fs from 'node:fs';
import path from 'node:path';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import { Database } from './db/database.ts';
import { acquireInstanceLock, type InstanceLock } from './db/instance-lock.ts';
import { openSecrets, type InstallationSecrets } from './cluster/secrets.ts';
import { startChangeStream } from './cluster/stream.ts';
import { createConfigCache } from './cluster/config-cache.ts';
import { createNameGuard } from './cluster/claims.ts';
import { createLeases } from './cluster/leases.ts';
import { createJobs } from './jobs/service.ts';
import { jobsRoutes } from './jobs/routes.ts';
import { guardNames } from './files/names.ts';
import { loadMigrations, runMigrations } from './db/migrations.ts';
import { PostgresDatabase } from './db/postgres.ts';
import { createChangeSink } from './changes.ts';
import { parseTrustProxy } from './http/address.ts';
import { sameOriginUpgrade } from './http/origin.ts';
import { createLogger, type Logger } from './core/log.ts';
import { RequestLoad } from './core/load.ts';
import type { RouteDef } from './http/route.ts';
import type { Capability } from './http/capability.ts';
import { closeServer, createHttpServer } from './http/server.ts';
import { createUiHandler } from './http/static.ts';
import { UsersStore } from './accounts/users-store.ts';
import { SessionStore } from './accounts/sessions-store.ts';
import { DeviceStore } from './accounts/devices-store.ts';
import { RateLimiter } from './accounts/rate-limits.ts';
import { createRateLimitStore } from './accounts/rate-limits-store.ts';
import { callerOf } from './accounts/caller.ts';
import { createActivity } from './activity/service.ts';
import { createActivityStore } from './activity/store.ts';
import { activityRoutes } from './activity/routes.ts';
import { createNotifyStore } from './notify/store.ts';
import { createOutbox } from './notify/outbox.ts';
import { createNotify } from './notify/service.ts';
import { clockOf } from './notify/schedule.ts';
import { notifyRoutes } from './notify/routes.ts';
import { webhookDescription } from './notify/wire.ts';
import { IdentityAuthenticator, SessionCookies } from './auth/authenticator.ts';
import { AuthService } from './auth/service.ts';
import { authRoutes } from './auth/routes.ts';
import { authStartupWarnings } from './auth/warnings.ts';
import { createTokens } from './tokens/service.ts';
import { createTokenStore } from './tokens/store.ts';
import { tokenRoutes } from './tokens/routes.ts';
import { UsersAdminService, restoreAdminRole } from './users/service.ts';
import { usersRoutes } from './users/routes.ts';
import { LogoStore } from './settings/logo.ts';
import { createLogoStore } from './settings/logo-store.ts';
import { SettingsPanel } from './settings/panel.ts';
import { createSettings } from './settings/service.ts';
import { createSettingsStore } from './settings/store.ts';
import { settingsRoutes } from './settings/routes.ts';
import { followSwitches, installationSwitches } from './settings/switches.ts';
import { TwoFactorService } from './twofactor/service.ts';
import { createTwoFactorStore } from './twofactor/store.ts';
import { createTwoFactorCapability } from './twofactor/capability.ts';
import { createPasskeysCapability } from './passkeys/capability.ts';
import { createPasskeyStore } from './passkeys/store.ts';
import { createOidcCapability } from './oidc/capability.ts';
import { createOidcStore } from './oidc/store.ts';
import { Directory, ldapOptions } from './ldap/directory.ts';
import { LdapSignIn } from './ldap/service.ts';
import { createBindings } from './files/bindings.ts';
import { createFilesCapability } from './files/capability.ts';
import { createWorkJournal } from './files/journal-store.ts';
import { createItemLocks } from './files/locks.ts';
import { createLockStore, officeLockProbe } from './plugins/officeeditor/locks-store.ts';
import { createFileOps } from './files/ops.ts';
import { createOwnFolders } from './files/own.ts';
import { createPathResolver } from './files/resolver.ts';
import { createPersonalFolders } from './files/personal.ts';
import { createPersonalFolderStore } from './files/personal-store.ts';
import { createRecentDestinations, recentBindings } from './files/recent-store.ts';
import { spaceRootsOf } from './files/space-roots.ts';
import { createTransfer } from './files/transfer.ts';
import { createTrash } from './trash/service.ts';
import { createTrashStore } from './trash/store.ts';
import { createTrashCapability } from './trash/capability.ts';
import { createVersions, versionBindings } from './versions/service.ts';
import { createVersionStore } from './versions/store.ts';
import { createVersionsCapability } from './versions/capability.ts';
import { createUserVolumeStore } from './volumes/store.ts';
import { createHostVolumeStore } from './volumes/host-store.ts';
import { createVolumesCapability } from './volumes/capability.ts';
import { createBrowseCapability } from './browse/capability.ts';
import { createDownloadsCapability } from './downloads/capability.ts';
import { createEditorCapability } from './editor/capability.ts';
import { createPathLocks } from './cluster/path-locks.ts';
import { createPreviewsCapability } from './previews/capability.ts';
import { createFavoritesCapability } from './favorites/capability.ts';
import { favoriteBindings } from './favorites/store.ts';
import { createTagsCapability } from './tags/capability.ts';
import { createTagStore, tagBindings } from './tags/store.ts';
import { tagKey } from './tags/service.ts';
import { createFolderPrefsCapability } from './folderprefs/capability.ts';
import { folderPrefBindings } from './folderprefs/store.ts';
import { createUploadsCapability } from './uploads/capability.ts';
import { createFetchCapability } from './fetch/capability.ts';
import { createLinks } from './shares/links.ts';
import { createShareStore, shareBindings } from './shares/store.ts';
import { createSharesCapability } from './shares/capability.ts';
import { createDavStore, davPropertyBindings } from './webdav/store.ts';
import { createWebdavCapability } from './webdav/capability.ts';
import { davLockProbe } from './webdav/locking.ts';
import { createArchivesCapability } from './archives/capability.ts';
import { createIndexes, openIndexer, walkerAhead } from './indexer/capability.ts';
import type { EarlyWalker } from './indexer/early.ts';
import { createFolderSizes } from './foldersize/service.ts';
import { createQuotasCapability } from './quotas/capability.ts';
import { folderSizeRoutes } from './foldersize/routes.ts';
import { createSearch } from './search/service.ts';
import { searchRoutes } from './search/routes.ts';
import { createTerminalCapability } from './terminal/capability.ts';
import { createLiveCapability } from './live/capability.ts';
import { clusterInbox } from './live/bell.ts';
import { createPermissionsCapability } from './permissions/capability.ts';
import { createVideoCapability } from './video/capability.ts';
import { accessRoutes } from './access/routes.ts';
import { createAccessModel } from './access/service.ts';
import { createAccessStore } from './access/store.ts';
import { createNativeAddons, loadMemoryTrim, type MemoryTrim, type NativeAddons } from './native.ts';
import type { Caller } from './core/caller.ts';
import { periodicJob } from './core/periodic.ts';
import { systemRoutes } from './system/routes.ts';
import { networkSection } from './system/network.ts';
import { VERSION } from './version.ts';
import { createIdleCollector } from './core/idle-gc.ts';
import { createTlsCapability } from './tls/capability.ts';
import { createMdns } from './mdns/responder.ts';
import { announcedOrigin, recordAnnounced } from './mdns/announced.ts';

export interface AppOptions {
  log?: Logger;
  /** Tests: a module giving the indexer's worker its file-system layer (simulated stalled mounts). */
  indexerWorker?: { fsModule: string; fsOptions?: unknown };
  /**
   * Folder of the built UI (`ui/dist`); null serves a plain notice instead. A function is called
   * on the first request for the UI (the executable unpacks its embedded UI then).
   */
  uiDir?: string | null | (() => string | null);
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
  /** HTTPS's address once it listens (after listen(); null when HTTPS_PORT is off or it cannot listen). */
  secure(): Promise<AddressInfo | null>;
  /** Once mDNS has announced (or failed, or is off): the announced address given out, or null (src/mdns/announced.ts). */
  announcement(): Promise<string | null>;
  /** Stops accepting, lets in-flight requests finish (bounded), stops background work, closes the database. */
  close(graceMs?: number): Promise<void>;
}

const HOUR = 3_600_000;

/** Office editing when it is not configured: its features say off, and it has no rows. */
const officeEditorOff: Capability = {
  routes: [],
  features: () => ({
    collabora: { enabled: false, extensions: [] },
    officeeditor: { enabled: false, extensions: [] },
    onlyoffice: { enabled: false, extensions: [] },
  }),
};

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

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const log = options.log ?? createLogger(config.server.logLevel);
  // Office editing is a plugin, imported before anything starts and only when configured (its
  // modules are not loaded otherwise): the route table below is then built once, with its rows.
  const office = officeEditorOptions(config, log);
  const officePlugin = office ? { office, module: await import('./plugins/officeeditor/routes.ts') } : null;
  const dbFile = path.join(config.storage.configDir, 'burrow.db');
  const lock: InstanceLock = acquireInstanceLock(config.storage.configDir, dbFile);
  // Requests in flight, counted by the HTTP server: background work yields to them.
  const load = options.walker?.load ?? new RequestLoad();
  // A full walk owed at any rate (rebuild, first start): the walker's thread boots while the
  // database opens and migrates (main.ts started it earlier still).
  const walker = options.walker?.client ?? walkerAhead(config, log, load, options.indexerWorker);
  let db: Database;
  // The index (folder sizes, search) is a SQLite file ATTACHed to the embedded database; with
  // PostgreSQL it keeps a SQLite connection of its own (an in-memory main, the file attached).
  let indexDb: Database;
  let opened: Database | undefined;
  // Session signing and seal keys: CONFIG_DIR's files, or the database's on PostgreSQL (cluster/secrets.ts).
  let secrets: InstallationSecrets;
  try {
    fs.mkdirSync(config.storage.cacheDir, { recursive: true });
    const databaseUrl = config.storage.databaseUrl;
    db = opened = databaseUrl ? new PostgresDatabase(databaseUrl) : new Database(dbFile);
    indexDb = databaseUrl ? new Database(':memory:') : db;
    const applied = runMigrations(db, loadMigrations(), {
      backupDir: path.join(config.storage.configDir, 'backups'),
      release: VERSION,
    });
    if (applied.length) log.info('database migrated', { applied });
    secrets = openSecrets({
      db,
      configDir: config.storage.configDir,
      sessionSecret: config.auth.sessionSecret,
      clusterKey: config.storage.clusterKey,
    });
  } catch (err) {
    void walker?.close();
    opened?.close();
    lock.release();
    throw err;
  }
  prepareVolumeRoot(config, log, config.storage.volumeRootExplicit);
  // Settings first: folder sizes and the terminal are switches of Administration → Installation
  // (their variable wins when set), read by the indexer and the terminal as they run.
  // The access model (groups, per-folder rules) holds the installation's rules for everyone too.
  // Both read through one cache: this process's own on the embedded database; on PostgreSQL kept
  // current across instances by the database's version row and the change stream (cluster/config-cache.ts).
  const configCache = createConfigCache(db);
  const accessModel = createAccessModel({
    store: createAccessStore(db),
    cache: configCache,
    log,
    record: (event) => activity.record(event),
    // The explainer resolves as the request would (the resolver is built below, asked at each call).
    resolver: () => resolver,
  });
  const settings = createSettings({
    store: createSettingsStore(db),
    everyoneRules: accessModel.everyone,
    cache: configCache,
  });
  const switches = installationSwitches(config, settings, log);
  // The index file and the indexer's thread first: the worker boots while the rest is built.
  const indexer = openIndexer({
    config,
    db: indexDb,
    log,
    load,
    folderSizes: switches.folderSizes,
    ...(options.indexerWorker ? { worker: options.indexerWorker } : {}),
    ...(walker ? { client: walker } : {}),
  });
  const sessionSecret = secrets.sessionSecret;
  const changes = createChangeSink((err) => log.warn('a change listener failed', { err }));
  // On PostgreSQL the instances of a cluster hear each other's changes (LISTEN/NOTIFY).
  const stream = config.storage.databaseUrl
    ? startChangeStream({ url: config.storage.databaseUrl, changes, log })
    : null;
  const unhearConfig = stream ? configCache.listen(stream) : () => {};
  // …and every instance follows a switch set through another (the walk, the terminal's sockets).
  const unfollowSwitches = stream ? followSwitches(switches, stream, log) : () => {};
  // …and place entries under names held in the database, so two never take one name.
  const unguardNames = config.storage.databaseUrl ? guardNames(createNameGuard(db)) : () => {};
  // Each instance's lease, before it writes anything: its work journal rows and the jobs it runs
  // are its own while it lives, and another's once it lapses (cluster/leases.ts).
  const leases = createLeases({ db, leaseMs: config.storage.clusterLeaseMs, log });
  leases.start();
  const trustProxy = parseTrustProxy(config.server.trustProxy);
  const privateDirs = [config.storage.configDir, config.storage.cacheDir].map((d) => path.resolve(d));

  // Accounts (accounts/): their rows, sessions and rate-limit windows, then the activity log over them.
  const users = new UsersStore(db);
  const sessions = new SessionStore(db, sessionSecret, config.auth.sessionMaxAgeDays);
  const devices = new DeviceStore(db, sessionSecret);
  const limits = new RateLimiter(createRateLimitStore(db));
  // Notifications' outbox: each event is written in its activity row's transaction.
  const notifyStore = createNotifyStore(db);
  const outbox = createOutbox(notifyStore);
  const activity = createActivity({
    store: createActivityStore(db),
    log,
    config: () => settings.activity(),
    usernameOf: (id) => users.get(id)?.username ?? null,
    follower: outbox,
  });
  // The background jobs: each runs where it holds its lease (one instance of a cluster), and one
  // failing again and again is told to the administrators once (jobs/service.ts).
  const jobs = createJobs({
    leases,
    log,
    tell: (name, label, failing, detail) => outbox.job(name, label, failing, detail),
  });
  const callerFor = (userId: string): Caller | null => {
    const user = users.get(userId);
    return user ? callerOf(user, 'session') : null;
  };
  // Sign-in (auth/) and what asks for a password again (tokens, the second factor, settings): the
  // password check is auth's, and auth asks the second factor for the code, so those services
  // take this one function, which calls auth once it is built below.
  const confirmPassword = (userId: string, password: string | undefined, ip: string, sessionId?: string) =>
    auth.confirmPasswordOf(userId, password, ip, sessionId);
  const tokens = createTokens({
    store: createTokenStore(db),
    users,
    activity,
    credentials: { limits, confirmPassword },
  });
  const cookies = new SessionCookies(config.server.publicUrl, sessions.maxAgeMs, trustProxy);
  const authenticator = new IdentityAuthenticator(config.auth.mode, users, sessions, tokens, cookies);
  // The second factor's seeds are sealed under a key in CONFIG_DIR (the database's, sealed, on PostgreSQL).
  const twoFactor = new TwoFactorService({
    store: createTwoFactorStore(db),
    box: secrets.box('totp-key'),
    users,
    limits,
    activity,
    confirmPassword,
  });
  // LDAP / Active Directory sign-in, when a directory is configured: the password step of its accounts.
  const ldap = ldapOptions(config);
  const directory = ldap
    ? new LdapSignIn({
        directory: new Directory(ldap, log),
        users,
        activity,
        groups: accessModel,
        endSessions: (userId) => sessions.deleteForUser(userId),
        revokeTokens: (userId) => tokens.revokeAllOf(userId),
        log,
      })
    : null;
  // Every directory account looked up again (LDAP_CHECK_INTERVAL_MS): one disabled there is cut off now.
  const directoryCheck =
    directory && config.ldap.checkIntervalMs > 0
      ? periodicJob({
          everyMs: config.ldap.checkIntervalMs,
          first: 'later',
          log,
          failed: 'the directory check failed',
          job: { name: 'directory.check', gate: jobs },
          run: async () => log.debug('directory check', await directory.check()),
        })
      : null;
  const auth: AuthService = new AuthService({
    config,
    db,
    users,
    sessions,
    devices,
    limits,
    activity,
    secondFactor: twoFactor,
    oidcRoutes: true,
    ...(directory ? { directory } : {}),
  });
  authStartupWarnings(config, log, true);
  const usersAdmin = new UsersAdminService({ config, db, users, sessions, settings, activity });
  restoreAdminRole(config.auth.adminEmail, { users, activity, log });
  // The logo is a row (every instance serves it); a previous release's CONFIG_DIR file moves in once.
  const logos = new LogoStore(createLogoStore(db));
  logos.moveIn(config.storage.configDir, log);
  const panel = new SettingsPanel({
    settings,
    activity,
    logos,
    switches,
    authDisabled: config.auth.mode === 'disabled',
    confirmPassword,
  });
  // Expired sessions, rate-limit windows and old activity rows, hourly from the start.
  const accountsSweep = periodicJob({
    everyMs: HOUR,
    first: 'soon',
    log,
    failed: 'identity sweep failed',
    job: { name: 'accounts.sweep', gate: jobs },
    run: () =>
      log.debug('identity sweep', {
        sessions: sessions.sweep(),
        rateLimits: limits.sweep(),
        activity: activity.sweep(),
      }),
  });

  // Files: the stores of spaces, the path resolver every capability of files takes, and the
  // services over it. A link's space is one of the resolver's (`share/<token>/…`): the link
  // rules are built first and handed the resolver's `resolve` at each call.
  const userVolumes = createUserVolumeStore(db);
  const hostVolumeStore = createHostVolumeStore(db);
  const personal = createPersonalFolders({
    store: createPersonalFolderStore(db),
    userRoot: config.storage.userRoot,
  });
  // The key that seals link tokens lives in CONFIG_DIR/keys, never in the database or its backups.
  const shareStore = createShareStore(db, secrets.box('link-key'), path.join(config.storage.configDir, 'backups'));
  const links = createLinks({ store: shareStore, sessionSecret });
  const resolver = createPathResolver({
    volumeRoot: config.storage.volumeRoot,
    userDirEnabled: config.storage.userDirEnabled,
    userVolumesEnabled: config.storage.userVolumes,
    personal,
    privateDirs,
    levelAt: accessModel.levelAt,
    rulePaths: accessModel.rulePaths,
    assignedVolumes: (userId) => userVolumes.list(userId),
    hostVolumes: () => hostVolumeStore.list(),
    shareSpaces: links.shareSpace,
  });
  const spaceRoots = spaceRootsOf({
    volumeRoot: config.storage.volumeRoot,
    personal: () => personal.all(),
    assigned: () => userVolumes.paths(),
    host: () => hostVolumeStore.list().map((v) => v.path),
  });
  // WebDAV's locks and dead properties: its locks bind the API even after WebDAV is turned off.
  const davStore = createDavStore(db);
  const versionStore = createVersionStore(db);
  // What is bound to a path follows its renames and moves and goes with its deletion (spec §1 rule 4).
  const tagStore = createTagStore(db);
  const bindings = createBindings(db, {
    favorites: favoriteBindings(db),
    tags: tagBindings(db),
    recentDestinations: recentBindings(db),
    folderPrefs: folderPrefBindings(db),
    versions: versionBindings(versionStore),
    shares: shareBindings(db),
    accessRules: accessModel.binding,
    ...(config.features.webdavEnabled ? { davProperties: davPropertyBindings(davStore) } : {}),
  });
  const journal = createWorkJournal(db, leases);
  const transfer = createTransfer(journal);
  const own = createOwnFolders({ dataDir: config.storage.configDir, journal });
  const trashStore = createTrashStore(db);
  const trash = createTrash({ store: trashStore, resolver, transfer, changes, own });
  const versions = createVersions({ store: versionStore, resolver, roots: spaceRoots, changes, journal, own });
  const recent = createRecentDestinations(db);
  // Quotas per account and per volume: used bytes from the folder-size index (`indexes`, built
  // below: asked only once requests come) plus the bytes writers hold before writing.
  const quota = createQuotasCapability({
    db,
    cache: configCache,
    leases,
    log,
    figures: (realPath) => indexes.figures(realPath),
    counts: (placed) => indexes.counts(placed),
    ensureRoot: (realRoot) => indexes.ensureRoot(realRoot),
    trashBytes: (username) => trashStore.bytesDeletedBy(username),
    versionsBytes: (username) => versionStore.bytesCreatedBy(username),
    personalFolder: async (userId, username) =>
      config.storage.userDirEnabled ? personal.folderFor(userId, username) : null,
    usernameOf: (userId) => users.get(userId)?.username,
    spaces: (caller) => resolver.spaces(caller),
    accounts: () => users.list().map((u) => ({ id: u.id, username: u.username })),
    groups: () => accessModel.groups().groups,
    groupsOf: (userId) => accessModel.groupsOf(userId),
    measuring: () => switches.folderSizes.now() === 'full',
    placed: (reading) => outbox.placed(reading),
  });
  // Locks of WebDAV clients and the office editor: every write of the API and of each door asks
  // them (423 LOCKED). The office editor's lock store exists whether or not it is configured: a
  // lock taken before it was turned off binds until it expires, as a WebDAV lock does.
  const officeLocks = createLockStore(db);
  const locks = createItemLocks({ webdav: davLockProbe(davStore), office: officeLockProbe(officeLocks) });
  const ops = createFileOps({
    locks,
    resolver,
    transfer,
    trash,
    versions,
    bindings,
    changes,
    activity,
    recent,
    journal,
    quotas: quota.quotas,
  });
  const showHidden = (userId: string) => settings.userPrefs(userId)?.showHiddenFiles === true;
  const maxTextBytes = config.limits.editorMaxFileSize;
  // One file's save at a time, through the editor or a link (and across a cluster's instances on PostgreSQL).
  const saveLocks = createPathLocks(db);
  const volumes = createVolumesCapability({
    store: userVolumes,
    hostStore: hostVolumeStore,
    config,
    privateDirs,
    spaceRoots,
    rules: {
      giveVolume: accessModel.giveVolume,
      // A renamed volume's path-bound rows follow its label (spec §1 rule 4, as for a folder renamed).
      renameVolume: (from, to, within) =>
        db.transaction(() => {
          const volume = within();
          if (from.normalize('NFC') !== to.normalize('NFC')) bindings.carry(from, to, { userId: null });
          return volume;
        }),
    },
  });

  // Uploads: multipart and resumable (TUS), placed through the resolver and names.
  const uploads = createUploadsCapability({
    config,
    db,
    resolver,
    changes,
    journal,
    log,
    activity,
    files: ops,
    versions,
    trash,
    own,
    quotas: quota.quotas,
    pace: load,
    jobs,
  });
  // Previews and thumbnails; a link holder's thumbnails too.
  const previews = createPreviewsCapability({
    resolver,
    cacheDir: config.storage.cacheDir,
    thumbnails: () => settings.thumbnails(),
    log,
  });
  // burrow.local by mDNS (started once HTTPS listens, so its port is announced); the certificate,
  // the Host allow-list and the addresses given out (links, banner, doctor) take the announced name.
  let announce: ReturnType<typeof createMdns> | null = null;
  const announced = () => (announce?.announced() ? [announce.announced()!] : []);
  const announcedAddress = (): string | null =>
    config.server.publicUrl
      ? null
      : announcedOrigin(
          announce?.announced() ?? null,
          tlsCap.address()?.port ?? null,
          (server.address() as AddressInfo | null)?.port ?? null,
        );
  const shares = createSharesCapability({
    config,
    announcedOrigin: announcedAddress,
    store: shareStore,
    links,
    limits,
    files: { resolver, ops, versions, journal, locks, saveLocks },
    uploads,
    changes,
    activity,
    thumbnails: previews.previews,
    log,
    jobs,
  });
  // WebDAV at /dav/: the same files services, Basic sign-in through the accounts' checks.
  const webdav = createWebdavCapability({
    enabled: config.features.webdavEnabled,
    store: davStore,
    files: { resolver, ops, trash, versions, transfer, journal, bindings, locks, saveLocks },
    changes,
    log,
    jobs,
    activity,
    credentials: { mode: config.auth.mode, auth, tokens, users, limits, secondFactor: twoFactor },
    space: uploads.space,
    quotas: quota.quotas,
    pace: load,
  });
  // Indexes: walks and deltas from the `changes` sink as background work; the folder-size and
  // search groups and browse (`indexes.noteViewed`) see them through the narrow `Indexes` view.
  // What the periodic rescan finds made outside Burrow goes to this instance's live folder views
  // through `rescanned` (told to `changes`, the index would apply its own findings a second
  // time). On a cluster every outside change an index finds (the rescan's, a folder on screen
  // read again) is also told on the change stream: the other instances' indexes read those
  // paths again, and their live folder views hear them as this one's do.
  const rescanned = createChangeSink((err) => log.warn('a rescan listener failed', { err }));
  stream?.onFound((c) => rescanned.emit(c));
  const indexes = createIndexes({
    config,
    db: indexDb,
    log,
    changes,
    indexer,
    folderSizes: switches.folderSizes,
    served: volumes.hostVolumes,
    ...(options.indexerWorker ? { worker: options.indexerWorker } : {}),
    rescan: {
      gate: jobs,
      heard: (c) => rescanned.emit(c),
      ...(stream ? { cluster: { tell: (c) => stream.tellFound(c), told: (l) => stream.onFound(l) } } : {}),
    },
  });
  const folderSizes = createFolderSizes({ indexes, resolver });
  // Terminal: an administrator's shell over a WebSocket (switched on in Administration → Installation
  // or by TERMINAL_ENABLED), on the lazily loaded pty add-on.
  const addons = options.addons ?? createNativeAddons(config.storage.cacheDir);
  const memoryTrim = loadTrim(config.storage.cacheDir, log);
  const terminal = createTerminalCapability({
    config: config.terminal,
    enabled: switches.terminal,
    pty: () => addons.pty(),
    ptyProblem: () => addons.check().pty.reason,
    fromSession: (req) => authenticator.fromSession(req),
    adminSessionActive: (id) => authenticator.adminSessionActive(id),
    activity,
    log,
    db,
    leases,
  });
  // Live folders: the pages that show a folder hear its changes (Burrow's writes and the disk's).
  const live = createLiveCapability({
    resolver,
    changes,
    rescanned,
    showHidden,
    fromSession: (req) => authenticator.fromSession(req) ?? authenticator.anonymousCaller(),
    current: (c) =>
      c.via === 'anonymous' ? c : c.sessionId && sessions.active(c.sessionId) ? callerFor(c.userId) : null,
    sameOrigin: (req) => sameOriginUpgrade(req, { trustProxy, publicUrl: config.server.publicUrl }),
    // The bell's changes, made on this instance or another (notify is built below; live starts after it).
    inbox: (fn, wants) => clusterInbox({ source: notify, signals: stream, log })(fn, wants),
    log,
  });
  // Office editing: the plugin imported above when configured, or its features saying off.
  const officeEditor = officePlugin
    ? officePlugin.module.createOfficeEditorCapability({
        resolver,
        versions,
        changes,
        journal,
        log,
        callerFor,
        publicUrl: officePlugin.office.publicUrl,
        wopi: officePlugin.office.wopi,
        onlyoffice: officePlugin.office.onlyoffice,
        activity,
        locks: officeLocks,
        itemLocks: locks,
      })
    : officeEditorOff;

  // Notifications: the sender over the outbox, deciding recipients with the resolver's access check.
  const notify = createNotify({
    jobs,
    store: notifyStore,
    outbox,
    box: secrets.box('notify-key'),
    pushServices: config.notify.pushServices,
    clock: clockOf(config.notify.clockFile),
    volumes: volumes.hostVolumes.health,
    disks: () => [
      { name: 'the data folder', path: config.storage.configDir },
      { name: 'the volumes folder', path: config.storage.volumeRoot },
      { name: 'the personal folders', path: config.storage.userRoot },
    ],
    resolver,
    log,
    callerFor,
    accounts: () =>
      users.list().map((u) => ({
        id: u.id,
        username: u.username,
        isAdmin: callerOf(u, 'session').isAdmin,
        email: u.email,
      })),
  });
  // HTTPS beside HTTP, on Burrow's own certificate authority or the administrator's certificate.
  const tlsCap = createTlsCapability({ config, log, announced: () => [...announced(), `${config.mdns.name}.local`] });

  // Every route group, each folder's rows over its services (as PocketBase's apis/base.go binds
  // its groups), and the background work each starts once the server listens (in this order).
  const capabilities: Capability[] = [
    { routes: [], start: accountsSweep.start, stop: accountsSweep.stop },
    { routes: [], start: () => directoryCheck?.start(), stop: async () => directoryCheck?.stop() },
    tlsCap,
    { routes: authRoutes({ auth, authenticator, cookies }) },
    { routes: tokenRoutes({ tokens }) },
    { routes: usersRoutes(usersAdmin) },
    { routes: activityRoutes(activity, trustProxy) },
    { routes: jobsRoutes(jobs) },
    { routes: notifyRoutes(notify), start: notify.start, stop: notify.stop },
    { routes: settingsRoutes({ settings, panel, logos }) },
    { routes: accessRoutes(accessModel) },
    // Sign-in beyond the password: the second factor, passkeys, the identity provider (and its app bridge).
    createTwoFactorCapability({ twoFactor, auth, authenticator, cookies }),
    createPasskeysCapability({
      config,
      store: createPasskeyStore(db),
      log,
      auth,
      authenticator,
      cookies,
      users,
      limits,
      activity,
      trustProxy,
      jobs,
    }),
    createOidcCapability({
      config,
      store: createOidcStore(db),
      log,
      auth,
      authenticator,
      cookies,
      users,
      activity,
      trustProxy,
      groups: accessModel,
      jobs,
    }),
    uploads,
    // Add from link: a file fetched from a web address, placed as an upload.
    createFetchCapability({ config, uploads, quotas: quota.quotas, journal, activity, log, db, owner: leases }),
    quota,
    shares,
    createArchivesCapability({
      config,
      files: { resolver, ops, journal },
      changes,
      showHidden,
      activity,
      quotas: quota.quotas,
    }),
    webdav,
    indexes,
    { routes: folderSizeRoutes(folderSizes) },
    {
      routes: searchRoutes(
        createSearch({
          config,
          db: indexDb,
          indexes,
          resolver,
          showHidden,
          tagged: (userId, tag) => tagStore.pathsWith(userId, tagKey(tag)),
        }),
      ),
    },
    // The files family: file operations, browsing, downloads, the editor, previews, trash,
    // versions, favourites, folder preferences, volumes.
    createFilesCapability({ config, log, ops, transfer, own, spaceRoots, trash, versions, leases }),
    createBrowseCapability({
      resolver,
      showHidden,
      viewed: (realPath) => indexes.noteViewed(realPath),
      createdAt: versions.createdAt,
      held: (spaceRoot, realPath) => folderSizes.held(spaceRoot, realPath),
    }),
    createDownloadsCapability({ resolver, showHidden }),
    createEditorCapability({
      resolver,
      versions,
      changes,
      journal,
      maxBytes: maxTextBytes,
      activity,
      locks,
      saveLocks,
    }),
    previews,
    // Video that plays: what the browser cannot play, streamed through ffmpeg.
    createVideoCapability({ resolver, limits: config.video, cacheDir: config.storage.cacheDir, log }),
    createTrashCapability({
      trash,
      ops,
      maxTextBytes,
      activity,
      retentionDays: config.features.trashRetentionDays,
      everyMs: config.features.trashSweepIntervalMs,
      log,
      jobs,
    }),
    createVersionsCapability({ versions, resolver, maxTextBytes }),
    createFavoritesCapability({ db, resolver }),
    createTagsCapability({ store: tagStore, resolver, groupsOf: (id) => accessModel.groupsOf(id) }),
    createFolderPrefsCapability({ db, resolver }),
    volumes,
    terminal,
    live,
    // Permissions: mode, owner and group of files inside volumes (administrators).
    createPermissionsCapability({ resolver }),
    officeEditor,
  ];
  let ready = false;
  const routes: RouteDef[] = [
    ...systemRoutes({
      routes: () => routes,
      isReady: () => ready && db.isOpen && (db.reachable() || 'database-unavailable'),
      features: () => Object.assign({}, ...capabilities.map((c) => c.features?.() ?? {})),
      network: (req) =>
        networkSection(req, {
          publicUrl: config.server.publicUrl,
          address: () => server.address(),
          announced: announcedAddress,
        }),
      version: VERSION,
      webhooks: webhookDescription,
    }),
    ...capabilities.flatMap((c) => c.routes),
  ];

  const server = createHttpServer({
    routes,
    auth: authenticator,
    links: shares.linkGate,
    log,
    trustProxy,
    publicUrl: config.server.publicUrl,
    hosts: { listenHost: config.server.host, allowedHosts: config.server.allowedHosts, announcedNames: announced },
    jsonBodyLimit: config.limits.jsonBodyLimit,
    fallback: createUiHandler(
      options.uiDir === undefined ? defaultUiDir() : options.uiDir,
      officeOrigins(office),
      (err) => log.warn('the web interface could not be unpacked', { err }),
    ),
    rawMounts: webdav.mount ? [webdav.mount] : [],
    upgrades: [terminal.upgrade, live.upgrade],
    plainNotice: tlsCap.notice,
    load,
    // Which reading of a raw `+` a path in a query means: the one that names something (http/query.ts).
    queryPaths: async (kind, p, { caller, req, params }) => {
      if (kind === 'host') return (await fs.promises.stat(p)).isDirectory();
      if (kind === 'link') return shares.linkPathExists(params.token ?? '', p, caller, req);
      return caller !== null && (await resolver.resolve(caller, p)).exists;
    },
  });

  // Memory a burst of requests (or the start) left behind goes back once things are quiet.
  const idle = createIdleCollector({
    trim: memoryTrim && (() => memoryTrim.trim()),
    release:
      memoryTrim &&
      (() =>
        log.debug('executable pages given back', {
          mappedMb: mb(memoryTrim.releaseExecutable()),
          rssMb: mb(process.memoryUsage.rss()),
        })),
    collected: (before, after, trimmed) =>
      log.debug('memory given back', { beforeMb: mb(before.rss), afterMb: mb(after.rss), trimmed }),
  });
  server.on('request', () => idle.touch());

  let closing: Promise<void> | undefined;
  let secure: Promise<AddressInfo | null> = Promise.resolve(null);
  let announcing: Promise<void> = Promise.resolve();
  return {
    config,
    db,
    server,
    routes,
    listen(port = config.server.port, host = config.server.host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, async () => {
          server.off('error', reject);
          secure = tlsCap.listen(server, host);
          if (config.mdns.enabled) {
            const http = (server.address() as AddressInfo).port;
            const mdns = createMdns({
              name: config.mdns.name,
              httpPort: () => http,
              httpsPort: () => tlsCap.address()?.port ?? null,
              webdav: config.features.webdavEnabled,
              log,
            });
            announce = mdns;
            announcing = secure
              .then(() => mdns.start())
              .then(() => recordAnnounced(config.storage.configDir, announcedAddress()))
              .then(() => tlsCap.tls?.renew())
              .then(
                () => undefined,
                (err) => log.warn('mDNS (or the certificate for its name) failed', { err: (err as Error).message }),
              );
          }
          for (const c of capabilities) await c.start?.();
          // Ready once other instances' changes are heard (or PostgreSQL took too long to say so).
          await stream?.ready();
          ready = true;
          idle.touch();
          resolve(server.address() as AddressInfo);
        });
      });
    },
    secure: () => secure,
    announcement: () => announcing.then(announcedAddress),
    close(graceMs = 10_000) {
      closing ??= (async () => {
        ready = false;
        idle.stop();
        // Upgraded sockets are not the HTTP server's to close: end the terminals first.
        await terminal.stop?.();
        await live.stop?.();
        // Withdrawn from the network first: nobody is sent to a server that is going.
        await announcing;
        await announce?.stop();
        if (announce) recordAnnounced(config.storage.configDir, null);
        const secureClosed = secure.then(() => tlsCap.close(graceMs));
        await closeServer(server, graceMs);
        await secureClosed;
        for (const c of [...capabilities].reverse()) await c.stop?.();
        leases.stop();
        unhearConfig();
        unfollowSwitches();
        await stream?.close();
        unguardNames();
        db.close();
        if (indexDb !== db) indexDb.close();
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

/** Burrow's malloc_trim add-on (native.ts), or null: one that does not load is logged, never fatal. */
function loadTrim(cacheDir: string, log: Logger): MemoryTrim | null {
  try {
    return loadMemoryTrim(cacheDir);
  } catch (err) {
    log.warn("the memory add-on does not load: glibc's free memory stays with the process", {
      error: (err as Error).message.split('\n')[0],
    });
    return null;
  }
}

const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
