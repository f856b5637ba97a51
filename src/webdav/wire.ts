// Shapes of Administration → Locks (the WebDAV locks in force).
import { z } from 'zod';

export const davLock = z.object({
  token: z.string().describe('The lock token (`urn:uuid:…`), as WebDAV clients send it'),
  path: z.string().describe('Where the locked item is on this computer'),
  depth: z.enum(['0', 'infinity']).describe('`infinity`: a folder and everything in it'),
  scope: z.enum(['exclusive', 'shared']),
  userId: z.string(),
  username: z.string().nullable().describe('null when the account is gone'),
  client: z.string().nullable().describe("The client's own description of the lock owner (DAV:owner), as text"),
  createdEmptyFile: z.boolean().describe('The LOCK made the (empty) file at a name that did not exist'),
  createdAt: z.string(),
  expiresAt: z.string(),
});

export const davLockList = z.object({ locks: z.array(davLock) });
export const davLockToken = z.object({ token: z.string().min(1).max(200) });
