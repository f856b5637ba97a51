// The locks as Administration sees them; a break is on the activity log.
import path from 'node:path';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import type { ActivityEvent } from '../activity/service.ts';
import type { DavStore, LockRow } from './store.ts';
import type { Node } from '@xmldom/xmldom';
import { parseXml } from './xml.ts';
import type { z } from 'zod';
import type { davLock } from './wire.ts';

export interface DavLockAdmin {
  list(): z.infer<typeof davLock>[];
  break(token: string, caller: Caller): void;
}

/** The text of a DAV:owner element (`<D:href>alice laptop</D:href>` → `alice laptop`), read by the WebDAV XML parser. */
function ownerText(xml: string | null): string | null {
  const texts: string[] = [];
  const walk = (n: Node) => {
    if (n.nodeType === 3 || n.nodeType === 4) texts.push(n.nodeValue ?? '');
    for (let c = n.firstChild; c; c = c.nextSibling) walk(c);
  };
  const owner = xml ? parseXml(xml) : null;
  if (owner) walk(owner);
  return texts.join(' ').replace(/\s+/g, ' ').trim() || null;
}

/** The locked item's place on this computer. */
const placeOf = (l: LockRow) => (l.relative ? path.join(l.space_root, l.relative) : l.space_root);

export function createDavLockAdmin(store: DavStore, activity: { record(event: ActivityEvent): void }): DavLockAdmin {
  return {
    list: () =>
      store.allLocksWithNames().map((l) => ({
        token: l.token,
        path: placeOf(l),
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
          path: placeOf(held),
          lockedBy: held.user_id,
        },
      });
    },
  };
}
