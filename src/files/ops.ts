// File operations (create folder/file, rename, copy/move, delete to trash, delete impact).
// Every write claims names atomically, announces itself through the change sink, carries
// or forgets the path's bindings, and writes one activity row (files/activity.ts).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ChangeSink } from '../changes.ts';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import type { TrashService } from '../trash/service.ts';
import { fileEvent, listed, shownPath, type ActivitySink } from './activity.ts';
import type { BindingScope, Bindings } from './bindings.ts';
import { openDirIn, withDirIn } from './confined.ts';
import { fileItem } from './items.ts';
import type { DeletedItem, DeleteImpact, FileItem, TransferResult } from './wire.ts';
import { countTree } from './walk.ts';
import { allocateFreeName, assertPlainName, placeFile } from './names.ts';
import { withTemporary, type WorkJournal } from './journal.ts';
import { isInside, joinVirtual, ownerView, type PathResolver, type ResolvedPath } from './paths.ts';
import type { Transfer } from './transfer.ts';

export interface ItemRef {
  path: string;
  name: string;
}
export type { TransferResult };

/** Told as a deletion goes (the progress stream); with it, a failed item is reported, not thrown. */
export interface DeleteProgress {
  failed(item: ItemRef, err: unknown): Promise<void>;
  done(item: ItemRef, done: number, total: number): Promise<void>;
}

/** Create only: fails on a taken name and never follows a link in its place. */
const EXCLUSIVE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);

// Bindings, trash and versions live on the owner's side of a link (paths.ts ownerView).
const locationOf = (r: ResolvedPath) => {
  const o = ownerView(r);
  return { root: o.space!.root, relative: o.relative };
};
const bound = (r: ResolvedPath) => ownerView(r).virtualPath;

export const scopeOf = (caller: Caller, r: ResolvedPath): BindingScope => ({
  userId: ownerView(r).space?.kind === 'volume' ? null : (r.space?.share?.ownerId ?? caller.userId),
});

export interface FileOps {
  createFolder(caller: Caller, parent: string, name: string): Promise<FileItem>;
  createFile(caller: Caller, parent: string, name: string, content?: string): Promise<FileItem>;
  rename(caller: Caller, parent: string, name: string, newName: string): Promise<FileItem>;
  transfer(
    caller: Caller,
    items: ItemRef[],
    destination: string,
    operation: 'copy' | 'move',
  ): Promise<{ destination: string; items: TransferResult[] }>;
  /** Resolves a deletion's item (existing, deletable by the caller). */
  resolveForDelete(caller: Caller, item: ItemRef): Promise<ResolvedPath>;
  deleteOne(caller: Caller, item: ResolvedPath): Promise<{ trashId: string; forgotten: Record<string, number> }>;
  /**
   * Deletes items to the trash, one after the other, and writes one activity row for what went.
   * An item that is not there is `missing` (or, with `missing: 'refuse'`, fails the request);
   * without `progress` any other refusal fails the whole request, with it the item is `failed`.
   */
  deleteItems(
    caller: Caller,
    items: ItemRef[],
    options?: { progress?: DeleteProgress; missing?: 'report' | 'refuse' },
  ): Promise<DeletedItem[]>;
  /** What deleting these items would affect (counted now, bounded), without deleting. */
  deleteImpact(caller: Caller, items: ItemRef[]): Promise<DeleteImpact>;
  /** Resolves a folder the caller may write in; 403 otherwise. */
  writableFolder(
    caller: Caller,
    virtual: string,
    need?: 'canWrite' | 'canCreateFolder' | 'canCreateFile',
  ): Promise<ResolvedPath>;
}

