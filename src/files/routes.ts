// Routes of file operations: create folder/file, rename, copy/move, delete (to the trash),
// delete impact, delete with a progress stream, recent destinations.
import { z } from 'zod';
import { route } from '../http/route.ts';
import { errorFields, openEventStream } from '../http/ndjson.ts';
import type { FileOps } from './ops.ts';
import {
  conflictsAnswer,
  conflictsBody,
  deleteAnswer,
  deleteImpact,
  itemAnswer,
  itemsBody,
  recentDestinations,
  transferAnswer,
  transferBody,
  type DeleteEvents,
} from './wire.ts';

export function fileRoutes(deps: { ops: FileOps }) {
  const { ops } = deps;
  return [
    route({
      method: 'POST',
      path: '/api/files/folder',
      access: 'account',
      summary: 'Create a folder (a taken name becomes `name (1)`)',
      tags: ['Files'],
      body: z.object({ path: z.string().optional(), destination: z.string().optional(), name: z.string() }),
      status: 201,
      responses: { 201: { description: 'The new folder', schema: itemAnswer } },
      handler: async ({ caller, body }) => ({
        success: true,
        item: await ops.createFolder(caller, body.path ?? body.destination ?? '', body.name),
      }),
    }),
    route({
      method: 'POST',
      path: '/api/files/file',
      access: 'account',
      summary: 'Create a file, empty or with text (a taken name becomes `name (1)`)',
      tags: ['Files'],
      body: z.object({ path: z.string(), name: z.string(), content: z.string().optional() }),
      status: 201,
      responses: { 201: { description: 'The new file', schema: itemAnswer } },
      handler: async ({ caller, body }) => ({
        success: true,
        item: await ops.createFile(caller, body.path, body.name, body.content),
      }),
    }),
    route({
      method: 'POST',
      path: '/api/files/rename',
      access: 'account',
      summary: 'Rename an item in its folder (409 when the new name is taken)',
      tags: ['Files'],
      body: z.object({ path: z.string(), name: z.string(), newName: z.string() }),
      responses: { 200: { description: 'The renamed item', schema: itemAnswer } },
      handler: async ({ caller, body }) => ({
        success: true,
        item: await ops.rename(caller, body.path, body.name, body.newName),
      }),
    }),
    route({
      method: 'POST',
      path: '/api/files/move',
      access: 'account',
      summary: 'Move or copy items into a folder',
      description:
        'Copy and move share this route: the body field `operation` is `"move"` (the default) or `"copy"`. `POST /api/files/copy` is the same with `operation` fixed to copy. A taken name is answered by `conflict` (per item, or for all in the body): `rename` (the default) keeps both as `name (1)`, `skip` leaves the item, `replace` takes the name and keeps what held it (a file as a version, a folder in the trash; folders are never merged). `POST /api/files/conflicts` lists the taken names beforehand. Moves across filesystems copy to a hidden temporary, place it, then remove the source. Answers one JSON object: `destination` and per item `from`, `to`, `outcome` (`placed`, `renamed`, `replaced`, `skipped`, or `unchanged` for a move into the folder it is already in), with `versionId` or `trashId` for a replaced item.',
      tags: ['Files'],
      body: transferBody,
      responses: { 200: { description: 'Where every item landed', schema: transferAnswer } },
      handler: async ({ caller, body }) => ({
        success: true,
        ...(await ops.transfer(caller, body.items, body.destination, body.operation ?? 'move', body.conflict)),
      }),
    }),
    route({
      method: 'POST',
      path: '/api/files/copy',
      access: 'account',
      summary: 'Copy items into a folder (alias of move with operation "copy")',
      tags: ['Files'],
      body: transferBody,
      responses: { 200: { description: 'Where every copy landed', schema: transferAnswer } },
      handler: async ({ caller, body }) => ({
        success: true,
        ...(await ops.transfer(caller, body.items, body.destination, 'copy', body.conflict)),
      }),
    }),
    route({
      method: 'POST',
      path: '/api/files/conflicts',
      access: 'account',
      scope: 'read',
      summary: 'The names a copy, move or upload would find taken, before any work',
      description:
        "Send `items` (what a copy or move would take) or `names` (the paths of an upload's files inside the destination: uploaded folders merge into folders of the same name, so only files meet taken names). Answers each taken name with what holds it, whether it is of the same kind, and whether this caller may replace it, so a client can ask once (keep both, skip, replace) and send its answers as `conflict`. Nothing is changed.",
      tags: ['Files'],
      body: conflictsBody,
      responses: { 200: { description: 'The taken names', schema: conflictsAnswer } },
      handler: ({ caller, body }) => ops.conflicts(caller, body),
    }),
    route({
      method: 'DELETE',
      path: '/api/files',
      access: 'account',
      summary: 'Delete items (they go to the trash)',
      tags: ['Files'],
      body: itemsBody,
      responses: {
        200: {
          description: 'Per item: deleted or missing, with the trash entry and the bindings forgotten',
          schema: deleteAnswer,
        },
      },
      handler: async ({ caller, body }) => ({ success: true, items: await ops.deleteItems(caller, body.items) }),
    }),
    route({
      method: 'POST',
      path: '/api/files/delete-impact',
      access: 'account',
      scope: 'read',
      summary: 'What deleting these items would affect, without deleting',
      tags: ['Files'],
      body: itemsBody,
      responses: {
        200: {
          description: 'Counts of files, folders, bytes, shares and favourites bound to the items',
          schema: deleteImpact,
        },
      },
      handler: ({ caller, body }) => ops.deleteImpact(caller, body.items),
    }),
    route({
      method: 'POST',
      path: '/api/files/delete-stream',
      access: 'account',
      summary: 'Delete items with a progress stream (NDJSON events start, progress, done, error)',
      tags: ['Files'],
      body: itemsBody,
      responses: { 200: { description: 'One JSON event per line', contentType: 'application/x-ndjson' } },
      handler: ({ caller, body, res }) => deleteStream(ops, caller, body.items, res),
    }),
    route({
      method: 'GET',
      path: '/api/files/recent-destinations',
      access: 'account',
      summary: 'Folders this account last copied or moved into',
      tags: ['Files'],
      responses: { 200: { description: 'Newest first', schema: recentDestinations } },
      handler: ({ caller }) => ({ destinations: ops.recentDestinations(caller) }),
    }),
  ];
}

/** The one deletion (ops.deleteItems) framed as NDJSON events. */
async function deleteStream(
  ops: FileOps,
  caller: Parameters<FileOps['deleteItems']>[0],
  items: Parameters<FileOps['deleteItems']>[1],
  res: import('node:http').ServerResponse,
): Promise<void> {
  const stream = openEventStream<DeleteEvents>(res);
  const total = items.length;
  await stream.send('start', { total });
  const done = await ops.deleteItems(caller, items, {
    progress: {
      failed: (item, err) => stream.send('error', { path: item.path, name: item.name, ...errorFields(err) }),
      done: (item, n) => stream.send('progress', { done: n, total, path: item.path, name: item.name }),
    },
  });
  await stream.done({ total, deleted: done.filter((i) => i.status === 'deleted').length, items: done });
}
