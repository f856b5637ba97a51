// GET /api/search.
import { z } from 'zod';
import { route } from '../http/route.ts';
import { searchAnswer } from './wire.ts';
import type { createSearch } from './service.ts';
import { queryPath } from '../http/query.ts';

export function searchRoutes(search: ReturnType<typeof createSearch>) {
  return [
    route({
      method: 'GET',
      path: '/api/search',
      access: 'account',
      tags: ['Browse'],
      summary: 'Search names and document text',
      description:
        'The term (`q`, at least 3 characters) is a word or its beginning; `*` and `?` make it a pattern whole names must match. ' +
        'Names come first (exact, then beginning with the term, then a word inside beginning with it, then containing it; shorter names first), ' +
        'then documents containing a word that begins with the term, most relevant first. `path` is the folder to search in (the top when absent). ' +
        '`truncated`: the time budget (SEARCH_TIME_BUDGET_MS) ran out before every place was searched; `complete`: the page is the whole answer.',
      query: z.object({
        q: z.string().optional(),
        path: queryPath('virtual', z.string().optional()),
        limit: z.coerce.number().int().min(1).max(500).optional(),
      }),
      responses: {
        200: { description: 'Matches', schema: searchAnswer },
        400: 'Term shorter than 3 characters, a pattern made only of wildcards, a bad path or limit',
        401: 'Not signed in',
        403: 'The start folder is not allowed',
        404: 'The start folder does not exist',
      },
      handler: ({ caller, query }) => search.run(caller, query.q, query.path, query.limit ?? 100),
    }),
  ];
}
