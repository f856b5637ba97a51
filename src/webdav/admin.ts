// The locks as Administration sees them; a break is on the activity log.
import path from 'node:path';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import type { ActivityEvent } from '../activity/service.ts';
import type { DavStore } from './store.ts';
import type { z } from 'zod';
import type { davLock } from './wire.ts';

export interface DavLockAdmin {
  list(): z.infer<typeof davLock>[];
  break(token: string, caller: Caller): void;
}

/** The text of a DAV:owner element (`<D:href>alice laptop</D:href>` → `alice laptop`). */
const ownerText = (xml: string | null) =>
  xml
    ?.replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim() || null;

export function createDavLockAdmin(store: DavStore, activity: { record(event: ActivityEvent): void }): DavLockAdmin {
  return {
    list: () =>
      store.allLocksWithNames().map((l) => ({
        token: l.token,
        path: l.relative ? path.join(l.space_root, l.relative) : l.space_root,
        depth: l.depth === -1 ? 'infinity' : '0',
        scope: l.scope,
        userId: l.user_id,
        username: l.username,
        client: ownerText(l.owner_xml),
        createdEmptyFile: l.created_resource === 1,
        createdAt: l.created_at,
        expiresAt: new Date(l.expires_at).toISOString(),
      })),
    break(token, caller) {
      const held = store.lock(token);
      if (!held || !store.removeLock(token)) throw new AppError('NOT_FOUND', 'No such lock is in force.');
      activity.record({
        action: 'admin.lock-break',
        outcome: 'success',
        userId: caller.userId,
        username: caller.username,
        ...(caller.address ? { ip: caller.address } : {}),
        detail: {
          path: held.relative ? path.join(held.space_root, held.relative) : held.space_root,
          lockedBy: held.user_id,
        },
      });
    },
  };
}
