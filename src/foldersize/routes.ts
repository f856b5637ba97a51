// GET /api/folder-size/{path} and POST /api/folder-size/batch.
import { z } from 'zod';
import { route } from '../http/route.ts';
import { folderSizeRecord as record } from './wire.ts';
import { virtualPathParams } from '../files/wire.ts';
import type { createFolderSizes } from './service.ts';

export function folderSizeRoutes(sizes: ReturnType<typeof createFolderSizes>) {
  return [
    route({
      method: 'GET',
      path: '/api/folder-size/*',
      access: 'account',
      tags: ['Files'],
      summary: 'Size of a folder from the folder-size index',
      description:
        'A lookup in the index, never a walk: an un-indexed folder answers 200 with `indexed: false` and `sizeBytes: null`; `complete` false says the figure is still being counted (ask again later).',
      params: virtualPathParams,
      responses: {
        200: { description: 'Folder size record', schema: record },
        400: 'Bad path',
        401: 'Not signed in',
        404: 'Unknown volume',
      },
      handler: ({ caller, params }) => sizes.record(caller, params.path),
    }),
    route({
      method: 'POST',
      path: '/api/folder-size/batch',
      access: 'account',
      scope: 'read',
      tags: ['Files'],
      summary: 'Sizes of several folders',
      description: 'One record per path, in order; a path that cannot be answered gets an un-indexed record.',
      body: z.object({ paths: z.array(z.string()).max(1000) }),
      responses: {
        200: { description: 'Records', schema: z.object({ items: z.array(record) }) },
        400: 'Bad body',
        401: 'Not signed in',
      },
      handler: async ({ caller, body }) => ({ items: await sizes.batch(caller, body.paths) }),
    }),
  ];
}
