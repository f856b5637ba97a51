// The caller of an account: one place builds it from the account's row, whichever way the request
// came (session cookie, API token, WebDAV Basic, the account behind a link or an office editor).
import type { Caller } from '../core/caller.ts';
import { parseRoles } from './users-store.ts';

type Extra = Omit<Caller, 'userId' | 'username' | 'roles' | 'isAdmin' | 'via'>;

/** `user.roles` as stored (a JSON array) or as read; `extra`: the session, token or address of the request. */
export function callerOf(
  user: { id: string; username: string; roles: string | readonly string[] },
  via: Caller['via'],
  extra: Extra = {},
): Caller {
  const roles = typeof user.roles === 'string' ? parseRoles(user.roles) : [...user.roles];
  return { userId: user.id, username: user.username, roles, isAdmin: roles.includes('admin'), via, ...extra };
}
