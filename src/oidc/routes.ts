// Rows of the route table for sign-in through the identity provider (spec §4.1 OIDC rows,
// /login, /callback, /logout; §5 OIDC). Every hand-off sets a short-lived browser-binding
// cookie (HttpOnly, SameSite=Lax so the provider's top-level redirect back carries it), so a
// callback carried to another browser signs nobody in. Without a configured provider the
// rows answer 404 (and /login sends the browser to the sign-in screen).
import type { IncomingMessage } from 'node:http';
import { parseCookie, stringifySetCookie } from 'cookie';
import { deviceSeen, type IdentityAuthenticator, type SessionCookies } from '../auth/authenticator.ts';
import type { AuthService } from '../auth/service.ts';
import { AppError } from '../core/errors.ts';
import type { TrustRule } from '../http/address.ts';
import { ownOrigins } from '../http/origin.ts';
import { reply, route } from '../http/route.ts';
import { signedInUser } from '../twofactor/wire.ts';
import type { OidcService } from './service.ts';
import { exchangeBody, loginQuery, mobileLoginQuery, providerReturn } from './wire.ts';
import { z } from 'zod';

export const BINDING_COOKIE = 'burrow.oidc';
const BINDING_SECONDS = 10 * 60;

export interface OidcRoutesDeps {
  /** Null when no provider is configured (or AUTH_MODE leaves it out). */
  oidc: OidcService | null;
  auth: AuthService;
  authenticator: IdentityAuthenticator;
  cookies: SessionCookies;
  publicUrl: string | null;
  trustProxy: TrustRule;
}

