// GET/PUT/DELETE /api/folder-prefs/*: this account's view and sort for a folder.
import { noContent, route } from '../http/route.ts';
import { virtualPathParams } from '../files/wire.ts';
import type { FolderPrefService } from './service.ts';
import { folderPrefs, folderPrefsAnswer } from './wire.ts';

export function folderPrefRoutes(prefs: FolderPrefService) {
  return [
    route({
      method: 'GET',
      path: '/api/folder-prefs/*',
      access: 'account',
      summary: "This account's view and sort for a folder",
      tags: ['Browse'],
      description:
        'Root = `/api/folder-prefs/`. Answers the defaults (`list`, `name`, `asc`) with `saved: false` when nothing was chosen for the folder.',
      params: virtualPathParams,
      responses: { 200: { description: 'The preferences', schema: folderPrefsAnswer } },
      handler: ({ caller, params }) => prefs.read(caller, params.path),
    }),
    route({
      method: 'PUT',
      path: '/api/folder-prefs/*',
      access: 'account',
      summary: "Remember this account's view and sort for a folder",
      tags: ['Browse'],
      description:
        'Any of `view` (`list`|`grid`), `sortBy` (`name`|`size`|`modified`|`kind`), `sortDir` (`asc`|`desc`); keys left out keep their value. Only reading the folder is needed: nothing is written in it.',
      params: virtualPathParams,
      body: folderPrefs.partial().strict(),
      responses: { 200: { description: 'The preferences now in force', schema: folderPrefsAnswer } },
      handler: ({ caller, params, body }) => prefs.write(caller, params.path, body),
    }),
    route({
      method: 'DELETE',
      path: '/api/folder-prefs/*',
      access: 'account',
      summary: "Forget this account's view and sort for a folder",
      tags: ['Browse'],
      params: virtualPathParams,
      responses: { 204: 'Forgotten (also when nothing was saved)' },
      handler: async ({ caller, params }) => (await prefs.forget(caller, params.path), noContent()),
    }),
  ];
}
