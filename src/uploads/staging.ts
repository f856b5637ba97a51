// Where upload bytes land before they are placed: on the TARGET volume's disk, so that finishing
// an upload is a link/rename and never a second copy. The staging folder is `uploads` in Burrow's
// own folder of the space (files/own.ts: the data folder when it is on the same disk, out of the
// user's folders), which no route reaches. When the destination folder is another filesystem
// than the space root (a disk mounted inside a volume), the part file goes beside the
// destination under a hidden temporary name instead. A staging folder a user could see is
// removed again once it is empty (`tidy`): a file request leaves no empty folder behind.
//
// A resumable upload of a cluster (several instances on one PostgreSQL, `forEveryInstance`) is
// staged in `.burrow/uploads` at the space's root instead: the data folder is one instance's
// own (its machine's disk, or its container's), and the upload's next PATCH may reach another
// instance, which must find the part file at the path its row names. The space's root is on the
// shared storage by definition (every instance serves it, at the same path), and on the
// destination's disk (checked below), so placing stays a rename; the folder is removed again
// when empty.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { StagingDirStore } from './staging-store.ts';
import { AppError } from '../core/errors.ts';
import { RESERVED_DIR, TEMP_PREFIX } from '../files/names.ts';
import type { OwnFolders } from '../files/own.ts';

export const STAGING_SUBDIR = 'uploads';
/**
 * A volume's free space, once asked, answers again for this long when the bytes asked for are
 * at most a quarter of it (an upload's PATCHes ask every few milliseconds; a disk filling from
 * elsewhere in that time still ends a write with ENOSPC, answered 507).
 */
const FREE_SPACE_FRESH_MS = 1000;
/** How many bytes of a body of unknown length pass between two reads of the free space. */
const GUARD_STEP = 8 * 1024 * 1024;
/** Part files of resumable uploads: `tus-<id>.part`; of multipart requests: `mp-<random>.part`. */
export const TUS_PART = /^tus-([0-9a-f]{32})\.part$/;
export const MULTIPART_PART = /^mp-[A-Za-z0-9_-]+\.part$/;

export interface StagingPlace {
  /** Folder the part file goes into. */
  dir: string;
  /** True when that folder is Burrow's staging folder (false: beside the destination). */
  shared: boolean;
}

/** The free-space rule alone (WebDAV's PUT writes beside its target, not in a staging folder). */
export type FreeSpace = Pick<Staging, 'ensureSpace' | 'guard'>;

export interface Staging {
  /**
   * Picks the staging folder for a destination folder (which must exist) of a space;
   * `forEveryInstance`: one every instance of a cluster sees (the space's `.burrow/uploads`).
   */
  placeFor(spaceRoot: string, destinationDir: string, forEveryInstance?: boolean): Promise<StagingPlace>;
  /**
   * A new, exclusively created, empty part file. `before` is told its path before it exists (a
   * multipart part goes on the work journal there, so a crash never leaves it behind).
   */
  createPart(place: StagingPlace, kind: 'tus' | 'mp', id?: string, before?: (file: string) => void): Promise<string>;
  /** Answers 507 unless `bytes` fit on the volume of `dir` with the reserve left over. */
  ensureSpace(dir: string, bytes: number): Promise<void>;
  /**
   * For a body of unknown length written into `dir`: a check for each chunk before it is kept,
   * refusing (507) the one that would eat into the reserve. The free space is read again every
   * GUARD_STEP bytes, counted from what `written()` said had reached the disk when it was asked,
   * so a disk filling from elsewhere meanwhile is seen. 507 at once when the reserve is reached.
   */
  guard(dir: string, written: () => number): Promise<(chunk: Buffer) => void>;
  /** Staging folders used so far (for the sweep). */
  knownDirs(): string[];
  /**
   * A part file of this staging folder is gone (placed, cancelled, swept): the folder, and Burrow's
   * own folder holding it, are removed when empty and a user could see them.
   */
  tidy(partFile: string): Promise<void>;
  /** Multipart part files an earlier run left behind, removed when staging was opened. */
  readonly leftoversRemoved: number;
}

/**
 * A multipart request cannot resume, so its part files are garbage once the process that
 * wrote them is gone: removed at startup, before the server listens (TUS parts are kept for
 * their uploads and left to the TUS sweep).
 */
function removeMultipartLeftovers(dirs: Iterable<string>): number {
  let removed = 0;
  for (const dir of dirs) {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue; // a volume that is not mounted now
    }
    for (const name of names) {
      if (!MULTIPART_PART.test(name)) continue;
      try {
        fs.rmSync(path.join(dir, name), { force: true });
        removed++;
      } catch {
        /* left for the next start */
      }
    }
  }
  return removed;
}

export function noSpace(message = 'The volume does not have enough free space for this upload.'): AppError {
  return new AppError('NO_SPACE', message);
}

export function formatBytes(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1 && Number.isInteger(v / 1024)) {
    v /= 1024;
    i++;
  }
  return `${v} ${units[i]}`;
}

