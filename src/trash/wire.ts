// Wire shapes of the trash rows.
import { z } from 'zod';
import { fileItem } from '../files/wire.ts';

export const trashEntry = z.object({
  id: z.string(),
  name: z.string(),
  path: z.string().describe('The folder it was deleted from'),
  originalPath: z.string(),
  isDirectory: z.boolean(),
  kind: z.string(),
  size: z.number().nullable(),
  deletedAt: z.string(),
  deletedBy: z.string(),
});
export type TrashEntry = z.infer<typeof trashEntry>;
export const trashList = z.object({ items: z.array(trashEntry) });
export const trashParams = z.object({ id: z.string().min(1) });
export const restoreBody = z.object({ destination: z.string().optional() });
export const restoreAnswer = z.object({
  success: z.boolean(),
  item: fileItem,
  path: z.string().describe("The restored item's full path"),
});
export type RestoreAnswer = z.infer<typeof restoreAnswer>;
export const emptyAnswer = z.object({ removed: z.number().int() });
export const trashText = z.object({ content: z.string(), name: z.string() });
export type TrashText = z.infer<typeof trashText>;
