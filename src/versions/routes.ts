// Versions routes: list the kept contents of a file, read one as text, restore, restore as a
// copy, delete.
import { z } from 'zod';
import { noContent, route, wholeText } from '../http/route.ts';
import { itemAnswer } from '../files/wire.ts';
import type { VersionActions } from './actions.ts';
import { restoredAnswer, versionList, versionParams, versionText } from './wire.ts';
import { queryPath } from '../http/query.ts';

export function versionRoutes(versions: VersionActions) {
  return [
    route({
      method: 'GET',
      path: '/api/versions',
      access: 'account',
      summary: 'Earlier versions of a file, newest first',
      tags: ['Versions'],
      query: z.object({ path: queryPath('virtual', z.string()) }),
      responses: { 200: { description: 'The versions', schema: versionList } },
      handler: ({ caller, query }) => versions.list(caller, query.path),
    }),
    route({
      method: 'GET',
      path: '/api/versions/:id/text',
      access: 'account',
      summary: 'Text of an earlier version (compressed over 32 KB when accepted)',
      tags: ['Versions'],
      params: versionParams,
      // A wholeText reply (compression).
      responses: {
        200: { description: 'The text', schema: versionText },
        400: 'Over EDITOR_MAX_FILESIZE',
        415: 'Binary file',
      },
      handler: async ({ caller, params }) => wholeText(await versions.text(caller, params.id)),
    }),
    route({
      method: 'POST',
      path: '/api/versions/:id/restore',
      access: 'account',
      summary: 'Put this version back (the current content is kept as a version)',
      tags: ['Versions'],
      params: versionParams,
      responses: { 200: { description: 'The restored file', schema: restoredAnswer } },
      handler: ({ caller, params }) => versions.restore(caller, params.id),
    }),
    route({
      method: 'POST',
      path: '/api/versions/:id/restore-copy',
      access: 'account',
      summary: 'Save this version beside the file as `name (1).ext`',
      tags: ['Versions'],
      status: 201,
      params: versionParams,
      responses: { 201: { description: 'The copy', schema: itemAnswer } },
      handler: ({ caller, params }) => versions.restoreAsCopy(caller, params.id),
    }),
    route({
      method: 'DELETE',
      path: '/api/versions/:id',
      access: 'account',
      summary: 'Forget one version',
      tags: ['Versions'],
      params: versionParams,
      responses: { 204: 'Removed' },
      handler: async ({ caller, params }) => (await versions.remove(caller, params.id), noContent()),
    }),
  ];
}
