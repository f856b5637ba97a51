// The shared editor (spec §4.4): the editor's rules through a link. Read: permission first,
// then ETag/304; the ETag also carries the link's canWrite and canDownload, so changing them
// changes it. Save: only through a link that allows editing, If-Match compared with that ETag,
// in the file's own encoding, the replaced text kept as a version for the owner, written as
// temp + rename in the checked folder.
import type { ItemLocks } from '../files/locks.ts';
import type { PathLocks } from '../cluster/path-locks.ts';
import { createHash } from 'node:crypto';
import type { ChangeSink } from '../changes.ts';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import { createEditor } from '../editor/service.ts';
import type { ActivitySink } from '../files/activity.ts';
import type { WorkJournal } from '../files/journal.ts';
import { ownerView, type InsidePath, type PathResolver, type ResolvedPath } from '../files/paths.ts';
import type { VersionService } from '../versions/service.ts';

export function createSharedEditor(deps: {
  resolver: PathResolver;
  versions: VersionService;
  changes: ChangeSink;
  journal: WorkJournal;
  maxBytes: number;
  activity: ActivitySink;
  locks: ItemLocks;
  /** The process's (and a cluster's) one-save-at-a-time of a file, shared with the editor rows. */
  saveLocks: PathLocks;
}) {
  // The editor's own reading and saving; the link adds its checks and its flags to the ETag.
  const editor = createEditor(deps);
  const linkEtag = (base: string, file: ResolvedPath) =>
    '"' +
    createHash('sha1')
      .update(base)
      .update(`w${file.access.canWrite ? 1 : 0}d${file.access.canDownload ? 1 : 0}`)
      .digest('base64url') +
    '"';

  async function target(caller: Caller, virtual: string): Promise<InsidePath> {
    const file = await deps.resolver.resolve(caller, virtual, { mustExist: true });
    if (!file.space || file.isDirectory) throw new AppError('IS_A_FOLDER', 'Name a file, not a folder.');
    return file;
  }

  return {
    /**
     * The text and the link's ETag of it (the route sends it, or 304). Reading is viewing: a link
     * with downloads off still shows the text (its ETag says which state it was read in).
     */
    async read(caller: Caller, virtual: string): Promise<{ content: string; etag: string }> {
      const file = await target(caller, virtual);
      if (!file.access.canRead) throw new AppError('LINK_NOT_ALLOWED', 'This link does not allow reading this file.');
      const text = await editor.readText(file);
      return { content: text.content, etag: linkEtag(text.etag, file) };
    },

    /** `ifMatch` (If-Match when sent) is compared with the ETag a read through this link carries. */
    async save(caller: Caller, virtual: string, content: string, ifMatch?: string): Promise<{ etag: string }> {
      const file = await deps.resolver.resolveInside(caller, virtual);
      if (file.isDirectory) throw new AppError('IS_A_FOLDER');
      if (!file.access.canWrite) throw new AppError('LINK_NOT_ALLOWED', 'This link does not allow changing files.');
      // A link to one file has the file as its root: its folder, where the new text is built and
      // swapped in, lies outside the link, so the save works in the owner's space (the path is
      // the one the link resolved and confined; the access stays the link's).
      const { etag } = await editor.writeText(
        caller,
        file.relative === '' ? ownerView(file) : file,
        content,
        () => {
          if (!file.access.canCreateFile)
            throw new AppError('LINK_NOT_ALLOWED', 'This link does not allow creating files.');
        },
        ifMatch === undefined ? undefined : { header: ifMatch, asSent: (base) => linkEtag(base, file) },
      );
      return { etag: linkEtag(etag, file) };
    },
  };
}
