// The indexes as app.ts sees them: one indexer (baseline walks, deltas from the `changes`
// sink, re-checks of folders on screen, the paced sweep) as background work, and the narrow
// `Indexes` view (indexes.ts) that the folder-size and search services and browse are given.
import type { JobGate } from '../core/periodic.ts';
import type { Capability } from '../http/capability.ts';
import type { ChangeSink } from '../changes.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../core/log.ts';
import type { RequestLoad } from '../core/load.ts';
import type { Indexes } from './indexes.ts';
import { Indexer, type FolderSizeMode } from './indexer.ts';
import type { WalkerClient } from './worker-client.ts';
import { createMaintenance, type MaintenanceDeps } from './maintenance.ts';
import type { WorkerOptions } from './protocol.ts';
import { indexRoutes } from './routes.ts';
import { indexReport } from './report.ts';

/**
 * Spaces served besides VOLUME_ROOT's folders and the personal folders (host folders added as
 * volumes): indexed from the start like those, and as they are added or removed at run time.
 */
export interface ServedRoots {
  /** Real paths served now. */
  roots(): string[];
  /** Whether some space still serves this real path (a removed volume's index is kept then). */
  inUse(realRoot: string): boolean;
  subscribe(listener: (event: { type: 'added' | 'removed'; path: string }) => void): () => void;
}

export interface IndexesDeps {
  config: Config;
  db: Database;
  log: Logger;
  changes: ChangeSink;
  /** Tests: the worker's file-system layer (simulated stalls). */
  worker?: Pick<WorkerOptions, 'fsModule' | 'fsOptions'>;
  /** Opened earlier by openIndexer (its worker boots while the rest of the server is built). */
  indexer?: Indexer;
  served?: ServedRoots;
  /** Requests in flight (the HTTP layer counts them): background work yields to them. */
  load?: RequestLoad;
  /**
   * Folder sizes switched at run time (Administration → Installation; FOLDER_SIZE_MODE wins when
   * set): the mode now, and a subscription to its changes. Default: the variable, fixed.
   */
  folderSizes?: { now(): FolderSizeMode; subscribe(listener: () => void): () => void };
  /** Where the rescan runs and where what it finds goes: other instances, or live folder views (maintenance.ts). */
  rescan?: MaintenanceDeps['rescan'];
}

/**
 * The indexer with its index file attached, and its walker thread booting when walks are owed.
 * Called right after the migrations: the worker's start (≈100-150 ms, mostly loading its
 * modules) then overlaps the building of the other capabilities instead of delaying the first
 * walk after listen (the fixed cost that dominated the baseline of a 100k-file volume).
 */
export function openIndexer(
  deps: Pick<IndexesDeps, 'config' | 'db' | 'log' | 'worker' | 'load' | 'folderSizes'> & { client?: WalkerClient },
): Indexer {
  const folderSizes = deps.folderSizes;
  const indexer = new Indexer({
    config: deps.config,
    db: deps.db,
    log: deps.log,
    ...(folderSizes ? { folderSizeMode: () => folderSizes.now() } : {}),
    ...(deps.worker ? { worker: deps.worker } : {}),
    ...(deps.load ? { load: deps.load } : {}),
    ...(deps.client ? { client: deps.client } : {}),
  });
  // Format check and known roots now (a migration-time decision, no file-system work).
  indexer.open();
  // The walks owed start now, in the worker, while the rest of the server is built: folder
  // sizes from launch, not from listen (the host folders served as volumes join at start()).
  try {
    indexer.discover();
  } catch (err) {
    deps.log.warn('index discovery failed', { err });
  }
  return indexer;
}

export { walkerAhead } from './indexer.ts';

export interface IndexesCapability extends Capability, Indexes {}

export function createIndexes(deps: IndexesDeps): IndexesCapability {
  const indexer = deps.indexer ?? openIndexer(deps);
  // The host folders served as volumes are known as soon as the database is open: their walks
  // queue now, behind VOLUME_ROOT's, not when the server starts listening.
  try {
    for (const root of deps.served?.roots() ?? []) indexer.ensureRoot(root);
  } catch (err) {
    deps.log.warn('index discovery failed', { err });
  }
  const maintenance = createMaintenance({
    index: indexer,
    folderSize: indexer.config.folderSize,
    log: indexer.log,
    ...(deps.rescan ? { rescan: deps.rescan } : {}),
  });
  let unsubscribe = () => {};
  let unswitch = () => {};
  return {
    routes: indexRoutes(() => indexReport(indexer.store, deps.config.search.indexEnabled)),
    ensureRoot: (realRoot) => indexer.ensureRoot(realRoot),
    figures: (realPath) => indexer.figures(realPath),
    fileSize: (realPath) => indexer.fileSize(realPath),
    counts: (placed) => indexer.counts(placed),
    readyCover: (realPath) => indexer.readyCover(realPath),
    features: () => ({
      folderSize: { enabled: indexer.folderSizeMode() !== 'off', mode: indexer.folderSizeMode() },
      search: { index: deps.config.search.indexEnabled },
    }),
    noteViewed: (realPath) => maintenance.noteViewed(realPath),
    start() {
      maintenance.start(deps.changes);
      const served = deps.served;
      // A switch of folder sizes: walks start (or stop) in the background, never in the request.
      if (deps.folderSizes) unswitch = deps.folderSizes.subscribe(() => indexer.switched(served?.roots() ?? []));
      if (served) {
        unsubscribe = served.subscribe((event) => {
          if (event.type === 'added') indexer.ensureRoot(event.path);
          else if (!served.inUse(event.path))
            void indexer
              .dropRoot(event.path)
              .catch((err) => deps.log.warn('an index root could not be dropped', { err }));
        });
      }
      // Host folders added since the indexes were built (the others are walked already).
      for (const root of served?.roots() ?? []) indexer.ensureRoot(root);
    },
    async stop() {
      unswitch();
      unsubscribe();
      maintenance.stop();
      await indexer.stop();
    },
  };
}
