// The archive rows' work for a caller: resolve and authorise the virtual paths, open the
// destination as a checked descriptor, then hand real paths and handles to ArchiveService.
// Reading (listing, one entry) needs read and download rights on the archive; every write
// (extract, the one-shot zip routes) needs the right to create files and folders in the
// archive's own folder and in the destination, checked before anything is written. Each
// write that completes is one activity row (archive.extract, archive.compress).
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import { closeSources, openSources } from '../downloads/zip.ts';
import { fileEvent, listed, shownPath, type ActivitySink } from '../files/activity.ts';
import { fileItem } from '../files/items.ts';
import { assertPlainName, type ConflictPolicy } from '../files/names.ts';
import type { FileOps } from '../files/ops.ts';
import { joinVirtual, type InsidePath, type PathResolver, type ResolvedPath } from '../files/paths.ts';
import type { Dir } from '../files/confined.ts';
import { openDestination, type Destination } from './confined-target.ts';
import { positionPath } from './entry-path.ts';
import type { ExtractEvent, ExtractResult } from './extract.ts';
import type { ArchiveFile, ArchiveService, EntryStream } from './service.ts';
import type { ArchiveListing, CreatedItem, ExtractConflicts } from './wire.ts';
import { defaultZipStem, zipName } from './zip-name.ts';
import type { QuotaPort } from '../files/quota-port.ts';

export interface ArchiveOperationsDeps {
  service: ArchiveService;
  resolver: PathResolver;
  ops: Pick<FileOps, 'writableFolder' | 'replacer' | 'assertMayReplace' | 'conflicts'>;
  showHidden: (userId: string) => boolean;
  activity: ActivitySink;
  /** An extraction holds what the archive declares against the destination's quotas before writing. */
  quotas: QuotaPort;
}

/** An extraction authorised and with its destination open: `run` writes, `close` releases the descriptors. */
export interface PreparedExtraction {
  run(emit: (e: ExtractEvent) => void, signal: AbortSignal): Promise<ExtractResult>;
  close(): Promise<void>;
}

const parentOf = (virtual: string) => {
  const i = virtual.lastIndexOf('/');
  return i < 0 ? '' : virtual.slice(0, i);
};

