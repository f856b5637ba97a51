// Routes of file operations: create folder/file, rename, copy/move, delete (to the trash),
// delete impact, delete with a progress stream, recent destinations.
import fsp from 'node:fs/promises';
import { z } from 'zod';
import type { Database } from '../db/database.ts';
import { route, type RouteDef } from '../http/route.ts';
import { AppError } from '../core/errors.ts';
import type { Bindings } from './bindings.ts';
import type { FileOps } from './ops.ts';
import { scopeOf } from './ops.ts';
import { countTree } from './walk.ts';
import { errorFields, openEventStream } from '../http/ndjson.ts';

type DeleteItem = { path: string; name?: string | undefined; status: 'deleted' | 'missing' | 'failed'; trashId?: string | null };
/** The events of POST /api/files/delete-stream. */
type DeleteEvents = {
  start: { total: number };
  progress: { done: number; total: number; path: string; name?: string | undefined };
  error: { path: string; name?: string | undefined; message: string; statusCode: number; code: string };
  done: { total: number; deleted: number; items: DeleteItem[] };
};

const itemRef = z.object({ path: z.string(), name: z.string(), kind: z.string().optional() });
const itemsBody = z.object({ items: z.array(itemRef).min(1).max(10_000) });
const transferBody = z.object({
  items: z.array(itemRef).min(1).max(10_000),
  destination: z.string(),
  operation: z.enum(['copy', 'move']).optional(),
});
const fileItem = z.object({ name: z.string(), path: z.string(), dateModified: z.string(), size: z.number(), kind: z.string() });
const transferAnswer = z.object({ success: z.boolean(), destination: z.string(), items: z.array(z.object({ from: z.string(), to: z.string(), skipped: z.boolean().optional() })) });

