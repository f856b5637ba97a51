// Wire shapes of the editor rows.
import { z } from 'zod';
import { queryPath } from '../http/query.ts';

export const editorText = z.object({ content: z.string() });
export type EditorText = z.infer<typeof editorText>;
export const savedAnswer = z.object({ success: z.boolean() });
export const editorRead = z.object({ path: z.string() });
/** GET /api/editor's query: the same path, read as http/query.ts reads paths. */
export const editorQuery = z.object({ path: queryPath('virtual', z.string()) });
export const editorSave = z.object({ path: z.string(), content: z.string() });

/** The If-Match of both editor saves (this one and a link's). */
export const IF_MATCH =
  'The ETag the text was read with: the save is refused (412 EDITOR_CHANGED, nothing written) unless the file still has it. `*`: only when the file exists. Without it the save replaces whatever is there (kept as a version).';
