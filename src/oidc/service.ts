// Sign-in through an OpenID Connect provider (authorization code + PKCE + state + nonce, all
// kept server-side), and the bridge for native apps: the app's own S256 challenge rides along,
// and after the provider signs the person in the app gets a one-time code it trades, with its
// verifier, for an ordinary session. ID tokens are checked for their signature too
// (non-repudiation checks), so an unsigned or wrongly signed token never signs anybody in.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Configuration } from 'openid-client';
import type { ActivityService } from '../activity/service.ts';
import type { AuthService, OpenedSession } from '../auth/service.ts';
import type { DeviceSeen } from '../auth/devices.ts';
import type { UsersStore, WireUser } from '../accounts/users-store.ts';
import type { Config } from '../config.ts';
import type { DirectoryGroups } from '../access/service.ts';
import type { GroupMapEntry } from '../config/variables.ts';
import { AppError } from '../core/errors.ts';
import { OidcAccounts, type Claims } from './accounts.ts';
import type { OidcStore, TransactionRow } from './store.ts';
import { badAnswer, badState, classify, OIDC_EXCHANGE_REJECTED, OidcError } from './errors.ts';

const TRANSACTION_MS = 10 * 60_000;
const MOBILE_CODE_MS = 60_000;
// openid-client (with oauth4webapi and jose) is evaluated on the first sign-in through the
// provider, not at start: an idle server, and one without a provider, never carries it.
let loaded: Promise<typeof import('openid-client')> | undefined;
const openidClient = () => (loaded ??= import('openid-client'));

export const MOBILE_COMPLETE_PATH = '/api/auth/oidc/mobile/complete';
const PROMPTS = new Set(['login', 'consent', 'select_account']);
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export interface OidcOptions {
  issuer: string;
  clientId: string;
  clientSecret: string | null;
  scopes: readonly string[];
  /** OIDC_CALLBACK_URL; default `${base}/callback`. */
  callbackUrl: string | null;
  endpoints: { authorization: string | null; token: string | null; userinfo: string | null };
  logoutUrl: string | null;
  adminGroups: readonly string[];
  groupsClaim: string | null;
  groupMap: readonly GroupMapEntry[];
  requireEmailVerified: boolean;
  autoCreateUsers: boolean;
  mobileRedirectUris: readonly string[];
  /** Limit for each call to the provider. */
  timeoutMs: number;
}

/** The options when the provider is configured and allowed by AUTH_MODE, else null (its routes answer 404). */
export function oidcOptions(config: Config, timeoutMs = 10_000): OidcOptions | null {
  const o = config.oidc;
  const mode = config.auth.mode;
  if (!(mode === 'oidc' || mode === 'both') || !o.enabled || !o.issuer || !o.clientId) return null;
  return {
    issuer: o.issuer,
    clientId: o.clientId,
    clientSecret: o.clientSecret,
    scopes: o.scopes,
    callbackUrl: o.callbackUrl,
    endpoints: { authorization: o.authorizationUrl, token: o.tokenUrl, userinfo: o.userinfoUrl },
    logoutUrl: o.logoutUrl,
    adminGroups: o.adminGroups,
    groupsClaim: o.groupsClaim,
    groupMap: o.groupMap,
    requireEmailVerified: o.requireEmailVerified,
    autoCreateUsers: o.autoCreateUsers,
    mobileRedirectUris: o.mobileRedirectUris,
    timeoutMs,
  };
}

export interface OidcDeps {
  store: OidcStore;
  users: UsersStore;
  activity: ActivityService;
  auth: Pick<AuthService, 'signInWith'>;
  /** The access model, which keeps the provider's group memberships (OIDC_GROUP_MAP). */
  groups?: DirectoryGroups;
}

/** What a start call hands the route: where to send the browser, and the cookie value binding the callback to it. */
export interface Handoff {
  url: string;
  browserBinding: string;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const random = () => randomBytes(32).toString('base64url');

/** A landing place inside the application (a path on this origin), else the top. */
export function safeReturnTo(value: string | null | undefined): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || /[\\\u0000-\u001f]/.test(value)) return '/';
  return value.slice(0, 2048);
}