export function fileRoutes(deps: { ops: FileOps; bindings: Bindings; db: Database }): RouteDef[] {
  const { ops, bindings } = deps;
  const transfer = (operation: 'copy' | 'move' | undefined) => async ({ caller, body }: any) => {
    const result = await ops.transfer(caller, body.items, body.destination, operation ?? body.operation ?? 'move');
    return { success: true, ...result };
  };
  return [
    route({
      method: 'POST', path: '/api/files/folder', access: 'account', summary: 'Create a folder (a taken name becomes `name (1)`)', tags: ['Files'],
      body: z.object({ path: z.string().optional(), destination: z.string().optional(), name: z.string() }), status: 201,
      responses: { 201: { description: 'The new folder', schema: z.object({ success: z.boolean(), item: fileItem }) } },
      handler: async ({ caller, body }) => ({ success: true, item: await ops.createFolder(caller!, body.path ?? body.destination ?? '', body.name) }),
    }),
    route({
      method: 'POST', path: '/api/files/file', access: 'account', summary: 'Create a file, empty or with text (a taken name becomes `name (1)`)', tags: ['Files'],
      body: z.object({ path: z.string(), name: z.string(), content: z.string().optional() }), status: 201,
      responses: { 201: { description: 'The new file', schema: z.object({ success: z.boolean(), item: fileItem }) } },
      handler: async ({ caller, body }) => ({ success: true, item: await ops.createFile(caller!, body.path, body.name, body.content) }),
    }),
    route({
      method: 'POST', path: '/api/files/rename', access: 'account', summary: 'Rename an item in its folder (409 when the new name is taken)', tags: ['Files'],
      body: z.object({ path: z.string(), name: z.string(), newName: z.string() }),
      responses: { 200: { description: 'The renamed item', schema: z.object({ success: z.boolean(), item: fileItem }) } },
      handler: async ({ caller, body }) => ({ success: true, item: await ops.rename(caller!, body.path, body.name, body.newName) }),
    }),
    route({
      method: 'POST', path: '/api/files/move', access: 'account', summary: 'Move or copy items into a folder',
      description: 'Copy and move share this route: the body field `operation` is `"move"` (the default) or `"copy"`. `POST /api/files/copy` is the same with `operation` fixed to copy. Taken names become `name (1)`; moves across filesystems copy to a hidden temporary, place it, then remove the source. Answers one JSON object: `destination` and per item `from`, `to` and `skipped` (a move into the folder it is already in).',
      tags: ['Files'], body: transferBody,
      responses: { 200: { description: 'Where every item landed', schema: transferAnswer } },
      handler: transfer(undefined),
    }),
    route({
      method: 'POST', path: '/api/files/copy', access: 'account', summary: 'Copy items into a folder (alias of move with operation "copy")', tags: ['Files'],
      body: transferBody,
      responses: { 200: { description: 'Where every copy landed', schema: transferAnswer } },
      handler: transfer('copy'),
    }),
    route({
      method: 'DELETE', path: '/api/files', access: 'account', summary: 'Delete items (they go to the trash)', tags: ['Files'], body: itemsBody,
      responses: { 200: 'Per item: deleted or missing, with the trash entry and the bindings forgotten' },
      handler: async ({ caller, body }) => {
        const items = [];
        for (const item of body.items) {
          let target;
          try {
            target = await ops.resolveForDelete(caller!, item);
          } catch (err) {
            if (err instanceof AppError && err.status === 404) { items.push({ path: item.path, name: item.name, status: 'missing' }); continue; }
            throw err;
          }
          const done = await ops.deleteOne(caller!, target);
          items.push({ path: item.path, name: item.name, status: 'deleted', trashId: done.trashId, deletedShareCount: done.forgotten.shares ?? 0, removedFavoriteCount: done.forgotten.favorites ?? 0 });
        }
        return { success: true, items };
      },
    }),
    route({
      method: 'POST', path: '/api/files/delete-impact', access: 'account', scope: 'read', summary: 'What deleting these items would affect, without deleting', tags: ['Files'], body: itemsBody,
      responses: { 200: 'Counts of files, folders, bytes, shares and favourites bound to the items' },
      handler: async ({ caller, body }) => {
        const totals = { fileCount: 0, dirCount: 0, totalBytes: 0, truncated: false, shareCount: 0, favoriteCount: 0, bindingCount: 0 };
        for (const item of body.items) {
          const target = await ops.resolveForDelete(caller!, item);
          if (target.isDirectory) {
            const t = await countTree(target.realPath, { maxEntries: 100_000, maxMs: 3000 });
            totals.dirCount += 1 + t.dirCount; totals.fileCount += t.fileCount; totals.totalBytes += t.totalSize; totals.truncated ||= t.truncated;
          } else {
            totals.fileCount++;
            totals.totalBytes += await fsp.lstat(target.realPath).then((s) => s.size, () => 0);
          }
          const counts = bindings.count(target.virtualPath, scopeOf(caller!, target));
          totals.shareCount += counts.shares ?? 0;
          totals.favoriteCount += counts.favorites ?? 0;
          totals.bindingCount += Object.values(counts).reduce((a, b) => a + b, 0);
        }
        return { ...totals, shares: [] };
      },
    }),
    route({
      method: 'POST', path: '/api/files/delete-stream', access: 'account', summary: 'Delete items with a progress stream (NDJSON events start, progress, done, error)', tags: ['Files'], body: itemsBody,
      responses: { 200: { description: 'One JSON event per line', contentType: 'application/x-ndjson' } },
      handler: async ({ caller, body, res }) => {
        const stream = openEventStream<DeleteEvents>(res);
        const total = body.items.length;
        await stream.send('start', { total });
        const items: DeleteEvents['done']['items'] = [];
        let done = 0;
        for (const item of body.items) {
          try {
            const target = await ops.resolveForDelete(caller!, item);
            const r = await ops.deleteOne(caller!, target);
            items.push({ path: item.path, name: item.name, status: 'deleted', trashId: r.trashId });
          } catch (err) {
            const e = errorFields(err);
            items.push({ path: item.path, name: item.name, status: e.statusCode === 404 ? 'missing' : 'failed' });
            await stream.send('error', { path: item.path, name: item.name, ...e });
          }
          done++;
          await stream.send('progress', { done, total, path: item.path, name: item.name });
        }
        await stream.done({ total, deleted: items.filter((i) => i.status === 'deleted').length, items });
      },
    }),
    route({
      method: 'GET', path: '/api/files/recent-destinations', access: 'account', summary: 'Folders this account last copied or moved into', tags: ['Files'],
      responses: { 200: 'Newest first: `{ destinations: [{ path, usedAt }] }`' },
      handler: ({ caller }) => ({
        destinations: deps.db.all<{ path: string; used_at: string }>('SELECT path, used_at FROM recent_destinations WHERE user_id = ? ORDER BY used_at DESC LIMIT 20', [caller!.userId])
          .map((r) => ({ path: r.path, usedAt: r.used_at })),
      }),
    }),
  ];
}
