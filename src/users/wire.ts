// Wire shapes of the account administration rows.
import { z } from 'zod';
import { newPassword, username, wireUser } from '../accounts/wire.ts';

const roles = z.array(z.enum(['admin', 'user'])).max(2);

/** An account id as the path names it; an unknown one answers 404, not 400. */
export const userParams = z.object({ id: z.string().min(1) });

export const createBody = z.object({
  email: z.email().max(254).optional(),
  username: username.optional(),
  displayName: z.string().trim().max(128).nullable().optional(),
  password: newPassword.optional(),
  roles: roles.optional(),
});
export type NewUser = z.infer<typeof createBody>;

export const patchBody = z.object({
  email: z.email().max(254).nullable().optional(),
  username: username.optional(),
  displayName: z.string().trim().max(128).nullable().optional(),
  roles: roles.optional(),
});
export type UserPatch = z.infer<typeof patchBody>;

export const passwordBody = z.object({ newPassword });

/** An account as the administrator sees it: how it signs in, and whether it is locked out. */
export const adminUser = wireUser.extend({
  authMethods: z.array(z.object({ method: z.string(), provider: z.string().nullable() })),
  locked: z.boolean(),
});
export type AdminUser = z.infer<typeof adminUser>;

export const userList = z.object({ users: z.array(adminUser) });
export const oneUser = z.object({ user: wireUser });

/** Another account, for choosing whom to share with. */
export const shareableUser = z.object({
  id: z.string(),
  email: z.string().nullable(),
  username: z.string(),
  displayName: z.string().nullable(),
});
export type ShareableUser = z.infer<typeof shareableUser>;
export const shareableList = z.object({ users: z.array(shareableUser) });
