// Wire shapes of the passkey rows (spec §2 Passkey, §3 Passkey ceremony, §4.1, §4.5). The
// WebAuthn options and responses are the browser's JSON forms: every byte base64url.
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import { z } from 'zod';
import { MAX_NAME_LENGTH } from './service.ts';

export const wirePasskey = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  deviceType: z.string().describe('multiDevice for a synced passkey, singleDevice for one bound to its authenticator'),
  backedUp: z.boolean(),
  transports: z.array(z.string()),
  rpId: z
    .string()
    .describe(
      'The name it was made at (its WebAuthn relying party: localhost, burrow.local, PUBLIC_URL’s host): browsers offer it only there',
    ),
});

export const passkeyList = z.object({ passkeys: z.array(wirePasskey) });
export const onePasskey = z.object({ passkey: wirePasskey });
export const passkeyParams = z.object({ id: z.string().min(1).max(100) });

const origins = z.array(z.string()).describe('the origins a browser may report for this relying party');
export const registrationStart = z.object({
  options: z
    .custom<PublicKeyCredentialCreationOptionsJSON>()
    .describe('PublicKeyCredentialCreationOptions, every byte base64url (for navigator.credentials.create)'),
  origins,
});
export const authenticationStart = z.object({
  options: z
    .custom<PublicKeyCredentialRequestOptionsJSON>()
    .describe('PublicKeyCredentialRequestOptions, every byte base64url (for navigator.credentials.get)'),
  origins,
});

/** What navigator.credentials.create/get returned, in its JSON form. */
const credentialResponse = z
  .record(z.string(), z.unknown())
  .describe('the PublicKeyCredential in its JSON form (every byte base64url)');
export const registerFinishBody = z.object({
  response: credentialResponse,
  name: z.string().max(MAX_NAME_LENGTH).optional(),
});
export const signInFinishBody = z.object({ response: credentialResponse });
export const renameBody = z.object({ name: z.string().trim().min(1).max(MAX_NAME_LENGTH) });
export const removeBody = z.object({ password: z.string().min(1).max(1024).optional() }).optional();
export const adminPasskeysRemoved = z.object({ removed: z.number().int().describe('passkeys removed') });
