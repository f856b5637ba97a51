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

/** What to do when an item meets a taken name (names.ts ConflictPolicy). */
export const conflictPolicy = z
  .enum(['rename', 'skip', 'replace'])
  .describe(
    '`rename` (the default): keep both, the newcomer becomes `name (1)`. `skip`: leave this item, the name keeps what it holds. `replace`: the newcomer takes the name; a file it replaces is kept as a version of it (`versionId`), a folder or an item of the other kind goes to the trash (`trashId`). Folders are never merged. Replacing needs the right to delete what is replaced.',
  );
export type ConflictPolicyWire = z.infer<typeof conflictPolicy>;
/** What became of one item (names.ts Outcome), and where a replaced item went. */
export const outcome = z
  .enum(['placed', 'renamed', 'replaced', 'skipped'])
  .describe(
    '`placed`: under its own name, nothing was there. `renamed`: the name was taken, both kept (the new name is in the answer). `replaced`: it took the name, the old item kept (`versionId` or `trashId`). `skipped`: the name was taken, nothing was done.',
  );
export const displacedFields = {
  versionId: z.string().optional().describe('A replaced file: the version holding its old content'),
  trashId: z.string().optional().describe('A replaced folder (or item of the other kind): its trash entry'),
};

export const transferItem = itemRef.extend({
  conflict: conflictPolicy.optional().describe("This item only; the body's `conflict` otherwise"),
});
export const transferBody = z.object({
  items: z.array(transferItem).min(1).max(10_000),
  destination: z.string(),
  operation: z.enum(['copy', 'move']).optional(),
  conflict: conflictPolicy.optional(),
});
export type TransferItem = z.infer<typeof transferItem>;

export const itemAnswer = z.object({ success: z.boolean(), item: fileItem });
export type ItemAnswer = z.infer<typeof itemAnswer>;

export const transferResult = z.object({
  from: z.string(),
  to: z.string().describe('Where it landed; for a skipped item, the item that keeps the name'),
  skipped: z.boolean().optional().describe('Nothing was done: a move into its own folder, or a skipped conflict'),
  outcome: outcome.or(z.literal('unchanged')).describe('`unchanged`: a move into the folder it is already in'),
  ...displacedFields,
});
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

/**
 * POST /api/files/conflicts: the names that are taken, before any work, so a client can ask
 * once. `items` (a copy or move) or `names` (an upload: each file's path inside the destination,
 * `Trip/day 1.jpg` — uploaded folders merge, so only files meet names).
 */
export const conflictsBody = z
  .object({
    destination: z.string(),
    items: z.array(itemRef).max(10_000).optional(),
    names: z.array(z.string().max(4096)).max(10_000).optional(),
  })
  .refine((b) => (b.items?.length ?? 0) + (b.names?.length ?? 0) > 0, 'Send items (copy or move) or names (upload).');
export const conflict = z.object({
  name: z.string().describe("The item's name (items) or the path as sent (names)"),
  from: z.string().optional().describe('The source item (items)'),
  existing: fileItem.describe('What holds the name now'),
  sameKind: z.boolean().describe('Both files or both folders (a file replaced by a file is kept as a version)'),
  canReplace: z.boolean().describe('Whether this caller may replace it (the right to delete it)'),
});
export const conflictsAnswer = z.object({
  destination: z.string(),
  conflicts: z.array(conflict),
  /** Whether any replace is possible here at all. */
  canReplace: z.boolean(),
});
export type ConflictsAnswer = z.infer<typeof conflictsAnswer>;
export type Conflict = z.infer<typeof conflict>;
