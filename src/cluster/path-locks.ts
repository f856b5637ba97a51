// One file's compare-and-replace at a time across the instances of a cluster: the editor's save
// compares If-Match with the file as it is, writes a temporary and renames it over the file, and
// two instances doing that at once for one file would both find the ETag they were sent. File
// locks are not used (NFS and SMB do not propagate them reliably); on PostgreSQL the save holds an
// advisory lock keyed by the file's real path for the compare, the version kept and the rename
// (path-lock-store.ts). The instances mount the shared folder at the same path (the deployment
// example does), so one file is one key everywhere. On the embedded database there is one
// instance: the caller's own in-process turn is all there is, and none is created.
import { createHash } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { createPathLockStore, type PathLockStore } from './path-lock-store.ts';

export interface PathLocks {
  /** Runs `work` while no other instance runs work for `realPath`; waits its turn (never refuses). */
  exclusively<T>(realPath: string, work: () => Promise<T>): Promise<T>;
}

/** The path's key: 32 bits of its sha256 (two paths sharing one only take turns). */
export const pathKey = (realPath: string) => createHash('sha256').update(realPath).digest().readInt32BE(0);

/** The cluster's path locks on PostgreSQL; undefined on the embedded database. */
export function createPathLocks(db: Database): PathLocks | undefined {
  return db.dialect === 'postgres' ? pathLocksOver(createPathLockStore(db)) : undefined;
}

export function pathLocksOver(store: PathLockStore): PathLocks {
  return {
    async exclusively(realPath, work) {
      const key = pathKey(realPath);
      // The holder is another instance mid-save (milliseconds): ask again a little later each
      // time, up to 50 ms apart. The statement never waits, so the process is never blocked.
      for (let pause = 2; !store.tryHold(key); pause = Math.min(pause * 2, 50))
        await new Promise((resolve) => setTimeout(resolve, pause));
      try {
        return await work();
      } finally {
        store.release(key);
      }
    },
  };
}
