// Where extraction writes: two exclusive operations on a folder handle, so the engine can be
// bound to the confinement module (descriptors relative to a checked directory) without
// changing. This binding works on plain paths with O_EXCL | O_NOFOLLOW: it never follows a
// link at the last step and never opens a name that exists.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';

/** A folder extraction may write into (today its real path; later a checked descriptor). */
export interface DirHandle {
  readonly path: string;
}

export interface CreatedFile {
  readonly stream: Writable;
  readonly path: string;
}

export interface ExtractTarget {
  /** Creates `name` in `dir`; fails with EEXIST when the name is taken (by anything, a link included). */
  createFileExclusive(dir: DirHandle, name: string): Promise<CreatedFile>;
  /** Creates folder `name` in `dir`; fails with EEXIST when the name is taken. */
  mkdirExclusive(dir: DirHandle, name: string): Promise<DirHandle>;
  /** Removes what this extraction created (a file, or a folder only when empty). */
  remove(p: string, isDirectory: boolean): Promise<void>;
  /** Bytes the caller may still write on the volume holding `dir`. */
  freeSpace(dir: DirHandle): Promise<number>;
}

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;

export const plainTarget: ExtractTarget = {
  async createFileExclusive(dir, name) {
    const p = path.join(dir.path, name);
    const fd = await new Promise<number>((resolve, reject) =>
      fs.open(p, O_WRONLY | O_CREAT | O_EXCL | (O_NOFOLLOW ?? 0), 0o666, (err, fd) => (err ? reject(err) : resolve(fd))));
    return { stream: fs.createWriteStream('', { fd, highWaterMark: 1024 * 1024 }), path: p };
  },
  async mkdirExclusive(dir, name) {
    const p = path.join(dir.path, name);
    await fsp.mkdir(p);
    return { path: p };
  },
  async remove(p, isDirectory) {
    if (isDirectory) await fsp.rmdir(p).catch(() => {});
    else await fsp.unlink(p).catch(() => {});
  },
  async freeSpace(dir) {
    const s = await fsp.statfs(dir.path);
    return s.bavail * s.bsize;
  },
};
