// Wire shapes of the archive rows: spec §2 Archive listing, §4.4 archive rows, §6 events, and
// the native client's one-shot zip routes (wire-shapes "POST /api/files/zip/extract", "…/compress").
import { z } from 'zod';
import { wireFileItem } from '../files/items.ts';
import { conflict, conflictPolicy, displacedFields, outcome } from '../files/wire.ts';
import { queryPath } from '../http/query.ts';

const virtualPath = z.string().max(4096);
const entryName = z.string().min(1).max(4096);

export const listQuery = z.object({
  path: queryPath('virtual', virtualPath),
  inside: queryPath('inner', z.string().max(4096).optional()),
  offset: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(100_000).optional(),
});

export const entryQuery = z.object({ path: queryPath('virtual', virtualPath), entry: queryPath('inner', entryName) });

export const listedEntry = z.object({
  name: z.string(),
  path: z.string(),
  isDirectory: z.boolean(),
  size: z.number().int().nullable(),
  modified: z.string().nullable(),
  encrypted: z.boolean().optional(),
});

export const archiveListing = z.object({
  path: z.string(),
  name: z.string(),
  inside: z.string().optional(),
  entries: z.array(listedEntry),
  total: z.number().int(),
  outside: z.number().int(),
});
export type ArchiveListing = z.infer<typeof archiveListing>;

export const extractBody = z.object({
  path: virtualPath,
  /** Entries to take out (a folder stands for everything under it); empty or absent: all. */
  entries: z.array(entryName).max(100_000).default([]),
  /** Folder to extract into; the archive's own folder when absent. */
  destination: virtualPath.optional(),
  /** What a selected entry does when its name is taken in the destination (files' policy). */
  conflict: conflictPolicy.optional(),
  conflictFor: z
    .record(entryName, conflictPolicy)
    .optional()
    .describe(
      "Per selected item (as `entries` names it, or as POST /api/archive/conflicts answers `entry`; the archive's top-level items when `entries` is empty): over `conflict`",
    ),
});

/** POST /api/archive/conflicts: what an extraction with this body would find taken. */
export const extractConflictsBody = extractBody.pick({ path: true, entries: true, destination: true });
export const extractConflicts = z.object({
  destination: z.string(),
  conflicts: z.array(
    conflict.omit({ from: true }).extend({
      entry: z.string().describe('The selected item as the archive names it: the key for `conflictFor`'),
      incoming: listedEntry.describe('What the extraction would put there'),
    }),
  ),
  canReplace: z.boolean().describe('Whether any replace is possible in the destination at all'),
});
export type ExtractConflicts = z.infer<typeof extractConflicts>;

/** A selected entry in the destination: the name it took (or, skipped, the name that keeps what was there). */
const landedEntry = z.object({
  entry: z.string(),
  name: z.string(),
  outcome,
  ...displacedFields,
});

/** The event lines, described for OpenAPI (one object per line, `type` first). */
export const extractEvent = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('start'),
    archive: z.string(),
    entries: z.number().int().nullable(),
    bytes: z.number().int().nullable(),
  }),
  z.object({
    type: z.literal('progress'),
    entries: z.number().int(),
    bytes: z.number().int(),
    totalEntries: z.number().int().nullable(),
    totalBytes: z.number().int().nullable(),
  }),
  z.object({ type: z.literal('error'), message: z.string(), statusCode: z.number().int(), code: z.string() }),
  z.object({
    type: z.literal('done'),
    entries: z.number().int(),
    bytes: z.number().int(),
    landed: z.array(landedEntry),
    skipped: z.array(z.object({ entry: z.string(), reason: z.enum(['link', 'device']) })),
  }),
]);
export type ExtractEvent = z.infer<typeof extractEvent>;
/** NDJSON events of POST /api/archive/extract (spec §6) by their `type`, without it: the stream's fields. */
export type ExtractEvents = { [E in ExtractEvent as E['type']]: Omit<E, 'type'> };

export const zipExtractBody = z.object({
  path: virtualPath,
  /** The backend's form: only a new folder beside the archive is offered. */
  destination: z.literal('folder').optional(),
});

export const zipCompressBody = z.object({
  items: z
    .array(z.object({ path: virtualPath, name: z.string().min(1).max(255) }))
    .min(1)
    .max(10_000),
  /** Folder that receives the zip; the first item's folder when absent (beside the selection). */
  destination: virtualPath.optional(),
  name: z.string().min(1).max(255).optional(),
});

export const createdItem = z.object({ success: z.literal(true), item: wireFileItem });
export type CreatedItem = z.infer<typeof createdItem>;
