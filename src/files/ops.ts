// File operations (create folder/file, rename, copy/move, delete to trash, delete impact).
// Every write claims names atomically, announces itself through the change sink, carries
// or forgets the path's bindings, and writes one activity row (files/activity.ts).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ChangeSink } from '../changes.ts';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import { fileEvent, listed, shownPath, type ActivitySink } from './activity.ts';
import type { BindingScope, Bindings } from './bindings.ts';
import { openDirIn, openFileIn, withDirIn, type Dir, type OpenedFile } from './confined.ts';
import { fileItem, splitVirtual } from './items.ts';
import type {
  Conflict,
  ConflictsAnswer,
  DeletedItem,
  DeleteImpact,
  FileItem,
  RecentDestination,
  TransferItem,
  TransferResult,
} from './wire.ts';
import { countTree } from './walk.ts';
import {
  allocateFreeName,
  assertPlainName,
  claimExact,
  placeFile,
  type ConflictPolicy,
  type Replacer,
} from './names.ts';
import { withTemporary, type WorkJournal } from './journal.ts';
import type { ItemLocks } from './locks.ts';
import { isInside, joinVirtual, ownerView, type InsidePath, type PathResolver, type ResolvedPath } from './paths.ts';
import type { Transfer } from './transfer.ts';
import { NO_HOLD, type QuotaPort } from './quota-port.ts';
import type { RecentDestinations } from './recent-store.ts';

/**
 * What copying a folder will write, counted before it starts — only when the destination has a
 * quota, and bounded like every tree total (a tree past the bound is held at what was counted;
 * the copy reads the whole tree anyway).
 */
async function plannedSize(real: string): Promise<number> {
  return (await countTree(real)).totalSize;
}

export interface ItemRef {
  path: string;
  name: string;
}
export type { ConflictPolicy };
export type { TransferResult };

/** Told as a deletion goes (the progress stream); with it, a failed item is reported, not thrown. */
export interface DeleteProgress {
  failed(item: ItemRef, err: unknown): Promise<void>;
  done(item: ItemRef, done: number, total: number): Promise<void>;
}

/** Create only: fails on a taken name and never follows a link in its place. */
const EXCLUSIVE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);

const NOT_AT_TOP = 'Nothing can be written at the top; choose a volume.';

// Bindings, trash and versions live on the owner's side of a link (paths.ts ownerView).
const locationOf = (r: InsidePath) => {
  const o = ownerView(r);
  return { root: o.space.root, relative: o.relative };
};
const bound = (r: ResolvedPath) => ownerView(r).virtualPath;

/**
 * May the caller replace items in this folder (delete what holds a name)? Writing there lets an
 * account delete its items; a link must also allow deleting (its root's own canDelete is false
 * whatever the link allows, so the flag is read from the link).
 */
function mayReplaceIn(folder: ResolvedPath): boolean {
  const share = folder.space?.share;
  if (share) return (folder.access.canWrite || folder.access.canUpload) && share.allow.canDelete === true;
  return folder.access.canWrite;
}

export const scopeOf = (caller: Caller, r: ResolvedPath): BindingScope => ({
  userId: ownerView(r).space?.kind === 'volume' ? null : (r.space?.share?.ownerId ?? caller.userId),
});

export interface FileOps {
  createFolder(caller: Caller, parent: string, name: string): Promise<FileItem>;
  createFile(caller: Caller, parent: string, name: string, content?: string): Promise<FileItem>;
  rename(caller: Caller, parent: string, name: string, newName: string): Promise<FileItem>;
  /** Copies or moves items; a taken name is answered by the item's `conflict`, else `conflict` (default rename). */
  transfer(
    caller: Caller,
    items: (ItemRef & Pick<TransferItem, 'conflict'>)[],
    destination: string,
    operation: 'copy' | 'move',
    conflict?: ConflictPolicy,
  ): Promise<{ destination: string; items: TransferResult[] }>;
  /** The names a copy or move (`items`) or an upload (`names`, paths inside the destination) would meet taken. */
  conflicts(
    caller: Caller,
    request: { destination: string; items?: ItemRef[]; names?: string[] },
  ): Promise<ConflictsAnswer>;
  /**
   * What a `replace` into the checked folder `dir` (virtual `dirVirtual`) does with the entry
   * holding the name (names.ts Replacer): a file onto a file keeps the old content as a version
   * and takes the name by rename; anything else sends the old item to the trash first. Refused
   * (403) unless the caller may delete that entry.
   */
  replacer(caller: Caller, dirVirtual: string, dir: Dir): Replacer;
  /** 403 unless the caller may replace in this folder at all (asked before any work). */
  assertMayReplace(folder: ResolvedPath): void;
  /** Resolves a deletion's item (existing, deletable by the caller). */
  resolveForDelete(caller: Caller, item: ItemRef): Promise<InsidePath>;
  deleteOne(caller: Caller, item: InsidePath): Promise<{ trashId: string; forgotten: Record<string, number> }>;
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
  ): Promise<InsidePath>;
  /** The account's recent destinations, less the folders an access rule hides from it now (kept, not shown). */
  recentDestinations(caller: Caller): RecentDestination[];
}

