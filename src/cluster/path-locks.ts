// One file's compare-and-replace at a time: the editor's save compares If-Match with the file as
// it is, writes a temporary and renames it over the file, and two saves doing that at once for
// one file would both find the ETag they were sent. In this process the saves of one path take
// turns (through the editor or a link). Across the instances of a cluster (PostgreSQL) the turn
// also holds an advisory lock keyed by the file's real path for the compare, the version kept and
// the rename (path-lock-store.ts), taken after this process's own turn: a session-level advisory
// lock is the instance's connection's, which every save of this process shares, so it tells
// instances apart and nothing more. File locks are not used (NFS and SMB do not propagate them
// reliably). The instances mount the shared folder at the same path (the deployment example does),
// so one file is one key everywhere. On the embedded database there is one instance: the turn in
// this process is all there is.
import { createHash } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { createPathLockStore, type PathLockStore } from './path-lock-store.ts';

export interface PathLocks {
  /** Runs `work` while no other work for `realPath` runs, here or on another instance; waits its turn (never refuses). */
  exclusively<T>(realPath: string, work: () => Promise<T>): Promise<T>;
}

/** The path's key: 32 bits of its sha256 (two paths sharing one only take turns). */
const pathKey = (realPath: string) => createHash('sha256').update(realPath).digest().readInt32BE(0);

/** The path locks of this process, and of the cluster's instances on PostgreSQL. */
export function createPathLocks(db?: Database): PathLocks {
  const across = db?.dialect === 'postgres' ? createPathLockStore(db) : undefined;
  const turns = new Map<string, Promise<unknown>>();
  return {
    async exclusively(realPath, work) {
      const mine = (turns.get(realPath) ?? Promise.resolve()).then(
        across ? () => heldAcross(across, pathKey(realPath), work) : work,
      );
      const settled = mine.catch(() => {});
      turns.set(realPath, settled);
      try {
        return await mine;
      } finally {
        if (turns.get(realPath) === settled) turns.delete(realPath);
      }
    },
  };
}

async function heldAcross<T>(store: PathLockStore, key: number, work: () => Promise<T>): Promise<T> {
  // The holder is another instance mid-save (milliseconds): ask again a little later each
  // time, up to 50 ms apart. The statement never waits, so the process is never blocked.
  for (let pause = 2; !store.tryHold(key); pause = Math.min(pause * 2, 50))
    await new Promise((resolve) => setTimeout(resolve, pause));
  try {
    return await work();
  } finally {
    store.release(key);
  }
}
