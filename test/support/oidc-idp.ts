// A real OpenID Connect provider for tests (oidc-provider) on loopback, whose login step signs
// in whichever account the test names, with groups claims. Beside it, a token-endpoint proxy
// that can spoil the answer (ID token signed by a second key, unsigned, wrong nonce, slow,
// failing) and a userinfo proxy that can name another subject; point OIDC_TOKEN_URL /
// OIDC_USERINFO_URL at them. `browse` plays the browser from the authorization URL to the
// provider's redirect back to us.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, importJWK, SignJWT, decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import Provider from 'oidc-provider';

export interface IdpAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
  groups?: string[];
  roles?: string[];
}
export type TokenMode = 'pass' | 'wrong-key' | 'unsigned' | 'bad-nonce' | 'slow' | 'error';
export type UserinfoMode = 'pass' | 'other-subject';

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  tokenProxyUrl: string;
  userinfoProxyUrl: string;
  accounts: Map<string, IdpAccount>;
  /** The account the next login step signs in. */
  nextAccount: string;
  tokenMode: TokenMode;
  userinfoMode: UserinfoMode;
  /** Userinfo answers held until this many are asked for, then given together (0: none held). */
  userinfoTogether: number;
  /** Follows redirects from `url` until one leaves for `stopAt` (our server); returns that address. */
  browse(url: string, stopAt: string): Promise<URL>;
  close(): Promise<void>;
}

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

async function body(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startIdp(redirectUris: string[]): Promise<TestIdp> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk = { ...(await exportJWK(privateKey)), kid: 'k1', alg: 'RS256', use: 'sig' } as JWK;
  const { privateKey: otherKey } = await generateKeyPair('RS256', { extractable: true });

  const server = http.createServer();
  const issuer = await listen(server);
  const state = {
    accounts: new Map<string, IdpAccount>(),
    nextAccount: 'alice',
    tokenMode: 'pass' as TokenMode,
    userinfoMode: 'pass' as UserinfoMode,
    userinfoTogether: 0,
    waiting: [] as (() => void)[],
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'burrow',
        client_secret: 'burrow-secret',
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [signingJwk] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'preferred_username'],
      groups: ['groups', 'roles'],
    },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-cookie-key'] },
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    async findAccount(_ctx: unknown, id: string) {
      const account = state.accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        async claims() {
          return { sub: id, ...account };
        },
      };
    },
    // First-party client: no consent screen.
    async loadExistingGrant(ctx: any) {
      const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope('openid email profile groups');
      await grant.save();
      return grant;
    },
  } as any);
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      provider
        .interactionFinished(req, res, { login: { accountId: state.nextAccount } }, { mergeWithLastSubmission: false })
        .catch((err: Error) => {
          res.statusCode = 500;
          res.end(err.message);
        });
      return;
    }
    callback(req, res);
  });

  const resign = async (idToken: string, mode: TokenMode): Promise<string> => {
    const payload = decodeJwt(idToken);
    const header = decodeProtectedHeader(idToken);
    if (mode === 'unsigned') {
      const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      return `${enc({ alg: 'none', typ: 'JWT' })}.${enc(payload)}.`;
    }
    const key = mode === 'wrong-key' ? otherKey : await importJWK(signingJwk, 'RS256');
    return new SignJWT({ ...payload, ...(mode === 'bad-nonce' ? { nonce: 'not-the-nonce' } : {}) })
      .setProtectedHeader({ alg: 'RS256', kid: header.kid ?? 'k1' })
      .sign(key);
  };

  // The token endpoint, spoiled as the test asks.
  const tokenProxy = http.createServer((req, res) => {
    spoilToken(req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(502).end(err.message);
      else res.destroy();
    });
  });
  const spoilToken = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const sent = await body(req);
    // The slow identity provider under test: its token answer comes late on purpose.
    if (state.tokenMode === 'slow') await new Promise((r) => setTimeout(r, 4000));
    if (state.tokenMode === 'error') {
      res
        .writeHead(500, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ error: 'server_error', error_description: 'the provider broke' }));
      return;
    }
    const upstream = await fetch(`${issuer}/token`, {
      method: 'POST',
      body: new Uint8Array(sent),
      headers: {
        'Content-Type': String(req.headers['content-type']),
        Authorization: String(req.headers.authorization ?? ''),
      },
    });
    const json = (await upstream.json()) as Record<string, unknown>;
    if (typeof json.id_token === 'string' && state.tokenMode !== 'pass')
      json.id_token = await resign(json.id_token, state.tokenMode);
    res
      .writeHead(upstream.status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })
      .end(JSON.stringify(json));
  };
  const tokenProxyUrl = `${await listen(tokenProxy)}/token`;

  const userinfoProxy = http.createServer((req, res) => {
    spoilUserinfo(req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(502).end(err.message);
      else res.destroy();
    });
  });
  const spoilUserinfo = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    // Held until `userinfoTogether` answers are asked for, then all given at once: the sign-ins
    // waiting on them go on to their accounts at the same moment.
    if (state.userinfoTogether > 1) {
      await new Promise<void>((go) => {
        state.waiting.push(go);
        if (state.waiting.length >= state.userinfoTogether) for (const w of state.waiting.splice(0)) w();
      });
    }
    const upstream = await fetch(`${issuer}/me`, {
      headers: { Authorization: String(req.headers.authorization ?? '') },
    });
    const json = (await upstream.json()) as Record<string, unknown>;
    if (state.userinfoMode === 'other-subject') json.sub = 'somebody-else';
    res.writeHead(upstream.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(json));
  };
  const userinfoProxyUrl = `${await listen(userinfoProxy)}/me`;

  return {
    issuer,
    clientId: 'burrow',
    clientSecret: 'burrow-secret',
    tokenProxyUrl,
    userinfoProxyUrl,
    get accounts() {
      return state.accounts;
    },
    get nextAccount() {
      return state.nextAccount;
    },
    set nextAccount(v) {
      state.nextAccount = v;
    },
    get tokenMode() {
      return state.tokenMode;
    },
    set tokenMode(v) {
      state.tokenMode = v;
    },
    get userinfoTogether() {
      return state.userinfoTogether;
    },
    set userinfoTogether(v) {
      state.userinfoTogether = v;
    },
    get userinfoMode() {
      return state.userinfoMode;
    },
    set userinfoMode(v) {
      state.userinfoMode = v;
    },
    async browse(start, stopAt) {
      // A fresh browser each time, so the login step (and its account) runs every time.
      const cookies = new Map<string, string>();
      let url = new URL(start);
      for (let hop = 0; hop < 20; hop++) {
        if (url.href.startsWith(stopAt)) return url;
        const res = await fetch(url, {
          redirect: 'manual',
          headers: { Cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
        });
        for (const line of res.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const eq = pair!.indexOf('=');
          cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
        }
        const location = res.headers.get('location');
        if (!location)
          throw new Error(
            `the provider stopped at ${url.href} with ${res.status}: ${(await res.text()).slice(0, 300)}`,
          );
        await res.arrayBuffer().catch(() => undefined);
        url = new URL(location, url);
      }
      throw new Error('too many redirects');
    },
    async close() {
      for (const s of [server, tokenProxy, userinfoProxy]) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}
