// Accounts for tests: the first administrator through /api/auth/setup, further accounts
// through the administration route, API tokens through /api/auth/tokens — all real HTTP.
import { Client } from './client.ts';
import type { TestServer } from './server.ts';

export const ADMIN = { email: 'admin@example.org', username: 'admin', password: 'admin-password-1' };

function must(answer: { status: number; text: string }, what: string, ...ok: number[]): void {
  if (!ok.includes(answer.status)) throw new Error(`${what} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
}

/** Creates the first administrator and returns a client signed in as it. */
export async function setupAdmin(
  server: TestServer,
  opts: { email?: string; username?: string; password?: string } = {},
): Promise<Client> {
  const client = new Client(server.url);
  const answer = await client.post('/api/auth/setup', {
    email: opts.email ?? ADMIN.email,
    username: opts.username ?? ADMIN.username,
    password: opts.password ?? ADMIN.password,
  });
  must(answer, 'setup', 201);
  return client;
}

/** Signs a client in with a password. */
export async function signIn(server: TestServer, identifier: string, password: string): Promise<Client> {
  const client = new Client(server.url);
  must(await client.post('/api/auth/login', { identifier, password }), `sign-in of ${identifier}`, 200);
  return client;
}

/** Creates an account through the administration route and returns a client signed in as it. */
export async function createUser(
  admin: Client,
  server: TestServer,
  opts: { username: string; password: string; email?: string; roles?: string[]; displayName?: string },
): Promise<Client> {
  const answer = await admin.post('/api/users', {
    email: opts.email ?? `${opts.username.toLowerCase()}@example.org`,
    username: opts.username,
    password: opts.password,
    roles: opts.roles ?? [],
    ...(opts.displayName ? { displayName: opts.displayName } : {}),
  });
  must(answer, `create user ${opts.username}`, 201);
  return signIn(server, opts.username, opts.password);
}

/** Issues an API token for the signed-in client and returns its secret. */
export async function issueToken(
  client: Client,
  scope: 'read' | 'write',
  opts: { password?: string; name?: string; expiresInDays?: number | null } = {},
): Promise<string> {
  const answer = await client.post('/api/auth/tokens', {
    name: opts.name ?? `${scope} token`,
    scope,
    expiresInDays: opts.expiresInDays ?? null,
    password: opts.password ?? ADMIN.password,
  });
  must(answer, 'issue token', 201);
  return answer.json.secret as string;
}

/** The id of the signed-in account. */
export async function me(client: Client): Promise<{ id: string; username: string; roles: string[] }> {
  return (await client.get('/api/auth/me')).json.user;
}