export class OidcService {
  private readonly deps: OidcDeps;
  readonly options: OidcOptions;
  private readonly accounts: OidcAccounts;
  private configuration: Promise<Configuration> | null = null;

  constructor(deps: OidcDeps, options: OidcOptions) {
    this.deps = deps;
    this.options = options;
    this.accounts = new OidcAccounts(
      deps.users,
      deps.activity,
      {
        issuer: options.issuer,
        adminGroups: options.adminGroups,
        groupsClaim: options.groupsClaim,
        groupMap: options.groupMap,
        requireEmailVerified: options.requireEmailVerified,
        autoCreateUsers: options.autoCreateUsers,
      },
      deps.groups ?? null,
    );
  }

  /** Discovery (cached once it succeeded; a failure is retried by the next sign-in), with the endpoint overrides on top. */
  private provider(): Promise<Configuration> {
    this.configuration ??= this.discover().catch((err) => {
      this.configuration = null;
      throw classify(err, 'while reading its discovery document');
    });
    return this.configuration;
  }

  private async discover(): Promise<Configuration> {
    const client = await openidClient();
    const o = this.options;
    const insecure = new URL(o.issuer).protocol === 'http:';
    const execute = [client.enableNonRepudiationChecks, ...(insecure ? [client.allowInsecureRequests] : [])];
    const timeout = Math.max(1, Math.ceil(o.timeoutMs / 1000));
    const auth = o.clientSecret ? client.ClientSecretBasic(o.clientSecret) : client.None();
    const discovered = await client.discovery(new URL(o.issuer), o.clientId, o.clientSecret ?? undefined, auth, {
      execute,
      timeout,
    });
    if (!o.endpoints.authorization && !o.endpoints.token && !o.endpoints.userinfo) return discovered;
    const metadata = { ...discovered.serverMetadata() };
    if (o.endpoints.authorization) metadata.authorization_endpoint = o.endpoints.authorization;
    if (o.endpoints.token) metadata.token_endpoint = o.endpoints.token;
    if (o.endpoints.userinfo) metadata.userinfo_endpoint = o.endpoints.userinfo;
    const config = new client.Configuration(metadata, o.clientId, o.clientSecret ?? undefined, auth);
    for (const fn of execute) fn(config);
    config.timeout = timeout;
    return config;
  }

  callbackUrl(baseUrl: string): string {
    return this.options.callbackUrl ?? `${baseUrl.replace(/\/+$/, '')}/callback`;
  }

  mobileCallbackUrl(baseUrl: string): string {
    return `${baseUrl.replace(/\/+$/, '')}${MOBILE_COMPLETE_PATH}`;
  }

