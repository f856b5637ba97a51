// Trash routes: list, restore (to where it was or a chosen folder, never over a name), purge,
// empty, and the text of a trashed file.
import { z } from 'zod';
import type { ChangeSink } from '../changes.ts';
import type { Config } from '../config.ts';
import { AppError } from '../core/errors.ts';
import { noContent, route, type RouteDef } from '../http/route.ts';
import { sendWholeText } from '../http/send.ts';
import type { FileOps } from '../files/ops.ts';
import { fileItem } from '../files/items.ts';
import { readTextFile } from '../files/text.ts';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { TrashService } from './service.ts';

export function trashRoutes(deps: { trash: TrashService; ops: FileOps; changes: ChangeSink; config: Config }): RouteDef[] {
  const { trash } = deps;
  return [
    route({
      method: 'GET', path: '/api/trash', access: 'account', summary: 'Items in the trash of the spaces this account sees, newest first', tags: ['Trash'],
      responses: { 200: '`{ items: [{ id, name, path, originalPath, isDirectory, kind, size, deletedAt, deletedBy }] }`' },
      handler: async ({ caller }) => ({ items: await trash.list(caller!) }),
    }),
    route({
      method: 'POST', path: '/api/trash/items/:id/restore', access: 'account', summary: 'Restore a trashed item to where it was, or into `destination`; a taken name becomes `name (1)`', tags: ['Trash'],
      body: z.object({ destination: z.string().optional() }),
      responses: { 200: '`{ success, item: FileItem, path }` (path = the restored item\'s full path)' },
      handler: async ({ caller, params, body }) => {
        const destination = body.destination !== undefined ? await deps.ops.writableFolder(caller!, body.destination) : undefined;
        const done = await trash.restore(caller!, params.id!, destination);
        const real = path.join(done.dir, done.name);
        deps.changes.emit({ type: 'created', path: real, isDirectory: done.isDirectory });
        return { success: true, item: fileItem(done.parentVirtual, done.name, await fsp.stat(real)), path: `${done.parentVirtual}/${done.name}` };
      },
    }),
    route({
      method: 'DELETE', path: '/api/trash/items/:id', access: 'account', summary: 'Remove one trashed item for good', tags: ['Trash'],
      responses: { 204: 'Removed' },
      handler: async ({ caller, params }) => {
        await trash.purge(caller!, params.id!);
        return noContent();
      },
    }),
    route({
      method: 'DELETE', path: '/api/trash', access: 'account', summary: 'Empty the trash of the spaces this account sees', tags: ['Trash'],
      responses: { 200: '`{ removed }`' },
      handler: async ({ caller }) => ({ removed: await trash.empty(caller!) }),
    }),
    route({
      method: 'GET', path: '/api/trash/items/:id/text', access: 'account', summary: 'Text of a trashed file (compressed over 32 KB when accepted)', tags: ['Trash'],
      responses: { 200: '`{ content, name }`', 400: 'Over EDITOR_MAX_FILESIZE', 415: 'Binary file' },
      handler: async ({ caller, params, req, res }) => {
        const found = await trash.find(caller!, params.id!);
        if (found.entry.isDirectory) throw new AppError('IS_A_FOLDER');
        const text = await readTextFile(found.space.root, found.storedPath, deps.config.limits.editorMaxFileSize);
        await sendWholeText(req, res, 200, JSON.stringify({ content: text.content, name: found.entry.name }), 'application/json; charset=utf-8', { 'Cache-Control': 'private, no-cache' });
      },
    }),
  ];
}
