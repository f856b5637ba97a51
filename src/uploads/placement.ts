// Placing a finished part file: resolve the destination for the caller (again, at placement
// time: rights and folders may have changed since the upload began), create the folders of
// `relativePath`, link the part under a free name (`name (1)`… — never over anything), and
// announce every created folder and file through the change sink.
import type { Stats } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ChangeSink } from '../changes.ts';
import { childDirIn, openDirIn, withParentIn, type Dir } from '../files/confined.ts';
import { withTemporary, type WorkJournal } from '../files/journal.ts';
import { assertPlainName, placeEntry, type ConflictPolicy, type Displaced, type Outcome } from '../files/names.ts';
import type { FileOps } from '../files/ops.ts';
import { ownerView, type InsidePath, type PathResolver } from '../files/paths.ts';
import type { TrashService } from '../trash/service.ts';
import type { VersionService } from '../versions/service.ts';
import { AppError, fromFsError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import { itemOf, kindOf, type FileItem } from '../files/items.ts';
import type { UploadedItem } from './wire.ts';

/** Where an upload goes, as the client named it. */
export interface UploadTarget {
  uploadTo: string;
  /** Path inside `uploadTo`; its last segment is the file name ('' = use `filename`). */
  relativePath: string;
  filename: string;
  /** What to do when the name is taken (default `rename`: keep both). */
  conflict?: ConflictPolicy;
}

export interface PlacedFile {
  /** Final name (after `name (1)` numbering). */
  name: string;
  /** Virtual path of the folder holding it. */
  parent: string;
  /** Virtual path of the file as its owner sees it (through a link: without the token), for the activity log. */
  shown: string;
  realPath: string;
  /** The space root it was placed in (taking it back is confined to it). */
  root: string;
  size: number;
  modified: Date;
  /** Folders this placement created, outermost first (real paths). */
  createdDirs: string[];
  /** Placed under its own name, kept both (`name (1)`), replaced the file there, or skipped (then the rest describes the file that kept the name). */
  outcome: Outcome;
  /** Where the replaced file went. */
  displaced?: Displaced;
}

export type { FileItem };
/** The kind of an uploaded file (files/items.ts kindOf). */
export const fileKind = (name: string) => kindOf(name, false);

/** The one FileItem builder (files/items.ts), so an uploaded item reads as a listed one; with what became of it. */
export function toFileItem(p: PlacedFile): UploadedItem {
  return {
    ...itemOf(p.parent, p.name, { modified: p.modified, size: p.size, isDirectory: false }),
    outcome: p.outcome,
    ...p.displaced,
  };
}

/** Splits and checks `relativePath` + `filename` into folders and the file name (400 on bad names). */
/**
 * Why a placement was refused, in words that follow "could not be placed: " (its uploader's
 * notification, the answer's sentence), and the refusal as the API says it (null: a fault).
 */
export function placementRefusal(err: unknown): { app: AppError | null; reason: string } {
  const app = err instanceof AppError ? err : fromFsError(err);
  if (app?.status === 404) return { app, reason: 'the destination folder no longer exists.' };
  const reason = app?.message ?? 'the server could not write it into its folder.';
  return { app: app ?? null, reason: reason.charAt(0).toLowerCase() + reason.slice(1) };
}

/** Where an upload was going, as its uploader named it: the file's name and the folder holding it. */
export function whereOfTarget(target: UploadTarget): { name: string; folder: string } {
  try {
    const { folders, name } = splitTarget(target);
    return { name, folder: [target.uploadTo.replace(/\/+$/, ''), ...folders].filter(Boolean).join('/') };
  } catch {
    return { name: target.filename, folder: target.uploadTo };
  }
}

export function splitTarget(target: UploadTarget): { folders: string[]; name: string } {
  const rel = target.relativePath.replace(/\\/g, '/').replace(/^\/+/, '');
  const segments = rel === '' ? [] : rel.split('/');
  // `a/b/c.txt` names the file; `a/b/` (or nothing) leaves the name to `filename`.
  const last = segments.pop();
  let name = last || target.filename;
  if (!name) throw new AppError('BAD_NAME', 'The upload has no file name (send filename or relativePath).');
  name = assertPlainName(name, 'file name');
  const folders = segments.map((s) => assertPlainName(s, 'folder name in relativePath'));
  return { folders, name };
}

/** Resolves `uploadTo` as a folder the caller may upload into. */
export async function resolveUploadFolder(
  resolver: PathResolver,
  caller: Caller,
  uploadTo: string,
): Promise<InsidePath> {
  const folder = await resolver.resolve(caller, uploadTo, { mustExist: true });
  if (!folder.space) throw new AppError('BAD_DESTINATION');
  if (!folder.isDirectory) throw new AppError('NOT_A_FOLDER', 'The destination is not a folder.');
  if (!folder.access.canUpload) throw new AppError('READ_ONLY', 'You may not upload into this folder.');
  return folder;
}

export interface Checked {
  folder: InsidePath;
  folders: string[];
  name: string;
  conflict: ConflictPolicy;
}

export interface Placement {
  /** Checks the destination before any byte is received (same rules as placing). */
  check(caller: Caller, target: UploadTarget): Promise<Checked>;
  /**
   * Places `partFile`; throws (leaving the part file in place) when it cannot. `checked` is a
   * `check` answer from the same request (a multipart body), saving a second resolution.
   */
  place(caller: Caller, target: UploadTarget, partFile: string, checked?: Checked): Promise<PlacedFile>;
  /**
   * Takes a placement back (a multipart request refused after some files were placed): a new
   * file is removed, a replaced one gets its old content back (from its version, or the trash).
   */
  undo(caller: Caller, placed: PlacedFile): Promise<void>;
  /** Is the name taken now (a skip can then be answered before any byte)? */
  taken(checked: Checked): Promise<PlacedFile | null>;
}

export interface PlacementDeps {
  resolver: PathResolver;
  changes: ChangeSink;
  journal: WorkJournal;
  /** What a `replace` does with the file there, and who may (files/ops.ts). */
  files: Pick<FileOps, 'replacer' | 'assertMayReplace'>;
  /** Taking a replace back (a multipart request refused after it). */
  versions: Pick<VersionService, 'putBack'>;
  trash: Pick<TrashService, 'restore'>;
}

export function createPlacement(deps: PlacementDeps): Placement {
  const { resolver, changes, journal } = deps;
  async function check(caller: Caller, target: UploadTarget) {
    const { folders, name } = splitTarget(target);
    const folder = await resolveUploadFolder(resolver, caller, target.uploadTo);
    if (folders.length && !folder.access.canCreateFolder)
      throw new AppError('READ_ONLY', 'You may not create folders here.');
    // Each folder of relativePath is a place written into (or made) too: the access model may
    // withhold one below uploadTo (hidden answers 404, view-only is read-only here), and a rule
    // may name the file itself. The rules answer without I/O; the storage, the token and a link's
    // flags are uploadTo's, checked above.
    for (let i = 1; i <= folders.length; i++) {
      const level = resolver.levelBelow(caller, folder, folders.slice(0, i).join('/'));
      if (level === 'hidden') throw new AppError('NOT_FOUND', 'No such file or folder.');
      if (level !== 'write' && level !== 'manage')
        throw new AppError('READ_ONLY', 'You may not upload into this folder.');
    }
    // The file's own place, resolved once: its rule, and the confinement of the whole path (a
    // folder on the way that leads outside the space or into another account's folder).
    await resolver.resolve(caller, [folder.virtualPath, ...folders, name].join('/'));
    // Asked before any byte: a link that may only add files cannot replace one.
    if (target.conflict === 'replace') deps.files.assertMayReplace(folder);
    return { folder, folders, name, conflict: target.conflict ?? 'rename' };
  }

  /**
   * mkdir one level at a time, each inside the checked descriptor of the one above, so we know
   * which folders are ours and none can be led outside; an existing one must be a real folder.
   */
  async function ensureFolders(root: string, base: Dir, folders: string[]): Promise<{ dir: Dir; created: string[] }> {
    let dir = base;
    const created: string[] = [];
    try {
      for (const f of folders) {
        const st = await fsp.lstat(dir.at(f)).catch(() => null);
        if (st && !st.isDirectory() && !st.isSymbolicLink())
          throw new AppError('NOT_A_FOLDER', `"${f}" already exists and is not a folder.`, { status: 409 });
        const next = await childDirIn(root, dir, f).catch((err) => {
          throw err.code === 'ENOTDIR'
            ? new AppError('NOT_A_FOLDER', `"${f}" already exists and is not a folder.`, { status: 409 })
            : err;
        });
        if (next.created) created.push(path.join(dir.real, f));
        if (dir !== base) await dir.close();
        dir = next.dir;
      }
    } catch (err) {
      if (dir !== base) await dir.close();
      for (const d of [...created].reverse()) await withParentIn(root, d, (p, n) => fsp.rmdir(p.at(n))).catch(() => {});
      throw err;
    }
    return { dir, created };
  }

  async function linkOrCopy(
    caller: Caller,
    partFile: string,
    dir: Dir,
    dirVirtual: string,
    name: string,
    conflict: ConflictPolicy,
  ) {
    const replacer = conflict === 'replace' ? deps.files.replacer(caller, dirVirtual, dir) : undefined;
    const place = (incoming: string) => placeEntry(incoming, dir.path, name, false, conflict, replacer);
    try {
      return await place(partFile);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      // The destination moved to another filesystem since staging began: copy beside it first
      // (so the placed name never shows a half-written file), then place that copy.
      // A large file copies for a while: a crash meanwhile leaves the temporary to the journal.
      const placed = await withTemporary(journal, dir, async (temp) => {
        await fsp.copyFile(partFile, temp, fsp.constants.COPYFILE_EXCL);
        const placed = await place(temp);
        if (placed.outcome === 'skipped') await fsp.rm(temp, { force: true });
        return placed;
      });
      await fsp.rm(partFile, { force: true });
      return placed;
    }
  }

  return {
    check,

    async place(caller, target, partFile, checked) {
      const { folder, folders, name, conflict } = checked ?? (await check(caller, target));
      const root = folder.space.root;
      const parent = [folder.virtualPath, ...folders].join('/');
      // Placed through checked descriptors (confined.ts): the folder checked is the one written.
      const base = await openDirIn(root, folder.realPath);
      let placed: { name: string; outcome: Outcome; displaced?: Displaced };
      let created: string[];
      let realPath: string;
      let st: Stats;
      try {
        const made = await ensureFolders(root, base, folders);
        created = made.created;
        try {
          placed = await linkOrCopy(caller, partFile, made.dir, parent, name, conflict);
          st = await fsp.lstat(made.dir.at(placed.name));
          realPath = path.join(made.dir.real, placed.name);
        } catch (err) {
          for (const d of [...created].reverse())
            await withParentIn(root, d, (p, n) => fsp.rmdir(p.at(n))).catch(() => {});
          throw err;
        } finally {
          if (made.dir !== base) await made.dir.close();
        }
      } finally {
        await base.close();
      }
      if (placed.outcome !== 'skipped') {
        for (const d of created) changes.emit({ type: 'created', path: d, isDirectory: true });
        changes.emit(
          placed.displaced?.versionId
            ? { type: 'modified', path: realPath }
            : { type: 'created', path: realPath, isDirectory: false },
        );
      }
      const shown = [ownerView(folder).virtualPath, ...folders, placed.name].join('/');
      return {
        name: placed.name,
        parent,
        shown,
        realPath,
        root,
        size: st.size,
        modified: st.mtime,
        createdDirs: created,
        outcome: placed.outcome,
        ...(placed.displaced ? { displaced: placed.displaced } : {}),
      };
    },

    async taken(checked) {
      const { folder, folders, name } = checked;
      const parent = [folder.virtualPath, ...folders].join('/');
      const real = path.join(folder.realPath, ...folders, name);
      const st = await withParentIn(folder.space.root, real, (dir, n) => fsp.lstat(dir.at(n))).catch(() => null);
      if (!st) return null;
      return {
        name,
        parent,
        shown: [ownerView(folder).virtualPath, ...folders, name].join('/'),
        realPath: real,
        root: folder.space.root,
        size: st.size,
        modified: st.mtime,
        createdDirs: [],
        outcome: 'skipped',
      };
    },

    async undo(caller, placed) {
      if (placed.outcome === 'skipped') return;
      const versionId = placed.displaced?.versionId;
      if (versionId) {
        // The old content takes its name back as a save would: by rename, never a half state.
        await withParentIn(placed.root, placed.realPath, (dir, name) => deps.versions.putBack(versionId, dir, name));
        changes.emit({ type: 'modified', path: placed.realPath });
        return;
      }
      await withParentIn(placed.root, placed.realPath, (dir, name) => fsp.rm(dir.at(name), { force: true }));
      changes.emit({ type: 'deleted', path: placed.realPath, isDirectory: false });
      // What the upload sent to the trash (an item of the other kind) comes back where it was.
      if (placed.displaced?.trashId) await deps.trash.restore(caller, placed.displaced.trashId);
      for (const d of [...placed.createdDirs].reverse()) {
        // rmdir only removes an empty folder: another upload's file keeps it.
        if (
          await withParentIn(placed.root, d, (dir, name) => fsp.rmdir(dir.at(name))).then(
            () => true,
            () => false,
          )
        )
          changes.emit({ type: 'deleted', path: d, isDirectory: true });
      }
    },
  };
}
