// The access model's rows: groups (administrators), rules (administrators, and the managers of a
// folder for theirs), the explainer and the folder's "Who has access".
import { z } from 'zod';
import { queryPath } from '../http/query.ts';
import { noContent, route } from '../http/route.ts';
import type { AccessModel } from './service.ts';
import {
  explanation,
  groupAnswer,
  groupList,
  groupName,
  groupParams,
  groupRenamed,
  memberInput,
  memberParams,
  ruleAnswer,
  ruleInput,
  ruleList,
  ruleParams,
  whoHasAccess,
} from './wire.ts';

const tags = ['Access'];
const ruleRefusals = {
  400: 'Not a folder of a volume (the top, a link)',
  403: 'Neither an administrator nor named by a manage rule at the folder',
  404: 'No such folder, account, group or rule',
};

export function accessRoutes(model: AccessModel) {
  return [
    route({
      method: 'GET',
      path: '/api/access/groups',
      access: 'admin',
      tags,
      summary: 'The groups and their members',
      responses: { 200: { description: '`{ groups }`', schema: groupList } },
      handler: () => model.groups(),
    }),
    route({
      method: 'POST',
      path: '/api/access/groups',
      access: 'admin',
      tags,
      status: 201,
      summary: 'Create a group',
      body: groupName,
      responses: { 201: { description: '`{ group }`', schema: groupAnswer }, 409: 'A group of that name exists' },
      handler: ({ caller, body, ip }) => model.createGroup(caller, body.name, ip),
    }),
    route({
      method: 'PATCH',
      path: '/api/access/groups/:id',
      access: 'admin',
      tags,
      summary: 'Rename a group',
      params: groupParams,
      body: groupName,
      responses: {
        200: { description: '`{ group }`', schema: groupRenamed },
        404: 'No such group',
        409: 'A group of that name exists',
      },
      handler: ({ caller, params, body, ip }) => model.renameGroup(caller, params.id, body.name, ip),
    }),
    route({
      method: 'DELETE',
      path: '/api/access/groups/:id',
      access: 'admin',
      tags,
      summary: 'Delete a group with its memberships and its rules',
      params: groupParams,
      responses: { 204: 'Deleted', 404: 'No such group' },
      handler: ({ caller, params, ip }) => {
        model.deleteGroup(caller, params.id, ip);
        return noContent();
      },
    }),
    route({
      method: 'POST',
      path: '/api/access/groups/:id/members',
      access: 'admin',
      tags,
      summary: 'Add an account to a group',
      params: groupParams,
      body: memberInput,
      responses: { 204: 'A member (already or now)', 404: 'No such group or account' },
      handler: ({ caller, params, body, ip }) => {
        model.addMember(caller, params.id, body.userId, ip);
        return noContent();
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/access/groups/:id/members/:userId',
      access: 'admin',
      tags,
      summary: 'Take an account out of a group',
      params: memberParams,
      responses: { 204: 'Not a member (any more)', 404: 'No such group' },
      handler: ({ caller, params, ip }) => {
        model.removeMember(caller, params.id, params.userId, ip);
        return noContent();
      },
    }),
    route({
      method: 'GET',
      path: '/api/access/rules',
      access: 'account',
      tags,
      summary: 'Rules at a folder and above it (without a path: every rule, administrators)',
      query: z.object({ path: queryPath('virtual', z.string().optional()) }),
      responses: { 200: { description: '`{ rules }`', schema: ruleList }, ...ruleRefusals },
      handler: ({ caller, query }) => model.rules(caller, query.path),
    }),
    route({
      method: 'PUT',
      path: '/api/access/rules',
      access: 'account',
      scope: 'write',
      tags,
      summary: "Set an account's, a group's or everyone's level at a folder (one rule per folder and subject)",
      body: ruleInput,
      responses: { 200: { description: '`{ rule }`', schema: ruleAnswer }, ...ruleRefusals },
      handler: ({ caller, body, ip }) => model.setRule(caller, body, ip),
    }),
    route({
      method: 'DELETE',
      path: '/api/access/rules/:id',
      access: 'account',
      scope: 'write',
      tags,
      summary: 'Remove a rule',
      params: ruleParams,
      responses: { 204: 'Removed', ...ruleRefusals },
      handler: ({ caller, params, ip }) => {
        model.removeRule(caller, params.id, ip);
        return noContent();
      },
    }),
    route({
      method: 'GET',
      path: '/api/access/explain',
      access: 'account',
      tags,
      summary: 'What an account (yourself without userId) can do at a folder, and which rule decides',
      query: z.object({ path: queryPath('virtual', z.string().min(1)), userId: z.string().min(1).optional() }),
      responses: { 200: { description: 'The explanation', schema: explanation }, ...ruleRefusals },
      handler: ({ caller, query }) => model.explain(caller, query.path, query.userId),
    }),
    route({
      method: 'GET',
      path: '/api/access/who',
      access: 'account',
      tags,
      summary:
        'A folder\'s "Who has access": every account\'s level there with the deciding rule, and the rules in force',
      query: z.object({ path: queryPath('virtual', z.string().min(1)) }),
      responses: { 200: { description: 'Who has access', schema: whoHasAccess }, ...ruleRefusals },
      handler: ({ caller, query }) => model.who(caller, query.path),
    }),
  ];
}
