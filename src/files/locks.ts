// Locks that other protocols hold on items: a WebDAV client's write lock, an office editor's WOPI
// lock. The composition root hands in how to find each protocol's live locks on an item (and
// below it); every write of the HTTP API asks here before changing an item, and each protocol
// asks for the others' locks, so a change by another account answers 423 instead of undoing that
// client's work in silence. A lock binds other accounts only: its own account works on through
// every door.
import path from 'node:path';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import { isInside, type InsidePath, type ResolvedPath } from './paths.ts';

/** Which protocol holds a lock, and for which account (null: nobody's, so every account). */
export interface HeldLock {
  kind: 'webdav' | 'office';
  userId: string | null;
}

/** The live locks on `item` (and, withBelow, on anything inside a folder). */
export type LockProbe = (item: ResolvedPath, withBelow: boolean) => HeldLock[];

/** Each protocol's probe: WebDAV's exclusive locks, the office editor's WOPI locks. */
export type LockProbes = Record<HeldLock['kind'], LockProbe>;

export interface ItemLocks {
  /** 423 LOCKED when a lock of another account holds the item (or, withBelow, anything in it). */
  assertFree(caller: Caller, item: ResolvedPath, options?: { withBelow?: boolean; except?: HeldLock['kind'] }): void;
}

const HOLDER: Record<HeldLock['kind'], string> = {
  webdav: 'a WebDAV client',
  office: 'the office editor',
};

/**
 * The item at its canonical place when the name used reaches it through a symlink (a folder
 * swapped for a link to another): a lock taken there holds whatever name reaches the file.
 */
export function canonicalAlias(item: ResolvedPath): InsidePath | null {
  const real = item.canonicalPath;
  if (!real || real === item.realPath || !item.space || !isInside(item.space.root, real)) return null;
  const relative = path.relative(item.space.root, real).split(path.sep).join('/');
  return { ...item, realPath: real, relative };
}

export function createItemLocks(probes: LockProbes): ItemLocks {
  return {
    assertFree(caller, item, options = {}) {
      if (!item.space || !item.exists) return;
      const below = Boolean(options.withBelow && item.isDirectory);
      const alias = canonicalAlias(item);
      const places = alias ? [item, alias] : [item];
      for (const [kind, probe] of Object.entries(probes) as [HeldLock['kind'], LockProbe][]) {
        if (kind === options.except) continue;
        const held = places.flatMap((p) => probe(p, below)).find((l) => l.userId !== caller.userId);
        if (held)
          throw new AppError(
            'LOCKED',
            `"${item.virtualPath.split('/').pop()}" ${below ? 'holds an item' : 'is'} locked by ${
              HOLDER[held.kind]
            } of another account; try again when it is unlocked.`,
          );
      }
    },
  };
}
