// Accounts and password sign-in: setup, sign-in with lockout, sign-out, password change.
// Never sees req/res: routes hand it plain values and turn its results into answers.
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { ActivityService } from '../activity/service.ts';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import { hashPassword, verifyPassword } from '../accounts/passwords.ts';
import { LIMITS, type RateLimiter } from '../accounts/rate-limits.ts';
import type { SessionRow, SessionStore } from '../accounts/sessions-store.ts';
import { isAdminRow, toWire, type UserRow, type UsersStore, type WireUser } from '../accounts/users-store.ts';
import type { AuthStatus, SignInMethod } from './wire.ts';
import type { LdapSignIn } from '../ldap/service.ts';
import type { DeviceStore } from '../accounts/devices-store.ts';
import { describeBrowser, NO_DEVICE, type DeviceSeen } from './devices.ts';

export const INVALID_CREDENTIALS = 'AUTH_INVALID_CREDENTIALS';
export const ACCOUNT_LOCKED = 'AUTH_ACCOUNT_LOCKED';
export const METHOD_DISABLED = 'AUTH_METHOD_DISABLED';
export const INVALID_TOTP_CODE = 'AUTH_INVALID_TOTP_CODE';

export interface OpenedSession {
  id: string;
  hash: string;
}

/** A sign-in ends signed in, or held for its second step (the session's cookie is set either way). */
export type SignIn =
  { user: WireUser; session: OpenedSession; device: string } | { totpRequired: true; session: OpenedSession };

/** The second factor as sign-in sees it (twofactor/ implements it). */
export interface SecondFactor {
  enabled(userId: string): boolean;
  /** A right six-digit code (once per time step) or an unused recovery code (spent); null when wrong. */
  verify(userId: string, code: string): { usedRecoveryCode: boolean; recoveryCodesLeft: number } | null;
}

export interface AuthDeps {
  config: Config;
  db: Database;
  users: UsersStore;
  sessions: SessionStore;
  /** The browsers each account signed in from (the device cookie's hashes). */
  devices: DeviceStore;
  limits: RateLimiter;
  activity: ActivityService;
  /** Absent: no account has a second factor. */
  secondFactor?: SecondFactor;
  /** LDAP / Active Directory: checks the passwords of names that are not a local account's, and of its own accounts. */
  directory?: Pick<LdapSignIn, 'owns' | 'authenticate' | 'stillEnabled'>;
  /** The OIDC sign-in routes are mounted; until then OIDC is never advertised (its routes would answer 404). */
  oidcRoutes?: boolean;
}

/** The local administrator every request acts as when AUTH_MODE=disabled. */
export const LOCAL_ADMIN_USER: WireUser = Object.freeze({
  id: 'local',
  username: 'local',
  email: null,
  displayName: 'Local administrator',
  roles: ['admin'],
  emailVerified: false,
  createdAt: new Date(0).toISOString(),
  updatedAt: new Date(0).toISOString(),
}) as WireUser;

export class AuthService {
  private readonly deps: AuthDeps;
  constructor(deps: AuthDeps) {
    this.deps = deps;
  }

  get mode() {
    return this.deps.config.auth.mode;
  }
  get localAllowed() {
    return this.mode === 'local' || this.mode === 'both' || this.mode === 'disabled';
  }

  private oidcConfigured(): boolean {
    const o = this.deps.config.oidc;
    return (
      this.deps.oidcRoutes === true &&
      (this.mode === 'oidc' || this.mode === 'both') &&
      o.enabled &&
      Boolean(o.issuer && o.clientId)
    );
  }

  requiresSetup(): boolean {
    return this.localAllowed && this.mode !== 'disabled' && this.deps.users.count() === 0;
  }

  status(caller: Caller | null, held: boolean): AuthStatus {
    const o = this.deps.config.oidc;
    const oidcEnabled = this.oidcConfigured();
    const user = this.userFor(caller);
    return {
      requiresSetup: this.requiresSetup(),
      strategies: {
        local: this.mode === 'local' || this.mode === 'both',
        passkey: this.mode === 'local' || this.mode === 'both',
        oidc: oidcEnabled,
      },
      authEnabled: this.mode !== 'disabled',
      authMode: this.mode === 'disabled' ? 'local' : this.mode,
      authenticated: user !== null,
      ...(held ? { totpPending: true } : {}),
      user,
      oidc: {
        enabled: oidcEnabled,
        issuer: oidcEnabled ? o.issuer : null,
        scopes: [...o.scopes],
        status: oidcEnabled ? 'configured' : 'disabled',
      },
    };
  }

