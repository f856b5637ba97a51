// The token guard, table-driven over many spellings of real routes with real tokens.
import http from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { issueToken, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let admin: Client;
const secrets: Record<string, string> = {};

test.before(async () => {
  s = await startServer();
  admin = await setupAdmin(s);
  secrets.read = await issueToken(admin, 'read');
  secrets.write = await issueToken(admin, 'write');
  const revoked = await issueToken(admin, 'write', { name: 'to revoke' });
  const list = (await admin.get('/api/auth/tokens')).json.tokens as { id: string; name: string }[];
  assert.is((await admin.delete(`/api/auth/tokens/${list.find((t) => t.name === 'to revoke')!.id}`)).status, 204);
  secrets.revoked = revoked;
  const expired = await issueToken(admin, 'write', { name: 'to expire', expiresInDays: 1 });
  // Time passing, simulated: the expiry moves into the past.
  await s.withDatabase((db) =>
    db.run("UPDATE api_tokens SET expires_at = '2000-01-01T00:00:00.000Z' WHERE name = 'to expire'"),
  );
  secrets.expired = expired;
  // Right shape, right id, wrong random part.
  secrets.forged = secrets.write.slice(0, -4) + (secrets.write.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  secrets.unknown = 'burrow_ABCDEFGHIJKLMNOP_' + 'x'.repeat(43);
  secrets.garbage = 'not-a-token';
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

/** A request with the path sent byte for byte (fetch would resolve `%2e%2e` and such itself). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Headers; text: string }> {
  const url = new URL(s.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
          resolve({ status: res.statusCode!, headers: h, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

type Row = [method: string, path: string, cred: string, status: number, code?: string];

const NOT_ALLOWED = 'AUTH_TOKEN_NOT_ALLOWED';
const READ_ONLY = 'AUTH_TOKEN_READ_ONLY';
const INVALID = 'AUTH_TOKEN_INVALID';

const rows: Row[] = [
  // /api/auth/* except GET /api/auth/me, in any spelling
  ['GET', '/api/auth/tokens', 'write', 403, NOT_ALLOWED],
  ['GET', '/API/AUTH/TOKENS', 'write', 403, NOT_ALLOWED],
  ['GET', '/api/Auth/Tokens', 'read', 403, NOT_ALLOWED],
  ['GET', '/api/auth/tokens/', 'write', 403, NOT_ALLOWED],
  ['GET', '/api/auth/tokens//', 'write', 403, NOT_ALLOWED],
  ['GET', '//api//auth//tokens', 'write', 403, NOT_ALLOWED],
  ['GET', '/api/auth/%74okens', 'write', 403, NOT_ALLOWED],
  ['GET', '/api/%61uth/tokens', 'read', 403, NOT_ALLOWED],
  ['GET', '/api%2Fauth%2Ftokens', 'write', 403, NOT_ALLOWED],
  ['GET', '/api/auth/%2574okens', 'write', 403, NOT_ALLOWED],
  ['POST', '/api/auth/tokens', 'write', 403, NOT_ALLOWED],
  ['POST', '/Api/Auth/Tokens/', 'write', 403, NOT_ALLOWED],
  ['PATCH', '/api/auth/tokens/abc', 'read', 403, NOT_ALLOWED],
  ['DELETE', '/api/auth/tokens/abc', 'write', 403, NOT_ALLOWED],
  ['POST', '/api/auth/password', 'write', 403, NOT_ALLOWED],
  ['POST', '/api/auth/logout', 'write', 403, NOT_ALLOWED],
  ['GET', '/api/auth/methods', 'write', 403, NOT_ALLOWED],
  ['GET', '/api/auth/status', 'write', 403, NOT_ALLOWED],
  ['POST', '/api/auth/me', 'write', 403, NOT_ALLOWED],
  ['GET', '/api/auth/me', 'read', 200],
  ['GET', '/api/auth/me/', 'write', 200],
  // administrative routes, even for an administrator's token
  ['GET', '/api/users', 'write', 403, NOT_ALLOWED],
  ['GET', '/API/USERS/', 'write', 403, NOT_ALLOWED],
  ['GET', '/api/users%2f', 'read', 403, NOT_ALLOWED],
  ['POST', '/api/users', 'write', 403, NOT_ALLOWED],
  ['POST', '/api/users/x/password', 'write', 403, NOT_ALLOWED],
  ['GET', '/api/activity', 'write', 403, NOT_ALLOWED],
  ['DELETE', '/API/Activity', 'write', 403, NOT_ALLOWED],
  ['GET', '/api/Activity/Address', 'read', 403, NOT_ALLOWED],
  ['POST', '/api/settings/upload-logo', 'write', 403, NOT_ALLOWED],
  // the terminal
  ['GET', '/api/terminal', 'write', 403, NOT_ALLOWED],
  ['POST', '/api/Terminal/Session', 'write', 403, NOT_ALLOWED],
  // scopes on account routes
  ['GET', '/api/settings', 'read', 200],
  ['GET', '/api/users/shareable', 'read', 200],
  ['PATCH', '/api/settings', 'read', 403, READ_ONLY],
  ['PATCH', '/API/SETTINGS/', 'read', 403, READ_ONLY],
  ['PATCH', '/api/settings', 'write', 200],
  // unusable tokens: all alike
  ['GET', '/api/settings', 'forged', 401, INVALID],
  ['GET', '/api/settings', 'revoked', 401, INVALID],
  ['GET', '/api/settings', 'expired', 401, INVALID],
  ['GET', '/api/settings', 'unknown', 401, INVALID],
  ['GET', '/api/settings', 'garbage', 401, INVALID],
  ['GET', '/api/auth/me', 'revoked', 401, INVALID],
  ['GET', '/api/auth/me', 'expired', 401, INVALID],
  // refused before anything: undecodable and `..`
  ['GET', '/api/auth/%2e%2e/users', 'write', 400],
  ['GET', '/api/settings/%2E%2E/users', 'write', 400],
  ['GET', '/api/settings/%C3%28', 'write', 400],
  ['GET', '/api/auth/%ZZ', 'write', 403, NOT_ALLOWED],
  ['GET', '/api/auth/./tokens', 'write', 403, NOT_ALLOWED],
  ['GET', '/api/auth/tokens/.', 'write', 403, NOT_ALLOWED],
  // without any credential
  ['GET', '/api/settings', 'none', 401],
  ['GET', '/API/SETTINGS', 'none', 401],
  ['GET', '/api/Settings/', 'none', 401],
  ['GET', '/api/users', 'none', 401],
];

test(`${rows.length} spellings against the real routes`, async () => {
  const failures: string[] = [];
  for (const [method, path, cred, status, code] of rows) {
    const headers: Record<string, string> = {};
    if (cred !== 'none') headers.authorization = `Bearer ${secrets[cred]}`;
    const body =
      method === 'PATCH' && path.toLowerCase().includes('settings')
        ? JSON.stringify({ user: { guardTest: true } })
        : method === 'GET'
          ? undefined
          : '{}';
    const res = await raw(method, path, { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body);
    const text = res.text;
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (res.status !== status) {
      failures.push(`${method} ${path} [${cred}]: ${res.status} ${text.slice(0, 120)}`);
      continue;
    }
    if (status >= 400) {
      try {
        envelope({ status: res.status, headers: res.headers, text, json });
      } catch (err) {
        failures.push(`${method} ${path}: ${(err as Error).message}`);
      }
      if (code && json?.error?.code !== code)
        failures.push(`${method} ${path} [${cred}]: code ${json.error.code}, wanted ${code}`);
    }
  }
  assert.equal(failures, []);
});

test('every unusable token gets the identical answer (message and code)', async () => {
  const answers = new Set<string>();
  for (const cred of ['forged', 'revoked', 'expired', 'unknown', 'garbage']) {
    const a = await new Client(s.url, secrets[cred]).get('/api/settings');
    const e = envelope(a);
    answers.add(JSON.stringify({ status: a.status, message: e.message, code: e.code }));
  }
  assert.is(answers.size, 1);
});

test('tokens are read only from the Authorization header, never a query parameter or a cookie', async () => {
  const q = await new Client(s.url).get(`/api/settings?access_token=${secrets.write}`);
  assert.is(q.status, 401);
  assert.is(envelope(q).code, 'AUTH_REQUIRED');
  const c = new Client(s.url);
  c.cookies.set('connect.sid', secrets.write);
  assert.is((await c.get('/api/settings')).status, 401);
  c.cookies.clear();
  c.cookies.set('token', secrets.write);
  assert.is((await c.get('/api/settings')).status, 401);
});

test('without any credential, /api/volumes answers 401 in any letter case', async () => {
  assert.ok(
    (await s.routes()).some((r) => r.path === '/api/volumes'),
    '/api/volumes is mounted',
  );
  for (const p of ['/api/volumes', '/API/VOLUMES', '/Api/Volumes/', '/api/volumes//']) {
    const a = await new Client(s.url).get(p);
    assert.is(a.status, 401, p);
    envelope(a);
  }
});

test.run();
