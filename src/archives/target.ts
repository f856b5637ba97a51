// Where extraction writes: exclusive operations on folder handles, so the engine never names a
// path itself. Two bindings: `confinedTarget` (the product: the destination is a folder
// descriptor checked by files/confined.ts, everything is created relative to a descriptor and
// the final name is never followed) and `plainTarget` (engine tests and benchmarks: real paths
// with O_EXCL | O_NOFOLLOW).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Dir } from '../files/confined.ts';
import { placeEntry, type ConflictPolicy, type PlacedEntry, type Replacer } from '../files/names.ts';

/** A folder extraction may write into. `path` is its real path: for events and bookkeeping, never for use by a confined binding. */
export interface DirHandle {
  readonly path: string;
}

export interface CreatedFile {
  /** The new file's descriptor, open for writing: the engine writes it at positions and closes it. */
  readonly fd: number;
  /** Real path of the new file (for the changes sink). */
  readonly path: string;
}

/** How a selected root meets a taken name (files/names.ts): the policy, and for `replace` what keeps the old item. */
export interface PlaceConflict {
  policy: ConflictPolicy;
  /** The replacer working in the checked destination folder. */
  replacer?: (dir: Dir) => Replacer;
}

export interface ExtractTarget {
  /** Creates `name` in `dir`; fails with EEXIST when the name is taken (by anything, a link included). */
  createFileExclusive(dir: DirHandle, name: string): Promise<CreatedFile>;
  /** Creates folder `name` in `dir`; fails with EEXIST when the name is taken. */
  mkdirExclusive(dir: DirHandle, name: string): Promise<DirHandle>;
  /** Flushes a file this extraction created and wrote to the disk, through its descriptor (still open). */
  sync(fd: number): Promise<void>;
  /**
   * Places `temp` of `dir` (a finished file or folder this extraction built) under `name`: when
   * taken, `name (1)`… (keep both, the default), left (`skip`: `temp` stays for `discard`), or in
   * the old one's place keeping it (`replace`); never over anything. Says the name and outcome.
   */
  place(
    dir: DirHandle,
    temp: string,
    name: string,
    isDirectory: boolean,
    conflict?: PlaceConflict,
  ): Promise<PlacedEntry>;
  /** Whether `name` of `dir` is taken (by anything, a link included). */
  exists(dir: DirHandle, name: string): Promise<boolean>;
  /** Removes `temp` of `dir`, a file or a whole folder this extraction built and did not place. */
  discard(dir: DirHandle, temp: string, isDirectory: boolean): Promise<void>;
  /** Removes `name` of `dir` that this extraction created (a file, or a folder only when empty). */
  remove(dir: DirHandle, name: string, isDirectory: boolean): Promise<void>;
  /** Bytes the caller may still write on the volume holding `dir`. */
  freeSpace(dir: DirHandle): Promise<number>;
  /** Runs `fn` with a path naming exactly `dir`, for writers that take a folder path (a new zip). */
  within<T>(dir: DirHandle, fn: (usable: string) => Promise<T>): Promise<T>;
}

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;

/** Flushes the file open as `fd` to the disk (its data and what it takes to read it back). */
export const syncDescriptor = (fd: number): Promise<void> =>
  new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));

/** Places a finished temporary in the folder `dirPath` names by the conflict policy (files/names.ts placeEntry). */
export function placeTemporary(
  dirPath: string,
  temp: string,
  name: string,
  isDirectory: boolean,
  policy: ConflictPolicy = 'rename',
  replacer?: Replacer,
): Promise<PlacedEntry> {
  return placeEntry(path.join(dirPath, temp), dirPath, name, isDirectory, policy, replacer);
}

export const plainTarget: ExtractTarget = {
  async createFileExclusive(dir, name) {
    const p = path.join(dir.path, name);
    const fd = await new Promise<number>((resolve, reject) =>
      fs.open(p, O_WRONLY | O_CREAT | O_EXCL | (O_NOFOLLOW ?? 0), 0o666, (err, fd) =>
        err ? reject(err) : resolve(fd),
      ),
    );
    return { fd, path: p };
  },
  async mkdirExclusive(dir, name) {
    const p = path.join(dir.path, name);
    await fsp.mkdir(p);
    return { path: p };
  },
  sync: syncDescriptor,
  // Engine tests and benchmarks: no replacer (a `replace` onto a taken name is refused there).
  place: (dir, temp, name, isDirectory, conflict) =>
    placeTemporary(dir.path, temp, name, isDirectory, conflict?.policy),
  exists: (dir, name) =>
    fsp.lstat(path.join(dir.path, name)).then(
      () => true,
      () => false,
    ),
  discard: (dir, temp) => fsp.rm(path.join(dir.path, temp), { recursive: true, force: true }),
  async remove(dir, name, isDirectory) {
    const p = path.join(dir.path, name);
    if (isDirectory) await fsp.rmdir(p).catch(() => {});
    else await fsp.unlink(p).catch(() => {});
  },
  async freeSpace(dir) {
    const s = await fsp.statfs(dir.path);
    return s.bavail * s.bsize;
  },
  within: (dir, fn) => fn(dir.path),
};