  /** The wire user for a caller (fresh from the table), or null. */
  userFor(caller: Caller | null): WireUser | null {
    if (!caller) return null;
    if (caller.via === 'anonymous') return LOCAL_ADMIN_USER;
    const row = this.deps.users.get(caller.userId);
    return row ? toWire(row) : null;
  }

  private refuseWhenOidcOnly(): void {
    if (this.mode === 'oidc')
      throw new AppError(
        METHOD_DISABLED,
        'Password sign-in is turned off: this installation signs in through its identity provider only.',
      );
  }

  /** Creates the first administrator; serialised so concurrent calls never make two. */
  async setup(
    input: { email: string; username?: string | undefined; password: string },
    ip: string,
    seen: DeviceSeen = NO_DEVICE,
  ): Promise<{ user: WireUser; session: OpenedSession; device: string }> {
    this.refuseWhenOidcOnly();
    this.deps.limits.hit(`setup:${ip}`, LIMITS.setup);
    if (this.deps.users.count() > 0) throw new AppError('SETUP_DONE');
    const email = input.email.trim();
    const username = (input.username?.trim() || email.split('@')[0]!).trim();
    if (!username) throw new AppError('INVALID_BODY', 'Invalid body: username: must not be empty.');
    const hash = await hashPassword(input.password);
    // Hashing yielded: check again inside the same synchronous transaction as the insert.
    // One instance of a cluster at a time, too (the lock is the database's).
    const row = this.deps.db.transaction(() => {
      this.deps.users.lockForNewAccount();
      if (this.deps.users.count() > 0) throw new AppError('SETUP_DONE');
      return this.deps.users.insert({ username, email, passwordHash: hash, roles: ['admin'] });
    });
    const session = this.deps.sessions.create(row.id, 'password', ip);
    const { token } = this.device(row, seen);
    this.deps.activity.record({ action: 'auth.setup', outcome: 'success', userId: row.id, username: row.username, ip });
    return { user: toWire(row), session, device: token };
  }

  private lockedFor(row: UserRow): number {
    if (!row.locked_until) return 0;
    const left = Date.parse(row.locked_until) - Date.now();
    return left > 0 ? left : 0;
  }

  /**
   * The browser of a sign-in that opens a session: known to this account (its token's hash is
   * kept), or a device the account has not used — a new token is made for it, and it is news
   * ('new') when the account already had one ('first' otherwise). A token that is absent,
   * malformed, forged or another account's is never adopted: only this server's own tokens,
   * remembered for this account, count as known.
   */
  private device(row: UserRow, seen: DeviceSeen): { token: string; fact: 'known' | 'new' | 'first'; browser: string } {
    const at = new Date().toISOString();
    const browser = describeBrowser(seen.userAgent);
    if (seen.token && this.deps.devices.seen(row.id, seen.token, at))
      return { token: seen.token, fact: 'known', browser };
    const had = this.deps.devices.any(row.id);
    return { token: this.deps.devices.add(row.id, browser, at), fact: had ? 'new' : 'first', browser };
  }

  /** An `auth.login` row of the activity log for this account. */
  private signInRow(row: UserRow, outcome: 'success' | 'failure', ip: string, detail: Record<string, unknown>): void {
    this.deps.activity.record({ action: 'auth.login', outcome, userId: row.id, username: row.username, ip, detail });
  }

  private refuseLocked(row: UserRow, ip: string): void {
    const left = this.lockedFor(row);
    if (left > 0) {
      this.signInRow(row, 'failure', ip, { reason: 'locked' });
      throw new AppError(ACCOUNT_LOCKED, undefined, { headers: { 'Retry-After': String(Math.ceil(left / 1000)) } });
    }
  }

