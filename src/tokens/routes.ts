// Rows of the route table for API tokens (spec §4.2; session only — the guard refuses tokens
// on /api/auth/*).
import { z } from 'zod';
import { noContent, route } from '../http/route.ts';
import { MAX_LIVE_TOKENS, type TokenService } from './service.ts';
import { issueBody, issuedToken, oneToken, tokenList, tokenName, tokenParams } from './wire.ts';

export function tokenRoutes(deps: { tokens: TokenService }) {
  const { tokens } = deps;
  const tags = ['API tokens'];
  return [
    route({
      method: 'GET',
      path: '/api/auth/tokens',
      access: 'session',
      tags,
      summary: "This account's live API tokens",
      responses: { 200: { description: 'Tokens (never their secrets)', schema: tokenList } },
      handler: ({ caller }) => ({ tokens: tokens.list(caller.userId) }),
    }),
    route({
      method: 'POST',
      path: '/api/auth/tokens',
      access: 'session',
      tags,
      body: issueBody,
      status: 201,
      summary: 'Issue an API token; its secret is in this answer only',
      description: `\`scope\` read (GET, HEAD, POST /api/download, POST /api/download/plan) or write; \`expiresInDays\` 1..3650 or null; \`password\` is required when the account has one. At most ${MAX_LIVE_TOKENS} live tokens per account.`,
      responses: {
        201: { description: 'The token and its secret', schema: issuedToken },
        400: 'Malformed body',
        401: 'Password wrong or missing',
        403: 'An account without a password here signed in more than AUTH_CONFIRM_MINUTES ago (AUTH_CONFIRM_REQUIRED)',
        409: `Already ${MAX_LIVE_TOKENS} live tokens`,
        429: 'Too many attempts',
      },
      handler: ({ caller, body, ip }) => tokens.issue(caller.userId, body, ip, caller.sessionId),
    }),
    route({
      method: 'PATCH',
      path: '/api/auth/tokens/:id',
      access: 'session',
      tags,
      params: tokenParams,
      body: z.object({ name: tokenName }),
      summary: 'Rename an API token (by its id, never its secret)',
      responses: {
        200: { description: 'The token', schema: oneToken },
        400: 'Malformed body',
        404: 'No such token on this account',
      },
      handler: ({ caller, params, body, ip }) => ({ token: tokens.rename(caller.userId, params.id, body.name, ip) }),
    }),
    route({
      method: 'DELETE',
      path: '/api/auth/tokens/:id',
      access: 'session',
      tags,
      params: tokenParams,
      summary: 'Revoke an API token; it stops working on the next request',
      responses: { 204: { description: 'Revoked' }, 404: 'No such token on this account' },
      handler: ({ caller, params, ip }) => {
        tokens.revoke(caller.userId, params.id, ip);
        return noContent();
      },
    }),
  ];
}