export function createArchiveOperations(deps: ArchiveOperationsDeps) {
  const { service, resolver, ops, activity } = deps;

  async function archive(caller: Caller, virtual: string): Promise<ArchiveFile & { shown: string }> {
    const r = await resolver.resolveInside(caller, virtual, {
      mustExist: true,
      atTop: 'Name an archive inside a volume.',
    });
    if (r.isDirectory) throw new AppError('IS_A_FOLDER', 'That is a folder, not an archive.');
    if (!r.access.canRead || !r.access.canDownload) throw new AppError('NO_DOWNLOAD', 'You may not read this archive.');
    const file = {
      root: r.space.root,
      real: r.realPath,
      path: r.virtualPath,
      name: path.posix.basename(r.virtualPath),
    };
    return { ...file, shown: shownPath(r) };
  }

  const extracted = (caller: Caller, file: { shown: string }, into: string, result: ExtractResult, entries?: number) =>
    activity.record(
      fileEvent(caller, 'archive.extract', {
        path: file.shown,
        destination: into,
        ...(entries ? { entries } : {}),
        files: result.files,
        bytes: result.bytes,
      }),
    );

  /** A folder the caller may create files and folders in (403 before anything is written). */
  async function creatable(caller: Caller, virtual: string): Promise<InsidePath> {
    const dir = await ops.writableFolder(caller, virtual, 'canCreateFile');
    if (!dir.access.canCreateFolder) throw new AppError('READ_ONLY', 'You may not create folders here.');
    return dir;
  }

  async function itemOf(destination: Destination, parentVirtual: string, name: string) {
    const st = await destination.use((d) => fsp.stat(d.at(name)));
    return fileItem(parentVirtual, name, st);
  }

  return {
    async list(
      caller: Caller,
      q: { path: string; inside?: string | undefined; offset?: number | undefined; limit?: number | undefined },
    ): Promise<ArchiveListing> {
      return service.list(await archive(caller, q.path), q.inside, {
        ...(q.offset !== undefined ? { offset: q.offset } : {}),
        ...(q.limit !== undefined ? { limit: q.limit } : {}),
      });
    },

    /** The entry's name and size first (for Range), then its bytes. */
    async entry(
      caller: Caller,
      q: { path: string; entry: string },
    ): Promise<{
      info: Omit<EntryStream, 'stream'>;
      open(range?: { start: number; end: number }): Promise<EntryStream>;
    }> {
      const file = await archive(caller, q.path);
      const info = await service.entryInfo(file, q.entry);
      return { info, open: (range) => service.openEntry(file, q.entry, range) };
    },

    async prepareExtract(
      caller: Caller,
      body: {
        path: string;
        entries: string[];
        destination?: string | undefined;
        conflict?: ConflictPolicy | undefined;
        conflictFor?: Record<string, ConflictPolicy> | undefined;
      },
    ): Promise<PreparedExtraction> {
      const file = await archive(caller, body.path);
      const home = await creatable(caller, parentOf(file.path));
      const target = body.destination === undefined ? home : await creatable(caller, body.destination);
      // A selected item meets a taken name as the caller chose (keep both by default); replacing
      // needs the right to delete there, refused before anything is written.
      // Keys are read as the listing names entries (`Trip notes/` is the folder `Trip notes`).
      const chosen = new Map<string, ConflictPolicy>();
      for (const [key, policy] of Object.entries(body.conflictFor ?? {})) {
        const p = positionPath(key);
        if (p === 'bad') throw new AppError('ARCHIVE_BAD_POSITION', `"${key}" points outside the archive.`);
        if (p !== null) chosen.set(p, policy);
      }
      const policyOf = (entry: string): ConflictPolicy => chosen.get(entry) ?? body.conflict ?? 'rename';
      if (body.conflict === 'replace' || Object.values(body.conflictFor ?? {}).includes('replace'))
        ops.assertMayReplace(target);
      const conflict = (entry: string) => {
        const policy = policyOf(entry);
        return policy === 'replace'
          ? { policy, replacer: (dir: Dir) => ops.replacer(caller, target.virtualPath, dir) }
          : { policy };
      };
      const destination = await openDestination(target.space.root, target.realPath);
      return {
        async run(emit, signal) {
          const hold = deps.quotas.hold(deps.quotas.chargeFor(caller, target.space));
          try {
            const result = await service.extract(file, body.entries, destination, emit, signal, conflict, (bytes) =>
              hold.add(bytes),
            );
            hold.land(result.written.map((w) => w.path));
            extracted(caller, file, shownPath(target), result, body.entries.length);
            return result;
          } finally {
            hold.release();
          }
        },
        close: () => destination.close(),
      };
    },

    /**
     * The selected items whose names are taken in the destination, before any work: each with
     * what holds the name and what would come (POST /api/archive/conflicts). Nothing is changed.
     */
    async extractConflicts(
      caller: Caller,
      body: { path: string; entries: string[]; destination?: string | undefined },
    ): Promise<ExtractConflicts> {
      const file = await archive(caller, body.path);
      const roots = await service.roots(file, body.entries);
      const answer = await ops.conflicts(caller, {
        destination: body.destination ?? parentOf(file.path),
        names: roots.map((r) => r.name),
      });
      const taken = new Map(answer.conflicts.map((c) => [c.name, c]));
      const conflicts = roots.flatMap((incoming) => {
        const c = taken.get(incoming.name);
        if (!c) return [];
        const existingIsFolder = c.existing.kind === 'directory';
        const { from: _from, ...rest } = c;
        return [{ ...rest, entry: incoming.path, sameKind: existingIsFolder === incoming.isDirectory, incoming }];
      });
      return { destination: answer.destination, conflicts, canReplace: answer.canReplace };
    },

    /** POST /api/files/zip/extract: the whole archive into a new folder beside it. */
    async extractToNewFolder(caller: Caller, virtual: string, signal?: AbortSignal): Promise<CreatedItem> {
      const file = await archive(caller, virtual);
      const home = await creatable(caller, parentOf(file.path));
      const destination = await openDestination(home.space.root, home.realPath);
      const hold = deps.quotas.hold(deps.quotas.chargeFor(caller, home.space));
      try {
        const made = await service.extractToNewFolder(file, destination, undefined, signal, (bytes) => hold.add(bytes));
        hold.land([made.path]);
        extracted(caller, file, joinVirtual(shownPath(home), made.name), made.result);
        return { success: true, item: await itemOf(destination, home.virtualPath, made.name) };
      } finally {
        hold.release();
        await destination.close();
      }
    },

    /** A selection into a new zip (beside the first item unless a destination is named). */
    async compress(
      caller: Caller,
      body: { items: { path: string; name: string }[]; destination?: string | undefined; name?: string | undefined },
      signal?: AbortSignal,
    ): Promise<CreatedItem> {
      const items: InsidePath[] = [];
      for (const i of body.items) {
        assertPlainName(i.name);
        const r = await resolver.resolveInside(caller, joinVirtual(i.path, i.name), {
          mustExist: true,
          atTop: 'Choose items inside a volume.',
        });
        if (!r.access.canDownload) throw new AppError('NO_DOWNLOAD', `You may not read "${i.name}".`);
        items.push(r);
      }
      const home = await ops.writableFolder(caller, body.destination ?? body.items[0]!.path, 'canCreateFile');
      const name = zipName(body.name ?? defaultName(items, home));
      assertPlainName(name);
      const sources = await openSources(
        items.map((r) => ({
          root: r.space.root,
          real: r.realPath,
          name: path.posix.basename(r.virtualPath),
          isDirectory: r.isDirectory,
          leaveOut: resolver.withheldBelow(caller, r),
        })),
      );
      let destination: Destination;
      try {
        destination = await openDestination(home.space.root, home.realPath);
      } catch (err) {
        await closeSources(sources);
        throw err;
      }
      try {
        const made = await service.compress(sources, destination, name, {
          showHidden: deps.showHidden(caller.userId),
          ...(signal ? { signal } : {}),
        });
        activity.record(
          fileEvent(caller, 'archive.compress', {
            path: joinVirtual(shownPath(home), made.name),
            ...listed(items.map(shownPath)),
          }),
        );
        return { success: true, item: await itemOf(destination, home.virtualPath, made.name) };
      } finally {
        await destination.close();
      }
    },
  };
}

export type ArchiveOperations = ReturnType<typeof createArchiveOperations>;

function defaultName(items: ResolvedPath[], home: ResolvedPath): string {
  return defaultZipStem(
    items.map((r) => ({ name: path.posix.basename(r.virtualPath), isDirectory: r.isDirectory })),
    path.posix.basename(home.virtualPath),
  );
}