  /** A wrong password or code: feeds the one lockout counter of the account. */
  recordFailure(row: UserRow, ip: string, reason: string): void {
    const { maxFailed, lockMinutes } = this.deps.config.auth;
    const lockedUntil = this.deps.users.recordFailure(row.id, maxFailed, lockMinutes * 60_000);
    this.signInRow(row, 'failure', ip, { reason });
    if (lockedUntil)
      this.deps.activity.record({
        action: 'auth.lockout',
        outcome: 'success',
        userId: row.id,
        username: row.username,
        ip,
        detail: { until: lockedUntil },
      });
  }

  async login(
    input: { identifier: string; password: string },
    ip: string,
    seen: DeviceSeen = NO_DEVICE,
  ): Promise<SignIn> {
    const { row, method } = await this.checkPassword(input, ip);
    return this.openSignIn(row, method, ip, false, seen);
  }

  /** The first step of a password sign-in: address budgets, lockout, the constant-cost check. */
  private async checkPassword(
    input: { identifier: string; password: string },
    ip: string,
  ): Promise<{ row: UserRow; method: 'password' | 'ldap' }> {
    this.refuseWhenOidcOnly();
    this.spendAddressBudget(ip);
    const candidates = this.deps.users.findByIdentifier(input.identifier);
    // An identifier naming two accounts (one's email, another's username) signs nobody in.
    const row = candidates.length === 1 ? candidates[0]! : undefined;
    const directory = this.deps.directory;
    // The directory answers for its own accounts and for names no local account has; a local
    // account signs in here whatever the directory's state.
    if (directory && (row ? directory.owns(row.id) : candidates.length === 0))
      return { row: await this.checkWithDirectory(directory, input, ip, row), method: 'ldap' };
    const fresh = await this.checkLocalPassword(
      row,
      input.password,
      ip,
      candidates.length > 1 ? 'ambiguous-identifier' : 'unknown-account',
    );
    this.deps.users.touchMethod(fresh.id, 'local_password', 'local');
    return { row: fresh, method: 'password' };
  }

  /**
   * The password step of a local account (or of a name no account has: the same constant-cost
   * check), for sign-in and for a local account's confirmation alike (the caller spent the address
   * budget first): the account's lockout before and after the check, a refusal counted for the
   * address and the account, a right password clearing the account's count (unless a second
   * factor is still to come).
   */
  private async checkLocalPassword(
    row: UserRow | undefined,
    password: string,
    ip: string,
    unknownReason: string,
    /** The caller's session passed the account's second factor (a confirmation): the right password clears the count. */
    secondFactorPassed = false,
  ): Promise<UserRow> {
    if (row) this.refuseLocked(row, ip);
    const ok = await verifyPassword(password, row?.password_hash);
    if (!ok || !row) {
      this.deps.limits.count(`login-fail:${ip}`, LIMITS.signInFailures);
      if (row) this.recordFailure(row, ip, row.password_hash ? 'wrong-password' : 'no-password');
      else
        this.deps.activity.record({
          action: 'auth.login',
          outcome: 'failure',
          ip,
          detail: { reason: unknownReason },
        });
      throw new AppError(INVALID_CREDENTIALS);
    }
    // The lock may have been set while the hash was computed.
    const fresh = this.deps.users.get(row.id);
    if (!fresh) throw new AppError(INVALID_CREDENTIALS);
    this.refuseLocked(fresh, ip);
    // With a second factor the count is cleared by the right code only: a known password must not
    // reset the lockout that limits guessing the code — unless no code is to come (a confirmation
    // in a session the code opened).
    if (secondFactorPassed || !this.deps.secondFactor?.enabled(row.id)) this.deps.users.clearFailures(row.id);
    return fresh;
  }

  /**
   * Sign-in's budgets of an address: one attempt spent, refused (429) once its failures are spent.
   * Every first factor spends it (password, directory, passkey), the second step and a directory
   * account's confirmation too.
   */
  spendAddressBudget(ip: string): void {
    this.deps.limits.hit(`login:${ip}`, LIMITS.signInAttempts);
    this.deps.limits.check(`login-fail:${ip}`, LIMITS.signInFailures);
  }

