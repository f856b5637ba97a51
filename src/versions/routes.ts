// Versions routes: list the kept contents of a file, read one as text, restore, restore as a
// copy, delete.
import fsp from 'node:fs/promises';
import { z } from 'zod';
import type { ChangeSink } from '../changes.ts';
import type { Config } from '../config.ts';
import { AppError } from '../core/errors.ts';
import { noContent, route, type RouteDef } from '../http/route.ts';
import { sendWholeText } from '../http/send.ts';
import { fileItem } from '../files/items.ts';
import type { PathResolver } from '../files/paths.ts';
import { readTextFile } from '../files/text.ts';
import { storedRoot, type VersionService } from './service.ts';

export function versionRoutes(deps: { versions: VersionService; resolver: PathResolver; changes: ChangeSink; config: Config }): RouteDef[] {
  const { versions, resolver } = deps;
  return [
    route({
      method: 'GET', path: '/api/versions', access: 'account', summary: 'Earlier versions of a file, newest first', tags: ['Versions'],
      query: z.object({ path: z.string() }),
      responses: { 200: '`{ items: [{ id, path, size, modifiedAt, createdAt, createdBy }] }`' },
      handler: async ({ caller, query }) => {
        const file = await resolver.resolve(caller!, query.path);
        if (!file.space) throw new AppError('TOP_LEVEL', 'Name a file.');
        return { items: versions.list(caller!, file) };
      },
    }),
    route({
      method: 'GET', path: '/api/versions/:id/text', access: 'account', summary: 'Text of an earlier version (compressed over 32 KB when accepted)', tags: ['Versions'],
      responses: { 200: '`{ content, path }`', 400: 'Over EDITOR_MAX_FILESIZE', 415: 'Binary file' },
      handler: async ({ caller, params, req, res }) => {
        const { row, virtualPath } = await versions.find(caller!, params.id!);
        const text = await readTextFile(storedRoot(row.stored_path), row.stored_path, deps.config.limits.editorMaxFileSize);
        await sendWholeText(req, res, 200, JSON.stringify({ content: text.content, path: virtualPath }), 'application/json; charset=utf-8', { 'Cache-Control': 'private, no-cache' });
      },
    }),
    route({
      method: 'POST', path: '/api/versions/:id/restore', access: 'account', summary: 'Put this version back (the current content is kept as a version)', tags: ['Versions'],
      responses: { 200: '`{ success, path }`' },
      handler: async ({ caller, params }) => {
        const p = await versions.restore(caller!, params.id!);
        const file = await resolver.resolve(caller!, p);
        deps.changes.emit({ type: 'modified', path: file.realPath });
        return { success: true, path: p };
      },
    }),
    route({
      method: 'POST', path: '/api/versions/:id/restore-copy', access: 'account', summary: 'Save this version beside the file as `name (1).ext`', tags: ['Versions'], status: 201,
      responses: { 201: '`{ success, item: FileItem }`' },
      handler: async ({ caller, params }) => {
        const done = await versions.restoreAsCopy(caller!, params.id!);
        deps.changes.emit({ type: 'created', path: done.real, isDirectory: false });
        return { success: true, item: fileItem(done.parent, done.name, await fsp.stat(done.real)) };
      },
    }),
    route({
      method: 'DELETE', path: '/api/versions/:id', access: 'account', summary: 'Forget one version', tags: ['Versions'],
      responses: { 204: 'Removed' },
      handler: async ({ caller, params }) => {
        await versions.remove(caller!, params.id!);
        return noContent();
      },
    }),
  ];
}
