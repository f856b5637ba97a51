// Wire shapes of the editor rows.
import { z } from 'zod';

export const editorText = z.object({ content: z.string() });
export type EditorText = z.infer<typeof editorText>;
export const savedAnswer = z.object({ success: z.boolean() });
export const editorRead = z.object({ path: z.string() });
export const editorSave = z.object({ path: z.string(), content: z.string() });
