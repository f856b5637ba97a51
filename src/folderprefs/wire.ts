// Wire shapes of per-folder view and sort preferences.
import { z } from 'zod';

export const prefsFields = {
  view: z.enum(['list', 'grid']),
  sortBy: z.enum(['name', 'size', 'modified', 'kind']),
  sortDir: z.enum(['asc', 'desc']),
};
export const folderPrefs = z.object(prefsFields);
export type FolderPrefs = z.infer<typeof folderPrefs>;
export const folderPrefsAnswer = z.object({
  path: z.string(),
  ...prefsFields,
  saved: z.boolean(),
  updatedAt: z.string().nullable(),
});
export type FolderPrefsAnswer = z.infer<typeof folderPrefsAnswer>;
