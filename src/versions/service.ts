// Versions: before a file is overwritten its content is kept in Burrow's own folder of its space
// (`<own>/versions/<id>`, files/own.ts: on the space's disk, out of the user's folders; a
// reflink/copy, or a hard link for a replace); list, restore (the current content becomes a
// version itself), restore as a copy, delete.
import { randomUUID } from 'node:crypto';
import fs, { type Stats } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ChangeSink } from '../changes.ts';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import type { BindingTable, RealLocation } from '../files/bindings.ts';
import { openFileIn, withDirIn, withFileIn, withParentIn, type Dir, type OpenedFile } from '../files/confined.ts';
import { withTemporary, type WorkJournal } from '../files/journal.ts';
import { placeFile } from '../files/names.ts';
import { below, moveStored, ownFolderOf, type OwnFolders } from '../files/own.ts';
import { isInside, type InsidePath, type PathResolver } from '../files/paths.ts';
import type { VersionRow as Row, VersionStore } from './store.ts';

export interface VersionEntry {
  id: string;
  path: string;
  size: number;
  modifiedAt: string;
  createdAt: string;
  createdBy: string | null;
}

/** The own folder a stored version lives in (`<own>/versions/<id>`), to which reading it is confined; it stays there when its file moves to another space. */
export const storedRoot = ownFolderOf;

/** The file system's birth time, or the change time where it has none. */
const birth = (st: Pick<Stats, 'birthtimeMs' | 'birthtime' | 'ctime'>) =>
  st.birthtimeMs > 0 ? st.birthtime : st.ctime;

/**
 * Hard-links the entry `from` (a path through its checked folder) as `to`, when it is still the
 * file `expected` was read from; false when a link cannot be made here (another file system,
 * no hard links) or the entry changed, so the caller copies instead.
 */
async function linkSame(from: string, to: string, expected: Stats): Promise<boolean> {
  try {
    await fsp.link(from, to);
  } catch {
    return false;
  }
  const linked = await fsp.lstat(to).catch(() => null);
  if (linked && linked.ino === expected.ino && linked.dev === expected.dev) return true;
  await fsp.rm(to, { force: true });
  return false;
}

/** Most versions kept per file; older ones are removed. */
const KEEP_PER_FILE = 20;

export interface KeepOptions {
  /**
   * The finished temporary that is about to take the file's name by rename: the file's creation
   * time is carried to it (the file system's birth time would move with every save).
   */
  replacement?: string;
  /**
   * A path naming the same entry as `source` in its checked folder (`dir.at(name)`): the
   * version is then a hard link to the old content, not a copy, when the store is on the same
   * file system. Only for a replace whose rename follows at once (until then the two names
   * share the bytes).
   */
  link?: string;
}

export interface VersionService {
  /**
   * Keeps the current content of `realPath` (call before overwriting it). Null when nothing to
   * keep. `source`: the checked, open descriptor of that content (confined.ts) — its bytes and
   * real path are used, so the version kept is the file inside the volume.
   */
  keep(
    realPath: string,
    createdBy?: string,
    source?: Pick<OpenedFile, 'stat' | 'real' | 'path'>,
    options?: KeepOptions,
  ): Promise<string | null>;
  /** Forgets a version made for a replace that did not happen (its stored content removed). */
  drop(id: string): Promise<void>;
  /** Moves the stored versions under `from` (an old own folder's `versions`) into `to`, by rename; answers how many. */
  relocate(from: string, to: string): Promise<number>;
  /**
   * Takes a replace back: the version's content takes the name `name` of the checked folder
   * `dir` again (by rename, as a save does) and the version is forgotten.
   */
  putBack(id: string, dir: Dir, name: string): Promise<void>;
  /** When the file at `realPath` (whose stat is `st`) was created: kept across saves, else its birth time. */
  createdAt(realPath: string, st: Pick<Stats, 'ino' | 'birthtimeMs' | 'birthtime' | 'ctime'>): Date;
  list(caller: Caller, file: InsidePath): VersionEntry[];
  find(caller: Caller, id: string): Promise<{ row: Row; virtualPath: string }>;
  restore(caller: Caller, id: string): Promise<string>;
  restoreAsCopy(caller: Caller, id: string): Promise<{ parent: string; name: string; real: string }>;
  remove(caller: Caller, id: string): Promise<void>;
}

