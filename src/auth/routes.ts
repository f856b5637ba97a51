// Rows of the route table for accounts and password sign-in (spec §4.1, password parts).
import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import { noContent, reply, route } from '../http/route.ts';
import { deviceSeen, type IdentityAuthenticator, type SessionCookies } from './authenticator.ts';
import type { AuthService } from './service.ts';
import {
  authStatus,
  loginAnswer,
  loginBody,
  maybeUserAnswer,
  message,
  methodsAnswer,
  newPassword,
  password,
  setupBody,
  userAnswer,
} from './wire.ts';

export interface AuthRoutesDeps {
  auth: AuthService;
  authenticator: IdentityAuthenticator;
  cookies: SessionCookies;
}

export function authRoutes({ auth, authenticator, cookies }: AuthRoutesDeps) {
  const tags = ['Auth'];
  return [
    route({
      method: 'GET',
      path: '/api/auth/status',
      access: 'public',
      tags,
      summary: 'How this installation signs people in, and whether this caller is signed in',
      responses: { 200: { description: 'Sign-in status', schema: authStatus } },
      handler: ({ req, caller }) => auth.status(caller, authenticator.session(req)?.row.state === 'held'),
    }),
    route({
      method: 'POST',
      path: '/api/auth/setup',
      access: 'public',
      tags,
      body: setupBody,
      status: 201,
      summary: 'Create the first administrator (only while no account exists) and sign it in',
      responses: {
        201: { description: 'The new administrator, signed in', schema: userAnswer },
        400: 'Malformed body',
        403: 'Setup already done, or password sign-in is off',
        429: 'Too many attempts',
      },
      handler: async ({ req, body, ip }) => {
        const done = await auth.setup(body, ip, deviceSeen(req));
        return reply(201, { user: done.user }, { 'Set-Cookie': cookies.signedIn(done, req) });
      },
    }),
    route({
      method: 'POST',
      path: '/api/auth/login',
      access: 'public',
      tags,
      body: loginBody,
      summary: 'Sign in with a password (identifier = email or username)',
      description: '`email` and `username` are accepted as deprecated synonyms of `identifier`.',
      responses: {
        200: {
          description: 'Signed in; the session cookie is set (or a second-factor code is asked for first)',
          schema: loginAnswer,
        },
        400: 'Malformed body',
        401: 'Wrong sign-in name or password',
        403: 'Password sign-in is off',
        429: 'Locked account or too many attempts (Retry-After)',
      },
      handler: async ({ req, body, ip }) => {
        const identifier = body.identifier ?? body.email ?? body.username;
        if (!identifier)
          throw new AppError('INVALID_BODY', 'Invalid body: identifier: Required (an email or a username).');
        const signIn = await auth.login({ identifier, password: body.password }, ip, deviceSeen(req));
        return reply(200, 'user' in signIn ? { user: signIn.user } : { totpRequired: true }, {
          'Set-Cookie': cookies.signedIn(signIn, req),
        });
      },
    }),
    route({
      method: 'POST',
      path: '/api/auth/logout',
      access: 'public',
      tags,
      summary: 'Sign out (ends this application session only)',
      responses: { 204: 'Signed out' },
      handler: ({ req, caller, ip }) => {
        auth.logout(caller, authenticator.session(req)?.row.id_hash ?? null, ip);
        return noContent({ 'Set-Cookie': cookies.clear(req) });
      },
    }),
    route({
      method: 'GET',
      path: '/api/auth/me',
      access: 'public',
      tags,
      summary: 'The signed-in account, or null (also answers to an API token)',
      responses: { 200: { description: 'The caller', schema: maybeUserAnswer } },
      handler: ({ caller }) => ({ user: auth.userFor(caller) }),
    }),
    route({
      method: 'GET',
      path: '/api/auth/methods',
      access: 'session',
      tags,
      summary: 'The ways this account can sign in',
      responses: { 200: { description: 'Sign-in methods', schema: methodsAnswer }, 401: 'Not signed in' },
      handler: ({ caller }) => ({ methods: auth.methods(caller.userId) }),
    }),
    route({
      method: 'POST',
      path: '/api/auth/password',
      access: 'session',
      tags,
      body: z.object({ currentPassword: password, newPassword }),
      summary: 'Change the password; every other session ends and this one moves to a new cookie',
      responses: {
        204: 'Changed',
        400: 'Malformed body or too short',
        401: 'Current password wrong',
        429: 'Too many attempts',
      },
      handler: async ({ req, caller, body, ip }) => {
        const session = await auth.changePassword(caller, body.currentPassword, body.newPassword, ip);
        return noContent({ 'Set-Cookie': cookies.set(session.id, req) });
      },
    }),
    route({
      method: 'POST',
      path: '/api/auth/password/add',
      access: 'session',
      tags,
      body: z.object({ password: newPassword }),
      summary: 'Give a password to an account made through the identity provider',
      responses: {
        200: { description: 'Added', schema: message },
        400: 'Malformed body',
        403: 'Local passwords are off',
        409: 'The account already has a password',
        429: 'Too many attempts',
      },
      handler: ({ caller, body, ip }) => auth.addPassword(caller, body.password, ip),
    }),
  ];
}
