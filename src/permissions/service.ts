// File permissions as the host sees them (the native client's permissions screen): read mode,
// owner and group; change the mode (optionally through a folder tree) and the owner. Only
// inside a volume, never through a link: each entry is opened without following links
// (Linux: O_PATH|O_NOFOLLOW, so no read right is needed and a FIFO is not opened for reading),
// checked to be the entry that was resolved and to lie inside its space, and changed through
// that descriptor. Administrators only (the route says so too); refused on Windows.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError, fromFsError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import type { InsidePath, PathResolver } from '../files/paths.ts';
import { isInside } from '../files/paths.ts';
import { isReservedName } from '../files/names.ts';
import { idOf, nameOf } from './accounts.ts';

export interface PermissionsInfo {
  path: string;
  mode: number;
  owner: string;
  group: string;
  uid: number;
  gid: number;
  isDirectory: boolean;
}
export interface ChmodInput {
  path: string;
  mode: string;
  recursive?: boolean;
}
export interface ChownInput {
  path: string;
  owner?: string;
  group?: string;
  recursive?: boolean;
}

export interface PermissionsService {
  get(caller: Caller, virtualPath: string): Promise<PermissionsInfo>;
  chmod(caller: Caller, input: ChmodInput): Promise<{ success: true; path: string; mode: string; changed: number }>;
  chown(
    caller: Caller,
    input: ChownInput,
  ): Promise<{ success: true; path: string; owner: string; group: string; uid: number; gid: number; changed: number }>;
}

/** Linux's O_PATH (not in fs.constants): a descriptor naming the inode without opening its content. */
const O_PATH_LINUX = 0o10000000;

function refuseWindows(platform: NodeJS.Platform): void {
  if (platform === 'win32') {
    throw new AppError(
      'PERMISSIONS_UNSUPPORTED_PLATFORM',
      'This server runs on Windows, where files have access lists instead of a mode, owner and group; change them in Windows (file properties, Security).',
    );
  }
}

