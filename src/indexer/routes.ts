// GET /api/admin/index: the index's state (Administration → Installation).
import { route } from '../http/route.ts';
import { indexReport } from './wire.ts';
import type { IndexReport } from './wire.ts';

export function indexRoutes(report: () => IndexReport) {
  return [
    route({
      method: 'GET',
      path: '/api/admin/index',
      access: 'admin',
      tags: ['Administration'],
      summary: 'The search index: the folders it covers and what became of the documents it reads',
      description:
        'PDF (its text layer), EPUB, RTF, HTML and office documents are read in the background by a reader bounded per document ' +
        '(SEARCH_EXTRACT_MAX_SIZE, SEARCH_EXTRACT_MAX_PAGES, SEARCH_EXTRACT_TIMEOUT_MS, and memory) and per walk (SEARCH_EXTRACT_RUN_MS); ' +
        'a document it could not read is skipped and counted here with the reason.',
      responses: { 200: { description: 'The index state', schema: indexReport }, 403: 'Not an administrator' },
      handler: () => report(),
    }),
  ];
}
