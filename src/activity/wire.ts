// Wire shapes of the activity log rows (administrator session only).
import { z } from 'zod';

const isoDate = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date')
  .transform((v) => new Date(v).toISOString());

export const listQuery = z.object({
  action: z.string().max(100).optional(),
  outcome: z.enum(['success', 'failure']).optional(),
  user: z.string().max(254).optional(),
  from: isoDate.optional(),
  to: isoDate.optional(),
  q: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  before: z.string().regex(/^\d+$/, 'must be the nextBefore of the previous page').transform(Number).optional(),
});
export type ActivityQuery = z.infer<typeof listQuery>;

export const activityRow = z.object({
  id: z.string(),
  time: z.string(),
  action: z.string(),
  outcome: z.string(),
  userId: z.string().nullable(),
  username: z.string().nullable(),
  address: z.string().nullable(),
  /** The action's own fields (JSON), or the stored text when it is not JSON. */
  detail: z.unknown(),
});
export type ActivityRow = z.infer<typeof activityRow>;

export const activityPage = z.object({
  rows: z.array(activityRow),
  /** Pass as `before` for the next page; null on the last one. */
  nextBefore: z.string().nullable(),
  enabled: z.boolean(),
  /** Every action name this build writes, then others seen since start. */
  actions: z.array(z.string()),
});
export type ActivityPage = z.infer<typeof activityPage>;

export const cleared = z.object({ removed: z.number().int() });

export const addressReport = z.object({
  /** The address the log records for this request. */
  recorded: z.string(),
  peer: z.string(),
  trustsPeer: z.boolean(),
  trustProxy: z.string(),
  forwardedChain: z.array(z.string()),
  /** Forwarding headers as they arrived. */
  headers: z.record(z.string(), z.string()),
});
export type AddressReport = z.infer<typeof addressReport>;
