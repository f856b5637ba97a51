// Wire shapes of the identity-provider rows (spec §4.1 OIDC rows, §5 OIDC; wire-shapes §2).
import { z } from 'zod';

export const loginQuery = z.object({
  redirect: z.string().max(2048).optional().describe('where to land afterwards, a path inside the application'),
  prompt: z.enum(['login', 'consent', 'select_account']).optional().describe('passed to the provider'),
});

export const mobileLoginQuery = z.object({
  code_challenge: z
    .string()
    .max(256)
    .optional()
    .describe("the app's PKCE challenge (S256, 43 base64url characters); required"),
  code_challenge_method: z.string().max(16).optional().describe('only S256'),
  redirect_uri: z
    .string()
    .max(2048)
    .optional()
    .describe('one of OIDC_MOBILE_REDIRECT_URIS (custom schemes only); default the first'),
});

/** What the provider sends back (RFC 6749 §4.1.2, RFC 9207 `iss`). */
export const providerReturn = z.object({
  code: z.string().optional(),
  state: z.string().optional(),
  iss: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});

export const exchangeBody = z.object({ code: z.string().min(1).max(512), code_verifier: z.string().min(1).max(512) });
