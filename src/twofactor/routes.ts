// Rows of the route table for the second factor (spec §3 Second factor setup and Password
// sign-in with a second factor, §4.1 TOTP rows, §4.5 administrator removal). The guard keeps
// API tokens off every row here (/api/auth/* and administration).
import { z } from 'zod';
import { deviceSeen, type IdentityAuthenticator, type SessionCookies } from '../auth/authenticator.ts';
import type { AuthService } from '../auth/service.ts';
import { noContent, reply, route } from '../http/route.ts';
import type { TwoFactorService } from './service.ts';
import {
  accountParams,
  adminTotpRemoved,
  password,
  recoveryCodes,
  secondStepAnswer,
  secondStepBody,
  sixDigits,
  totpStart,
  totpStatus,
} from './wire.ts';

export interface TwoFactorRoutesDeps {
  twoFactor: TwoFactorService;
  auth: AuthService;
  authenticator: IdentityAuthenticator;
  cookies: SessionCookies;
}

export function twoFactorRoutes({ twoFactor, auth, authenticator, cookies }: TwoFactorRoutesDeps) {
  const tags = ['Second factor'];
  return [
    route({
      method: 'GET',
      path: '/api/auth/totp',
      access: 'session',
      tags,
      summary: 'Whether this account asks for a second-factor code, and how many recovery codes are left',
      responses: { 200: { description: 'Second-factor status', schema: totpStatus } },
      handler: ({ caller }) => twoFactor.status(caller.userId),
    }),
    route({
      method: 'POST',
      path: '/api/auth/totp/start',
      access: 'session',
      tags,
      summary: 'Draw a new secret (Base32 and otpauth URI); nothing is asked of the account until it is confirmed',
      responses: {
        200: { description: 'The pending secret', schema: totpStart },
        403: 'The session was not opened with the password',
        409: 'A second factor is already on',
        429: 'Too many attempts',
      },
      handler: ({ caller, ip }) => twoFactor.start(caller, ip),
    }),
    route({
      method: 'POST',
      path: '/api/auth/totp/confirm',
      access: 'session',
      tags,
      body: z.object({ code: sixDigits }),
      summary: 'Turn the second factor on with its first code; the recovery codes are in this answer only',
      responses: {
        200: { description: 'Ten recovery codes', schema: recoveryCodes },
        400: 'Malformed body',
        401: 'Wrong code (AUTH_INVALID_TOTP_CODE)',
        409: 'No setup is waiting',
        429: 'Too many attempts',
      },
      handler: ({ caller, body, ip }) => twoFactor.confirm(caller.userId, body.code, ip),
    }),
    route({
      method: 'POST',
      path: '/api/auth/totp/recovery-codes',
      access: 'session',
      tags,
      body: z.object({ password: password.optional() }),
      summary: 'New recovery codes (password required when the account has one); the old ones stop working',
      responses: {
        200: { description: 'Ten new recovery codes', schema: recoveryCodes },
        401: 'Password wrong or missing',
        409: 'The second factor is off',
        429: 'Too many attempts',
      },
      handler: ({ caller, body, ip }) => twoFactor.regenerateRecoveryCodes(caller.userId, body.password, ip),
    }),
    route({
      method: 'DELETE',
      path: '/api/auth/totp',
      access: 'session',
      tags,
      body: z.object({ password: password.optional() }),
      summary: 'Turn the second factor off (password required when the account has one)',
      responses: { 204: { description: 'Off' }, 401: 'Password wrong or missing', 429: 'Too many attempts' },
      handler: async ({ caller, body, ip }) => {
        await twoFactor.turnOff(caller.userId, body.password, ip);
        return noContent();
      },
    }),
    route({
      method: 'POST',
      path: '/api/auth/login/totp',
      access: 'public',
      tags,
      body: secondStepBody,
      summary: 'Second step of a held sign-in: a six-digit code (once per time step) or an unused recovery code',
      description:
        'The sign-in is held for five minutes after the password (or a passkey that did not verify its user). A wrong code counts against the same lockout as a wrong password.',
      responses: {
        200: { description: 'Signed in; the session cookie is replaced', schema: secondStepAnswer },
        400: 'Malformed body',
        401: 'Wrong code, or no sign-in is waiting (AUTH_INVALID_TOTP_CODE)',
        429: 'Locked account or too many attempts (Retry-After)',
      },
      handler: ({ req, body, ip }) => {
        const done = auth.loginSecondStep(authenticator.session(req)?.row ?? null, body.code, ip, deviceSeen(req));
        return reply(
          200,
          { user: done.user, usedRecoveryCode: done.usedRecoveryCode, recoveryCodesLeft: done.recoveryCodesLeft },
          { 'Set-Cookie': cookies.signedIn(done, req) },
        );
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/users/:id/two-factor',
      access: 'admin',
      tags: ['Accounts'],
      params: accountParams,
      summary: "Remove an account's second factor (administrator)",
      responses: {
        200: { description: 'Removed (or there was none)', schema: adminTotpRemoved },
        404: 'No such account',
      },
      handler: ({ caller, params, ip }) => twoFactor.adminRemove(caller.userId, params.id, ip),
    }),
  ];
}
