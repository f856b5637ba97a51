// Trash: Burrow's own folder of each space holds its deleted items (`<own>/trash`, files/own.ts:
// on the space's disk, out of the user's folders). Deleting is a rename into it; restoring is a
// rename back under a free name (never over an existing one); purge, empty and retention remove
// for good.
import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ChangeSink } from '../changes.ts';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import { ensureDirIn, withDirIn, withParentIn } from '../files/confined.ts';
import { below, moveStored, ownFolderOf, type OwnFolders } from '../files/own.ts';
import { isInside, type InsidePath, type PathResolver, type Space } from '../files/paths.ts';
import type { Transfer } from '../files/transfer.ts';
import type { TrashRow as Row, TrashStore } from './store.ts';

export interface TrashEntry {
  id: string;
  name: string;
  /** Parent folder it was deleted from (virtual, for this caller). */
  path: string;
  originalPath: string;
  isDirectory: boolean;
  kind: string;
  size: number | null;
  deletedAt: string;
  deletedBy: string;
}

export interface TrashService {
  /** Moves a resolved, existing item into its space's trash; returns the entry id. */
  put(caller: Caller, item: InsidePath): Promise<string>;
  list(caller: Caller): Promise<TrashEntry[]>;
  /** The entry and its stored real path, or 404 when the caller cannot see it. */
  find(caller: Caller, id: string): Promise<{ entry: TrashEntry; storedPath: string; space: Space }>;
  /** Moves the stored items under `from` (an old own folder's `trash`) into `to`, by rename; answers how many. */
  relocate(from: string, to: string): Promise<number>;
  restore(
    caller: Caller,
    id: string,
    destination?: InsidePath,
  ): Promise<{ dir: string; parentVirtual: string; name: string; isDirectory: boolean; entry: TrashEntry }>;
  /** Removes one entry for good; answers what it was. */
  purge(caller: Caller, id: string): Promise<TrashEntry>;
  empty(caller: Caller): Promise<number>;
  /** Removes entries older than `days` and rows whose stored item vanished. */
  sweep(days: number): Promise<number>;
  /** Forgets the entry stored at `storedPath` (a restore a crash interrupted after placing it). */
  forgetStored(storedPath: string): void;
}

const kindFor = (name: string, dir: boolean) =>
  dir ? 'directory' : (/\.([^.]{1,10})$/.exec(name)?.[1]?.toLowerCase() ?? 'unknown');

export interface TrashDeps {
  store: TrashStore;
  resolver: PathResolver;
  transfer: Transfer;
  changes: ChangeSink;
  own: OwnFolders;
}

