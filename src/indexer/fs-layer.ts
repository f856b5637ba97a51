// The file-system calls the walker makes, behind a small interface so that a test can hand the
// worker a layer whose reads hang (stalled network mounts) without touching a real disk.
// Callback style on purpose: a walk makes one call per file, and promises cost ~40% there.
import fs from 'node:fs';

export interface DirEntry {
  name: string;
  isDir: boolean;
}
export interface EntryStat {
  size: number;
  mtimeMs: number;
  isDir: boolean;
}
export type Done<T> = (err: NodeJS.ErrnoException | null, value?: T) => void;

export interface FsLayer {
  readdir(dir: string, done: Done<DirEntry[]>): void;
  /** Never follows symbolic links (a link counts as a file of its own size). */
  lstat(file: string, done: Done<EntryStat>): void;
}

export const nodeFs: FsLayer = {
  readdir(dir, done) {
    fs.readdir(dir, { withFileTypes: true }, (err, entries) => {
      if (err) return done(err);
      done(
        null,
        entries.map((e) => ({ name: e.name, isDir: e.isDirectory() })),
      );
    });
  },
  lstat(file, done) {
    fs.lstat(file, (err, st) => {
      if (err) return done(err);
      done(null, { size: st.isDirectory() ? 0 : st.size, mtimeMs: Math.trunc(st.mtimeMs), isDir: st.isDirectory() });
    });
  },
};

/**
 * The synchronous calls of the local-disk walk (walker-sync.ts). `lstat` answers undefined when
 * the entry vanished; Node's own Stats fit the shape, so the real disk pays no wrapper per file.
 */
export interface SyncFsLayer {
  readdir(dir: string): string[];
  lstat(file: string): { isDirectory(): boolean; size: number; mtimeMs: number } | undefined;
}

export const nodeSyncFs: SyncFsLayer = {
  readdir: (dir) => fs.readdirSync(dir),
  lstat: (file) => fs.lstatSync(file, { throwIfNoEntry: false }),
};

/**
 * A module given to the worker as `fsModule` exports `createFsLayer(options)`; a layer that also
 * carries `sync` is walked with the synchronous walk (tests: a local disk that hangs).
 */
export type FsLayerFactory = (options: unknown) => FsLayer & { sync?: SyncFsLayer };
