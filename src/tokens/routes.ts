// Rows of the route table for API tokens (spec §4.2; session only — the guard refuses tokens
// on /api/auth/*).
import { z } from 'zod';
import { noContent, route, type RouteDef } from '../http/route.ts';
import { LIMITS, type RateLimiter } from '../auth/rate-limits.ts';
import type { AuthService } from '../auth/service.ts';
import { MAX_LIVE_TOKENS, type TokenService } from './service.ts';

const name = z.string().trim().min(1).max(100);

const issueBody = z.object({
  name,
  scope: z.enum(['read', 'write']).default('read'),
  expiresInDays: z.number().int().min(1).max(3650).nullable().default(null),
  password: z.string().max(1024).optional(),
});

export function tokenRoutes(deps: { tokens: TokenService; auth: AuthService; limits: RateLimiter }): RouteDef[] {
  const { tokens, auth, limits } = deps;
  const tags = ['API tokens'];
  return [
    route({
      method: 'GET', path: '/api/auth/tokens', access: 'session', tags,
      summary: 'This account\'s live API tokens',
      responses: { 200: 'Tokens (never their secrets)' },
      handler: ({ caller }) => ({ tokens: tokens.list(caller!.userId) }),
    }),
    route({
      method: 'POST', path: '/api/auth/tokens', access: 'session', tags, body: issueBody, status: 201,
      summary: 'Issue an API token; its secret is in this answer only',
      description: `\`scope\` read (GET, HEAD, POST /api/download, POST /api/download/plan) or write; \`expiresInDays\` 1..3650 or null; \`password\` is required when the account has one. At most ${MAX_LIVE_TOKENS} live tokens per account.`,
      responses: { 201: 'The token and its secret', 400: 'Malformed body', 401: 'Password wrong or missing', 409: `Already ${MAX_LIVE_TOKENS} live tokens`, 429: 'Too many attempts' },
      handler: async ({ caller, body, ip }) => {
        limits.hit(`credential:${ip}`, LIMITS.credential);
        await auth.confirmPassword(caller!, body.password, ip);
        return tokens.issue(caller!.userId, { name: body.name, scope: body.scope, expiresInDays: body.expiresInDays }, ip);
      },
    }),
    route({
      method: 'PATCH', path: '/api/auth/tokens/:id', access: 'session', tags, body: z.object({ name }),
      summary: 'Rename an API token (by its id, never its secret)',
      responses: { 200: 'The token', 400: 'Malformed body', 404: 'No such token on this account' },
      handler: ({ caller, params, body, ip }) => ({ token: tokens.rename(caller!.userId, params.id!, body.name, ip) }),
    }),
    route({
      method: 'DELETE', path: '/api/auth/tokens/:id', access: 'session', tags,
      summary: 'Revoke an API token; it stops working on the next request',
      responses: { 204: 'Revoked', 404: 'No such token on this account' },
      handler: ({ caller, params, ip }) => { tokens.revoke(caller!.userId, params.id!, ip); return noContent(); },
    }),
  ];
}
