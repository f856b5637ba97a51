// Trash routes: list, restore (to where it was or a chosen folder, never over a name), purge,
// empty, and the text of a trashed file.
import { noContent, route, wholeText } from '../http/route.ts';
import type { TrashActions } from './actions.ts';
import { emptyAnswer, restoreAnswer, restoreBody, trashList, trashParams, trashText } from './wire.ts';

export function trashRoutes(trash: TrashActions) {
  return [
    route({
      method: 'GET',
      path: '/api/trash',
      access: 'account',
      summary:
        'Items in the trash of the spaces this account sees, newest first; none whose original place an access rule now hides from it',
      tags: ['Trash'],
      responses: { 200: { description: 'The trashed items', schema: trashList } },
      handler: ({ caller }) => trash.list(caller),
    }),
    route({
      method: 'POST',
      path: '/api/trash/items/:id/restore',
      access: 'account',
      summary: 'Restore a trashed item to where it was, or into `destination`; a taken name becomes `name (1)`',
      tags: ['Trash'],
      params: trashParams,
      body: restoreBody,
      responses: { 200: { description: 'The restored item', schema: restoreAnswer } },
      handler: ({ caller, params, body }) => trash.restore(caller, params.id, body.destination),
    }),
    route({
      method: 'DELETE',
      path: '/api/trash/items/:id',
      access: 'account',
      summary: 'Remove one trashed item for good (403 READ_ONLY unless the account may now delete where it was)',
      tags: ['Trash'],
      params: trashParams,
      responses: { 204: 'Removed' },
      handler: async ({ caller, params }) => (await trash.purge(caller, params.id), noContent()),
    }),
    route({
      method: 'DELETE',
      path: '/api/trash',
      access: 'account',
      summary: 'Empty the trash of the spaces this account sees, of what it may now delete where it was',
      tags: ['Trash'],
      responses: { 200: { description: 'How many items were removed', schema: emptyAnswer } },
      handler: ({ caller }) => trash.empty(caller),
    }),
    route({
      method: 'GET',
      path: '/api/trash/items/:id/text',
      access: 'account',
      summary: 'Text of a trashed file (compressed over 32 KB when accepted)',
      tags: ['Trash'],
      params: trashParams,
      // A wholeText reply (compression).
      responses: {
        200: { description: 'The text', schema: trashText },
        400: 'Over EDITOR_MAX_FILESIZE',
        415: 'Binary file',
      },
      handler: async ({ caller, params }) => wholeText(await trash.text(caller, params.id)),
    }),
  ];
}
