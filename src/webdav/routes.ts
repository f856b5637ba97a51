// Administration → Locks: every WebDAV lock in force, and breaking one (a client that went away,
// or one that holds somebody's file). Mounted whether or not WebDAV is on: a lock taken before it
// was turned off still binds the API until it expires.
import { noContent, route } from '../http/route.ts';
import { davLockList, davLockToken } from './wire.ts';
import type { DavLockAdmin } from './admin.ts';

export function davLockRoutes(locks: DavLockAdmin) {
  return [
    route({
      method: 'GET',
      path: '/api/admin/locks',
      access: 'admin',
      tags: ['Administration'],
      summary: 'The WebDAV locks in force: what, by whom, with which client, until when',
      responses: { 200: { description: '`{ locks }`, oldest first', schema: davLockList } },
      handler: () => ({ locks: locks.list() }),
    }),
    route({
      method: 'DELETE',
      path: '/api/admin/locks/:token',
      access: 'admin',
      tags: ['Administration'],
      summary: "Break a WebDAV lock: the item is free again; the client's next write with the token answers 412",
      params: davLockToken,
      responses: { 204: 'Broken', 404: 'NOT_FOUND: no such lock in force (expired, unlocked or broken meanwhile)' },
      handler: ({ params, caller }) => {
        locks.break(params.token, caller);
        return noContent();
      },
    }),
  ];
}
