// Who is calling /dav/: HTTP Basic (RFC 7617) with the account's name and either its password or
// one of its API tokens (the token's scope applies: a read token mounts read-only). No cookies,
// so no sessions and no cross-site requests. Clients send the credentials with every request, so
// a password proven once is remembered for a few minutes by a keyed hash (never the password):
// scrypt and the sign-in budgets are spent on the first request, not on every file of a copy.
// Every remembered use reads the account again, so a changed password, a lock, a removed account
// or a second factor turned on since ends it at the next request.
import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LOCAL_ADMIN } from '../auth/authenticator.ts';
import { LIMITS, type RateLimiter } from '../accounts/rate-limits.ts';
import type { AuthService, SecondFactor } from '../auth/service.ts';
import type { UsersStore } from '../accounts/users-store.ts';
import { AppError, type ErrorCode } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { Caller } from '../core/caller.ts';
import type { TokenService } from '../tokens/service.ts';
import { callerOf } from '../accounts/caller.ts';

export const BASIC_CHALLENGE = 'Basic realm="Burrow WebDAV", charset="UTF-8"';

/** How long a proven password is taken again without scrypt. */
const REMEMBER_MS = 5 * 60_000;
const MAX_REMEMBERED = 1000;

export interface DavAuthDeps {
  mode: 'local' | 'oidc' | 'both' | 'disabled' | string;
  auth: Pick<AuthService, 'verifyPassword'>;
  tokens: Pick<TokenService, 'authenticate'>;
  users: Pick<UsersStore, 'get' | 'findByIdentifier'>;
  limits: Pick<RateLimiter, 'check' | 'count'>;
  /** Absent: no account has a second factor. */
  secondFactor?: Pick<SecondFactor, 'enabled'>;
  log: Logger;
}

export const davUnauthorized = (
  message = 'Sign in with your account name and password or an API token.',
  code: ErrorCode = 'AUTH_REQUIRED',
) => new AppError(code, message, { headers: { 'WWW-Authenticate': BASIC_CHALLENGE } });

/** RFC 7617 §2: `Basic base64(user-id ":" password)`; the user-id cannot contain a colon. */
export function parseBasic(header: string | undefined): { name: string; secret: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(header ?? '');
  if (!m) return null;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon <= 0) return null;
  return { name: text.slice(0, colon), secret: text.slice(colon + 1) };
}

const isLoopback = (ip: string) =>
  ip === '127.0.0.1' || ip === '::1' || ip.startsWith('127.') || ip === '::ffff:127.0.0.1';

export interface DavAuthenticator {
  /** The caller of a /dav/ request, or a 401 carrying the Basic challenge. */
  authenticate(req: IncomingMessage, ip: string, secure: boolean): Promise<Caller>;
}

export function createDavAuthenticator(deps: DavAuthDeps): DavAuthenticator {
  // A key object made once: an HMAC keyed with raw bytes imports the key again on every request.
  const key = createSecretKey(randomBytes(32));
  const remembered = new Map<string, { mac: Buffer; userId: string; passwordHash: string; until: number }>();
  const warned = new Set<string>();

  const mac = (name: string, secret: string) =>
    createHmac('sha256', key).update(name).update('\0').update(secret).digest();

  function warnPlain(ip: string): void {
    if (warned.has(ip) || warned.size > MAX_REMEMBERED) return;
    warned.add(ip);
    deps.log.warn(
      'WebDAV Basic credentials arrive over plain HTTP from another machine; serve Burrow over HTTPS (or behind a TLS proxy) before mounting it on a network',
      { ip },
    );
  }

  function fromRow(row: { id: string; username: string; roles: string }): Caller {
    return callerOf(row, 'session', { passwordSession: true });
  }

  function rememberedCaller(name: string, secret: string): Caller | null {
    const hit = remembered.get(name.toLowerCase());
    if (!hit || hit.until < Date.now()) return null;
    if (!timingSafeEqual(hit.mac, mac(name.toLowerCase(), secret))) return null;
    const row = deps.users.get(hit.userId);
    // A changed password, a lock, a removed account or a second factor end what was remembered at once.
    if (
      !row ||
      row.password_hash !== hit.passwordHash ||
      (row.locked_until && Date.parse(row.locked_until) > Date.now()) ||
      deps.secondFactor?.enabled(row.id)
    ) {
      remembered.delete(name.toLowerCase());
      return null;
    }
    return fromRow(row);
  }

  return {
    async authenticate(req, ip, secure) {
      const anonymous = deps.mode === 'disabled' ? LOCAL_ADMIN : null;
      if (anonymous) return anonymous;
      const basic = parseBasic(req.headers.authorization);
      if (!basic) throw davUnauthorized();
      if (!secure && !isLoopback(ip)) warnPlain(ip);

      if (/^burrow_[A-Za-z0-9]{16}_/.test(basic.secret)) {
        deps.limits.check(`login-fail:${ip}`, LIMITS.signInFailures);
        const caller = deps.tokens.authenticate(basic.secret, ip);
        // The name must be the token's own account (its username or email).
        const named = deps.users.findByIdentifier(basic.name);
        if (!caller || named.length !== 1 || named[0]!.id !== caller.userId) {
          deps.limits.count(`login-fail:${ip}`, LIMITS.signInFailures);
          throw davUnauthorized('This API token is not valid for this account.', 'AUTH_TOKEN_INVALID');
        }
        return caller;
      }

      const known = rememberedCaller(basic.name, basic.secret);
      if (known) return known;
      let row;
      try {
        row = await deps.auth.verifyPassword({ identifier: basic.name, password: basic.secret }, ip);
      } catch (err) {
        if (err instanceof AppError && err.status === 401) throw davUnauthorized(err.message, err.code);
        throw err;
      }
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      remembered.set(basic.name.toLowerCase(), {
        mac: mac(basic.name.toLowerCase(), basic.secret),
        userId: row.id,
        passwordHash: row.password_hash ?? '',
        until: Date.now() + REMEMBER_MS,
      });
      return fromRow(row);
    },
  };
}
