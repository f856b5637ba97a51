// Wire shapes of the account and sign-in rows (spec §4.1, wire-shapes §1.3).
import { z } from 'zod';
import { newPassword, password, username, wireUser } from '../accounts/wire.ts';

export { newPassword, password, username, wireUser };
export type { WireUser } from '../accounts/wire.ts';

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
