// Sign-in through a real identity provider (oidc-provider on loopback) at the service level:
// the code flow with PKCE, state and nonce end to end, accounts made and linked by the rules,
// roles from groups, and each spoiled answer refused with the right status; then the native
// app bridge (S256 challenge, allow-listed redirect, one-time code).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../src/core/errors.ts';
import { OidcService, oidcOptions, type OidcOptions } from '../../src/oidc/service.ts';
import { createOidcStore } from '../../src/oidc/store.ts';
import { identityKit, type IdentityKit } from '../support/identity-kit.ts';
import { startIdp, type TestIdp } from '../support/oidc-idp.ts';

const BASE = 'http://burrow.test';
let idp: TestIdp;

test.before(async () => {
  idp = await startIdp([`${BASE}/callback`, `${BASE}/api/auth/oidc/mobile/complete`]);
  idp.accounts.set('alice', {
    email: 'alice@example.org',
    email_verified: true,
    name: 'Alice A',
    preferred_username: 'alice',
    groups: ['Staff'],
  });
  idp.accounts.set('boss', {
    email: 'boss@example.org',
    email_verified: true,
    preferred_username: 'boss',
    groups: ['Burrow-Admins', 'Staff'],
  });
  idp.accounts.set('nogroups', { email: 'ng@example.org', email_verified: true, preferred_username: 'ng' });
  idp.accounts.set('unverified', {
    email: 'unverified@example.org',
    email_verified: false,
    preferred_username: 'unverified',
  });
});
test.after(async () => {
  await idp.close();
});
test.before.each(() => {
  idp.tokenMode = 'pass';
  idp.userinfoMode = 'pass';
  idp.nextAccount = 'alice';
});

function options(overrides: Partial<OidcOptions> = {}): OidcOptions {
  return {
    issuer: idp.issuer,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    scopes: ['openid', 'profile', 'email', 'groups'],
    callbackUrl: null,
    endpoints: { authorization: null, token: idp.tokenProxyUrl, userinfo: idp.userinfoProxyUrl },
    logoutUrl: null,
    adminGroups: ['burrow-admins'],
    groupsClaim: null,
    groupMap: [],
    requireEmailVerified: false,
    autoCreateUsers: true,
    mobileRedirectUris: ['nextexplorer://oidc-callback', 'myapp://done'],
    timeoutMs: 1500,
    ...overrides,
  };
}

async function setup(overrides: Partial<OidcOptions> = {}): Promise<{ kit: IdentityKit; oidc: OidcService }> {
  const kit = await identityKit();
  return {
    kit,
    oidc: new OidcService(
      { store: createOidcStore(kit.db), users: kit.users, activity: kit.activity, auth: kit.auth },
      options(overrides),
    ),
  };
}

async function signIn(oidc: OidcService, account = 'alice') {
  idp.nextAccount = account;
  const { url, browserBinding } = await oidc.begin({ baseUrl: BASE, returnTo: '/Files/docs' });
  const back = await idp.browse(url, BASE);
  return oidc.complete({ query: back.searchParams, browserBinding, ip: '10.0.0.1' });
}

async function refused(fn: () => Promise<unknown>, status: number, code?: string): Promise<AppError> {
  try {
    await fn();
  } catch (err) {
    assert.instance(err, AppError, String(err));
    assert.is((err as AppError).status, status, `${(err as Error).message}`);
    if (code) assert.is((err as AppError).code, code);
    return err as AppError;
  }
  throw new Error('expected a refusal');
}

test('options exist only when configured and allowed by AUTH_MODE', async () => {
  const kit = await identityKit({
    OIDC_ENABLED: 'true',
    OIDC_ISSUER: 'https://id.example',
    OIDC_CLIENT_ID: 'c',
    PUBLIC_URL: 'https://files.example',
  });
  try {
    const o = oidcOptions(kit.config)!;
    assert.is(o.issuer, 'https://id.example');
    assert.equal(o.mobileRedirectUris, ['nextexplorer://oidc-callback']);
    assert.is(o.callbackUrl, null);
  } finally {
    kit.close();
  }
  for (const env of [
    { OIDC_ENABLED: 'true', OIDC_CLIENT_ID: 'c' } as Record<string, string>,
    { OIDC_ENABLED: 'true', OIDC_ISSUER: 'https://id.example', OIDC_CLIENT_ID: 'c', AUTH_MODE: 'local' },
  ]) {
    const k = await identityKit(env);
    try {
      assert.is(oidcOptions(k.config), null);
    } finally {
      k.close();
    }
  }
});