  /**
   * The password step of a directory account (or of a name no local account has), for sign-in and
   * for a directory account's confirmation alike (the caller spent the address budget first): the
   * account's lockout before and after the bind, a refusal counted for the address and the
   * account, a right password clearing the account's count (unless a second factor is still to come).
   */
  private async checkWithDirectory(
    directory: NonNullable<AuthDeps['directory']>,
    input: { identifier: string; password: string },
    ip: string,
    known: UserRow | undefined,
  ): Promise<UserRow> {
    if (known) this.refuseLocked(known, ip);
    let signed: UserRow | null;
    try {
      signed = await directory.authenticate(input.identifier, input.password, ip, known);
    } catch (err) {
      this.deps.activity.record({
        action: 'auth.login',
        outcome: 'failure',
        ...(known ? { userId: known.id, username: known.username } : {}),
        ip,
        detail: { method: 'ldap', reason: err instanceof AppError ? err.code : 'error' },
      });
      throw err;
    }
    if (!signed) {
      this.deps.limits.count(`login-fail:${ip}`, LIMITS.signInFailures);
      if (known) this.recordFailure(known, ip, 'directory-refused');
      else
        this.deps.activity.record({
          action: 'auth.login',
          outcome: 'failure',
          ip,
          detail: { method: 'ldap', reason: 'unknown-or-refused' },
        });
      throw new AppError(INVALID_CREDENTIALS);
    }
    const fresh = this.deps.users.get(signed.id);
    if (!fresh) throw new AppError(INVALID_CREDENTIALS);
    this.refuseLocked(fresh, ip);
    if (!this.deps.secondFactor?.enabled(fresh.id)) this.deps.users.clearFailures(fresh.id);
    return fresh;
  }

  /**
   * A name and password checked without opening a session (WebDAV Basic): the same budgets,
   * lockout and log as sign-in. An account with a second factor is refused — a client that
   * cannot ask for the code signs in with an API token as its password instead.
   */
  async verifyPassword(input: { identifier: string; password: string }, ip: string): Promise<UserRow> {
    const { row } = await this.checkPassword(input, ip);
    if (this.deps.secondFactor?.enabled(row.id)) {
      this.signInRow(row, 'failure', ip, { reason: 'second-factor-needs-token', method: 'basic' });
      throw new AppError('AUTH_TOKEN_REQUIRED');
    }
    this.signInRow(row, 'success', ip, { method: 'basic' });
    return row;
  }

  /**
   * Opens the session of a sign-in whose first step succeeded: held for the second step when the
   * account has a second factor and the first step did not already prove two factors.
   */
  private openSignIn(row: UserRow, method: string, ip: string, twoFactorsProven: boolean, seen: DeviceSeen): SignIn {
    if (!twoFactorsProven && this.deps.secondFactor?.enabled(row.id)) {
      const session = this.deps.sessions.create(row.id, method, ip, 'held');
      this.signInRow(row, 'success', ip, { method, held: true });
      return { totpRequired: true, session };
    }
    const session = this.deps.sessions.create(row.id, method, ip);
    const device = this.device(row, seen);
    this.signInRow(row, 'success', ip, { method, device: device.fact, browser: device.browser });
    return { user: toWire(row), session, device: device.token };
  }

  /**
   * A directory account signing in without the directory's password (a passkey): the directory
   * is asked whether it still knows the person; refused (and signed out, tokens revoked) when it
   * does not, 503 LDAP_UNAVAILABLE when it cannot answer. Other accounts pass.
   */
  async assertDirectoryKnows(userId: string, ip: string): Promise<void> {
    const directory = this.deps.directory;
    const row = this.deps.users.get(userId);
    if (!directory || !row || !directory.owns(row.id)) return;
    if (await directory.stillEnabled(row, ip)) return;
    this.recordFailure(row, ip, 'directory-refused');
    throw new AppError('AUTH_PASSKEY_REJECTED', 'The directory no longer knows this account.');
  }

  /**
   * Sign-in by another first factor (passkey, identity provider, mobile exchange). A passkey that
   * verified its user counts as two factors; one that did not is held for the code like a password.
   */
  signInWith(
    userId: string,
    method: 'passkey' | 'oidc',
    ip: string,
    opts: { twoFactorsProven: boolean; seen?: DeviceSeen },
  ): SignIn {
    const row = this.deps.users.get(userId);
    if (!row) throw new AppError('AUTH_REQUIRED', 'This account no longer exists.');
    return this.openSignIn(row, method, ip, opts.twoFactorsProven, opts.seen ?? NO_DEVICE);
  }

