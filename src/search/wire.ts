// Wire shapes of search.
import { z } from 'zod';

/** `relevance`: names closest first, documents most relevant first; `taken`: photos newest taken first (each list), the rest after them as they were. */
export const SEARCH_SORTS = ['relevance', 'taken'] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

export const searchItem = z.object({
  name: z.string(),
  path: z.string().describe('The folder holding the match ("" at the top)'),
  kind: z.enum(['dir', 'file']),
  matchLine: z.string().optional().describe('For a document match: the line holding the term'),
  matchLineNumber: z
    .number()
    .int()
    .optional()
    .describe('1-based number of that line (in a PDF: of the lines of its page)'),
  matchPage: z.number().int().optional().describe('For a PDF: the 1-based page holding that line'),
});
export type SearchItem = z.infer<typeof searchItem>;
export const searchAnswer = z.object({ items: z.array(searchItem), truncated: z.boolean(), complete: z.boolean() });
