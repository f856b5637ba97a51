// Rows of the route table for the activity log (administrator session only).
import type { TrustRule } from '../http/address.ts';
import { route } from '../http/route.ts';
import { addressReport } from './address.ts';
import type { ActivityService } from './service.ts';
import { activityPage, addressReport as addressAnswer, cleared, listQuery } from './wire.ts';

export function activityRoutes(activity: ActivityService, trustProxy: TrustRule) {
  const tags = ['Activity'];
  return [
    route({
      method: 'GET',
      path: '/api/activity',
      access: 'admin',
      tags,
      query: listQuery,
      summary: 'Activity rows, newest first (keyset paging with `before` = the previous `nextBefore`)',
      responses: {
        200: { description: 'Rows, nextBefore, enabled, actions', schema: activityPage },
        400: 'Malformed query',
      },
      handler: ({ query }) => activity.page(query),
    }),
    route({
      method: 'DELETE',
      path: '/api/activity',
      access: 'admin',
      tags,
      summary: 'Remove every row; then writes `admin.activity-clear` naming who asked and the count',
      responses: { 200: { description: 'How many rows were removed', schema: cleared } },
      handler: ({ caller, ip }) => activity.clearBy(caller, ip),
    }),
    route({
      method: 'GET',
      path: '/api/activity/address',
      access: 'admin',
      tags,
      summary: 'Which address the log records for this request, and why (TRUST_PROXY)',
      responses: {
        200: {
          description: 'recorded, peer, trustsPeer, trustProxy and the forwarding headers',
          schema: addressAnswer,
        },
      },
      handler: ({ req, ip }) => addressReport(req, ip, trustProxy),
    }),
  ];
}
