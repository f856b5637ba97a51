// The files capability as app.ts sees it: the path resolver (handed to every folder of the files
// family, uploads, search, shares…), the version keeper (editor and office saves), the trash,
// the bindings registry (shares), and the rows of file operations (files/routes.ts). The other
// folders of the family mount their own rows over these services in app.ts.
import fs from 'node:fs';
import path from 'node:path';
import type { Capability } from '../core/capability.ts';
import type { ChangeSink } from '../changes.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../core/log.ts';
import type { RouteDef } from '../http/route.ts';
import { createTrash, type TrashService } from '../trash/service.ts';
import { createVersions, versionBindings, type VersionService } from '../versions/service.ts';
import { createUserVolumeStore, type UserVolumeStore } from '../volumes/store.ts';
import { createHostVolumeStore } from '../volumes/host-store.ts';
import { createHostVolumes, type HostVolumeEvent } from '../volumes/host-service.ts';
import { hostVolumeRoutes } from '../volumes/host-routes.ts';
import type { AccessRule } from './access.ts';
import type { ActivitySink } from './activity.ts';
import { createBindings, pathTable, type Bindings } from './bindings.ts';
import { createItemLocks, type ItemLocks } from './locks.ts';
import { createFileOps, type FileOps } from './ops.ts';
import { createPathResolver, type PathResolver } from './paths.ts';
import { createPersonalFolders } from './personal.ts';
import { createRecentDestinations } from './recent.ts';
import { fileRoutes } from './routes.ts';
import { createWorkJournal, type WorkJournal } from './journal.ts';
import { createTransfer, type Transfer, type TransferOptions } from './transfer.ts';
import { createOwnFolders, type OwnFolders } from './own.ts';
import { RESERVED_DIR } from './names.ts';

export interface FilesDeps {
  config: Config;
  db: Database;
  changes: ChangeSink;
  log: Logger;
  /** Access rules of the installation (the settings service, read at each resolve). */
  accessRules: () => readonly AccessRule[];
  /** The activity log: one row per file operation (files/activity.ts). */
  activity: ActivitySink;
  /** Test seam for cross-filesystem moves. */
  transfer?: TransferOptions;
}

export interface FilesCapability extends Capability {
  readonly resolver: PathResolver;
  readonly userVolumes: UserVolumeStore;
  readonly versions: VersionService;
  readonly trash: TrashService;
  readonly ops: FileOps;
  /** Moves and copies through the journal (WebDAV places items with it). */
  readonly transfer: Transfer;
  /** Work built under a temporary name (extractions, saves, copies): a crash leaves nothing after the restart. */
  readonly journal: WorkJournal;
  /** Burrow's own folder of each space (trash, versions, upload parts), out of the user's folders. */
  readonly own: OwnFolders;
  /** Shares register their table here so deletes forget and moves carry them. */
  readonly bindings: Bindings;
  /** WebDAV and the office editor register their locks here; every write asks (423 LOCKED). */
  readonly locks: ItemLocks;
  /** Host folders served as volumes, as the indexes follow them (real paths). */
  readonly hostVolumes: {
    roots(): string[];
    /** Whether any space (a volume, a personal or assigned folder, a host folder) is rooted at this real path. */
    inUse(realRoot: string): boolean;
    subscribe(listener: (event: HostVolumeEvent) => void): () => void;
  };
}

const HOUR = 3_600_000;