  private async handoff(
    redirectUri: string,
    extra: { returnTo?: string | null; prompt?: string | null; mobileChallenge?: string; mobileRedirectUri?: string },
  ): Promise<Handoff> {
    if (extra.prompt && !PROMPTS.has(extra.prompt))
      throw new AppError('BAD_REQUEST', 'Invalid query: prompt: one of login, consent, select_account.');
    const config = await this.provider();
    const client = await openidClient();
    const state = random();
    const nonce = random();
    const verifier = client.randomPKCECodeVerifier();
    const browserBinding = random();
    this.deps.store.putTransaction({
      state_hash: sha256(state),
      browser_hash: sha256(browserBinding),
      code_verifier: verifier,
      nonce,
      redirect_uri: redirectUri,
      return_to: extra.returnTo ?? null,
      mobile_challenge: extra.mobileChallenge ?? null,
      mobile_redirect_uri: extra.mobileRedirectUri ?? null,
      expires_at: Date.now() + TRANSACTION_MS,
    });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: this.options.scopes.join(' '),
      state,
      nonce,
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...(extra.prompt ? { prompt: extra.prompt } : {}),
    });
    return { url: url.href, browserBinding };
  }

  /** GET /api/auth/oidc/login: where to send the browser. */
  begin(input: { baseUrl: string; returnTo?: string | null; prompt?: string | null }): Promise<Handoff> {
    return this.handoff(this.callbackUrl(input.baseUrl), {
      returnTo: safeReturnTo(input.returnTo),
      prompt: input.prompt ?? null,
    });
  }

  /** Spends the transaction the callback's state names; it must have been started by this browser. */
  private takeTransaction(query: URLSearchParams, browserBinding: string | null): TransactionRow & { state: string } {
    const state = query.get('state');
    if (!state) throw badState('The sign-in answer carries no state: start the sign-in again.');
    const row = this.deps.store.takeTransaction(sha256(state));
    if (!row || row.expires_at <= Date.now()) throw badState('This sign-in is unknown or expired: start it again.');
    const binding = Buffer.from(sha256(browserBinding ?? ''));
    if (!timingSafeEqual(binding, Buffer.from(row.browser_hash)))
      throw badState('This sign-in was started in another browser: start it again here.');
    return { ...row, state };
  }

  /** Trades the provider's code for verified claims (ID token signature, nonce, PKCE; userinfo must name the same subject). */
  private async claims(row: TransactionRow & { state: string }, query: URLSearchParams): Promise<Claims> {
    const config = await this.provider();
    const client = await openidClient();
    const current = new URL(row.redirect_uri);
    for (const [k, v] of query) current.searchParams.append(k, v);
    let tokens;
    try {
      tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: row.code_verifier,
        expectedState: row.state,
        expectedNonce: row.nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      throw classify(err, 'at the token step');
    }
    const idClaims = tokens.claims();
    if (!idClaims) throw badAnswer('no ID token came back.');
    let userinfo: Record<string, unknown> = {};
    if (config.serverMetadata().userinfo_endpoint) {
      try {
        userinfo = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      } catch (err) {
        throw classify(err, 'at the userinfo step');
      }
    }
    // The signed ID token wins where both speak.
    return { ...userinfo, ...idClaims } as Claims;
  }

  /** GET /callback: the session of the person the provider signed in, and where to land. */
  async complete(input: {
    query: URLSearchParams;
    browserBinding: string | null;
    ip: string;
    seen?: DeviceSeen;
  }): Promise<{ user: WireUser; session: OpenedSession; device: string; returnTo: string }> {
    const row = this.takeTransaction(input.query, input.browserBinding);
    if (row.mobile_challenge) throw badState('This sign-in belongs to the app.');
    try {
      const claims = await this.claims(row, input.query);
      const account = this.accounts.resolve(claims, input.ip);
      const signIn = this.deps.auth.signInWith(account.id, 'oidc', input.ip, {
        twoFactorsProven: true,
        ...(input.seen ? { seen: input.seen } : {}),
      });
      if (!('user' in signIn)) throw new Error('a provider sign-in is never held');
      return { user: signIn.user, session: signIn.session, device: signIn.device, returnTo: row.return_to ?? '/' };
    } catch (err) {
      this.deps.activity.record({
        action: 'auth.login',
        outcome: 'failure',
        ip: input.ip,
        detail: { method: 'oidc', reason: (err as Error).message.slice(0, 300) },
      });
      throw err;
    }
  }

  // --- the native app bridge ---

  /** GET /api/auth/oidc/mobile/login: S256 only; the redirect URI from the allow-list (custom schemes), default its first entry. */
  mobileBegin(input: {
    baseUrl: string;
    codeChallenge: string | null;
    codeChallengeMethod: string | null;
    redirectUri: string | null;
  }): Promise<Handoff> {
    if (input.codeChallengeMethod !== 'S256')
      throw new AppError('BAD_REQUEST', 'Invalid query: code_challenge_method: only S256 is accepted.');
    if (!input.codeChallenge || !S256_CHALLENGE.test(input.codeChallenge))
      throw new AppError(
        'BAD_REQUEST',
        'Invalid query: code_challenge: an S256 challenge (43 base64url characters) is required.',
      );
    let appRedirect = this.options.mobileRedirectUris[0];
    if (input.redirectUri) {
      if (/^https?:/i.test(input.redirectUri))
        throw new AppError(
          'BAD_REQUEST',
          "Invalid query: redirect_uri: http and https addresses are refused; use the app's custom scheme.",
        );
      if (!this.options.mobileRedirectUris.includes(input.redirectUri))
        throw new AppError(
          'BAD_REQUEST',
          "Invalid query: redirect_uri: not on this server's allow-list (OIDC_MOBILE_REDIRECT_URIS).",
        );
      appRedirect = input.redirectUri;
    }
    if (!appRedirect)
      throw new AppError('BAD_REQUEST', 'No app redirect URI is configured (OIDC_MOBILE_REDIRECT_URIS).');
    return this.handoff(this.mobileCallbackUrl(input.baseUrl), {
      mobileChallenge: input.codeChallenge,
      mobileRedirectUri: appRedirect,
    });
  }

  /**
   * GET /api/auth/oidc/mobile/complete: where to send the browser back to the app, with `code`
   * or `error`. Only a callback whose transaction is unknown answers 400 (no app to return to).
   */
  async mobileComplete(input: {
    query: URLSearchParams;
    browserBinding: string | null;
    ip: string;
  }): Promise<{ location: string }> {
    const row = this.takeTransaction(input.query, input.browserBinding);
    if (!row.mobile_challenge || !row.mobile_redirect_uri) throw badState('This sign-in was not started by the app.');
    const back = new URL(row.mobile_redirect_uri);
    try {
      const claims = await this.claims(row, input.query);
      const account = this.accounts.resolve(claims, input.ip);
      const code = random();
      this.deps.store.putMobileCode({
        code_hash: sha256(code),
        user_id: account.id,
        challenge: row.mobile_challenge,
        expires_at: Date.now() + MOBILE_CODE_MS,
      });
      back.searchParams.set('code', code);
    } catch (err) {
      this.deps.activity.record({
        action: 'auth.login',
        outcome: 'failure',
        ip: input.ip,
        detail: { method: 'oidc-mobile', reason: (err as Error).message.slice(0, 300) },
      });
      back.searchParams.set('error', err instanceof AppError ? err.message : 'The sign-in failed.');
    }
    return { location: back.href };
  }

  /** POST /api/auth/oidc/exchange: any attempt destroys the code; the right verifier gets an ordinary session. */
  exchange(input: { code: string; codeVerifier: string; ip: string; seen?: DeviceSeen }): {
    user: WireUser;
    session: OpenedSession;
    device: string;
  } {
    const reject = (reason: string): never => {
      this.deps.activity.record({
        action: 'auth.login',
        outcome: 'failure',
        ip: input.ip,
        detail: { method: 'oidc-mobile', reason },
      });
      throw new OidcError(OIDC_EXCHANGE_REJECTED, 'The sign-in code was not accepted: sign in again.');
    };
    const row = this.deps.store.takeMobileCode(sha256(input.code));
    if (!row) return reject('unknown or used code');
    if (row.expires_at <= Date.now()) return reject('expired code');
    if (!VERIFIER.test(input.codeVerifier)) return reject('malformed verifier');
    const computed = Buffer.from(createHash('sha256').update(input.codeVerifier, 'ascii').digest('base64url'));
    const stored = Buffer.from(row.challenge);
    if (computed.length !== stored.length || !timingSafeEqual(computed, stored))
      return reject('verifier does not match the challenge');
    const signIn = this.deps.auth.signInWith(row.user_id, 'oidc', input.ip, {
      twoFactorsProven: true,
      ...(input.seen ? { seen: input.seen } : {}),
    });
    if (!('user' in signIn)) return reject('held');
    return { user: signIn.user, session: signIn.session, device: signIn.device };
  }

  /** GET /logout: the provider's logout address (OIDC_LOGOUT_URL), or null when only the local session ends. */
  logoutUrl(baseUrl: string): string | null {
    if (!this.options.logoutUrl) return null;
    const url = new URL(this.options.logoutUrl);
    url.searchParams.set('post_logout_redirect_uri', `${baseUrl.replace(/\/+$/, '')}/`);
    url.searchParams.set('client_id', this.options.clientId);
    return url.href;
  }

  /** Drops transactions and codes nobody finished. */
  sweep(): number {
    return this.deps.store.sweep(Date.now());
  }
}