export interface StagingDeps {
  store: StagingDirStore;
  /** Bytes a volume keeps free (FREE_SPACE_RESERVE). */
  reserveBytes: number;
  own: OwnFolders;
  /**
   * Several instances over one PostgreSQL: the staging folders are every instance's (their rows
   * are shared, and an own folder on the shared storage is one folder for all), so a multipart
   * part there may be another live instance's upload in progress — none is removed at start.
   * Each part is on the work journal before it exists: a dead instance's are removed by the
   * journal's recovery once its lease lapsed (files/transfer.ts), and the uploads sweep (one
   * instance, `uploads.sweep`) removes any part nothing wrote to for the TTL.
   */
  shared?: boolean;
}

export function createStaging({ store, reserveBytes, own, shared = false }: StagingDeps): Staging {
  const registered = new Set(store.all());
  const leftoversRemoved = shared ? 0 : removeMultipartLeftovers(registered);
  // What that emptied, and the `.burrow/uploads` of earlier installs, is not left behind.
  for (const dir of registered) if (path.basename(dir) === STAGING_SUBDIR) own.tidySync(path.dirname(dir), 'uploads');
  /** Staging folders known to exist (made again by createPart if someone removed one). */
  const made = new Set<string>();
  /** The last free space read per folder, and when. */
  const lastFree = new Map<string, { free: number; at: number }>();

  async function sameDevice(a: string, b: string): Promise<boolean> {
    const [sa, sb] = await Promise.all([fsp.stat(a), fsp.stat(b)]);
    return sa.dev === sb.dev;
  }

  return {
    async placeFor(spaceRoot, destinationDir, forEveryInstance = false) {
      if (!(await sameDevice(spaceRoot, destinationDir))) return { dir: destinationDir, shared: false };
      const dir = path.join(
        forEveryInstance ? path.join(spaceRoot, RESERVED_DIR) : await own.of(spaceRoot),
        STAGING_SUBDIR,
      );
      if (!made.has(dir)) {
        await fsp.mkdir(dir, { recursive: true });
        made.add(dir);
      }
      if (!registered.has(dir)) {
        store.add(dir);
        registered.add(dir);
      }
      return { dir, shared: true };
    },

    async createPart(place, kind, id, before) {
      const token = id ?? randomBytes(12).toString('base64url');
      const name = place.shared ? `${kind}-${token}.part` : `${TEMP_PREFIX}${kind}-${token}`;
      const file = path.join(place.dir, name);
      before?.(file);
      const create = async () => (await fsp.open(file, 'wx', 0o644)).close();
      try {
        await create();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !place.shared) throw err;
        await fsp.mkdir(place.dir, { recursive: true });
        await create();
      }
      return file;
    },

    async ensureSpace(dir, bytes) {
      const last = lastFree.get(dir);
      if (last && Date.now() - last.at < FREE_SPACE_FRESH_MS && 4 * (bytes + reserveBytes) <= last.free) return;
      let free: number;
      try {
        const s = await fsp.statfs(dir);
        free = Number(s.bavail) * Number(s.bsize);
        if (lastFree.size >= 64) lastFree.clear(); // folders beside their destinations are many
        lastFree.set(dir, { free, at: Date.now() });
      } catch {
        return; // A filesystem that cannot say: the write itself will answer ENOSPC.
      }
      if (bytes + reserveBytes > free) {
        throw noSpace(
          `The volume has ${formatBytes(Math.max(0, free - reserveBytes))} free for uploads; this upload needs ${formatBytes(bytes)}.`,
        );
      }
    },

    async guard(dir, written) {
      const freeNow = async () => {
        const s = await fsp.statfs(dir);
        return Number(s.bavail) * Number(s.bsize);
      };
      let free: number;
      try {
        free = await freeNow();
      } catch {
        return () => {}; // A filesystem that cannot say: the write itself will answer ENOSPC.
      }
      const reached = () =>
        noSpace(
          `The volume keeps ${formatBytes(reserveBytes)} free (UPLOAD_FREE_SPACE_RESERVE) and this upload reached it; nothing of it was kept.`,
        );
      if (free <= reserveBytes) throw reached();
      /** Bytes of the body that fit: what was free beyond the reserve, plus what had been written when it was read. */
      let fits = free - reserveBytes;
      let seen = 0;
      let nextRead = GUARD_STEP;
      let reading = false;
      return (chunk) => {
        seen += chunk.length;
        if (seen > fits) throw reached();
        if (seen < nextRead || reading) return;
        reading = true;
        nextRead = seen + GUARD_STEP;
        const base = written();
        freeNow().then(
          (f) => {
            fits = base + f - reserveBytes;
            reading = false;
          },
          () => {
            reading = false;
          },
        );
      };
    },

    knownDirs: () => [...registered],
    async tidy(partFile) {
      const dir = path.dirname(partFile);
      if (!registered.has(dir)) return;
      made.delete(dir);
      await own.tidy(path.dirname(dir), 'uploads');
    },
    leftoversRemoved,
  };
}

/** Removes a file, ignoring that it is already gone. */
export async function removeQuietly(file: string): Promise<void> {
  await fsp.rm(file, { force: true }).catch(() => {});
}

/** Is `name` a part file this module made (for the orphan sweep)? */
export function isPartName(name: string): boolean {
  return TUS_PART.test(name) || MULTIPART_PART.test(name);
}
