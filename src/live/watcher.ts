// Changes made outside Burrow (a shell, SMB, a sync tool) in the folders someone is looking at.
// Node's fs.watch on each watched folder, not recursive: on Linux that is one inotify watch per
// folder on the one inotify descriptor libuv keeps, so the cost follows what is on screen
// (MAX_FOLDERS at most), never the size of the volumes, and nothing is walked. A recursive
// watcher library (chokidar, @parcel/watcher) would watch every folder below a volume — 100,000
// watches for a photo library, past the kernel's default limit — or bring a native add-on,
// to learn what only a folder's own entries need. Network mounts (NFS, SMB, sshfs…) are not
// watched: inotify sees only this machine's writes there, so their outside changes come from
// the index's periodic rescan, and the `watching` answer says `rescan`.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../core/log.ts';
import { isNetworkFs, mountOf, readMounts, type Mount } from '../indexer/mounts.ts';

/** Folders watched at once; above it a folder is heard by Burrow's own writes and the rescan only. */
export const MAX_FOLDERS = 4096;

export interface WatchedEvent {
  type: 'created' | 'modified' | 'deleted';
  /** null: the watcher lost track (the kernel's queue overflowed): fetch the folder again. */
  name: string | null;
  isDirectory?: boolean;
}

export interface FolderWatcher {
  /** Watches a folder (counted: every watch() is matched by an unwatch()). */
  watch(dir: string): 'live' | 'rescan';
  unwatch(dir: string): void;
  onEvent(listener: (dir: string, event: WatchedEvent) => void): void;
  /** Folders watched by inotify now. */
  size(): number;
  close(): void;
}

export function createFolderWatcher(deps: {
  log: Logger;
  max?: number;
  mounts?: () => readonly Mount[];
}): FolderWatcher {
  const max = deps.max ?? MAX_FOLDERS;
  const watched = new Map<string, { count: number; watcher: fs.FSWatcher | null }>();
  const listeners: ((dir: string, event: WatchedEvent) => void)[] = [];
  let mounts: readonly Mount[] | undefined;
  let mountsAt = 0;
  let warnedFull = false;

  function emit(dir: string, event: WatchedEvent) {
    for (const l of listeners) l(dir, event);
  }

  function onNetwork(dir: string): boolean {
    // The mount table is read again at most once a minute (a disk mounted later is seen).
    if (!mounts || Date.now() - mountsAt > 60_000) {
      mounts = (deps.mounts ?? readMounts)();
      mountsAt = Date.now();
    }
    const m = mountOf(dir, mounts);
    return m !== undefined && isNetworkFs(m.fsType);
  }

  function start(dir: string): fs.FSWatcher | null {
    if (onNetwork(dir)) return null;
    if ([...watched.values()].filter((w) => w.watcher).length >= max) {
      if (!warnedFull) deps.log.warn('live folders: too many folders watched; more are heard by the rescan', { max });
      warnedFull = true;
      return null;
    }
    try {
      const w = fs.watch(dir, { persistent: false }, (eventType, filename) => {
        if (filename === null || filename === undefined) return emit(dir, { type: 'modified', name: null });
        const name = String(filename);
        // 'rename': the name appeared or went, the disk says which; 'change': its content or
        // its times (asked of the disk as well, so the events of one name stay in order).
        fs.lstat(path.join(dir, name), (err, st) => {
          if (err) emit(dir, { type: 'deleted', name });
          else if (eventType === 'change') emit(dir, { type: 'modified', name });
          else emit(dir, { type: 'created', name, isDirectory: st.isDirectory() });
        });
      });
      w.on('error', () => {
        w.close();
        const entry = watched.get(dir);
        if (entry) entry.watcher = null;
      });
      return w;
    } catch (err) {
      deps.log.debug('live folders: a folder cannot be watched', { dir, err });
      return null;
    }
  }

  return {
    watch(dir) {
      const entry = watched.get(dir);
      if (entry) {
        entry.count++;
        return entry.watcher ? 'live' : 'rescan';
      }
      const watcher = start(dir);
      watched.set(dir, { count: 1, watcher });
      return watcher ? 'live' : 'rescan';
    },
    unwatch(dir) {
      const entry = watched.get(dir);
      if (!entry) return;
      if (--entry.count > 0) return;
      entry.watcher?.close();
      watched.delete(dir);
    },
    onEvent(listener) {
      listeners.push(listener);
    },
    size: () => [...watched.values()].filter((w) => w.watcher).length,
    close() {
      for (const w of watched.values()) w.watcher?.close();
      watched.clear();
    },
  };
}
