// What a caller may do at a path: the level the access model gives the person there (access/),
// the assignment of a volume, the token scope, and what the host lets the process do.
import fsp from 'node:fs/promises';
import fs from 'node:fs';
import type { Caller } from '../core/caller.ts';

export type ReadOnlyReason = 'storage' | 'permission' | 'access' | null;

export interface Access {
  canRead: boolean;
  canWrite: boolean;
  canUpload: boolean;
  canDelete: boolean;
  canShare: boolean;
  canDownload: boolean;
  canCreateFolder: boolean;
  canCreateFile: boolean;
  /** Set inside a link, where renaming is its own flag; elsewhere renaming follows canDelete. */
  canRename?: boolean;
  readOnly: ReadOnlyReason;
}

/**
 * What the access model gives a person at a folder, lowest first: hidden (it does not exist for
 * them), view (list and look, no download), read (download too), write (create, upload, modify,
 * rename, move in), manage (delete, share, change who has access below).
 */
export const LEVELS = ['hidden', 'view', 'read', 'write', 'manage'] as const;
export type AccessLevel = (typeof LEVELS)[number];

/** What a caller may do, from what the storage allows (`readOnly`) and the person's level there. */
export function accessFor(
  readOnly: ReadOnlyReason,
  options: { isRoot: boolean; canShare: boolean; level?: AccessLevel },
): Access {
  const level = options.level ?? 'manage';
  if (readOnly === null && level !== 'write' && level !== 'manage') readOnly = 'access';
  const canWrite = readOnly === null;
  const manage = level === 'manage';
  return {
    canRead: level !== 'hidden',
    canWrite,
    canUpload: canWrite,
    // A space's own root cannot be deleted, only what is in it.
    canDelete: canWrite && manage && !options.isRoot,
    canShare: options.canShare && manage,
    canDownload: level !== 'hidden' && level !== 'view',
    canCreateFolder: canWrite,
    canCreateFile: canWrite,
    // Write lets a person rename what is in the folder without the right to delete it.
    ...(canWrite && !manage ? { canRename: !options.isRoot } : {}),
    readOnly,
  };
}

export const TOP_ACCESS: Access = Object.freeze(accessFor('access', { isRoot: true, canShare: false }));

/** Read tokens see every folder as read-only. */
export function callerMayWrite(caller: Caller): boolean {
  return !(caller.via === 'token' && caller.tokenScope !== 'write');
}

/** Probes whether the process may write in `dir`: null, 'storage' (read-only mount) or 'permission'. */
export async function probeWritable(dir: string): Promise<ReadOnlyReason> {
  try {
    await fsp.access(dir, fs.constants.W_OK);
    return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EROFS') return 'storage';
    if (code === 'EACCES' || code === 'EPERM') return 'permission';
    return null;
  }
}

/** Caches storage probes of space roots for a few seconds (a remount is noticed quickly). */
export function createProbeCache(ttlMs = 3000): (dir: string) => Promise<ReadOnlyReason> {
  const cache = new Map<string, { at: number; value: ReadOnlyReason }>();
  return async (dir) => {
    const hit = cache.get(dir);
    const now = Date.now();
    if (hit && now - hit.at < ttlMs) return hit.value;
    const value = await probeWritable(dir);
    cache.set(dir, { at: now, value });
    if (cache.size > 1000) cache.clear();
    return value;
  };
}