  /**
   * The second step of a held sign-in: a wrong code counts against the account's lockout like a
   * wrong password; a right one replaces the held session with a new active one.
   */
  loginSecondStep(
    held: SessionRow | null,
    code: string,
    ip: string,
    seen: DeviceSeen = NO_DEVICE,
  ): { user: WireUser; session: OpenedSession; device: string; usedRecoveryCode: boolean; recoveryCodesLeft: number } {
    this.spendAddressBudget(ip);
    const factor = this.deps.secondFactor;
    const row = held && held.state === 'held' ? this.deps.users.get(held.user_id) : undefined;
    if (!held || !row || !factor)
      throw new AppError(INVALID_TOTP_CODE, 'No sign-in is waiting for a code: sign in again.');
    const heldRow = held;
    this.refuseLocked(row, ip);
    const result = factor.verify(row.id, code);
    if (!result) {
      this.deps.limits.count(`login-fail:${ip}`, LIMITS.signInFailures);
      this.recordFailure(row, ip, 'wrong-totp-code');
      throw new AppError(INVALID_TOTP_CODE);
    }
    const session = this.deps.db.transaction(() => {
      this.deps.sessions.delete(heldRow.id_hash);
      this.deps.users.clearFailures(row.id);
      return this.deps.sessions.create(row.id, heldRow.method, ip);
    });
    const device = this.device(row, seen);
    this.signInRow(row, 'success', ip, {
      method: held.method,
      secondFactor: result.usedRecoveryCode ? 'recovery-code' : 'totp',
      device: device.fact,
      browser: device.browser,
    });
    return { user: toWire(row), session, device: device.token, ...result };
  }

  logout(caller: Caller | null, sessionHash: string | null, ip: string): void {
    if (sessionHash) this.deps.sessions.delete(sessionHash);
    if (caller && caller.via === 'session')
      this.deps.activity.record({ action: 'auth.logout', outcome: 'success', userId: caller.userId, ip });
  }

  methods(userId: string): SignInMethod[] {
    return this.deps.users.methods(userId).map((m) => ({
      id: m.id,
      type: m.type,
      provider: m.provider,
      lastUsedAt: m.last_used_at,
      createdAt: m.created_at,
    }));
  }

  private account(caller: Caller): UserRow {
    const row = this.deps.users.get(caller.userId);
    if (!row) throw new AppError('AUTH_REQUIRED');
    return row;
  }

  /** Checks the account's password for a credential route (wrong → 401, counted for lockout). */
  async confirmPassword(caller: Caller, password: string | undefined, ip: string): Promise<void> {
    return this.confirmPasswordOf(caller.userId, password, ip);
  }

  /**
   * confirmPassword by account id, for services that never see a Caller. A directory account's
   * password is the directory's: a password given is checked by a bind, as at sign-in (wrong:
   * 401, counted for lockout; the directory down: 503), and is required where no session is
   * named (the second factor's changes). An account without a password here (single sign-on; a
   * directory account that gives none) has none to give: the proof is that the request's session
   * (`sessionId`, the guard's hash) was signed in within AUTH_CONFIRM_MINUTES — with the
   * directory, the provider or a passkey; with no session named there is none (refused).
   */
  async confirmPasswordOf(userId: string, password: string | undefined, ip: string, sessionId?: string): Promise<void> {
    const row = this.deps.users.get(userId);
    if (!row) throw new AppError('AUTH_REQUIRED');
    if (!row.password_hash) {
      const directory = this.deps.directory;
      const directoryOwns = directory?.owns(row.id) === true;
      if (password && directoryOwns) return this.confirmWithDirectory(directory!, row, password, ip);
      // No session named: a directory account has its password to give; any other has no proof.
      if (sessionId === undefined && directoryOwns)
        throw new AppError(INVALID_CREDENTIALS, 'Type your directory password.');
      return this.assertFreshSignIn(row, sessionId);
    }
    // Sign-in's own check: the address's budgets, the lockout, the counts, a right one clearing them.
    this.spendAddressBudget(ip);
    // A session of this account: signed in with its second factor, if it has one.
    const session = sessionId === undefined ? undefined : this.deps.sessions.active(sessionId);
    try {
      await this.checkLocalPassword(row, password ?? '', ip, 'unknown-account', session?.user_id === row.id);
    } catch (err) {
      if (err instanceof AppError && err.code === INVALID_CREDENTIALS)
        throw new AppError(INVALID_CREDENTIALS, 'The password is wrong.');
      throw err;
    }
  }