export function createFilesCapability(deps: FilesDeps): FilesCapability {
  const { config, db, changes, log } = deps;
  const userVolumes = createUserVolumeStore(db);
  const hostVolumeStore = createHostVolumeStore(db);
  const personal = createPersonalFolders(db, config.storage.userRoot);
  const resolver = createPathResolver({
    volumeRoot: config.storage.volumeRoot,
    userDirEnabled: config.storage.userDirEnabled,
    userVolumesEnabled: config.storage.userVolumes,
    personal,
    privateDirs: [config.storage.configDir, config.storage.cacheDir].map((d) => path.resolve(d)),
    accessRules: deps.accessRules,
    assignedVolumes: (userId) => userVolumes.list(userId),
    hostVolumes: () => hostVolumeStore.list(),
  });
  const bindings = createBindings(db);
  bindings.register('favorites', pathTable(db, 'favorites'));
  bindings.register('recentDestinations', pathTable(db, 'recent_destinations'));
  bindings.register('folderPrefs', pathTable(db, 'folder_prefs'));
  bindings.register('versions', versionBindings(db));
  const journal = createWorkJournal(db);
  const transfer = createTransfer(journal, deps.transfer);
  const own = createOwnFolders({ dataDir: config.storage.configDir, journal });
  const trash = createTrash(db, resolver, transfer, changes, own);
  const spaceRoots = () => {
    const roots: string[] = [];
    const real = (p: string) => {
      try {
        return fs.realpathSync(p);
      } catch {
        return null;
      }
    };
    try {
      for (const name of fs.readdirSync(config.storage.volumeRoot)) {
        const r = real(path.join(config.storage.volumeRoot, name));
        if (r) roots.push(r);
      }
    } catch {
      /* no volume root yet */
    }
    for (const p of personal.all()) {
      const r = real(p);
      if (r) roots.push(r);
    }
    for (const row of db.all<{ path: string }>('SELECT DISTINCT path FROM user_volumes')) {
      const r = real(row.path);
      if (r) roots.push(r);
    }
    for (const v of hostVolumeStore.list()) {
      const r = real(v.path);
      if (r) roots.push(r);
    }
    return roots;
  };
  const versions = createVersions(db, resolver, spaceRoots, changes, journal, own);

  /**
   * An install from before own folders kept its trash and versions in `<space>/.burrow`, which
   * whoever browses the disk another way sees: moved (by rename, rows and all) to the space's
   * own folder now, and the old folder removed once empty. Upload parts in progress there finish
   * where they are (the uploads sweep removes the folder once they are done).
   */
  async function moveOutOfSpaces(): Promise<number> {
    let moved = 0;
    for (const root of spaceRoots()) {
      const old = path.join(root, RESERVED_DIR);
      if (!fs.existsSync(old)) continue;
      const now = await own.of(root).catch(() => old);
      if (now === old) continue;
      moved += await trash.relocate(path.join(old, 'trash'), path.join(now, 'trash'));
      moved += await versions.relocate(path.join(old, 'versions'), path.join(now, 'versions'));
      for (const kind of ['trash', 'versions', 'uploads'] as const) own.tidySync(old, kind);
    }
    return moved;
  }
  const recent = createRecentDestinations(db);
  const locks = createItemLocks();
  const ops = createFileOps({
    locks,
    resolver,
    transfer,
    trash,
    versions,
    bindings,
    changes,
    activity: deps.activity,
    recordDestination: recent.record,
    journal,
  });
  const privateDirs = [config.storage.configDir, config.storage.cacheDir].map((d) => path.resolve(d));
  const hostVolumeListeners = new Set<(event: HostVolumeEvent) => void>();
  const routes: RouteDef[] = [
    ...fileRoutes({ ops, recent }),
    ...hostVolumeRoutes(
      createHostVolumes({
        store: hostVolumeStore,
        volumeRoot: config.storage.volumeRoot,
        privateDirs,
        announce: (event) => {
          for (const listener of hostVolumeListeners) listener(event);
        },
      }),
    ),
  ];

  let sweepTimer: NodeJS.Timeout | undefined;
  const sweep = () =>
    trash
      .sweep(config.features.trashRetentionDays)
      .then((n) => {
        if (n) log.info('trash sweep removed entries', { removed: n });
      })
      .catch((err) => log.warn('trash sweep failed', { err }));

  return {
    routes,
    resolver,
    userVolumes,
    versions,
    trash,
    ops,
    bindings,
    locks,
    transfer,
    journal,
    own,
    hostVolumes: {
      roots: () => hostVolumeStore.list().map((v) => v.path),
      inUse: (realRoot) => spaceRoots().includes(realRoot),
      subscribe(listener) {
        hostVolumeListeners.add(listener);
        return () => hostVolumeListeners.delete(listener);
      },
    },
    features: () => ({
      userVolumes: { enabled: config.storage.userVolumes },
      volumeUsage: { enabled: config.features.showVolumeUsage },
      personal: { enabled: config.storage.userDirEnabled },
      trash: { enabled: true, retentionDays: config.features.trashRetentionDays },
    }),
    async start() {
      // What a crash interrupted is finished or rolled back before anything else moves.
      const recovered = await transfer.recover();
      // A restore that was placed before the crash: its trash entry is gone with its source.
      for (const source of recovered.removedSources) db.run('DELETE FROM trash_items WHERE stored_path = ?', [source]);
      if (recovered.count) log.info('finished or rolled back interrupted file operations', { count: recovered.count });
      const moved = await moveOutOfSpaces().catch((err) => {
        log.warn('could not move trash and versions out of the volumes', { err });
        return 0;
      });
      if (moved) log.info("moved trash and versions out of the volumes into Burrow's own folders", { moved });
      void sweep();
      sweepTimer = setInterval(sweep, 6 * HOUR);
      sweepTimer.unref();
    },
    stop() {
      if (sweepTimer) clearInterval(sweepTimer);
    },
  };
}
