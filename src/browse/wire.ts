// Wire shapes of browsing: volumes, a folder listing, usage and metadata.
import { z } from 'zod';
import { access, fileItem, readOnlyReason } from '../files/wire.ts';
import { fileFacts } from '../metadata/wire.ts';

export const volume = z.object({
  name: z.string(),
  path: z.string(),
  kind: z.enum(['volume', 'personal']),
  readOnly: readOnlyReason,
  accessMode: z.enum(['readonly', 'readwrite']).optional(),
});
export type Volume = z.infer<typeof volume>;

export const listing = z.object({
  items: z.array(fileItem),
  access,
  current: z.object({ isDirectory: z.boolean() }),
  path: z.string(),
});
export type Listing = z.infer<typeof listing>;

export const usage = z.object({
  path: z.string(),
  size: z.number().describe('Bytes used on the file system holding the path (the same as `used`)'),
  used: z.number().describe('Bytes used on the whole file system, by anything on it'),
  free: z.number().describe('Bytes free on the file system for this server'),
  total: z.number().describe('Size of the file system'),
  percentUsed: z.number(),
  held: z
    .object({
      bytes: z.number().describe('Bytes in the folder and everything under it'),
      complete: z.boolean().describe('false while the index is still counting it for the first time'),
      lastUpdated: z.string().nullable(),
    })
    .nullable()
    .describe(
      "What the folder at the path holds (a volume: what it stores), from the folder-size index when FOLDER_SIZE_MODE=full; null when the index has no such figure (off, shallow, not walked yet). For a file, its size. The other figures are the whole file system's, shared by every folder on it.",
    ),
});
export type Usage = z.infer<typeof usage>;

const treeTotals = z.object({
  totalSize: z.number(),
  fileCount: z.number().int(),
  dirCount: z.number().int(),
  truncated: z.boolean(),
});

export const metadata = z.object({
  path: z.string(),
  name: z.string(),
  kind: z.string(),
  size: z.number(),
  dateModified: z.string(),
  dateCreated: z.string(),
  access,
  directory: treeTotals
    .optional()
    .describe('A folder: totals counted now (bounded; `truncated` when the bound was reached)'),
  ...fileFacts.shape,
});
export type Metadata = z.infer<typeof metadata>;
