// Wire shapes of the upload rows: the multipart answer is the one FileItem (files/wire.ts); the
// TUS answers say everything in their headers.
import { z } from 'zod';
import { conflictPolicy, displacedFields, fileItem, outcome } from '../files/wire.ts';
import { queryPath } from '../http/query.ts';

/** One file of an upload as stored (a skipped one: the file that kept the name), and what became of it. */
export const uploadedItem = fileItem.extend({ outcome, ...displacedFields });
export type UploadedItem = z.infer<typeof uploadedItem>;
/** The stored files of a multipart upload, in the order sent, with their final names. */
export const uploadedItems = z.array(uploadedItem);

/**
 * The query string of POST /api/upload: `uploadTo` is the destination of every file that no
 * `uploadTo` field precedes; `relativePath` names the request's one file.
 */
export const uploadQuery = z.object({
  uploadTo: queryPath('virtual', z.string().max(4096).optional()),
  relativePath: queryPath('inner', z.string().max(4096).optional()),
  conflict: conflictPolicy
    .optional()
    .describe('For every file that no `conflict` field precedes (default `rename`, keep both)'),
});
export type UploadQuery = z.infer<typeof uploadQuery>;

/** A TUS upload's id as its URL names it; an unknown one answers 404 with the TUS headers. */
export const tusParams = z.object({ id: z.string().min(1) });

/** A protocol answer whose meaning is in its headers. */
export const noBody = (description: string) => ({ description, contentType: 'text/plain', schema: z.string().max(0) });