export function oidcRoutes({ oidc, auth, authenticator, cookies, publicUrl, trustProxy }: OidcRoutesDeps) {
  const tags = ['Identity provider'];
  const secure = publicUrl !== null && publicUrl.toLowerCase().startsWith('https:');
  const configured = (): OidcService => {
    if (!oidc) throw new AppError('OIDC_NOT_CONFIGURED');
    return oidc;
  };
  const baseUrl = (req: IncomingMessage) => publicUrl ?? ownOrigins(req, { trustProxy, publicUrl: null })[0] ?? '';
  const binding = (value: string, maxAge = BINDING_SECONDS) =>
    stringifySetCookie({
      name: BINDING_COOKIE,
      value,
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure,
      maxAge,
      expires: new Date(Date.now() + maxAge * 1000),
    });
  const bindingOf = (req: IncomingMessage): string | null => {
    const value = req.headers.cookie ? parseCookie(req.headers.cookie)[BINDING_COOKIE] : undefined;
    return value && value.length <= 128 ? value : null;
  };
  const returned = (req: IncomingMessage) => new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
  const toProvider = {
    description: 'To the identity provider; sets the browser-binding cookie',
    headers: { Location: "the provider's authorization address" },
  };

  const begin = async (req: IncomingMessage, query: { redirect?: string | undefined; prompt?: string | undefined }) => {
    const handoff = await configured().begin({
      baseUrl: baseUrl(req),
      returnTo: query.redirect ?? null,
      prompt: query.prompt ?? null,
    });
    return reply(302, undefined, {
      Location: handoff.url,
      'Set-Cookie': binding(handoff.browserBinding),
      'Cache-Control': 'no-store',
    });
  };

  return [
    route({
      method: 'GET',
      path: '/api/auth/oidc/login',
      access: 'public',
      tags,
      query: loginQuery,
      summary: 'Hand the browser to the identity provider',
      responses: {
        302: toProvider,
        400: 'Bad prompt',
        404: 'No identity provider is configured',
        502: "The provider's discovery answer could not be used",
        503: 'The provider cannot be reached',
      },
      handler: ({ req, query }) => begin(req, query),
    }),
    route({
      method: 'GET',
      path: '/login',
      access: 'public',
      tags,
      query: loginQuery,
      summary: 'Browser: sign in through the identity provider (to the sign-in screen when none is configured)',
      responses: {
        302: toProvider,
        400: 'Bad prompt',
        502: "The provider's discovery answer could not be used",
        503: 'The provider cannot be reached',
      },
      handler: ({ req, query }) => (oidc ? begin(req, query) : reply(302, undefined, { Location: '/' })),
    }),
    route({
      method: 'GET',
      path: '/callback',
      access: 'public',
      tags,
      query: providerReturn,
      summary: "Browser: the provider's return; the session is opened and the browser lands in the workspace",
      responses: {
        302: {
          description: 'Signed in (session cookie set); to the landing place inside the application',
          headers: { Location: 'a path inside the application' },
        },
        400: 'State unknown, expired or from another browser',
        403: 'The provider did not sign the person in, or they may not have an account here',
        404: 'No identity provider is configured',
        502: "The provider's answer could not be used (error, unsigned or wrongly signed ID token, wrong nonce, another subject)",
        503: 'The provider cannot be reached or is too slow',
      },
      handler: async ({ req, ip }) => {
        const done = await configured().complete({
          query: returned(req),
          browserBinding: bindingOf(req),
          ip,
          seen: deviceSeen(req),
        });
        return reply(302, undefined, {
          Location: done.returnTo,
          'Set-Cookie': [...cookies.signedIn(done, req), binding('', 0)],
          'Cache-Control': 'no-store',
        });
      },
    }),
    route({
      method: 'GET',
      path: '/logout',
      access: 'public',
      tags,
      summary: 'Browser: sign out here and, when OIDC_LOGOUT_URL is set, at the identity provider too',
      responses: {
        302: {
          description: "To the provider's logout (with post_logout_redirect_uri) or to the sign-in screen",
          headers: { Location: 'where to go next' },
        },
      },
      handler: ({ req, caller, ip }) => {
        auth.logout(caller, authenticator.session(req)?.row.id_hash ?? null, ip);
        return reply(302, undefined, {
          Location: oidc?.logoutUrl(baseUrl(req)) ?? '/',
          'Set-Cookie': cookies.clear(req),
          'Cache-Control': 'no-store',
        });
      },
    }),
    route({
      method: 'GET',
      path: '/api/auth/oidc/mobile/login',
      access: 'public',
      tags,
      query: mobileLoginQuery,
      summary: "Native app: hand the sign-in sheet to the identity provider, carrying the app's S256 challenge",
      responses: {
        302: toProvider,
        400: 'Missing or non-S256 challenge, or a redirect_uri not on the allow-list (http(s) always refused)',
        404: 'No identity provider is configured',
        502: "The provider's discovery answer could not be used",
        503: 'The provider cannot be reached',
      },
      handler: async ({ req, query }) => {
        const handoff = await configured().mobileBegin({
          baseUrl: baseUrl(req),
          codeChallenge: query.code_challenge ?? null,
          codeChallengeMethod: query.code_challenge_method ?? null,
          redirectUri: query.redirect_uri ?? null,
        });
        return reply(302, undefined, {
          Location: handoff.url,
          'Set-Cookie': binding(handoff.browserBinding),
          'Cache-Control': 'no-store',
        });
      },
    }),
    route({
      method: 'GET',
      path: '/api/auth/oidc/mobile/complete',
      access: 'public',
      tags,
      query: providerReturn,
      summary:
        "Native app: the provider's return; back to the app with a one-time `code` (60 s, bound to its challenge) or an `error`",
      responses: {
        302: {
          description: "To the app's redirect URI with `code` or `error`",
          headers: { Location: "the app's custom-scheme address" },
        },
        400: 'State unknown, expired or from another browser (no app to return to)',
        404: 'No identity provider is configured',
      },
      handler: async ({ req, ip }) => {
        const back = await configured().mobileComplete({ query: returned(req), browserBinding: bindingOf(req), ip });
        return reply(302, undefined, {
          Location: back.location,
          'Set-Cookie': binding('', 0),
          'Cache-Control': 'no-store',
        });
      },
    }),
    route({
      method: 'POST',
      path: '/api/auth/oidc/exchange',
      access: 'public',
      tags,
      body: exchangeBody,
      summary:
        'Native app: trade the one-time code and its PKCE verifier for an ordinary session (any attempt spends the code)',
      responses: {
        200: { description: 'Signed in; the session cookie is set', schema: z.object({ user: signedInUser }) },
        400: 'Malformed body',
        401: 'Code unknown, used, expired, or the verifier does not match (OIDC_EXCHANGE_REJECTED)',
        404: 'No identity provider is configured',
      },
      handler: ({ req, body, ip }) => {
        const done = configured().exchange({
          code: body.code,
          codeVerifier: body.code_verifier,
          ip,
          seen: deviceSeen(req),
        });
        return reply(200, { user: done.user }, { 'Set-Cookie': cookies.signedIn(done, req) });
      },
    }),
  ];
}
