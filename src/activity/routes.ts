// Rows of the route table for the activity log (administrator session only).
import { z } from 'zod';
import type { TrustRule } from '../http/address.ts';
import { forwardedFor, peerAddress } from '../http/address.ts';
import { route, type RouteDef } from '../http/route.ts';
import type { ActivityService } from './service.ts';

const isoDate = z.string().refine((v) => !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date').transform((v) => new Date(v).toISOString());

const listQuery = z.object({
  action: z.string().max(100).optional(),
  outcome: z.enum(['success', 'failure']).optional(),
  user: z.string().max(254).optional(),
  from: isoDate.optional(),
  to: isoDate.optional(),
  q: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  before: z.string().regex(/^\d+$/, 'must be the nextBefore of the previous page').transform(Number).optional(),
});

const FORWARDING = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-forwarded-port', 'x-real-ip', 'forwarded', 'cf-connecting-ip', 'true-client-ip'];

export function activityRoutes(activity: ActivityService, trustProxy: TrustRule): RouteDef[] {
  const tags = ['Activity'];
  return [
    route({
      method: 'GET', path: '/api/activity', access: 'admin', tags, query: listQuery,
      summary: 'Activity rows, newest first (keyset paging with `before` = the previous `nextBefore`)',
      responses: { 200: 'Rows, nextBefore, enabled, actions', 400: 'Malformed query' },
      handler: ({ query }) => {
        const page = activity.query(query);
        return { rows: page.rows, nextBefore: page.nextBefore, enabled: activity.enabled, actions: activity.actions() };
      },
    }),
    route({
      method: 'DELETE', path: '/api/activity', access: 'admin', tags,
      summary: 'Remove every row; then writes `admin.activity-clear` naming who asked and the count',
      responses: { 200: 'How many rows were removed' },
      handler: ({ caller, ip }) => {
        const removed = activity.clear();
        activity.record({ action: 'admin.activity-clear', outcome: 'success', userId: caller!.userId, username: caller!.username, ip, detail: { removed } });
        return { removed };
      },
    }),
    route({
      method: 'GET', path: '/api/activity/address', access: 'admin', tags,
      summary: 'Which address the log records for this request, and why (TRUST_PROXY)',
      responses: { 200: 'recorded, peer, trustsPeer, trustProxy and the forwarding headers' },
      handler: ({ req, ip }) => {
        const peer = peerAddress(req);
        const headers: Record<string, string> = {};
        for (const name of FORWARDING) {
          const value = req.headers[name];
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        return { recorded: ip, peer, trustsPeer: trustProxy.trusts(peer), trustProxy: trustProxy.text, forwardedChain: forwardedFor(req), headers };
      },
    }),
  ];
}