/** What a delete asks of the trash (trash/service.ts, which sits above files). */
export interface TrashBin {
  /** Moves a resolved, existing item into its space's trash; answers the entry id. */
  put(caller: Caller, item: InsidePath): Promise<string>;
}

/** What a replace asks of the version keeper (versions/service.ts, which sits above files). */
export interface VersionKeeper {
  /** Keeps the content of `source` (a hard link at `options.link` when it can); null when it cannot. */
  keep(realPath: string, createdBy: string, source: OpenedFile, options: { link: string }): Promise<string | null>;
  /** Forgets a version made for a replace that did not happen. */
  drop(id: string): Promise<void>;
}

export function createFileOps(deps: {
  /** Locks of WebDAV clients and the office editor: a change by another account answers 423. */
  locks: ItemLocks;
  resolver: PathResolver;
  transfer: Transfer;
  trash: TrashBin;
  versions: VersionKeeper;
  bindings: Bindings;
  changes: ChangeSink;
  activity: ActivitySink;
  /** The folders an account last copied or moved into (recent-store.ts). */
  recent: RecentDestinations;
  /** Quotas a copy (or a move into another space) holds its planned size against before writing. */
  quotas: QuotaPort;
  /** A new file with content is built under a temporary on the journal. */
  journal: WorkJournal;
}): FileOps {
  const { resolver, changes, bindings, activity } = deps;

  async function writableFolder(
    caller: Caller,
    virtual: string,
    need: 'canWrite' | 'canCreateFolder' | 'canCreateFile' = 'canWrite',
  ): Promise<InsidePath> {
    const dir = await resolver.resolveInside(caller, virtual, { mustExist: true, atTop: NOT_AT_TOP });
    if (!dir.isDirectory) throw new AppError('NOT_A_FOLDER', 'The destination is not a folder.');
    if (!dir.access[need])
      throw new AppError(
        'READ_ONLY',
        dir.access.readOnly === 'storage' ? 'This volume is read-only.' : 'You may not write in this folder.',
      );
    return dir;
  }

  /** An item by its folder and name: the folder may be the top (a volume is an item there), the item never is. */
  async function existingItem(caller: Caller, item: ItemRef): Promise<{ parent: ResolvedPath; target: InsidePath }> {
    if (typeof item.name !== 'string' || item.name === '') throw new AppError('BAD_NAME', 'Each item needs a name.');
    assertPlainName(item.name);
    const parent = await resolver.resolve(caller, item.path ?? '', { mustExist: true });
    const target = await resolver.resolveInside(caller, joinVirtual(parent.virtualPath, item.name), {
      mustExist: true,
    });
    return { parent, target };
  }

  const ops: FileOps = {
    writableFolder,

    recentDestinations: (caller) =>
      deps.recent.list(caller.userId).filter((d) => !resolver.isHiddenByRule(caller, d.path)),

    async createFolder(caller, parent, name) {
      assertPlainName(name);
      const dir = await writableFolder(caller, parent, 'canCreateFolder');
      // Claimed through the checked folder's descriptor: a swapped link cannot lead it outside.
      const { final, st } = await withDirIn(dir.space.root, dir.realPath, async (d) => {
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
      const { final, st } = await withDirIn(dir.space.root, dir.realPath, async (d) => {
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
      // A volume (an item of the top) is never renamed: the top is nobody's to write in.
      if (!dir.space || !(target.access.canRename ?? (dir.access.canWrite && target.access.canDelete)))
        throw new AppError('READ_ONLY', 'You may not rename this item.');
      deps.locks.assertFree(caller, target, { withBelow: true });
      if (newName === name) return fileItem(dir.virtualPath, name, await fsp.stat(target.realPath));
      const destination = await resolver.resolveInside(caller, joinVirtual(dir.virtualPath, newName));
      // Both names in one checked folder descriptor: the entry renamed is the one inside.
      const isDirectory = await withDirIn(dir.space.root, dir.realPath, async (d) => {
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

    async transfer(caller, items, destination, operation, conflict = 'rename') {
      if (!Array.isArray(items) || items.length === 0) throw new AppError('NO_ITEMS');
      const dest = await writableFolder(caller, destination);
      if (conflict === 'replace' || items.some((i) => i.conflict === 'replace')) ops.assertMayReplace(dest);
      const results: TransferResult[] = [];
      // What was carried out, as the owner sees it: recorded even when a later item fails.
      const done: string[] = [];
      // The destination as a checked descriptor for the whole request; each source through its
      // own checked parent folder (confined.ts).
      const destDir = await openDirIn(dest.space.root, dest.realPath);
      try {
        const replacer = ops.replacer(caller, dest.virtualPath, destDir);
        for (const item of items) {
          const policy = item.conflict ?? conflict;
          const { parent, target } = await existingItem(caller, item);
          if (operation === 'move' && !target.access.canDelete)
            throw new AppError('READ_ONLY', `You may not move "${item.name}" away from where it is.`);
          // A copy takes the bytes away: what one may only look at is not copied.
          if (operation === 'copy' && !target.access.canDownload)
            throw new AppError('NO_DOWNLOAD', `You may look at "${item.name}" but not copy it.`);
          if (operation === 'move') deps.locks.assertFree(caller, target, { withBelow: true });
          // A move of a volume was refused above (a space's root cannot be deleted); a copy is refused here.
          if (!parent.space)
            throw new AppError('TOP_LEVEL', `"${item.name}" is a whole volume; choose items inside it.`);
          const srcDir = await openDirIn(parent.space.root, parent.realPath);
          let quota = NO_HOLD;
          try {
            const source = { path: srcDir.at(item.name), real: target.realPath, root: target.space.root };
            const stats = await fsp.lstat(source.path);
            const isDirectory = stats.isDirectory();
            if (isDirectory && isInside(await fsp.realpath(source.path), destDir.real)) {
              throw new AppError('INTO_ITSELF', `"${item.name}" cannot be put inside itself.`);
            }
            if (operation === 'move' && parent.virtualPath === dest.virtualPath) {
              results.push({ from: target.virtualPath, to: target.virtualPath, skipped: true, outcome: 'unchanged' });
              continue;
            }
            const there = joinVirtual(dest.virtualPath, item.name);
            if (policy === 'replace' && isInside(path.join(destDir.real, item.name), target.realPath))
              throw new AppError('INTO_ITSELF', `"${item.name}" cannot replace the folder it is in.`);
            // A skip needs no copy when the name is taken now (the placement decides again).
            if (
              policy === 'skip' &&
              (await fsp.lstat(destDir.at(item.name)).then(
                () => true,
                () => false,
              ))
            ) {
              results.push({ from: target.virtualPath, to: there, skipped: true, outcome: 'skipped' });
              continue;
            }
            // A copy, or a move into another space, holds its planned size against the
            // destination's quotas before a byte is written (a move within a space adds nothing).
            const charge =
              operation === 'copy' || target.space.root !== dest.space.root
                ? deps.quotas.chargeFor(caller, dest.space)
                : null;
            quota = charge
              ? deps.quotas.hold(charge, isDirectory ? await plannedSize(source.real) : stats.size)
              : NO_HOLD;
            const onConflict = { policy, replacer };
            if (operation === 'move') {
              const moved = await deps.transfer.move(source, destDir, item.name, isDirectory, onConflict);
              if (moved.outcome === 'skipped') {
                results.push({ from: target.virtualPath, to: there, skipped: true, outcome: 'skipped' });
                continue;
              }
              const to = joinVirtual(dest.virtualPath, moved.name);
              const sameSpaceKind = scopeOf(caller, target).userId === scopeOf(caller, dest).userId;
              const destOwner = ownerView(dest);
              const real = {
                from: locationOf(target),
                to: {
                  root: destOwner.space.root,
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
              results.push({ from: target.virtualPath, to, outcome: moved.outcome, ...moved.displaced });
              quota.land([path.join(dest.realPath, moved.name)]);
              done.push(shownPath(target));
            } else {
              const copied = await deps.transfer.copy(
                isDirectory ? { ...source, leaveOut: deps.resolver.withheldBelow(caller, target) } : source,
                destDir,
                item.name,
                isDirectory,
                onConflict,
              );
              if (copied.outcome === 'skipped') {
                results.push({ from: target.virtualPath, to: there, skipped: true, outcome: 'skipped' });
                continue;
              }
              const real = path.join(dest.realPath, copied.name);
              changes.emit(
                copied.displaced?.versionId
                  ? { type: 'modified', path: real }
                  : { type: 'created', path: real, isDirectory },
              );
              results.push({
                from: target.virtualPath,
                to: joinVirtual(dest.virtualPath, copied.name),
                outcome: copied.outcome,
                ...copied.displaced,
              });
              quota.land([real]);
              done.push(shownPath(target));
            }
          } finally {
            quota.release();
            await srcDir.close();
          }
        }
      } finally {
        await destDir.close();
        if (done.length)
          activity.record(fileEvent(caller, `files.${operation}`, { destination: shownPath(dest), ...listed(done) }));
      }
      deps.recent.record(caller.userId, dest.virtualPath);
      return { destination: dest.virtualPath, items: results };
    },

    assertMayReplace(folder) {
      if (!mayReplaceIn(folder))
        throw new AppError(
          'READ_ONLY',
          folder.space?.share
            ? 'This link may add files but not replace them: choose keep both or skip.'
            : 'You may not replace items in this folder: choose keep both or skip.',
        );
    },

    replacer(caller, dirVirtual, dir) {
      return async (incoming, name, isDirectory) => {
        const existing = await resolver
          .resolveInside(caller, joinVirtual(dirVirtual, name), { mustExist: true })
          .catch((err) => {
            // Gone meanwhile: the name is free again (the placement claims it as usual).
            if (err instanceof AppError && err.status === 404) return null;
            throw err;
          });
        if (!existing) return null;
        if (!existing.access.canDelete) throw new AppError('READ_ONLY', `You may not replace "${name}".`);
        deps.locks.assertFree(caller, existing, { withBelow: true });
        const st = await fsp.lstat(dir.at(name)).catch(() => null);
        if (!st) return null;
        if (!isDirectory && st.isFile()) {
          // The old content becomes a version (a hard link to it where the store is on this
          // disk, a copy otherwise), then the newcomer takes the name in one rename.
          const current = await openFileIn(existing.space.root, dir.at(name));
          try {
            const versionId = await deps.versions.keep(existing.realPath, caller.username, current, {
              link: dir.at(name),
            });
            if (!versionId)
              throw new AppError('READ_ONLY', `"${name}" cannot be kept as a version, so it is not replaced.`);
            try {
              await fsp.rename(incoming, dir.at(name));
            } catch (err) {
              await deps.versions.drop(versionId);
              throw err;
            }
            return { versionId };
          } finally {
            await current.close();
          }
        }
        // A folder is never merged: the old one (or an item of the other kind) goes to the trash.
        const { trashId } = await ops.deleteOne(caller, existing);
        try {
          await claimExact(incoming, dir.at(name), isDirectory);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'EEXIST' || code === 'ENOTEMPTY') return null; // taken again meanwhile: keep both
          throw err;
        }
        return { trashId };
      };
    },

    async conflicts(caller, request) {
      const dest = await resolver.resolveInside(caller, request.destination, { mustExist: true, atTop: NOT_AT_TOP });
      if (!dest.isDirectory) throw new AppError('NOT_A_FOLDER', 'The destination is not a folder.');
      const out: Conflict[] = [];
      const lookUp = async (relative: string) => {
        const there = await resolver.resolve(caller, joinVirtual(dest.virtualPath, relative)).catch(() => null);
        if (!there?.exists) return null;
        const st = await fsp.lstat(there.realPath).catch(() => null);
        if (!st) return null;
        const { parent, name } = splitVirtual(there.virtualPath);
        return { there, item: fileItem(parent, name, st) };
      };
      for (const item of request.items ?? []) {
        const { target } = await existingItem(caller, item);
        // An item already in this folder meets itself: a copy keeps both, a move does nothing.
        if (path.posix.dirname(target.virtualPath) === dest.virtualPath || target.virtualPath === dest.virtualPath)
          continue;
        const found = await lookUp(item.name);
        if (!found) continue;
        out.push({
          name: item.name,
          from: target.virtualPath,
          existing: found.item,
          sameKind: found.there.isDirectory === target.isDirectory,
          canReplace: mayReplaceIn(dest) && found.there.access.canDelete,
        });
      }
      for (const relative of request.names ?? []) {
        const segments = relative.replace(/\\/g, '/').split('/').filter(Boolean);
        segments.forEach((n) => assertPlainName(n));
        if (!segments.length) continue;
        const found = await lookUp(segments.join('/'));
        if (!found) continue;
        out.push({
          name: relative,
          existing: found.item,
          sameKind: !found.there.isDirectory,
          canReplace: mayReplaceIn(dest) && found.there.access.canDelete,
        });
      }
      return { destination: dest.virtualPath, conflicts: out, canReplace: mayReplaceIn(dest) };
    },

    async resolveForDelete(caller, item) {
      const { parent, target } = await existingItem(caller, item);
      if (!(parent.access.canWrite || parent.space?.share) || !target.access.canDelete)
        throw new AppError('READ_ONLY', `You may not delete "${item.name}".`);
      deps.locks.assertFree(caller, target, { withBelow: true });
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
