// Wire shapes of downloads.
import { z } from 'zod';

export const selection = z.object({
  path: z.string().optional(),
  paths: z.array(z.string()).max(10_000).optional(),
  items: z
    .array(z.object({ path: z.string(), name: z.string() }))
    .max(10_000)
    .optional(),
  name: z.string().optional(),
  compress: z
    .boolean()
    .optional()
    .describe(
      'A smaller zip: files that shrink are deflated (slower to make; worth it on a slow link). By default every file is stored, as fast as it is read.',
    ),
});
export type Selection = z.infer<typeof selection>;
export const downloadPlan = z.object({
  files: z.number().int(),
  folders: z.number().int(),
  totalBytes: z.number(),
  archiveName: z.string().nullable(),
  fileName: z.string().optional().describe('One file: its name'),
  isArchive: z.boolean(),
});
export type DownloadPlan = z.infer<typeof downloadPlan>;
