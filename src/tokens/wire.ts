// Wire shapes of the API token rows (spec §4.2). The secret appears in the issue answer only.
import { z } from 'zod';

export const tokenName = z.string().trim().min(1).max(100);
/** The token's public id (never its secret). */
export const tokenId = z.string().min(1);

export const wireToken = z.object({
  id: z.string(),
  name: z.string(),
  scope: z.enum(['read', 'write']),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  lastUsedIp: z.string().nullable(),
});
export type WireToken = z.infer<typeof wireToken>;

export const issueBody = z.object({
  name: tokenName,
  scope: z.enum(['read', 'write']).default('read'),
  expiresInDays: z.number().int().min(1).max(3650).nullable().default(null),
  password: z.string().max(1024).optional(),
});

export const tokenList = z.object({ tokens: z.array(wireToken) });
export const issuedToken = z.object({ token: wireToken, secret: z.string() });
export const oneToken = z.object({ token: wireToken });
export const tokenParams = z.object({ id: tokenId });