  /**
   * A directory account's password, proved by sign-in's own directory check (a bind; the password
   * is not kept): the same address budgets, lockout and counts as a wrong password at sign-in.
   */
  private async confirmWithDirectory(
    directory: NonNullable<AuthDeps['directory']>,
    row: UserRow,
    password: string,
    ip: string,
  ): Promise<void> {
    this.spendAddressBudget(ip);
    let signed: UserRow;
    try {
      signed = await this.checkWithDirectory(directory, { identifier: row.username, password }, ip, row);
    } catch (err) {
      if (err instanceof AppError && err.code === INVALID_CREDENTIALS)
        throw new AppError(INVALID_CREDENTIALS, 'The directory refused this password.');
      throw err;
    }
    if (signed.id !== row.id) throw new AppError(INVALID_CREDENTIALS, 'The directory refused this password.');
  }

  /** The session was opened (signed in, not renewed) within AUTH_CONFIRM_MINUTES. */
  private assertFreshSignIn(row: UserRow, sessionId: string | undefined): void {
    const session = sessionId === undefined ? undefined : this.deps.sessions.active(sessionId);
    const within = this.deps.config.auth.confirmMinutes * 60_000;
    if (session && session.user_id === row.id && Date.now() - Date.parse(session.created_at) <= within) return;
    throw new AppError(
      'AUTH_CONFIRM_REQUIRED',
      `Confirm it is you: sign in again (with the directory, the identity provider or a passkey), then try again within ${this.deps.config.auth.confirmMinutes} minutes.`,
    );
  }

  hasPassword(userId: string): boolean {
    return Boolean(this.deps.users.get(userId)?.password_hash);
  }

  /** Changes the password; every other session ends and this one moves to a new id. */
  async changePassword(
    caller: Caller,
    currentPassword: string,
    newPassword: string,
    ip: string,
  ): Promise<OpenedSession> {
    this.deps.limits.hit(`credential:${ip}`, LIMITS.credential);
    const row = this.account(caller);
    if (!row.password_hash) throw new AppError('NO_PASSWORD');
    this.refuseLocked(row, ip);
    if (!(await verifyPassword(currentPassword, row.password_hash))) {
      this.recordFailure(row, ip, 'wrong-password');
      this.deps.activity.record({ action: 'auth.password-change', outcome: 'failure', userId: row.id, ip });
      throw new AppError(INVALID_CREDENTIALS, 'The current password is wrong.');
    }
    const hash = await hashPassword(newPassword);
    const session = this.deps.db.transaction(() => {
      this.deps.users.setPassword(row.id, hash);
      this.deps.sessions.deleteForUser(row.id);
      return this.deps.sessions.create(row.id, 'password', ip);
    });
    this.deps.activity.record({ action: 'auth.password-change', outcome: 'success', userId: row.id, ip });
    return session;
  }

  async addPassword(caller: Caller, password: string, ip: string): Promise<{ message: string }> {
    this.deps.limits.hit(`credential:${ip}`, LIMITS.credential);
    if (!this.localAllowed || this.mode === 'oidc')
      throw new AppError(METHOD_DISABLED, 'Local passwords cannot be created on this installation.');
    const row = this.account(caller);
    if (row.password_hash) throw new AppError('PASSWORD_EXISTS');
    if (this.deps.directory?.owns(row.id))
      throw new AppError(METHOD_DISABLED, "This account's password is the directory's (LDAP): change it there.");
    const hash = await hashPassword(password);
    this.deps.users.setPassword(row.id, hash);
    this.deps.activity.record({ action: 'auth.password-add', outcome: 'success', userId: row.id, ip });
    return { message: 'Password added.' };
  }

  isAdmin(row: UserRow): boolean {
    return isAdminRow(row);
  }
}