/** A descriptor on the entry itself (never a link's target), verified to lie inside `root`. */
async function openEntry(
  realPath: string,
  root: string,
  platform: NodeJS.Platform,
): Promise<{ fd: number; stat: fs.Stats; viaProc: boolean }> {
  const linux = platform === 'linux';
  const flags = linux
    ? O_PATH_LINUX | fs.constants.O_NOFOLLOW
    : fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
  let fd: number;
  try {
    fd = fs.openSync(realPath, flags);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP')
      throw new AppError('IS_A_LINK', 'That is a link; permissions are never changed through a link.');
    throw fromFsError(err) ?? err;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isSymbolicLink())
      throw new AppError('IS_A_LINK', 'That is a link; permissions are never changed through a link.');
    // The descriptor names where it really is: a folder above swapped for a link is caught here.
    const where = linux ? fs.readlinkSync(`/proc/self/fd/${fd}`) : await fsp.realpath(realPath);
    if (!isInside(root, where)) throw new AppError('PATH_OUTSIDE', 'The path leads outside its volume.');
    return { fd, stat, viaProc: linux };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

async function withEntry<T>(
  realPath: string,
  root: string,
  platform: NodeJS.Platform,
  fn: (e: { fd: number; stat: fs.Stats; viaProc: boolean }) => Promise<T>,
): Promise<T> {
  const entry = await openEntry(realPath, root, platform);
  try {
    return await fn(entry);
  } catch (err) {
    throw fromFsError(err) ?? err;
  } finally {
    fs.closeSync(entry.fd);
  }
}

function parseMode(mode: unknown): number {
  if (typeof mode !== 'string' || !/^[0-7]{3,4}$/.test(mode))
    throw new AppError('BAD_MODE', 'The mode must be 3 or 4 octal digits, such as "755" or "0640".');
  return parseInt(mode, 8);
}

export function createPermissions(deps: { resolver: PathResolver; platform?: NodeJS.Platform }): PermissionsService {
  const platform = deps.platform ?? process.platform;

  async function target(caller: Caller, virtualPath: string, change: boolean): Promise<InsidePath> {
    refuseWindows(platform);
    if (!caller.isAdmin) throw new AppError('ADMIN_ONLY', 'Only an administrator may see or change file permissions.');
    const file = await deps.resolver.resolveInside(caller, virtualPath, {
      mustExist: true,
      atTop: 'Name a file or folder inside a volume.',
    });
    if (change) {
      if (file.relative === '')
        throw new AppError(
          'VOLUME_ROOT',
          "A volume's own folder keeps its permissions; change those of what is inside it.",
        );
      if (!file.access.canWrite)
        throw new AppError(
          'READ_ONLY',
          file.access.readOnly === 'storage' ? 'This volume is read-only.' : 'You may not change this item.',
        );
    }
    return file;
  }

  /** Applies `fn` to the entry and, when recursive and a folder, to everything below (links skipped). */
  async function apply(
    realPath: string,
    root: string,
    recursive: boolean,
    fn: (e: { fd: number; stat: fs.Stats; viaProc: boolean }) => Promise<void>,
  ): Promise<number> {
    let changed = 0;
    const isDir = await withEntry(realPath, root, platform, async (e) => {
      await fn(e);
      changed++;
      return e.stat.isDirectory();
    });
    if (!recursive || !isDir) return changed;
    const dir = await fsp.opendir(realPath);
    for await (const child of dir) {
      if (child.isSymbolicLink() || isReservedName(child.name)) continue;
      try {
        changed += await apply(path.join(realPath, child.name), root, true, fn);
      } catch (err) {
        // A child turned into a link meanwhile is left alone, like links found by the listing.
        if ((err as AppError).code !== 'IS_A_LINK') throw err;
      }
    }
    return changed;
  }

  return {
    async get(caller, virtualPath) {
      const file = await target(caller, virtualPath, false);
      const st = await fsp.lstat(file.realPath);
      return {
        path: file.virtualPath,
        mode: st.mode,
        uid: st.uid,
        gid: st.gid,
        isDirectory: st.isDirectory(),
        owner: await nameOf('passwd', st.uid),
        group: await nameOf('group', st.gid),
      };
    },

    async chmod(caller, input) {
      const mode = parseMode(input.mode);
      const file = await target(caller, input.path, true);
      const changed = await apply(file.realPath, file.space.root, input.recursive === true, async ({ fd, viaProc }) => {
        if (viaProc) await fsp.chmod(`/proc/self/fd/${fd}`, mode);
        else await new Promise<void>((res, rej) => fs.fchmod(fd, mode, (err) => (err ? rej(err) : res())));
      });
      return { success: true, path: file.virtualPath, mode: mode.toString(8).padStart(3, '0'), changed };
    },

    async chown(caller, input) {
      if ((input.owner === undefined || input.owner === '') && (input.group === undefined || input.group === ''))
        throw new AppError('NOTHING_TO_CHANGE', 'Name an owner, a group, or both.');
      const file = await target(caller, input.path, true);
      const uid = input.owner ? await idOf('passwd', input.owner) : -1;
      if (uid === null) throw new AppError('UNKNOWN_OWNER', `This server has no account named "${input.owner}".`);
      const gid = input.group ? await idOf('group', input.group) : -1;
      if (gid === null) throw new AppError('UNKNOWN_GROUP', `This server has no group named "${input.group}".`);
      let changed: number;
      try {
        changed = await apply(file.realPath, file.space.root, input.recursive === true, async ({ fd, viaProc }) => {
          // -1 keeps the owner or group as it is.
          if (viaProc) await fsp.chown(`/proc/self/fd/${fd}`, uid, gid);
          else await new Promise<void>((res, rej) => fs.fchown(fd, uid, gid, (err) => (err ? rej(err) : res())));
        });
      } catch (err) {
        if ((err as AppError).code === 'PERMISSION')
          throw new AppError(
            'PERMISSION',
            'The server runs without the right to give files to another owner (that needs root or CAP_CHOWN).',
          );
        throw err;
      }
      const st = await fsp.lstat(file.realPath);
      return {
        success: true,
        path: file.virtualPath,
        owner: await nameOf('passwd', st.uid),
        group: await nameOf('group', st.gid),
        uid: st.uid,
        gid: st.gid,
        changed,
      };
    },
  };
}