export function createTrash({ store, resolver, transfer, changes, own }: TrashDeps): TrashService {
  async function visible(caller: Caller): Promise<Map<string, Space>> {
    return new Map((await resolver.spaces(caller)).map((s) => [s.root, s]));
  }
  const toEntry = (row: Row, space: Space): TrashEntry => {
    const parentRel = path.posix.dirname(row.original_relative);
    return {
      id: row.id,
      name: row.name,
      path: parentRel === '.' ? space.path : `${space.path}/${parentRel}`,
      originalPath: `${space.path}/${row.original_relative}`,
      isDirectory: row.is_directory === 1,
      kind: kindFor(row.name, row.is_directory === 1),
      size: row.size,
      deletedAt: row.deleted_at,
      deletedBy: row.deleted_by,
    };
  };
  /** A trashed item is the person's to see where its original place is not hidden from them now. */
  const seen = (caller: Caller, row: Row, space: Space) =>
    !resolver.isHiddenByRule(caller, `${space.path}/${row.original_relative}`);
  async function findRow(caller: Caller, id: string): Promise<{ row: Row; space: Space }> {
    const row = store.get(id);
    const space = row ? (await visible(caller)).get(row.space_root) : undefined;
    if (!row || !space || !seen(caller, row, space)) throw new AppError('NOT_FOUND', 'No such item in the trash.');
    return { row, space };
  }
  /** Removing for good is deleting: the person must be able to delete the item where it was, now (the rules' word, no I/O). */
  const mayPurge = (caller: Caller, row: Row, space: Space): boolean =>
    resolver.mayDeleteByRule(caller, space, row.original_relative);
  async function remove(row: Row): Promise<void> {
    await fsp.rm(row.stored_path, { recursive: true, force: true });
    store.remove(row.id);
  }

  const service: TrashService = {
    async put(caller, item) {
      const space = item.space;
      const trashDir = await own.dir(space.root, 'trash');
      const id = randomUUID();
      const stored = path.join(trashDir, id);
      // Through checked descriptors of both folders: the entry trashed is the one inside.
      await withParentIn(space.root, item.realPath, (src, name) =>
        withDirIn(ownFolderOf(stored), trashDir, async (trash) => {
          const stats = await fsp.lstat(src.at(name));
          store.insert({
            id,
            space_root: space.root,
            original_relative: item.relative,
            name,
            is_directory: stats.isDirectory() ? 1 : 0,
            size: stats.isDirectory() ? null : stats.size,
            stored_path: stored,
            deleted_by: caller.username,
            deleted_at: new Date().toISOString(),
          });
          try {
            try {
              await fsp.rename(src.at(name), trash.at(id));
            } catch (err) {
              // The item sits on another mount inside the volume: copy into the trash, then remove.
              if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
              const placed = await transfer.move(
                { path: src.at(name), real: item.realPath, root: space.root },
                trash,
                id,
                stats.isDirectory(),
              );
              if (placed.name !== id) store.setStored(id, path.join(trashDir, placed.name));
            }
          } catch (err) {
            store.remove(id);
            throw err;
          }
        }),
      );
      return id;
    },

    async list(caller) {
      const spaces = await visible(caller);
      const out: TrashEntry[] = [];
      for (const row of store.newestFirst()) {
        const space = spaces.get(row.space_root);
        if (space && seen(caller, row, space)) out.push(toEntry(row, space));
      }
      return out;
    },

    async find(caller, id) {
      const { row, space } = await findRow(caller, id);
      return { entry: toEntry(row, space), storedPath: row.stored_path, space };
    },

    async restore(caller, id, destination) {
      const { row, space } = await findRow(caller, id);
      const isDirectory = row.is_directory === 1;
      let dir: string;
      let parentVirtual: string;
      if (destination) {
        dir = destination.realPath;
        parentVirtual = destination.virtualPath;
      } else {
        const parentRel = path.posix.dirname(row.original_relative);
        parentVirtual = parentRel === '.' ? space.path : `${space.path}/${parentRel}`;
        const resolved = await resolver.resolve(caller, parentVirtual);
        if (!resolved.access.canWrite) throw new AppError('READ_ONLY', 'You may not write in the original folder.');
        dir = resolved.realPath;
        if (!isInside(space.root, dir))
          throw new AppError('PATH_OUTSIDE', 'The original folder is outside its volume.');
      }
      await fsp.lstat(row.stored_path).catch(() => {
        store.remove(row.id);
        throw new AppError('NOT_FOUND', 'The trashed item is gone.');
      });
      // Missing folders of the original place are made one by one, each confined.
      const destRoot = destination ? destination.space.root : space.root;
      const into = await ensureDirIn(destRoot, dir);
      let placed;
      const kept = ownFolderOf(row.stored_path);
      try {
        placed = await withParentIn(kept, row.stored_path, (trash, storedName) =>
          transfer.move({ path: trash.at(storedName), real: row.stored_path, root: kept }, into, row.name, isDirectory),
        );
      } finally {
        await into.close();
      }
      store.remove(row.id);
      changes.emit({ type: 'created', path: path.join(dir, placed.name), isDirectory });
      return { dir, parentVirtual, name: placed.name, isDirectory, entry: toEntry(row, space) };
    },

    relocate(from, to) {
      return moveStored(store.storedWithin(below(from)), to, store.setStored);
    },

    async purge(caller, id) {
      const { row, space } = await findRow(caller, id);
      if (!mayPurge(caller, row, space))
        throw new AppError('READ_ONLY', 'You may not delete in the folder this item was trashed from.');
      await remove(row);
      return toEntry(row, space);
    },

    async empty(caller) {
      const spaces = await visible(caller);
      let n = 0;
      for (const row of store.all()) {
        const space = spaces.get(row.space_root);
        if (!space || !seen(caller, row, space) || !mayPurge(caller, row, space)) continue;
        await remove(row);
        n++;
      }
      return n;
    },

    async sweep(days) {
      let n = 0;
      const cutoff = new Date(Date.now() - days * 86_400_000).toISOString();
      for (const row of store.all()) {
        const gone = !(await fsp.lstat(row.stored_path).catch(() => null));
        if (gone) store.remove(row.id);
        else if (days > 0 && row.deleted_at < cutoff) await remove(row);
        else continue;
        n++;
      }
      return n;
    },

    forgetStored(storedPath) {
      store.removeStored(storedPath);
    },
  };
  return service;
}
