// Rows of the route table for passkeys (spec §4.1 passkey rows, §4.5 administrator removal).
// Sign-in refusals are all 401 AUTH_PASSKEY_REJECTED; the reason goes to the activity log.
import type { IncomingMessage } from 'node:http';
import { deviceSeen, type IdentityAuthenticator, type SessionCookies } from '../auth/authenticator.ts';
import type { AuthService } from '../auth/service.ts';
import { AppError } from '../core/errors.ts';
import type { TrustRule } from '../http/address.ts';
import { ownOrigins } from '../http/origin.ts';
import { noContent, reply, route } from '../http/route.ts';
import { accountParams, signInAnswer } from '../twofactor/wire.ts';
import type { PasskeyService } from './service.ts';
import {
  adminPasskeysRemoved,
  authenticationStart,
  onePasskey,
  passkeyList,
  passkeyParams,
  registerFinishBody,
  registrationStart,
  removeBody,
  renameBody,
  signInFinishBody,
} from './wire.ts';

export interface PasskeyRoutesDeps {
  passkeys: PasskeyService;
  auth: AuthService;
  authenticator: IdentityAuthenticator;
  cookies: SessionCookies;
  trustProxy: TrustRule;
}

export function passkeyRoutes({ passkeys, auth, cookies, trustProxy }: PasskeyRoutesDeps) {
  const tags = ['Passkeys'];
  // Without PUBLIC_URL the relying party is the address the browser used (which it signs into the client data).
  const origin = (req: IncomingMessage) => ownOrigins(req, { trustProxy, publicUrl: null })[0] ?? null;
  const refuseWhenOidcOnly = () => {
    if (auth.mode === 'oidc')
      throw new AppError(
        'AUTH_METHOD_DISABLED',
        'Passkeys are turned off: this installation signs in through its identity provider only.',
      );
  };
  return [
    route({
      method: 'GET',
      path: '/api/auth/passkeys',
      access: 'session',
      tags,
      summary: "This account's passkeys",
      responses: { 200: { description: 'Passkeys', schema: passkeyList } },
      handler: ({ caller }) => ({ passkeys: passkeys.list(caller.userId) }),
    }),
    route({
      method: 'POST',
      path: '/api/auth/passkeys/register/start',
      access: 'session',
      tags,
      summary: 'Start registering a passkey (session opened with the password); the challenge is good for one ceremony',
      description: 'Passkeys need a secure context: https, or http://localhost.',
      responses: {
        200: { description: 'Creation options and the accepted origins', schema: registrationStart },
        403: 'The session was not opened with the password, or passkeys are off',
        429: 'Too many attempts',
      },
      handler: ({ req, caller, ip }) => {
        refuseWhenOidcOnly();
        return passkeys.registrationOptions(caller, origin(req), ip);
      },
    }),
    route({
      method: 'POST',
      path: '/api/auth/passkeys/register/finish',
      access: 'session',
      tags,
      body: registerFinishBody,
      status: 201,
      summary: "Finish registering: the browser's answer to the start call, and a name",
      responses: {
        201: { description: 'The new passkey', schema: onePasskey },
        400: 'Challenge unknown, spent or of another ceremony, or the answer does not verify',
        409: 'Already registered',
        429: 'Too many attempts',
      },
      handler: ({ caller, body, ip }) => passkeys.finishRegistration(caller.userId, body.response, body.name, ip),
    }),
    route({
      method: 'PATCH',
      path: '/api/auth/passkeys/:id',
      access: 'session',
      tags,
      params: passkeyParams,
      body: renameBody,
      summary: 'Rename a passkey',
      responses: {
        200: { description: 'The passkey', schema: onePasskey },
        400: 'Malformed body',
        404: 'No such passkey on this account',
      },
      handler: ({ caller, params, body }) => passkeys.rename(caller.userId, params.id, body.name),
    }),
    route({
      method: 'DELETE',
      path: '/api/auth/passkeys/:id',
      access: 'session',
      tags,
      params: passkeyParams,
      body: removeBody,
      summary: 'Remove a passkey (password required when the account has one; never the last way in)',
      responses: {
        204: { description: 'Removed' },
        401: 'Password wrong or missing',
        403: 'An account without a password here signed in more than AUTH_CONFIRM_MINUTES ago (AUTH_CONFIRM_REQUIRED)',
        404: 'No such passkey on this account',
        409: 'The only way into this account',
        429: 'Too many attempts',
      },
      handler: async ({ caller, params, body, ip }) => {
        await passkeys.remove(caller.userId, params.id, body?.password, ip, caller.sessionId);
        return noContent();
      },
    }),
    route({
      method: 'POST',
      path: '/api/auth/login/passkey/start',
      access: 'public',
      tags,
      summary: 'Start a passkey sign-in (no name needed: discoverable credentials)',
      responses: {
        200: { description: 'Request options and the accepted origins', schema: authenticationStart },
        403: 'Passkeys are off',
        429: 'Too many attempts',
      },
      handler: ({ req, ip }) => {
        refuseWhenOidcOnly();
        return passkeys.authenticationOptions(origin(req), ip);
      },
    }),
    route({
      method: 'POST',
      path: '/api/auth/login/passkey/finish',
      access: 'public',
      tags,
      body: signInFinishBody,
      summary:
        'Finish a passkey sign-in; a passkey that did not verify its user on an account with a second factor asks for the code',
      responses: {
        200: {
          description: 'Signed in (session cookie set), or held for the second-factor code',
          schema: signInAnswer,
        },
        400: 'Malformed body',
        401: 'Refused (AUTH_PASSKEY_REJECTED)',
        429: 'Too many attempts',
      },
      handler: async ({ req, body, ip }) => {
        refuseWhenOidcOnly();
        const signIn = await passkeys.finishAuthentication(body.response, ip, deviceSeen(req));
        return reply(200, 'user' in signIn ? { user: signIn.user } : { totpRequired: true as const }, {
          'Set-Cookie': cookies.signedIn(signIn, req),
        });
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/users/:id/passkeys',
      access: 'admin',
      tags: ['Accounts'],
      params: accountParams,
      summary: 'Remove every passkey of an account (administrator)',
      responses: {
        200: { description: 'How many were removed', schema: adminPasskeysRemoved },
        404: 'No such account',
      },
      handler: ({ caller, params, ip }) => passkeys.adminRemoveAll(caller.userId, params.id, ip),
    }),
  ];
}
