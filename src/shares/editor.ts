// The shared editor (spec §4.4): the editor's rules through a link. Read: permission first,
// then ETag/304; the ETag also carries the link's canWrite and canDownload, so changing them
// changes it. Save: only through a link that allows editing, in the file's own encoding, the
// replaced text kept as a version for the owner, written as temp + rename in the checked folder.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ChangeSink } from '../changes.ts';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import { editorEtag } from '../editor/routes.ts';
import { openFileIn, withFileIn, withParentIn } from '../files/confined.ts';
import { temporaryName } from '../files/names.ts';
import type { PathResolver, ResolvedPath } from '../files/paths.ts';
import { decodeText, encodeText, looksBinary, readOpenedBytes, readOpenedText, type TextEncoding } from '../files/text.ts';
import { isNotModified } from '../http/conditional.ts';
import { sendWholeText } from '../http/send.ts';
import type { VersionService } from '../versions/service.ts';

export function createSharedEditor(deps: { resolver: PathResolver; versions: VersionService; changes: ChangeSink; maxBytes: number }) {
  const max = deps.maxBytes;
  const linkEtag = (base: string, file: ResolvedPath) =>
    '"' + createHash('sha1').update(base).update(`w${file.access.canWrite ? 1 : 0}d${file.access.canDownload ? 1 : 0}`).digest('base64url') + '"';

  async function target(caller: Caller, virtual: string): Promise<ResolvedPath> {
    const file = await deps.resolver.resolve(caller, virtual, { mustExist: true });
    if (!file.space || file.isDirectory) throw new AppError('IS_A_FOLDER', 'Name a file, not a folder.');
    return file;
  }

  return {
    async read(caller: Caller, virtual: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
      const file = await target(caller, virtual);
      // Reading the whole text is a download of it.
      if (!file.access.canRead || !file.access.canDownload) throw new AppError('LINK_NOT_ALLOWED', 'This link does not allow reading this file.');
      const { text, st } = await withFileIn(file.space!.root, file.realPath, async (f) => ({ text: await readOpenedText(f, max), st: f.stat }));
      const etag = linkEtag(editorEtag(text.content, st), file);
      const headers = { ETag: etag, 'Cache-Control': 'private, no-cache' };
      if (isNotModified(req, { etag })) {
        res.writeHead(304, headers).end();
        return;
      }
      await sendWholeText(req, res, 200, JSON.stringify({ content: text.content }), 'application/json; charset=utf-8', headers);
    },

    async save(caller: Caller, virtual: string, content: string): Promise<{ etag: string }> {
      const file = await deps.resolver.resolve(caller, virtual);
      if (!file.space) throw new AppError('TOP_LEVEL');
      if (file.isDirectory) throw new AppError('IS_A_FOLDER');
      if (!file.access.canWrite) throw new AppError('LINK_NOT_ALLOWED', 'This link does not allow changing files.');
      const root = file.space.root;
      const { etag, created } = await withParentIn(root, file.realPath, async (dir, name) => {
        let encoding: TextEncoding = 'utf8';
        let mode: number | undefined;
        const current = await openFileIn(root, dir.at(name)).catch((err) => {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
          throw err;
        });
        try {
          if (!current && !file.access.canCreateFile) throw new AppError('LINK_NOT_ALLOWED', 'This link does not allow creating files.');
          if (current) {
            const bytes = await readOpenedBytes(current, max);
            if (looksBinary(bytes)) throw new AppError('BINARY');
            encoding = decodeText(bytes).encoding;
            mode = current.stat.mode & 0o7777;
          }
          const bytes = encodeText(content, encoding);
          if (bytes.length > max) throw new AppError('TOO_LARGE', `The text is larger than the editor limit (EDITOR_MAX_FILESIZE, ${max} bytes).`);
          const temp = temporaryName();
          const handle = await fsp.open(dir.at(temp), fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), mode ?? 0o644);
          try {
            try {
              await handle.writeFile(bytes);
              await handle.sync();
            } finally {
              await handle.close();
            }
            if (current) {
              // The replaced text is the owner's: kept as a version before the new one lands.
              await deps.versions.keep(file.realPath, caller.username, current);
              await fsp.rename(dir.at(temp), dir.at(name));
            } else {
              await fsp.link(dir.at(temp), dir.at(name)).catch((err) => {
                throw err.code === 'EEXIST' ? new AppError('EXISTS', 'The file was created by someone else meanwhile; reload it.') : err;
              });
              await fsp.unlink(dir.at(temp));
            }
          } catch (err) {
            await fsp.rm(dir.at(temp), { force: true });
            throw err;
          }
          const st = await fsp.lstat(dir.at(name));
          return { etag: linkEtag(editorEtag(content, st), file), created: !current };
        } finally {
          await current?.close();
        }
      });
      deps.changes.emit(created ? { type: 'created', path: file.realPath, isDirectory: false } : { type: 'modified', path: file.realPath });
      return { etag };
    },
  };
}
