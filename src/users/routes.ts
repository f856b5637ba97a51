// Rows of the route table for account administration (administrator session only).
import { noContent, route } from '../http/route.ts';
import type { UsersAdminService } from './service.ts';
import { createBody, oneUser, passwordBody, patchBody, shareableList, userList, userParams } from './wire.ts';

export function usersRoutes(service: UsersAdminService) {
  const tags = ['Accounts'];
  const id = { 404: 'No such account' };
  return [
    route({
      method: 'GET',
      path: '/api/users',
      access: 'admin',
      tags,
      summary: 'Every account, with its roles and sign-in methods',
      responses: { 200: { description: 'Accounts', schema: userList } },
      handler: () => ({ users: service.list() }),
    }),
    route({
      method: 'POST',
      path: '/api/users',
      access: 'admin',
      tags,
      body: createBody,
      status: 201,
      summary: 'Create an account',
      responses: {
        201: { description: 'The new account', schema: oneUser },
        400: 'Malformed body',
        409: 'Email or username already in use',
      },
      handler: async ({ caller, body, ip }) => ({ user: await service.create(caller, body, ip) }),
    }),
    route({
      method: 'GET',
      path: '/api/users/shareable',
      access: 'account',
      tags,
      summary: 'Every other account, for choosing whom to share with',
      responses: { 200: { description: 'Accounts', schema: shareableList } },
      handler: ({ caller }) => ({ users: service.shareable(caller.userId) }),
    }),
    route({
      method: 'PATCH',
      path: '/api/users/:id',
      access: 'admin',
      tags,
      params: userParams,
      body: patchBody,
      summary: "Change an account's roles, username, email or display name",
      responses: {
        200: { description: 'The account', schema: oneUser },
        400: 'Malformed body',
        ...id,
        409: 'Taken name, or the last administrator',
      },
      handler: ({ caller, params, body, ip }) => ({ user: service.update(caller, params.id, body, ip) }),
    }),
    route({
      method: 'DELETE',
      path: '/api/users/:id',
      access: 'admin',
      tags,
      params: userParams,
      summary: 'Delete an account with its tokens, sessions and sign-in methods',
      responses: { 204: 'Deleted', ...id, 409: 'Yourself, or the last administrator' },
      handler: ({ caller, params, ip }) => {
        service.delete(caller, params.id, ip);
        return noContent();
      },
    }),
    route({
      method: 'POST',
      path: '/api/users/:id/password',
      access: 'admin',
      tags,
      params: userParams,
      body: passwordBody,
      summary: "Reset an account's password; every session of that account ends",
      responses: { 204: 'Reset', 400: 'Malformed body', ...id },
      handler: async ({ caller, params, body, ip }) => {
        await service.resetPassword(caller, params.id, body.newPassword, ip);
        return noContent();
      },
    }),
    route({
      method: 'POST',
      path: '/api/users/:id/unlock',
      access: 'admin',
      tags,
      params: userParams,
      summary: 'Lift a sign-in lockout',
      responses: { 200: { description: 'The account', schema: oneUser }, ...id },
      handler: ({ caller, params, ip }) => ({ user: service.unlock(caller, params.id, ip) }),
    }),
  ];
}