test('code flow with PKCE, state and nonce: the authorization request, a new account, its session, the landing place', async () => {
  const s = await setup();
  try {
    const { url } = await s.oidc.begin({ baseUrl: BASE, prompt: 'login' });
    const auth = new URL(url);
    assert.is(auth.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(auth.searchParams.get('code_challenge'));
    assert.ok(auth.searchParams.get('state'));
    assert.ok(auth.searchParams.get('nonce'));
    assert.is(auth.searchParams.get('redirect_uri'), `${BASE}/callback`);
    assert.is(auth.searchParams.get('scope'), 'openid profile email groups');
    assert.is(auth.searchParams.get('prompt'), 'login');
    await refused(() => s.oidc.begin({ baseUrl: BASE, prompt: 'none' }), 400);
    // Nothing secret leaves in the URL: the verifier stays in the database.
    const row = s.kit.db.get<{ code_verifier: string }>('SELECT code_verifier FROM oidc_transactions')!;
    assert.not.ok(url.includes(row.code_verifier));

    const done = await signIn(s.oidc);
    assert.is(done.user.username, 'alice');
    assert.is(done.user.email, 'alice@example.org');
    assert.is(done.user.displayName, 'Alice A');
    assert.equal(done.user.roles, ['user'], 'the first account gets no admin: the groups decided');
    assert.is(done.returnTo, '/Files/docs');
    assert.is(s.kit.sessions.find(done.session.id)!.state, 'active');
    const methods = s.kit.users.methods(done.user.id);
    assert.equal(
      methods.map((m) => [m.type, m.provider]),
      [['oidc', idp.issuer]],
    );
    // Again: the same account, by its subject.
    const again = await signIn(s.oidc);
    assert.is(again.user.id, done.user.id);
    assert.is(s.kit.users.count(), 1);
  } finally {
    s.kit.close();
  }
});

test('roles follow the groups at every sign-in (case-insensitive) and the change is logged; no group claim keeps the role', async () => {
  const s = await setup();
  try {
    const boss = await signIn(s.oidc, 'boss');
    assert.equal(boss.user.roles, ['admin']);
    idp.accounts.get('boss')!.groups = ['Staff'];
    assert.equal((await signIn(s.oidc, 'boss')).user.roles, ['user']);
    idp.accounts.get('boss')!.groups = undefined;
    idp.accounts.get('boss')!.roles = ['BURROW-ADMINS'];
    assert.equal((await signIn(s.oidc, 'boss')).user.roles, ['admin'], 'the roles claim counts too');
    const changes = s.kit.activityRows('auth.oidc-role-change');
    assert.equal(changes.map((r) => (r.detail as { to: string }).to).reverse(), ['user', 'admin']);
    // No group claim: the stored role stays.
    const ng = await signIn(s.oidc, 'nogroups');
    s.kit.users.update(ng.user.id, { roles: ['admin'] });
    assert.equal((await signIn(s.oidc, 'nogroups')).user.roles, ['admin']);
    idp.accounts.get('boss')!.roles = undefined;
  } finally {
    s.kit.close();
  }
  // Without OIDC_ADMIN_GROUPS the provider never decides; the very first account administers.
  const t = await setup({ adminGroups: [] });
  try {
    assert.equal((await signIn(t.oidc, 'alice')).user.roles, ['admin']);
    assert.equal((await signIn(t.oidc, 'nogroups')).user.roles, ['user']);
  } finally {
    t.kit.close();
  }
});

test('linking by email, verified email required, no auto-create', async () => {
  const s = await setup({ requireEmailVerified: true });
  try {
    const existing = await s.kit.addUser('al', { email: 'alice@example.org' });
    const linked = await signIn(s.oidc, 'alice');
    assert.is(linked.user.id, existing);
    const unverifiedLocal = await s.kit.addUser('unv', { email: 'unverified@example.org' });
    await refused(() => signIn(s.oidc, 'unverified'), 403, 'OIDC_ACCESS_DENIED');
    assert.equal(
      s.kit.users.methods(unverifiedLocal).map((m) => m.type),
      ['local_password'],
      'not linked',
    );
  } finally {
    s.kit.close();
  }
  const t = await setup({ autoCreateUsers: false });
  try {
    await refused(() => signIn(t.oidc, 'nogroups'), 403, 'OIDC_ACCESS_DENIED');
    assert.is(t.kit.users.count(), 0, 'no account made');
  } finally {
    t.kit.close();
  }
  const u = await setup({ requireEmailVerified: true });
  try {
    await refused(() => signIn(u.oidc, 'unverified'), 403);
    assert.is(u.kit.users.count(), 0);
  } finally {
    u.kit.close();
  }
});

test('bad state, another browser, a replayed callback', async () => {
  const s = await setup();
  try {
    const { url, browserBinding } = await s.oidc.begin({ baseUrl: BASE });
    const back = await idp.browse(url, BASE);
    const forged = new URLSearchParams(back.searchParams);
    forged.set('state', 'not-our-state');
    await refused(() => s.oidc.complete({ query: forged, browserBinding, ip: 'ip' }), 400, 'OIDC_STATE_INVALID');
    await refused(
      () => s.oidc.complete({ query: back.searchParams, browserBinding: 'another-browser', ip: 'ip' }),
      400,
      'OIDC_STATE_INVALID',
    );
    // The attempt above spent the transaction: the real browser must start again.
    await refused(() => s.oidc.complete({ query: back.searchParams, browserBinding, ip: 'ip' }), 400);
    const ok = await signIn(s.oidc);
    assert.ok(ok.user);
    assert.is(s.kit.users.count(), 1);
  } finally {
    s.kit.close();
  }
});

test('spoiled answers: ID token signed by another key, unsigned, wrong nonce, other userinfo subject, provider error -> 502', async () => {
  const s = await setup();
  try {
    for (const mode of ['wrong-key', 'unsigned', 'bad-nonce', 'error'] as const) {
      idp.tokenMode = mode;
      const err = await refused(() => signIn(s.oidc), 502, 'OIDC_PROVIDER_ERROR');
      assert.ok(err.message.length > 20, err.message);
    }
    idp.tokenMode = 'pass';
    idp.userinfoMode = 'other-subject';
    await refused(() => signIn(s.oidc), 502, 'OIDC_PROVIDER_ERROR');
    assert.is(s.kit.users.count(), 0, 'nothing created');
    assert.is(s.kit.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM sessions')!.n, 0, 'no session');
  } finally {
    s.kit.close();
  }
});

test('slow or unreachable provider -> 503 with a clear message', async () => {
  const s = await setup({ timeoutMs: 1000 });
  try {
    idp.tokenMode = 'slow';
    const err = await refused(() => signIn(s.oidc), 503, 'OIDC_PROVIDER_UNAVAILABLE');
    assert.match(err.message, /in time/);
  } finally {
    s.kit.close();
  }
  const dead = await setup({ issuer: 'http://127.0.0.1:9' });
  try {
    const err = await refused(() => dead.oidc.begin({ baseUrl: BASE }), 503, 'OIDC_PROVIDER_UNAVAILABLE');
    assert.match(err.message, /discovery/);
  } finally {
    dead.kit.close();
  }
});

test('logout address only with OIDC_LOGOUT_URL', async () => {
  const s = await setup();
  const t = await setup({ logoutUrl: 'https://id.example/logout' });
  try {
    assert.is(s.oidc.logoutUrl(BASE), null);
    const url = new URL(t.oidc.logoutUrl(BASE)!);
    assert.is(url.searchParams.get('post_logout_redirect_uri'), `${BASE}/`);
    assert.is(url.searchParams.get('client_id'), 'burrow');
  } finally {
    s.kit.close();
    t.kit.close();
  }
});

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

async function mobile(oidc: OidcService, challenge: string, redirectUri: string | null = null) {
  const { url, browserBinding } = await oidc.mobileBegin({
    baseUrl: BASE,
    codeChallenge: challenge,
    codeChallengeMethod: 'S256',
    redirectUri,
  });
  const back = await idp.browse(url, BASE);
  assert.is(back.pathname, '/api/auth/oidc/mobile/complete');
  return new URL((await oidc.mobileComplete({ query: back.searchParams, browserBinding, ip: 'ip' })).location);
}

test('mobile bridge: S256 challenge, default redirect, one-time code bound to the challenge, persisted, any attempt destroys it', async () => {
  const s = await setup();
  try {
    const { verifier, challenge } = pkce();
    const back = await mobile(s.oidc, challenge);
    assert.is(`${back.protocol}//${back.host}${back.pathname}`, 'nextexplorer://oidc-callback');
    const code = back.searchParams.get('code')!;
    assert.ok(code && !back.searchParams.has('error'));
    assert.is(s.kit.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM oidc_mobile_codes')!.n, 1, 'persisted');
    const done = s.oidc.exchange({ code, codeVerifier: verifier, ip: 'ip' });
    assert.is(done.user.username, 'alice');
    assert.is(s.kit.sessions.find(done.session.id)!.state, 'active');
    await refused(
      async () => s.oidc.exchange({ code, codeVerifier: verifier, ip: 'ip' }),
      401,
      'OIDC_EXCHANGE_REJECTED',
    );

    // A wrong verifier destroys the code: the right one cannot use it afterwards.
    const second = pkce();
    const code2 = (await mobile(s.oidc, second.challenge, 'myapp://done')).searchParams.get('code')!;
    await refused(async () => s.oidc.exchange({ code: code2, codeVerifier: pkce().verifier, ip: 'ip' }), 401);
    await refused(async () => s.oidc.exchange({ code: code2, codeVerifier: second.verifier, ip: 'ip' }), 401);
    // Expired after 60 s.
    const third = pkce();
    const code3 = (await mobile(s.oidc, third.challenge)).searchParams.get('code')!;
    s.kit.db.run('UPDATE oidc_mobile_codes SET expires_at = ?', [Date.now() - 1]);
    await refused(async () => s.oidc.exchange({ code: code3, codeVerifier: third.verifier, ip: 'ip' }), 401);
    assert.is(s.kit.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM oidc_mobile_codes')!.n, 0);
  } finally {
    s.kit.close();
  }
});

test('mobile bridge refusals: method, challenge, redirect URIs off the list or http(s); provider failure goes back to the app as error', async () => {
  const s = await setup();
  try {
    const { challenge } = pkce();
    const begin = (codeChallenge: string | null, codeChallengeMethod: string | null, redirectUri: string | null) =>
      s.oidc.mobileBegin({ baseUrl: BASE, codeChallenge, codeChallengeMethod, redirectUri });
    await refused(() => begin(challenge, 'plain', null), 400);
    await refused(() => begin(challenge, null, null), 400);
    await refused(() => begin(null, 'S256', null), 400);
    await refused(() => begin('short', 'S256', null), 400);
    await refused(() => begin(challenge, 'S256', 'https://evil.example/cb'), 400);
    await refused(() => begin(challenge, 'S256', 'http://127.0.0.1/cb'), 400);
    await refused(() => begin(challenge, 'S256', 'otherapp://cb'), 400);
    assert.is(
      s.kit.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM oidc_transactions')!.n,
      0,
      'a refused start leaves nothing',
    );
    idp.tokenMode = 'wrong-key';
    const back = await mobile(s.oidc, challenge);
    assert.is(back.protocol, 'nextexplorer:');
    assert.not.ok(back.searchParams.has('code'));
    assert.match(back.searchParams.get('error')!, /identity provider/);
    await refused(
      () =>
        s.oidc.mobileComplete({
          query: new URLSearchParams({ state: 'nope', code: 'x' }),
          browserBinding: null,
          ip: 'ip',
        }),
      400,
    );
    // A browser callback cannot finish an app's sign-in, nor the other way round.
    idp.tokenMode = 'pass';
    const app = await s.oidc.mobileBegin({
      baseUrl: BASE,
      codeChallenge: challenge,
      codeChallengeMethod: 'S256',
      redirectUri: null,
    });
    const appBack = await idp.browse(app.url, BASE);
    await refused(
      () => s.oidc.complete({ query: appBack.searchParams, browserBinding: app.browserBinding, ip: 'ip' }),
      400,
    );
  } finally {
    s.kit.close();
  }
});

test.run();
