// Wire shapes of an account itself (wire-shapes §1.3): its record and the rules for its name and
// password, which sign-in (auth/) and administration (users/) share.
import { z } from 'zod';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './passwords.ts';

export const password = z.string().min(1).max(MAX_PASSWORD_LENGTH);
export const newPassword = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH);
export const username = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[^\s/\\]+$/, 'may not contain spaces or slashes');

/** The User record. */
export const wireUser = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string().nullable(),
  displayName: z.string().nullable(),
  roles: z.array(z.string()),
  emailVerified: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WireUser = z.infer<typeof wireUser>;
