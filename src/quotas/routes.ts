// Quotas: the caller's own figures (the sidebar) and the administrator's rows.
import { route } from '../http/route.ts';
import type { QuotaAdmin } from './admin.ts';
import {
  accountQuota,
  accountQuotaParams,
  groupQuota,
  groupQuotaParams,
  limitBody,
  myQuota,
  quotaOverview,
  volumeQuota,
  volumeQuotaParams,
} from './wire.ts';

export function quotaRoutes(admin: QuotaAdmin) {
  return [
    route({
      method: 'GET',
      path: '/api/quota',
      access: 'account',
      scope: 'read',
      tags: ['Quotas'],
      summary: "The caller's quota and the quotas of the volumes it sees",
      description:
        'Used bytes come from the folder-size index plus what is in flight (uploads, copies and extractions hold their bytes before writing). The trash and versions count against the account that filled them.',
      responses: { 200: { description: 'Figures', schema: myQuota }, 401: 'Not signed in' },
      handler: ({ caller }) => admin.mine(caller),
    }),
    route({
      method: 'GET',
      path: '/api/admin/quotas',
      access: 'admin',
      tags: ['Quotas'],
      summary: 'Every account and volume with its quota and what it uses',
      responses: { 200: { description: 'Overview', schema: quotaOverview }, 403: 'ADMIN_ONLY' },
      handler: ({ caller }) => admin.overview(caller),
    }),
    route({
      method: 'PUT',
      path: '/api/admin/quotas/accounts/:id',
      access: 'admin',
      tags: ['Quotas'],
      summary: "Set or remove an account's quota",
      description:
        'Counts its personal folder, the trash it filled and the versions its saves kept; a file request counts against the link owner. 409 FEATURE_OFF unless folder sizes run in full mode.',
      params: accountQuotaParams,
      body: limitBody,
      responses: {
        200: { description: 'The account with its quota', schema: accountQuota },
        403: 'ADMIN_ONLY',
        404: 'USER_NOT_FOUND',
        409: 'FEATURE_OFF: folder sizes are not in full mode',
      },
      handler: ({ params, body }) => admin.setAccount(params.id, body.limitBytes),
    }),
    route({
      method: 'PUT',
      path: '/api/admin/quotas/groups/:id',
      access: 'admin',
      tags: ['Quotas'],
      summary: "Set or remove a group's default quota",
      description:
        "The quota of its members who have none of their own; an account in several groups takes the largest default (an allowance: one more group never takes room away; set the account's own quota to give it less). 409 FEATURE_OFF unless folder sizes run in full mode.",
      params: groupQuotaParams,
      body: limitBody,
      responses: {
        200: { description: 'The group with its default', schema: groupQuota },
        403: 'ADMIN_ONLY',
        404: 'GROUP_NOT_FOUND',
        409: 'FEATURE_OFF: folder sizes are not in full mode',
      },
      handler: ({ params, body }) => admin.setGroup(params.id, body.limitBytes),
    }),
    route({
      method: 'PUT',
      path: '/api/admin/quotas/volumes/:name',
      access: 'admin',
      tags: ['Quotas'],
      summary: "Set or remove a volume's quota",
      description: 'What the volume may hold in all. 409 FEATURE_OFF unless folder sizes run in full mode.',
      params: volumeQuotaParams,
      body: limitBody,
      responses: {
        200: { description: 'The volume with its quota', schema: volumeQuota },
        403: 'ADMIN_ONLY',
        404: 'NOT_FOUND: no such volume',
        409: 'FEATURE_OFF: folder sizes are not in full mode',
      },
      handler: ({ caller, params, body }) => admin.setVolume(caller, params.name, body.limitBytes),
    }),
  ];
}
