// Wire shapes of "Add from link" (fetch a file from a web address into a folder).
import { z } from 'zod';
import { conflictPolicy } from '../files/wire.ts';
import { uploadedItem } from '../uploads/wire.ts';

export const fetchBody = z.object({
  url: z.string().min(1).max(8192).describe('An http or https address, without user name or password'),
  uploadTo: z.string().max(4096).describe('The folder the file goes into (a virtual path)'),
  name: z
    .string()
    .max(1024)
    .optional()
    .describe("The file's name; absent: Content-Disposition's, else the address's last segment"),
  conflict: conflictPolicy.optional().describe('When the name is taken (default `rename`: keep both as `name (1)`)'),
});
export type FetchBody = z.infer<typeof fetchBody>;

export const fetchJob = z.object({
  id: z.string(),
  url: z.string().describe('The address asked for (before redirects)'),
  uploadTo: z.string(),
  /** The name asked for or found; the placed name (`name (1)`) is `item.name`. */
  name: z.string(),
  state: z.enum(['running', 'done', 'failed', 'cancelled']),
  received: z.number().int().nonnegative().describe('Bytes received so far'),
  total: z.number().int().nonnegative().nullable().describe('Content-Length, when the server sent one'),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  item: uploadedItem.optional().describe('The placed file (state `done`), with what became of the name'),
  error: z.object({ code: z.string(), message: z.string() }).optional().describe('Why it failed or was cancelled'),
});
export type FetchJob = z.infer<typeof fetchJob>;

export const fetchJobs = z.object({ jobs: z.array(fetchJob) });
export const fetchParams = z.object({ id: z.string().min(1).max(64) });
