// The file operations' rows, the features of the files family, and what the start owes them: a
// crash's interrupted operations finished or rolled back, then trash and versions an older
// install kept inside the spaces moved to Burrow's own folders. Its services are built in app.ts.
import fs from 'node:fs';
import path from 'node:path';
import type { Capability } from '../http/capability.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../core/log.ts';
import { periodicJob } from '../core/periodic.ts';
import type { FileOps } from './ops.ts';
import type { OwnFolders } from './own.ts';
import { fileRoutes } from './routes.ts';
import type { Transfer } from './transfer.ts';
import { RESERVED_DIR } from './names.ts';

/** A store of kept items (the trash, the versions) whose stored files an old install kept inside a space. */
export interface KeptItems {
  /** Moves the stored items under `from` into `to`, by rename; answers how many. */
  relocate(from: string, to: string): Promise<number>;
}

export interface FilesCapabilityDeps {
  config: Config;
  log: Logger;
  ops: FileOps;
  transfer: Transfer;
  own: OwnFolders;
  spaceRoots: () => string[];
  trash: KeptItems & { forgetStored(storedPath: string): void };
  versions: KeptItems;
  /** Which instance this is, and whether another's journal rows are now this one's to finish. */
  leases: { readonly shared: boolean; readonly leaseMs: number };
}

export function createFilesCapability(deps: FilesCapabilityDeps): Capability {
  const { config, log, own, trash, versions, leases } = deps;

  /**
   * Finishes or rolls back the journal rows of instances that are not alive: at start, a crash's
   * (this instance's earlier run, or on a cluster any instance's whose lease lapsed); on a
   * cluster also every lease time after, so an instance that died while others keep running
   * leaves no half-built temporary behind. A live instance's rows are never touched.
   */
  async function recoverLeft(): Promise<void> {
    const recovered = await deps.transfer.recover();
    // A restore that was placed before the crash: its trash entry is gone with its source.
    for (const source of recovered.removedSources) trash.forgetStored(source);
    if (recovered.count) log.info('finished or rolled back interrupted file operations', { count: recovered.count });
  }
  const orphans = leases.shared
    ? periodicJob({
        everyMs: leases.leaseMs,
        first: 'later',
        log,
        failed: 'could not finish the file operations of an instance that stopped',
        run: recoverLeft,
      })
    : null;

  /**
   * An install from before own folders kept its trash and versions in `<space>/.burrow`, which
   * whoever browses the disk another way sees: moved (by rename, rows and all) to the space's
   * own folder now, and the old folder removed once empty. Upload parts in progress there finish
   * where they are (the uploads sweep removes the folder once they are done).
   */
  async function moveOutOfSpaces(): Promise<number> {
    let moved = 0;
    for (const root of deps.spaceRoots()) {
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

  return {
    routes: fileRoutes({ ops: deps.ops }),
    features: () => ({
      userVolumes: { enabled: config.storage.userVolumes },
      volumeUsage: { enabled: config.features.showVolumeUsage },
      personal: { enabled: config.storage.userDirEnabled },
      trash: { enabled: true, retentionDays: config.features.trashRetentionDays },
    }),
    async start() {
      // What a crash interrupted is finished or rolled back before anything else moves.
      await recoverLeft();
      orphans?.start();
      const moved = await moveOutOfSpaces().catch((err) => {
        log.warn('could not move trash and versions out of the volumes', { err });
        return 0;
      });
      if (moved) log.info("moved trash and versions out of the volumes into Burrow's own folders", { moved });
    },
    stop: async () => orphans?.stop(),
  };
}
