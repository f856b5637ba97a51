// What a caller may do at a path: the access rules of the installation (settings), the
// assignment of a volume, the token scope, and what the host lets the process do.
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

/** An access rule of the installation settings (wire-shapes §9). Paths are virtual. */
export interface AccessRule {
  id: string;
  path: string;
  recursive?: boolean;
  permissions?: 'rw' | 'ro' | 'hidden';
}

const trimSlashes = (p: string) => p.replace(/^\/+|\/+$/g, '');

/**
 * The rule in force at a virtual path: 'hidden' when the path or any folder above it is
 * hidden; otherwise the longest rule naming the path itself, or an ancestor when recursive.
 */
export function ruleAt(rules: readonly AccessRule[], virtualPath: string): 'rw' | 'ro' | 'hidden' | null {
  let best: AccessRule | null = null;
  let bestLength = -1;
  for (const rule of rules) {
    const rulePath = trimSlashes(rule.path ?? '');
    if (rulePath === '') continue;
    const exact = virtualPath === rulePath;
    const below = virtualPath.startsWith(rulePath + '/');
    if (rule.permissions === 'hidden' && (exact || below)) return 'hidden';
    if ((exact || (below && rule.recursive)) && rulePath.length > bestLength) {
      best = rule;
      bestLength = rulePath.length;
    }
  }
  return best?.permissions ?? null;
}

export function accessFor(readOnly: ReadOnlyReason, options: { isRoot: boolean; canShare: boolean }): Access {
  const canWrite = readOnly === null;
  return {
    canRead: true,
    canWrite,
    canUpload: canWrite,
    // A space's own root cannot be deleted, only what is in it.
    canDelete: canWrite && !options.isRoot,
    canShare: options.canShare,
    canDownload: true,
    canCreateFolder: canWrite,
    canCreateFile: canWrite,
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
