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
import { assertPlainName, placeFile } from '../files/names.ts';
import { ownerView, type PathResolver, type ResolvedPath } from '../files/paths.ts';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import { itemOf, kindOf, type FileItem } from '../files/items.ts';

/** Where an upload goes, as the client named it. */
export interface UploadTarget {
  uploadTo: string;
  /** Path inside `uploadTo`; its last segment is the file name ('' = use `filename`). */
  relativePath: string;
  filename: string;
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
}

export type { FileItem };
/** The kind of an uploaded file (files/items.ts kindOf). */
export const fileKind = (name: string) => kindOf(name, false);

/** The one FileItem builder (files/items.ts), so an uploaded item reads as a listed one. */
export function toFileItem(p: PlacedFile): FileItem {
  return itemOf(p.parent, p.name, { modified: p.modified, size: p.size, isDirectory: false });
}

/** Splits and checks `relativePath` + `filename` into folders and the file name (400 on bad names). */
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
): Promise<ResolvedPath> {
  const folder = await resolver.resolve(caller, uploadTo, { mustExist: true });
  if (!folder.space) throw new AppError('BAD_DESTINATION');
  if (!folder.isDirectory) throw new AppError('NOT_A_FOLDER', 'The destination is not a folder.');
  if (!folder.access.canUpload) throw new AppError('READ_ONLY', 'You may not upload into this folder.');
  return folder;
}

export interface Checked {
  folder: ResolvedPath;
  folders: string[];
  name: string;
}

export interface Placement {
  /** Checks the destination before any byte is received (same rules as placing). */
  check(caller: Caller, target: UploadTarget): Promise<Checked>;
  /**
   * Places `partFile`; throws (leaving the part file in place) when it cannot. `checked` is a
   * `check` answer from the same request (a multipart body), saving a second resolution.
   */
  place(caller: Caller, target: UploadTarget, partFile: string, checked?: Checked): Promise<PlacedFile>;
  /** Takes a placement back (a multipart request refused after some files were placed). */
  undo(placed: PlacedFile): Promise<void>;
}

export function createPlacement(resolver: PathResolver, changes: ChangeSink, journal: WorkJournal): Placement {
  async function check(caller: Caller, target: UploadTarget) {
    const { folders, name } = splitTarget(target);
    const folder = await resolveUploadFolder(resolver, caller, target.uploadTo);
    if (folders.length && !folder.access.canCreateFolder)
      throw new AppError('READ_ONLY', 'You may not create folders here.');
    return { folder, folders, name };
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

  async function linkOrCopy(partFile: string, dir: Dir, name: string): Promise<string> {
    try {
      return await placeFile(partFile, dir.path, name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      // The destination moved to another filesystem since staging began: copy beside it first
      // (so the placed name never shows a half-written file), then place that copy.
      // A large file copies for a while: a crash meanwhile leaves the temporary to the journal.
      const final = await withTemporary(journal, dir, async (temp) => {
        await fsp.copyFile(partFile, temp, fsp.constants.COPYFILE_EXCL);
        return placeFile(temp, dir.path, name);
      });
      await fsp.rm(partFile, { force: true });
      return final;
    }
  }

  return {
    check,

    async place(caller, target, partFile, checked) {
      const { folder, folders, name } = checked ?? (await check(caller, target));
      const root = folder.space!.root;
      // Placed through checked descriptors (confined.ts): the folder checked is the one written.
      const base = await openDirIn(root, folder.realPath);
      let finalName: string;
      let created: string[];
      let realPath: string;
      let st: Stats;
      try {
        const made = await ensureFolders(root, base, folders);
        created = made.created;
        try {
          finalName = await linkOrCopy(partFile, made.dir, name);
          st = await fsp.lstat(made.dir.at(finalName));
          realPath = path.join(made.dir.real, finalName);
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
      for (const d of created) changes.emit({ type: 'created', path: d, isDirectory: true });
      changes.emit({ type: 'created', path: realPath, isDirectory: false });
      const parent = [folder.virtualPath, ...folders].join('/');
      const shown = [ownerView(folder).virtualPath, ...folders, finalName].join('/');
      return {
        name: finalName,
        parent,
        shown,
        realPath,
        root,
        size: st.size,
        modified: st.mtime,
        createdDirs: created,
      };
    },

    async undo(placed) {
      await withParentIn(placed.root, placed.realPath, (dir, name) => fsp.rm(dir.at(name), { force: true }));
      changes.emit({ type: 'deleted', path: placed.realPath, isDirectory: false });
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
