// Wire shapes of the index's own state (Administration → Installation, GET /api/admin/index).
import { z } from 'zod';
import { DOC_STATUSES, EXTRACTED_KINDS } from './extract.ts';

const docKind = z.enum(EXTRACTED_KINDS).describe('pdf, epub, rtf, html, or office (docx/xlsx/pptx, odt/ods/odp)');
const docStatus = z
  .enum(DOC_STATUSES)
  .describe(
    'indexed: its words are searchable; empty: it holds no text; no-text-layer: a PDF whose pages are pictures only (scanned); ' +
      'encrypted: a password is needed; broken: not readable as its kind; too-large: past the size, unpacked-size or memory limit; ' +
      "timed-out: past SEARCH_EXTRACT_TIMEOUT_MS; deferred: the walk's SEARCH_EXTRACT_RUN_MS was spent (read at the next walk of its folder)",
  );

export const indexReport = z.object({
  enabled: z.boolean().describe('SEARCH_INDEX_ENABLED: documents are read for search at all'),
  roots: z
    .array(
      z.object({
        path: z.string().describe('The indexed folder on this computer'),
        state: z
          .enum(['pending', 'sized', 'ready', 'dropping'])
          .describe(
            'pending: its first walk is due or under way; sized: folder sizes known, names and documents still being read; ready; dropping: being forgotten',
          ),
      }),
    )
    .describe('The folders the index covers'),
  documents: z
    .array(z.object({ kind: docKind, status: docStatus, count: z.number().int() }))
    .describe('Documents of the kinds that need a reader, by kind and by what became of them'),
  notIndexed: z
    .array(
      z.object({
        folder: z.string().describe('The folder on this computer holding it'),
        name: z.string(),
        kind: docKind,
        status: docStatus,
        pages: z.number().int().nullable().describe('PDF pages or EPUB chapters, when known'),
        at: z.string().describe('When it was read (ISO 8601)'),
      }),
    )
    .describe('The latest documents (at most 100) whose words could not be indexed, newest first'),
});
export type IndexReport = z.infer<typeof indexReport>;
