// The text editor: read (ETag, If-None-Match 304 after the permission check, compressed over
// 32 KB), save in the file's own encoding with the replaced content kept as a version, and
// the write done as temp + rename so a crash leaves the old or the new text.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { z } from 'zod';
import type { ChangeSink } from '../changes.ts';
import type { Config } from '../config.ts';
import { AppError } from '../core/errors.ts';
import { reply, route, type RouteDef } from '../http/route.ts';
import type { Caller } from '../core/caller.ts';
import { isNotModified } from '../http/conditional.ts';
import { sendWholeText } from '../http/send.ts';
import { temporaryName } from '../files/names.ts';
import type { PathResolver } from '../files/paths.ts';
import { openFileIn, withFileIn, withParentIn } from '../files/confined.ts';
import { decodeText, encodeText, looksBinary, readOpenedBytes, readOpenedText, type TextEncoding } from '../files/text.ts';
import type { VersionService } from '../versions/service.ts';

export function editorEtag(content: Buffer | string, st: { ino: number; size: number; mtimeMs: number }): string {
  return '"' + createHash('sha1').update(content).update(`${st.ino}:${st.size}:${st.mtimeMs}`).digest('base64url') + '"';
}

export function editorRoutes(deps: { resolver: PathResolver; versions: VersionService; changes: ChangeSink; config: Config }): RouteDef[] {
  const max = deps.config.limits.editorMaxFileSize;

  async function read(caller: Caller, p: string, req: any, res: any) {
    const file = await deps.resolver.resolve(caller, p, { mustExist: true });
    if (!file.space || file.isDirectory) throw new AppError('IS_A_FOLDER', 'Name a file, not a folder.');
    if (!file.access.canRead) throw new AppError('FORBIDDEN', 'You may not read this file.');
    const { text, st } = await withFileIn(file.space.root, file.realPath, async (f) => ({ text: await readOpenedText(f, max), st: f.stat }));
    const etag = editorEtag(text.content, st);
    if (isNotModified(req, { etag })) {
      res.statusCode = 304;
      res.setHeader('ETag', etag);
      res.setHeader('Cache-Control', 'private, no-cache');
      res.end();
      return;
    }
    await sendWholeText(req, res, 200, JSON.stringify({ content: text.content }), 'application/json; charset=utf-8', { ETag: etag, 'Cache-Control': 'private, no-cache' });
  }

  return [
    route({
      method: 'GET', path: '/api/editor', access: 'account', summary: 'Read a text file for editing', tags: ['Editor'],
      query: z.object({ path: z.string() }),
      responses: { 200: '`{ content }` with ETag', 304: 'Unchanged', 400: 'Over EDITOR_MAX_FILESIZE', 415: 'Binary file' },
      handler: ({ caller, query, req, res }) => read(caller!, query.path, req, res),
    }),
    route({
      method: 'POST', path: '/api/editor', access: 'account', scope: 'read', summary: 'Read a text file for editing (older clients)', tags: ['Editor'],
      body: z.object({ path: z.string() }),
      responses: { 200: '`{ content }` with ETag', 304: 'Unchanged', 400: 'Over EDITOR_MAX_FILESIZE', 415: 'Binary file' },
      handler: ({ caller, body, req, res }) => read(caller!, body.path, req, res),
    }),
    route({
      method: 'PUT', path: '/api/editor', access: 'account', summary: 'Save a text file in the encoding it already has (the replaced text is kept as a version)', tags: ['Editor'],
      body: z.object({ path: z.string(), content: z.string() }), bodyLimit: max * 6 + 64 * 1024,
      responses: { 200: '`{ success }` with the ETag the next read will carry', 400: 'Over EDITOR_MAX_FILESIZE', 415: 'Binary file' },
      handler: async ({ caller, body }) => {
        const file = await deps.resolver.resolve(caller!, body.path);
        if (!file.space) throw new AppError('TOP_LEVEL', 'Name a file inside a volume.');
        if (file.isDirectory) throw new AppError('IS_A_FOLDER');
        if (!file.access.canWrite) throw new AppError('READ_ONLY', file.access.readOnly === 'storage' ? 'This volume is read-only.' : 'You may not change this file.');
        // Everything below happens in the checked parent folder's descriptor: the text read, the
        // version kept and the file replaced are the ones inside the volume, whatever is swapped.
        const root = file.space.root;
        const { etag, created } = await withParentIn(root, file.realPath, async (dir, name) => {
          let encoding: TextEncoding = 'utf8';
          let mode: number | undefined;
          const current = await openFileIn(root, dir.at(name)).catch((err) => {
            if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
            throw err;
          });
          try {
            if (current) {
              const bytes = await readOpenedBytes(current, max);
              if (looksBinary(bytes)) throw new AppError('BINARY');
              encoding = decodeText(bytes).encoding;
              mode = current.stat.mode & 0o7777;
            }
            const bytes = encodeText(body.content, encoding);
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
                await deps.versions.keep(file.realPath, caller!.username, current);
                await fsp.rename(dir.at(temp), dir.at(name));
              } else {
                // A new file claims its name exclusively: never over one created meanwhile.
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
            return { etag: editorEtag(body.content, st), created: !current };
          } finally {
            await current?.close();
          }
        });
        deps.changes.emit(created ? { type: 'created', path: file.realPath, isDirectory: false } : { type: 'modified', path: file.realPath });
        return reply(200, { success: true }, { ETag: etag });
      },
    }),
  ];
}
