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
  complete: z
    .boolean()
    .describe(
      'This answer is final. False while the index is still counting the folder: its first walk is due or under way (`indexed` false, a figure comes when it ends), or a part of it could not be read yet (`sizeBytes` is then a lower bound; the paced sweep counts it again), or a change below it is not counted yet (a write through this instance or another, an outside change another instance found: counted a moment later). True with `indexed` false: the index keeps no figure for it (off, excluded, not a folder).',
    ),
});
export type FolderSizeRecord = z.infer<typeof folderSizeRecord>;
