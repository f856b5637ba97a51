// Wire shapes of the files family (wire-shapes §1): the one FileItem and Access every answer
// that carries items uses (browse, files, uploads, trash, versions, archives, shares), and the
// answers of the file operation rows. The UI imports these types (type-only).
import { z } from 'zod';

/** FileItem as the native client decodes it (wire-shapes §1.1): `path` is the parent folder. */
export const fileItem = z.object({
  name: z.string(),
  path: z.string().describe('The parent folder ("" at the top)'),
  dateModified: z.string(),
  size: z.number().int(),
  kind: z.string().describe('`directory`, the lower-cased extension, or `unknown`'),
  supportsThumbnail: z.boolean().optional(),
});
export type FileItem = z.infer<typeof fileItem>;

export const readOnlyReason = z.enum(['storage', 'permission', 'access']).nullable();
export type ReadOnlyReason = z.infer<typeof readOnlyReason>;

export const access = z.object({
  canRead: z.boolean(),
  canWrite: z.boolean(),
  canUpload: z.boolean(),
  canDelete: z.boolean(),
  canShare: z.boolean(),
  canDownload: z.boolean(),
  canCreateFolder: z.boolean(),
  canCreateFile: z.boolean(),
  canRename: z.boolean().optional().describe('Set inside a link, where renaming is its own flag'),
  readOnly: readOnlyReason,
});
export type Access = z.infer<typeof access>;

/** A wildcard path parameter: a virtual path, "" for the top. */
export const virtualPathParams = z.object({ path: z.string().max(4096) });

export const itemRef = z.object({ path: z.string(), name: z.string(), kind: z.string().optional() });
export type ItemRef = z.infer<typeof itemRef>;
export const itemsBody = z.object({ items: z.array(itemRef).min(1).max(10_000) });
export const transferBody = z.object({
  items: z.array(itemRef).min(1).max(10_000),
  destination: z.string(),
  operation: z.enum(['copy', 'move']).optional(),
});

export const itemAnswer = z.object({ success: z.boolean(), item: fileItem });
export type ItemAnswer = z.infer<typeof itemAnswer>;

export const transferResult = z.object({ from: z.string(), to: z.string(), skipped: z.boolean().optional() });
export type TransferResult = z.infer<typeof transferResult>;
export const transferAnswer = z.object({
  success: z.boolean(),
  destination: z.string(),
  items: z.array(transferResult),
});
export type TransferAnswer = z.infer<typeof transferAnswer>;

export const deletedItem = z.object({
  path: z.string(),
  name: z.string().optional(),
  status: z.enum(['deleted', 'missing', 'failed']),
  trashId: z.string().nullable().optional(),
  deletedShareCount: z.number().int().optional(),
  removedFavoriteCount: z.number().int().optional(),
});
export type DeletedItem = z.infer<typeof deletedItem>;
export const deleteAnswer = z.object({ success: z.boolean(), items: z.array(deletedItem) });
export type DeleteAnswer = z.infer<typeof deleteAnswer>;

/** The events of POST /api/files/delete-stream. */
export interface DeleteEvents {
  start: { total: number };
  progress: { done: number; total: number; path: string; name?: string | undefined };
  error: { path: string; name?: string | undefined; message: string; statusCode: number; code: string };
  done: { total: number; deleted: number; items: DeletedItem[] };
}

export const deleteImpact = z.object({
  fileCount: z.number().int(),
  dirCount: z.number().int(),
  totalBytes: z.number(),
  truncated: z.boolean(),
  shareCount: z.number().int(),
  favoriteCount: z.number().int(),
  bindingCount: z.number().int(),
  shares: z.array(z.object({ sourcePath: z.string().optional(), label: z.string().nullable().optional() })),
});
export type DeleteImpact = z.infer<typeof deleteImpact>;

export const recentDestination = z.object({ path: z.string(), usedAt: z.string() });
export type RecentDestination = z.infer<typeof recentDestination>;
export const recentDestinations = z.object({ destinations: z.array(recentDestination) });