/**
 * Versions as a binding: they follow their file (or a folder above it) when it is renamed or
 * moved, in the transaction of the move. A deletion keeps them (the file may come back from
 * the trash; the per-file cap bounds them).
 */
export function versionBindings(store: VersionStore): BindingTable {
  return {
    forget: () => 0,
    carry: () => {},
    carryReal(from: RealLocation, to: RealLocation) {
      if (from.root === to.root && from.relative === to.relative) return;
      store.carry(from, to);
    },
  };
}

export interface VersionDeps {
  store: VersionStore;
  resolver: PathResolver;
  /** The roots of every space (files/space-roots.ts): a version belongs to the innermost. */
  roots: () => string[];
  changes: ChangeSink;
  journal: WorkJournal;
  own: OwnFolders;
}

export function createVersions({ store, resolver, roots, changes, journal, own }: VersionDeps): VersionService {
  function rootOf(real: string): string | null {
    let best: string | null = null;
    for (const r of roots()) if (isInside(r, real) && r !== real && (!best || r.length > best.length)) best = r;
    return best;
  }

  async function keep(
    realPath: string,
    createdBy?: string,
    source?: Pick<OpenedFile, 'stat' | 'real' | 'path'>,
    options: KeepOptions = {},
  ): Promise<string | null> {
    const st = source ? source.stat : await fsp.stat(realPath).catch(() => null);
    if (!st?.isFile()) return null;
    const real = source ? source.real : await fsp.realpath(realPath);
    const root = rootOf(real);
    if (!root) return null;
    const dir = await own.dir(root, 'versions');
    const id = randomUUID();
    const stored = path.join(dir, id);
    // Written through the checked descriptor of the versions folder, read from the checked source.
    await withDirIn(ownFolderOf(stored), dir, async (d) => {
      if (options.link && source && (await linkSame(options.link, d.at(id), st))) return;
      await fsp.copyFile(
        source ? source.path : real,
        d.at(id),
        fs.constants.COPYFILE_EXCL | fs.constants.COPYFILE_FICLONE,
      );
    });
    const relative = path.relative(root, real).split(path.sep).join('/');
    if (options.replacement) await carryCreated(root, relative, st, options.replacement);
    store.insert({
      id,
      space_root: root,
      relative,
      size: st.size,
      modified_at: st.mtime.toISOString(),
      stored_path: stored,
      created_at: new Date().toISOString(),
      created_by: createdBy ?? null,
    });
    for (const row of store.ofFile(root, relative).slice(KEEP_PER_FILE)) {
      await fsp.rm(row.stored_path, { force: true });
      store.remove(row.id);
    }
    return id;
  }

  const toEntry = (row: Row, virtualPath: string): VersionEntry => ({
    id: row.id,
    path: virtualPath,
    size: row.size,
    modifiedAt: row.modified_at,
    createdAt: row.created_at,
    createdBy: row.created_by,
  });

  /**
   * The stored version copied to a new temporary in `dir`, handed to `place` (which gives it its
   * name). A large version copies for a while: the temporary is on the work journal meanwhile.
   */
  function placeCopyOf<T>(row: Row, dir: Dir, place: (temp: string) => Promise<T>): Promise<T> {
    return withTemporary(journal, dir, async (temp) => {
      await withFileIn(storedRoot(row.stored_path), row.stored_path, (old) =>
        fsp.copyFile(old.path, temp, fs.constants.COPYFILE_EXCL),
      );
      return place(temp);
    });
  }

  async function find(caller: Caller, id: string) {
    const row = store.get(id);
    const virtualPath = row ? await resolver.toVirtual(caller, path.join(row.space_root, row.relative)) : null;
    if (!row || !virtualPath) throw new AppError('NOT_FOUND', 'No such version.');
    return { row, virtualPath };
  }

  /** Records that the file about to take `relative`'s name by rename was created when the old one was. */
  async function carryCreated(root: string, relative: string, old: Stats, replacement: string): Promise<void> {
    const incoming = await fsp.lstat(replacement).catch(() => null);
    if (!incoming) return;
    const row = store.created(root, relative);
    const created = row && row.inode === String(old.ino) ? row.created_at : birth(old).toISOString();
    store.putCreated({ space_root: root, relative, created_at: created, inode: String(incoming.ino) });
  }

  return {
    keep,
    async drop(id) {
      const row = store.get(id);
      if (!row) return;
      await fsp.rm(row.stored_path, { force: true });
      store.remove(id);
    },
    relocate(from, to) {
      return moveStored(store.storedWithin(below(from)), to, store.setStored);
    },
    async putBack(id, dir, name) {
      const row = store.get(id);
      if (!row) throw new AppError('NOT_FOUND', 'No such version.');
      await placeCopyOf(row, dir, (temp) => fsp.rename(temp, dir.at(name)));
      await fsp.rm(row.stored_path, { force: true });
      store.remove(id);
    },
    createdAt(realPath, st) {
      const root = rootOf(realPath);
      if (root) {
        const relative = path.relative(root, realPath).split(path.sep).join('/');
        const row = store.created(root, relative);
        if (row && row.inode === String(st.ino)) return new Date(row.created_at);
      }
      return birth(st);
    },
    list(caller, file) {
      const root = file.space.root;
      return store.ofFile(root, file.relative).map((r) => toEntry(r, file.virtualPath));
    },
    find,
    async restore(caller, id) {
      const { row, virtualPath } = await find(caller, id);
      const file = await resolver.resolveInside(caller, virtualPath);
      if (!file.access.canWrite) throw new AppError('READ_ONLY', 'You may not change this file.');
      // Write the old content beside the file, keep what is there now, then swap atomically —
      // all in the checked parent folder's descriptor.
      await withParentIn(file.space.root, file.realPath, (dir, name) =>
        placeCopyOf(row, dir, async (temp) => {
          const current = await openFileIn(file.space.root, dir.at(name)).catch(() => null);
          try {
            if (current) await keep(file.realPath, caller.username, current, { replacement: temp });
          } finally {
            await current?.close();
          }
          await fsp.rename(temp, dir.at(name));
        }),
      );
      changes.emit({ type: 'modified', path: file.realPath });
      return virtualPath;
    },
    async restoreAsCopy(caller, id) {
      const { row, virtualPath } = await find(caller, id);
      const parentVirtual = path.posix.dirname(virtualPath);
      const parent = await resolver.resolveInside(caller, parentVirtual, { mustExist: true });
      if (!parent.access.canWrite) throw new AppError('READ_ONLY', 'You may not write in this folder.');
      const name = await withDirIn(parent.space.root, parent.realPath, (dir) =>
        placeCopyOf(row, dir, (temp) => placeFile(temp, dir.path, path.posix.basename(virtualPath))),
      );
      const real = path.join(parent.realPath, name);
      changes.emit({ type: 'created', path: real, isDirectory: false });
      return { parent: parent.virtualPath, name, real };
    },
    async remove(caller, id) {
      const { row, virtualPath } = await find(caller, id);
      const file = await resolver.resolve(caller, virtualPath);
      if (!file.access.canWrite)
        throw new AppError('READ_ONLY', 'You may not change this file, so you may not remove its versions.');
      await fsp.rm(row.stored_path, { force: true });
      store.remove(row.id);
    },
  };
}
