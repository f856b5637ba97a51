// Wire shapes of the account and sign-in rows (spec §4.1, wire-shapes §1.3).
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

export const userAnswer = z.object({ user: wireUser });
export const maybeUserAnswer = z.object({ user: wireUser.nullable() });
export const loginAnswer = z.union([userAnswer, z.object({ totpRequired: z.literal(true) })]);

export const setupBody = z.object({
  email: z.email().max(254),
  username: username.optional(),
  password: newPassword,
});

export const loginBody = z.object({
  identifier: z.string().min(1).max(254).optional(),
  email: z.string().min(1).max(254).optional(),
  username: z.string().min(1).max(254).optional(),
  password,
});

export const authStatus = z.object({
  requiresSetup: z.boolean(),
  strategies: z.object({ local: z.boolean(), passkey: z.boolean(), oidc: z.boolean() }),
  authEnabled: z.boolean(),
  authMode: z.enum(['local', 'oidc', 'both']),
  authenticated: z.boolean(),
  /** Signed in with a password and waiting for the second-factor code. */
  totpPending: z.literal(true).optional(),
  user: wireUser.nullable(),
  oidc: z.object({
    enabled: z.boolean(),
    issuer: z.string().nullable(),
    scopes: z.array(z.string()),
    status: z.enum(['configured', 'disabled']),
  }),
});
export type AuthStatus = z.infer<typeof authStatus>;

export const signInMethod = z.object({
  id: z.string(),
  type: z.string(),
  provider: z.string(),
  lastUsedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type SignInMethod = z.infer<typeof signInMethod>;
export const methodsAnswer = z.object({ methods: z.array(signInMethod) });

export const message = z.object({ message: z.string() });
