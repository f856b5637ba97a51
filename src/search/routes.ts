// GET /api/search.
import { z } from 'zod';
import { route } from '../http/route.ts';
import { SEARCH_SORTS, searchAnswer } from './wire.ts';
import type { createSearch } from './service.ts';
import { queryPath } from '../http/query.ts';
import { KINDS } from './fields.ts';

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
        '`truncated`: the time budget (SEARCH_TIME_BUDGET_MS) ran out before every place was searched; `complete`: the page is the whole answer. ' +
        'Fields narrow it, written in `q` (`kind:photo ext:pdf size:>100MB modified:<2024-06 taken:2025 camera:pixel artist:"Nina Simone" album:Blue tag:receipts in:"Family Photos"`, a quoted phrase as its words) ' +
        'or as the parameters below with the same values; several narrow together. `taken`, `camera`, `artist` and `album` are what photos (EXIF) and songs (their tags) say of themselves, as the index read them: ' +
        'a file it has not read yet, or that does not say, does not pass. ' +
        'A query of fields alone (no words) lists what passes them, newest first. ' +
        '`sort=taken` puts the photos first, newest taken first (what their EXIF says, as the index read it), in the names and in the documents; the other items follow in the order they would have had.',
      query: z.object({
        q: z.string().optional(),
        path: queryPath('virtual', z.string().optional()),
        limit: z.coerce.number().int().min(1).max(500).optional(),
        kind: z
          .string()
          .optional()
          .describe(
            `A kind or several, comma-separated: ${Object.keys(KINDS).join(', ')} (music, image, … are read too)`,
          ),
        ext: z.string().optional().describe('Extensions, comma-separated, without the dot: `pdf`, `jpg,png`'),
        size: z
          .string()
          .optional()
          .describe('Bytes with a unit (B, KB, MB, GB, TB; 1024-based): `>100MB`, `<=2GB`, `10MB..1GB`'),
        modified: z
          .string()
          .optional()
          .describe(
            'A year, month or day (UTC) with `<`, `<=`, `>`, `>=` or a range: `2024`, `<2024-06`, `2024-01..2024-03-15`',
          ),
        taken: z
          .string()
          .optional()
          .describe(
            "When a photo was taken (EXIF, the camera's clock), as `modified`: `2025`, `>=2024-06`, `2023-12-24..2024-01-02`",
          ),
        camera: z.string().optional().describe("Words of a photo's camera (make and model): `pixel`, `Canon EOS`"),
        artist: z.string().optional().describe("Words of a song's artist: `Nina Simone`"),
        album: z.string().optional().describe("Words of a song's album: `Blue`"),
        tag: z.string().optional().describe("One of the caller's tags (GET /api/tags)"),
        in: z
          .string()
          .optional()
          .describe('A folder name (or the end of a path) the items must be inside: `Family Photos`'),
        sort: z
          .enum(SEARCH_SORTS)
          .optional()
          .describe(
            '`relevance` (the default): names closest first, documents most relevant first; `taken`: photos newest taken first, then the rest as they were',
          ),
      }),
      responses: {
        200: { description: 'Matches', schema: searchAnswer },
        400: 'Term shorter than 3 characters (without fields), a pattern made only of wildcards, a field that cannot be read (SEARCH_FIELD_INVALID), a bad path or limit',
        401: 'Not signed in',
        403: 'The start folder is not allowed',
        404: 'The start folder does not exist',
      },
      handler: ({ caller, query }) =>
        search.run(
          caller,
          query.q,
          query.path,
          query.limit ?? 100,
          {
            kind: query.kind,
            ext: query.ext,
            size: query.size,
            modified: query.modified,
            taken: query.taken,
            camera: query.camera,
            artist: query.artist,
            album: query.album,
            tag: query.tag,
            in: query.in,
          },
          query.sort,
        ),
    }),
  ];
}
