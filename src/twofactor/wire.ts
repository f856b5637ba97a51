// Wire shapes of the second-factor rows (spec §2 Second-factor status, §4.1 TOTP rows, §4.5).
import { z } from 'zod';
import { password, wireUser } from '../accounts/wire.ts';

/** The User record of a sign-in answer: the account's own record. */
export const signedInUser = wireUser;
/** A sign-in that ended signed in, or is held for the second-factor code. */
export const signInAnswer = z.union([z.object({ user: signedInUser }), z.object({ totpRequired: z.literal(true) })]);

export const sixDigits = z
  .string()
  .trim()
  .regex(/^\d{6}$/, 'six digits');
export { password };

export const totpStatus = z.object({
  enabled: z.boolean(),
  pending: z.boolean().describe('started and not yet confirmed'),
  confirmedAt: z.string().nullable(),
  recoveryCodesLeft: z.number().int(),
});

export const totpStart = z.object({
  secret: z.string().describe('Base32'),
  uri: z.string().describe('otpauth:// URI for an authenticator app (shown as a QR code)'),
});

export const recoveryCodes = z.object({
  recoveryCodes: z.array(z.string()).describe('each usable once in place of a code; shown this once'),
});

export const secondStepBody = z.object({
  code: z.string().trim().min(1).max(64).describe('six digits, or an unused recovery code'),
});
export const secondStepAnswer = z.object({
  user: signedInUser,
  usedRecoveryCode: z.boolean().optional(),
  recoveryCodesLeft: z.number().int().nullable().optional(),
});

export const accountParams = z.object({ id: z.string().min(1).max(200) });
export const adminTotpRemoved = z.object({
  removed: z.boolean().describe('false when the account had no second factor'),
});
