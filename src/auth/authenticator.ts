// Who is calling: the session cookie `connect.sid` (the name native clients look for), a
// bearer token, or — with AUTH_MODE=disabled — the anonymous local administrator.
import type { IncomingMessage } from 'node:http';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { Authenticator } from '../http/guard.ts';
import type { Caller } from '../core/caller.ts';
import type { TokenService } from '../tokens/service.ts';
import type { SessionRow, SessionStore } from '../accounts/sessions-store.ts';
import { isAdminRow, type UsersStore } from '../accounts/users-store.ts';
import { callerOf } from '../accounts/caller.ts';
import type { TrustRule } from '../http/address.ts';
import { requestProtocol } from '../http/origin.ts';
import { DEVICE_MAX_AGE_MS } from '../accounts/devices-store.ts';
import type { DeviceSeen } from './devices.ts';

export const SESSION_COOKIE = 'connect.sid';
/** The browser's own long-lived token, set at every sign-in that opens a session (accounts/devices-store.ts). */
export const DEVICE_COOKIE = 'burrow_device';

export const LOCAL_ADMIN: Caller = Object.freeze({
  userId: 'local',
  username: 'local',
  roles: ['admin'],
  isAdmin: true,
  via: 'anonymous' as const,
});

export class SessionCookies {
  private readonly publicHttps: boolean;
  private readonly maxAgeSeconds: number;
  private readonly trustProxy: TrustRule;
  constructor(publicUrl: string | null, maxAgeMs: number, trustProxy: TrustRule) {
    this.publicHttps = publicUrl !== null && publicUrl.toLowerCase().startsWith('https:');
    this.maxAgeSeconds = Math.floor(maxAgeMs / 1000);
    this.trustProxy = trustProxy;
  }
  /**
   * Secure when the public address is https or this request came over HTTPS (Burrow's own port,
   * or a trusted proxy's X-Forwarded-Proto); a sign-in over plain http (localhost) keeps a cookie
   * that plain http sends back.
   */
  private secure(req: IncomingMessage): boolean {
    return this.publicHttps || requestProtocol(req, this.trustProxy) === 'https';
  }
  set(value: string, req: IncomingMessage): string {
    return stringifySetCookie({
      name: SESSION_COOKIE,
      value,
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secure(req),
      maxAge: this.maxAgeSeconds,
      expires: new Date(Date.now() + this.maxAgeSeconds * 1000),
    });
  }
  /** The device cookie: ~400 days (browsers' cap), HttpOnly, SameSite=Lax, Secure like the session's. */
  device(token: string, req: IncomingMessage): string {
    const maxAge = Math.floor(DEVICE_MAX_AGE_MS / 1000);
    return stringifySetCookie({
      name: DEVICE_COOKIE,
      value: token,
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secure(req),
      maxAge,
      expires: new Date(Date.now() + maxAge * 1000),
    });
  }
  /**
   * The cookies of a sign-in: its session's, and the device's once the sign-in opened a session
   * (one held for its second step has no device yet: the second step sets it).
   */
  signedIn(signIn: { session: { id: string }; device?: string }, req: IncomingMessage): string[] {
    const set = [this.set(signIn.session.id, req)];
    return signIn.device === undefined ? set : [...set, this.device(signIn.device, req)];
  }
  clear(req: IncomingMessage): string {
    return stringifySetCookie({
      name: SESSION_COOKIE,
      value: '',
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secure(req),
      maxAge: 0,
      expires: new Date(0),
    });
  }
}

export function sessionCookieValue(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const value = parseCookie(header)[SESSION_COOKIE];
  return value && value.length <= 256 ? value : undefined;
}

/** The browser a sign-in comes from: its device cookie (if any) and its User-Agent. */
export function deviceSeen(req: IncomingMessage): DeviceSeen {
  const header = req.headers.cookie;
  const value = header ? parseCookie(header)[DEVICE_COOKIE] : undefined;
  const ua = req.headers['user-agent'];
  return {
    token: value && value.length <= 256 ? value : undefined,
    userAgent: typeof ua === 'string' ? ua : undefined,
  };
}

export interface SessionLookup {
  row: SessionRow;
  caller: Caller | null;
}

export class IdentityAuthenticator implements Authenticator {
  private readonly mode: string;
  private readonly users: UsersStore;
  private readonly sessions: SessionStore;
  private readonly tokens: TokenService;
  private readonly cookies: SessionCookies;
  private readonly lookups = new WeakMap<IncomingMessage, SessionLookup | null>();
  private readonly renewals = new WeakMap<IncomingMessage, string>();

  constructor(mode: string, users: UsersStore, sessions: SessionStore, tokens: TokenService, cookies: SessionCookies) {
    this.mode = mode;
    this.users = users;
    this.sessions = sessions;
    this.tokens = tokens;
    this.cookies = cookies;
  }

  anonymousCaller(): Caller | null {
    return this.mode === 'disabled' ? LOCAL_ADMIN : null;
  }

  /** The session row behind the request's cookie (active or held), looked up once per request. */
  session(req: IncomingMessage): SessionLookup | null {
    if (this.lookups.has(req)) return this.lookups.get(req)!;
    let found: SessionLookup | null = null;
    const value = sessionCookieValue(req);
    const row = value ? this.sessions.find(value) : undefined;
    if (row) {
      const user = this.users.get(row.user_id);
      const caller: Caller | null =
        user && row.state === 'active'
          ? callerOf(user, 'session', {
              sessionId: row.id_hash,
              passwordSession: row.method === 'password' || row.method === 'ldap',
            })
          : null;
      if (caller && this.sessions.renew(row)) this.renewals.set(req, this.cookies.set(value!, req));
      found = { row, caller };
    }
    this.lookups.set(req, found);
    return found;
  }

  fromSession(req: IncomingMessage): Caller | null {
    return this.session(req)?.caller ?? null;
  }

  /**
   * Whether a session (its stored hash, `Caller.sessionId`) still signs an administrator in:
   * what lives on after the request that started it (the terminal) asks this while it runs.
   */
  adminSessionActive(sessionId: string): boolean {
    const row = this.sessions.active(sessionId);
    const user = row && this.users.get(row.user_id);
    return !!user && isAdminRow(user);
  }

  fromToken(secret: string, _req: IncomingMessage, ip: string): Caller | null {
    return this.tokens.authenticate(secret, ip);
  }

  /** A Set-Cookie renewing the session's lifetime (same value), when it slid forward. */
  renewal(req: IncomingMessage): string | undefined {
    return this.renewals.get(req);
  }
}
