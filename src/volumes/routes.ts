// Assigned volumes (administrator): the rows; the rules are in service.ts.
import { z } from 'zod';
import { noContent, route } from '../http/route.ts';
import type { AssignedVolumes } from './service.ts';
import { accountParams, userVolume, volumeParams } from './wire.ts';
import { queryPath } from '../http/query.ts';

export function volumeRoutes(volumes: AssignedVolumes) {
  return [
    route({
      method: 'GET',
      path: '/api/users/:id/volumes',
      access: 'admin',
      summary: 'Volumes assigned to an account',
      tags: ['Accounts'],
      params: accountParams,
      responses: { 200: { description: '`{ volumes }`', schema: z.object({ volumes: z.array(userVolume) }) } },
      handler: ({ params }) => volumes.list(params.id),
    }),
    route({
      method: 'POST',
      path: '/api/users/:id/volumes',
      access: 'admin',
      summary: 'Assign a host folder to an account under a label',
      tags: ['Accounts'],
      status: 201,
      params: accountParams,
      body: z.object({
        label: z.string(),
        path: z.string(),
        accessMode: z.enum(['readonly', 'readwrite']).default('readonly'),
      }),
      responses: { 201: { description: '`{ volume }`', schema: z.object({ volume: userVolume }) } },
      handler: ({ params, body }) => volumes.assign(params.id, body),
    }),
    route({
      method: 'PATCH',
      path: '/api/users/:id/volumes/:volumeId',
      access: 'admin',
      summary: 'Change the access mode or label of an assigned volume',
      tags: ['Accounts'],
      params: volumeParams,
      body: z.object({ accessMode: z.enum(['readonly', 'readwrite']).optional(), label: z.string().optional() }),
      responses: { 200: { description: '`{ volume }`', schema: z.object({ volume: userVolume }) } },
      handler: ({ params, body }) => volumes.change(params.id, params.volumeId, body),
    }),
    route({
      method: 'DELETE',
      path: '/api/users/:id/volumes/:volumeId',
      access: 'admin',
      summary: 'Remove an assigned volume (the folder itself is untouched)',
      tags: ['Accounts'],
      params: volumeParams,
      responses: { 204: 'Removed' },
      handler: ({ params }) => {
        volumes.remove(params.id, params.volumeId);
        return noContent();
      },
    }),
    route({
      method: 'GET',
      path: '/api/admin/browse-directories',
      access: 'admin',
      summary: 'Folders of the host (to pick an assigned volume path)',
      tags: ['Administration'],
      query: z.object({ path: queryPath('host', z.string().optional()) }),
      responses: {
        200: {
          description: 'current, parent, directories (absolute host paths)',
          schema: z.object({
            current: z.string(),
            parent: z.string().nullable(),
            directories: z.array(z.object({ name: z.string(), path: z.string() })),
          }),
        },
      },
      handler: ({ query }) => volumes.hostFolders(query.path),
    }),
  ];
}
