// Wire shapes of folder sizes.
import { z } from 'zod';

export const folderSizeRecord = z.object({
  path: z.string(),
  canEnter: z.boolean().describe('The caller may open the folder (its size is reported either way)'),
  sizeBytes: z
    .number()
    .int()
    .nullable()
    .describe('Recursive size (FOLDER_SIZE_MODE=full) or of the direct files (shallow); null when not indexed'),
  entryCount: z.number().int(),
  lastUpdated: z.string().nullable(),
  indexed: z.boolean(),
});
export type FolderSizeRecord = z.infer<typeof folderSizeRecord>;
