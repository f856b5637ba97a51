// Folder-size records, from the index alone: a lookup, never a walk. An un-indexed folder
// answers `indexed: false, sizeBytes: null`. Asking about a folder also notes it as on screen,
// so the indexer re-checks it in the background.
import fs from 'node:fs';
import { AppError } from '../http/errors.ts';
import type { Caller } from '../http/route.ts';
import type { PathResolver } from '../files/paths.ts';
import type { Indexer } from '../indexer/indexer.ts';
import type { Maintenance } from '../indexer/maintenance.ts';

export interface FolderSizeRecord {
  path: string;
  canEnter: boolean;
  sizeBytes: number | null;
  entryCount: number;
  lastUpdated: string | null;
  indexed: boolean;
}

export interface FolderSizeDeps { indexer: Indexer; maintenance: Maintenance; resolver: PathResolver }

function unindexed(path: string, canEnter = false): FolderSizeRecord {
  return { path, canEnter, sizeBytes: null, entryCount: 0, lastUpdated: null, indexed: false };
}

/** Whether this process may list the folder (a host permission, not a rule). */
async function mayList(real: string): Promise<boolean> {
  try {
    await fs.promises.access(real, fs.constants.R_OK | fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function createFolderSizes(deps: FolderSizeDeps) {
  const { indexer, maintenance, resolver } = deps;

  async function record(caller: Caller, virtualPath: string): Promise<FolderSizeRecord> {
    const r = await resolver.resolve(caller, virtualPath);
    if (!r.space || !r.exists || !r.isDirectory) return unindexed(r.virtualPath);
    const canEnter = r.access.canRead && (await mayList(r.realPath));
    indexer.ensureRoot(await fs.promises.realpath(r.space.root).catch(() => r.space!.root));
    const figures = indexer.figures(r.realPath);
    if (figures.indexed) maintenance.noteViewed(r.realPath);
    if (!figures.indexed) return unindexed(r.virtualPath, canEnter);
    return { path: r.virtualPath, canEnter, sizeBytes: figures.sizeBytes, entryCount: figures.entryCount, lastUpdated: figures.lastUpdated, indexed: true };
  }

  return {
    record,
    /** Records for many paths; a path that cannot be answered gets an un-indexed record, not an error. */
    async batch(caller: Caller, paths: string[]): Promise<FolderSizeRecord[]> {
      const out: FolderSizeRecord[] = [];
      for (const p of paths) {
        try {
          out.push(await record(caller, p));
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          out.push(unindexed(p));
        }
      }
      return out;
    },
  };
}
