// Wire shapes of the versions rows.
import { z } from 'zod';

export const versionEntry = z.object({
  id: z.string(),
  path: z.string(),
  size: z.number(),
  modifiedAt: z.string(),
  createdAt: z.string(),
  createdBy: z.string().nullable(),
});
export type VersionEntryWire = z.infer<typeof versionEntry>;
export const versionList = z.object({ items: z.array(versionEntry) });
export const versionParams = z.object({ id: z.string().min(1) });
export const versionText = z.object({ content: z.string(), path: z.string() });
export type VersionText = z.infer<typeof versionText>;
export const restoredAnswer = z.object({ success: z.boolean(), path: z.string() });
