// The text editor's reading and saving, for the editor rows and the shared editor of a link
// (shares/editor.ts): read in the checked file's descriptor; save in the file's own encoding
// (refused when If-Match names another state of the file than the one being replaced), the
// replaced content kept as a version, the write done as temp + rename in the checked parent
// folder so a crash leaves the old or the new text, and announced on the changes sink.
import type { ItemLocks } from '../files/locks.ts';
import { createPathLocks, type PathLocks } from '../cluster/path-locks.ts';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { ChangeSink } from '../changes.ts';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import { fileEvent, shownPath, type ActivitySink } from '../files/activity.ts';
import { openFileIn, withFileIn, withParentIn } from '../files/confined.ts';
import { ifMatchHolds } from '../http/conditional.ts';
import { withTemporary, type WorkJournal } from '../files/journal.ts';
import type { PathResolver, InsidePath } from '../files/paths.ts';
import {
  decodeText,
  encodeText,
  looksBinary,
  readOpenedBytes,
  readOpenedText,
  type TextEncoding,
} from '../files/text.ts';
import type { VersionService } from '../versions/service.ts';

export function editorEtag(content: Buffer | string, st: { ino: number; size: number; mtimeMs: number }): string {
  return (
    '"' + createHash('sha1').update(content).update(`${st.ino}:${st.size}:${st.mtimeMs}`).digest('base64url') + '"'
  );
}

export interface EditorDeps {
  resolver: PathResolver;
  versions: VersionService;
  changes: ChangeSink;
  /** The work journal: a temporary a crash leaves behind is removed at the next start. */
  journal: WorkJournal;
  maxBytes: number;
  /** The activity log: one `editor.save` row per save. */
  activity?: ActivitySink;
  /** Locks of WebDAV clients and the office editor: a save by another account answers 423. */
  locks?: ItemLocks;
  /**
   * One file's saves one after another (in this process, through the editor or a link, and across
   * a cluster's instances on PostgreSQL; cluster/path-locks.ts), so If-Match is compared with what
   * the previous save left: two saves sent with the same ETag do not both land, the second is
   * refused. The same locks for every editor of the process; its own turn in this editor without.
   */
  saveLocks?: PathLocks;
}

export function createEditor(deps: EditorDeps) {
  const max = deps.maxBytes;
  const saveLocks = deps.saveLocks ?? createPathLocks();

  /** The text of a checked file and its ETag. */
  async function readText(file: InsidePath): Promise<{ content: string; etag: string }> {
    const { text, st } = await withFileIn(file.space.root, file.realPath, async (f) => ({
      text: await readOpenedText(f, max),
      st: f.stat,
    }));
    return { content: text.content, etag: editorEtag(text.content, st) };
  }

  /**
   * Writes `content` over a checked file (or creates it; `mayCreate` refuses that when it
   * throws) and answers the ETag the next read will carry. `ifMatch` (the client's If-Match)
   * refuses the save with EDITOR_CHANGED unless the file, as it is at write time, still has
   * that ETag (`asSent` turns the file's ETag into the one the client was given, e.g. a link's).
   */
  async function writeText(
    caller: Caller,
    file: InsidePath,
    content: string,
    mayCreate: () => void = () => {},
    ifMatch?: { header: string; asSent?: (etag: string) => string },
  ): Promise<{ etag: string }> {
    const root = file.space.root;
    // Everything below happens in the checked parent folder's descriptor: the text read, the
    // version kept and the file replaced are the ones inside the volume, whatever is swapped.
    const { etag, created } = await saveLocks.exclusively(file.realPath, () =>
      withParentIn(root, file.realPath, async (dir, name) => {
        let encoding: TextEncoding = 'utf8';
        let mode: number | undefined;
        const current = await openFileIn(root, dir.at(name)).catch((err) => {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
          throw err;
        });
        try {
          if (!current) mayCreate();
          let etagNow: string | null = null;
          if (current) {
            const bytes = await readOpenedBytes(current, max);
            if (looksBinary(bytes)) throw new AppError('BINARY');
            const text = decodeText(bytes);
            encoding = text.encoding;
            mode = current.stat.mode & 0o7777;
            // The same ETag a read of these bytes would carry (readText).
            if (ifMatch) etagNow = editorEtag(text.content, current.stat);
          }
          // Checked on the descriptor kept as the version below, in the checked folder: not on an
          // earlier look at the path (the old pre-check by a read raced with other writers).
          if (ifMatch && !ifMatchHolds(ifMatch.header, etagNow && (ifMatch.asSent?.(etagNow) ?? etagNow)))
            throw new AppError('EDITOR_CHANGED');
          const bytes = encodeText(content, encoding);
          if (bytes.length > max)
            throw new AppError(
              'TOO_LARGE',
              `The text is larger than the editor limit (EDITOR_MAX_FILESIZE, ${max} bytes).`,
            );
          await withTemporary(deps.journal, dir, async (temp) => {
            const handle = await fsp.open(
              temp,
              fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0),
              mode ?? 0o644,
            );
            try {
              await handle.writeFile(bytes);
              await handle.sync();
            } finally {
              await handle.close();
            }
            if (current) {
              // The replaced text is the owner's (through a link too): kept before the new one lands.
              await deps.versions.keep(file.realPath, caller.username, current, { replacement: temp });
              await fsp.rename(temp, dir.at(name));
            } else {
              // A new file claims its name exclusively: never over one created meanwhile.
              await fsp.link(temp, dir.at(name)).catch((err) => {
                throw err.code === 'EEXIST'
                  ? new AppError('EXISTS', 'The file was created by someone else meanwhile; reload it.')
                  : err;
              });
              await fsp.unlink(temp);
            }
          });
          const st = await fsp.lstat(dir.at(name));
          return { etag: editorEtag(content, st), created: !current };
        } finally {
          await current?.close();
        }
      }),
    );
    deps.changes.emit(
      created
        ? { type: 'created', path: file.realPath, isDirectory: false }
        : { type: 'modified', path: file.realPath },
    );
    deps.activity?.record(fileEvent(caller, 'editor.save', { path: shownPath(file), created }));
    return { etag };
  }

  return {
    readText,
    writeText,
    /** GET/POST /api/editor: permission first, then the text and its ETag. */
    async read(caller: Caller, virtual: string): Promise<{ content: string; etag: string }> {
      const file = await deps.resolver.resolve(caller, virtual, { mustExist: true });
      if (!file.space || file.isDirectory) throw new AppError('IS_A_FOLDER', 'Name a file, not a folder.');
      if (!file.access.canRead) throw new AppError('FORBIDDEN', 'You may not read this file.');
      return readText(file);
    },
    /** PUT /api/editor; `ifMatch` is the If-Match header when sent. */
    async save(caller: Caller, virtual: string, content: string, ifMatch?: string): Promise<{ etag: string }> {
      const file = await deps.resolver.resolveInside(caller, virtual, { atTop: 'Name a file inside a volume.' });
      if (file.isDirectory) throw new AppError('IS_A_FOLDER');
      if (!file.access.canWrite)
        throw new AppError(
          'READ_ONLY',
          file.access.readOnly === 'storage' ? 'This volume is read-only.' : 'You may not change this file.',
        );
      deps.locks?.assertFree(caller, file);
      return writeText(caller, file, content, undefined, ifMatch === undefined ? undefined : { header: ifMatch });
    },
  };
}
export type Editor = ReturnType<typeof createEditor>;