export function createFileOps(deps: {
  resolver: PathResolver;
  transfer: Transfer;
  trash: TrashService;
  bindings: Bindings;
  changes: ChangeSink;
  activity: ActivitySink;
  recordDestination(userId: string, path: string): void;
  /** A new file with content is built under a temporary on the journal. */
  journal: WorkJournal;
}): FileOps {
  const { resolver, changes, bindings, activity } = deps;

  async function writableFolder(
    caller: Caller,
    virtual: string,
    need: 'canWrite' | 'canCreateFolder' | 'canCreateFile' = 'canWrite',
  ): Promise<ResolvedPath> {
    const dir = await resolver.resolve(caller, virtual, { mustExist: true });
    if (!dir.space) throw new AppError('TOP_LEVEL', 'Nothing can be written at the top; choose a volume.');
    if (!dir.isDirectory) throw new AppError('NOT_A_FOLDER', 'The destination is not a folder.');
    if (!dir.access[need])
      throw new AppError(
        'READ_ONLY',
        dir.access.readOnly === 'storage' ? 'This volume is read-only.' : 'You may not write in this folder.',
      );
    return dir;
  }

  async function existingItem(caller: Caller, item: ItemRef): Promise<{ parent: ResolvedPath; target: ResolvedPath }> {
    if (typeof item.name !== 'string' || item.name === '') throw new AppError('BAD_NAME', 'Each item needs a name.');
    assertPlainName(item.name);
    const parent = await resolver.resolve(caller, item.path ?? '', { mustExist: true });
    const target = await resolver.resolve(caller, joinVirtual(parent.virtualPath, item.name), { mustExist: true });
    return { parent, target };
  }

  const ops: FileOps = {
    writableFolder,

    async createFolder(caller, parent, name) {
      assertPlainName(name);
      const dir = await writableFolder(caller, parent, 'canCreateFolder');
      // Claimed through the checked folder's descriptor: a swapped link cannot lead it outside.
      const { final, st } = await withDirIn(dir.space!.root, dir.realPath, async (d) => {
        const final = await allocateFreeName(d.path, name, (c) => fsp.mkdir(c));
        return { final, st: await fsp.lstat(d.at(final)) };
      });
      changes.emit({ type: 'created', path: path.join(dir.realPath, final), isDirectory: true });
      activity.record(fileEvent(caller, 'files.create-folder', { path: joinVirtual(shownPath(dir), final) }));
      return fileItem(dir.virtualPath, final, st);
    },

    async createFile(caller, parent, name, content = '') {
      assertPlainName(name);
      const dir = await writableFolder(caller, parent, 'canCreateFile');
      const { final, st } = await withDirIn(dir.space!.root, dir.realPath, async (d) => {
        if (!content) {
          let st: fs.Stats | undefined;
          const final = await allocateFreeName(d.path, name, async (c) => {
            const handle = await fsp.open(c, EXCLUSIVE, 0o644);
            try {
              st = await handle.stat();
            } finally {
              await handle.close();
            }
          });
          return { final, st: st! };
        }
        // Content is written under a journalled temporary and placed whole: a full disk (507)
        // or a crash mid-write leaves no file, never an empty or half-written one.
        return withTemporary(deps.journal, d, async (temp) => {
          const handle = await fsp.open(temp, EXCLUSIVE, 0o644);
          try {
            await handle.writeFile(content);
            await handle.datasync();
          } finally {
            await handle.close();
          }
          const final = await placeFile(temp, d.path, name);
          return { final, st: await fsp.lstat(d.at(final)) };
        });
      });
      changes.emit({ type: 'created', path: path.join(dir.realPath, final), isDirectory: false });
      activity.record(
        fileEvent(caller, 'files.create-file', { path: joinVirtual(shownPath(dir), final), size: st.size }),
      );
      return fileItem(dir.virtualPath, final, st);
    },

    async rename(caller, parent, name, newName) {
      assertPlainName(newName, 'new name');
      const { parent: dir, target } = await existingItem(caller, { path: parent, name });
      if (!(target.access.canRename ?? (dir.access.canWrite && target.access.canDelete)))
        throw new AppError('READ_ONLY', 'You may not rename this item.');
      if (newName === name) return fileItem(dir.virtualPath, name, await fsp.stat(target.realPath));
      const destination = await resolver.resolve(caller, joinVirtual(dir.virtualPath, newName));
      // Both names in one checked folder descriptor: the entry renamed is the one inside.
      const isDirectory = await withDirIn(dir.space!.root, dir.realPath, async (d) => {
        const from = d.at(name);
        const to = d.at(newName);
        const stats = await fsp.lstat(from);
        const isDirectory = stats.isDirectory();
        // Only a case change of the same entry may reuse the "taken" name (case-insensitive disks).
        const sameEntry =
          newName.toLowerCase() === name.toLowerCase() &&
          (await fsp.lstat(to).then(
            (s) => s.ino === stats.ino,
            () => false,
          ));
        if (destination.exists && !sameEntry) throw new AppError('EXISTS', `"${newName}" already exists here.`);
        if (sameEntry) {
          await fsp.rename(from, to);
        } else if (isDirectory) {
          await fsp.mkdir(to).catch((err) => {
            throw err.code === 'EEXIST' ? new AppError('EXISTS', `"${newName}" already exists here.`) : err;
          });
          await fsp.rename(from, to).catch(async (err) => {
            await fsp.rmdir(to).catch(() => {});
            throw err;
          });
        } else {
          await fsp.link(from, to).catch((err) => {
            throw err.code === 'EEXIST' ? new AppError('EXISTS', `"${newName}" already exists here.`) : err;
          });
          await fsp.unlink(from);
        }
        return isDirectory;
      });
      bindings.carry(bound(target), bound(destination), scopeOf(caller, target), {
        from: locationOf(target),
        to: locationOf(destination),
      });
      changes.emit({ type: 'moved', from: target.realPath, to: destination.realPath, isDirectory });
      activity.record(
        fileEvent(caller, 'files.rename', { path: shownPath(target), to: shownPath(destination), isDirectory }),
      );
      return fileItem(dir.virtualPath, newName, await fsp.stat(destination.realPath));
    },

    async transfer(caller, items, destination, operation) {
      if (!Array.isArray(items) || items.length === 0) throw new AppError('NO_ITEMS');
      const dest = await writableFolder(caller, destination);
      const results: TransferResult[] = [];
      // What was carried out, as the owner sees it: recorded even when a later item fails.
      const done: string[] = [];
      // The destination as a checked descriptor for the whole request; each source through its
      // own checked parent folder (confined.ts).
      const destDir = await openDirIn(dest.space!.root, dest.realPath);
      try {
        for (const item of items) {
          const { parent, target } = await existingItem(caller, item);
          if (operation === 'move' && !target.access.canDelete)
            throw new AppError('READ_ONLY', `You may not move "${item.name}" away from where it is.`);
          const srcDir = await openDirIn(parent.space!.root, parent.realPath);
          try {
            const source = { path: srcDir.at(item.name), real: target.realPath, root: target.space!.root };
            const stats = await fsp.lstat(source.path);
            const isDirectory = stats.isDirectory();
            if (isDirectory && isInside(await fsp.realpath(source.path), destDir.real)) {
              throw new AppError('INTO_ITSELF', `"${item.name}" cannot be put inside itself.`);
            }
            if (operation === 'move' && parent.virtualPath === dest.virtualPath) {
              results.push({ from: target.virtualPath, to: target.virtualPath, skipped: true });
              continue;
            }
            if (operation === 'move') {
              const moved = await deps.transfer.move(source, destDir, item.name, isDirectory);
              const to = joinVirtual(dest.virtualPath, moved.name);
              const sameSpaceKind = scopeOf(caller, target).userId === scopeOf(caller, dest).userId;
              const destOwner = ownerView(dest);
              const real = {
                from: locationOf(target),
                to: {
                  root: destOwner.space!.root,
                  relative: destOwner.relative ? `${destOwner.relative}/${moved.name}` : moved.name,
                },
              };
              if (sameSpaceKind)
                bindings.carry(
                  bound(target),
                  dest.space?.share ? `${bound(dest)}/${moved.name}` : to,
                  scopeOf(caller, target),
                  real,
                );
              else {
                bindings.forget(bound(target), scopeOf(caller, target));
                bindings.carryReal(real.from, real.to);
              }
              changes.emit({
                type: 'moved',
                from: target.realPath,
                to: path.join(dest.realPath, moved.name),
                isDirectory,
              });
              results.push({ from: target.virtualPath, to });
              done.push(shownPath(target));
            } else {
              const name = await deps.transfer.copy(source, destDir, item.name, isDirectory);
              changes.emit({ type: 'created', path: path.join(dest.realPath, name), isDirectory });
              results.push({ from: target.virtualPath, to: joinVirtual(dest.virtualPath, name) });
              done.push(shownPath(target));
            }
          } finally {
            await srcDir.close();
          }
        }
      } finally {
        await destDir.close();
        if (done.length)
          activity.record(fileEvent(caller, `files.${operation}`, { destination: shownPath(dest), ...listed(done) }));
      }
      deps.recordDestination(caller.userId, dest.virtualPath);
      return { destination: dest.virtualPath, items: results };
    },

    async resolveForDelete(caller, item) {
      const { parent, target } = await existingItem(caller, item);
      if (!(parent.access.canWrite || parent.space?.share) || !target.access.canDelete)
        throw new AppError('READ_ONLY', `You may not delete "${item.name}".`);
      return target;
    },

    async deleteOne(caller, target) {
      const isDirectory = target.isDirectory;
      // Through a link, the item goes to its owner's trash (the owner's space, not the link's).
      const trashId = await deps.trash.put(caller, ownerView(target));
      const forgotten = bindings.forget(bound(target), scopeOf(caller, target));
      changes.emit({ type: 'deleted', path: target.realPath, isDirectory });
      return { trashId, forgotten };
    },

    async deleteItems(caller, items, options = {}) {
      const { progress } = options;
      const out: DeletedItem[] = [];
      const deleted: string[] = [];
      let done = 0;
      try {
        for (const item of items) await one(item);
      } finally {
        // One row for the request, written for what went even when a later item failed it.
        if (deleted.length) {
          const notDeleted = out.length - deleted.length;
          activity.record(
            fileEvent(caller, 'files.delete', { ...listed(deleted), ...(notDeleted ? { notDeleted } : {}) }),
          );
        }
      }
      return out;

      async function one(item: ItemRef): Promise<void> {
        try {
          const target = await ops.resolveForDelete(caller, item);
          const r = await ops.deleteOne(caller, target);
          deleted.push(shownPath(target));
          out.push({
            path: item.path,
            name: item.name,
            status: 'deleted',
            trashId: r.trashId,
            deletedShareCount: r.forgotten.shares ?? 0,
            removedFavoriteCount: r.forgotten.favorites ?? 0,
          });
        } catch (err) {
          const missing =
            (err instanceof AppError && err.status === 404) || (err as NodeJS.ErrnoException).code === 'ENOENT';
          const reported = missing && err instanceof AppError && options.missing !== 'refuse';
          if (!progress && !reported) throw err;
          out.push({ path: item.path, name: item.name, status: missing ? 'missing' : 'failed' });
          await progress?.failed(item, err);
        }
        await progress?.done(item, ++done, items.length);
      }
    },

    async deleteImpact(caller, items) {
      const totals = {
        fileCount: 0,
        dirCount: 0,
        totalBytes: 0,
        truncated: false,
        shareCount: 0,
        favoriteCount: 0,
        bindingCount: 0,
      };
      for (const item of items) {
        const target = await ops.resolveForDelete(caller, item);
        if (target.isDirectory) {
          const t = await countTree(target.realPath, { maxEntries: 100_000, maxMs: 3000 });
          totals.dirCount += 1 + t.dirCount;
          totals.fileCount += t.fileCount;
          totals.totalBytes += t.totalSize;
          totals.truncated ||= t.truncated;
        } else {
          totals.fileCount++;
          totals.totalBytes += await fsp.lstat(target.realPath).then(
            (s) => s.size,
            () => 0,
          );
        }
        const counts = bindings.count(target.virtualPath, scopeOf(caller, target));
        totals.shareCount += counts.shares ?? 0;
        totals.favoriteCount += counts.favorites ?? 0;
        totals.bindingCount += Object.values(counts).reduce((a, b) => a + b, 0);
      }
      return { ...totals, shares: [] };
    },
  };
  return ops;
}
