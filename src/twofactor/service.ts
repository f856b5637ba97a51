// The second factor: TOTP (RFC 6238, six digits, 30 s) with ten single-use recovery codes.
// Setup is two steps (start draws a pending secret, the first right code turns it on), so an
// account never asks for a code its owner could not produce. Sign-in verification is the
// SecondFactor that auth/ calls; lockout and the held session stay there.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { ActivityService } from '../activity/service.ts';
import { LIMITS, type RateLimiter } from '../accounts/rate-limits.ts';
import { INVALID_TOTP_CODE, type SecondFactor } from '../auth/service.ts';
import type { UsersStore } from '../accounts/users-store.ts';
import { AppError } from '../core/errors.ts';
import type { SecretBox } from '../db/secret-box.ts';
import type { TotpRow, TwoFactorStore } from './store.ts';

let loadedOtp: typeof import('otplib') | undefined;
/** otplib, loaded when a second factor is first set up or checked (issue 33: not on the idle server's heap). */
const otp = () => (loadedOtp ??= createRequire(import.meta.url)('otplib') as typeof import('otplib'));

export const RECOVERY_CODE_COUNT = 10;
const PERIOD = 30;
// One step either side: phone clocks drift, and a code typed at the end of its step arrives in the next.
const TOLERANCE_SECONDS = PERIOD;
// Crockford's Base32 alphabet (no i, l, o, u), lower case: 5 bits a character, easy to read aloud.
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export interface TwoFactorStatus {
  enabled: boolean;
  pending: boolean;
  confirmedAt: string | null;
  recoveryCodesLeft: number;
}

/** The part of a session these calls need (a Caller fits). */
export interface SessionOwner {
  readonly userId: string;
  readonly passwordSession?: boolean | undefined;
}

export interface TwoFactorDeps {
  store: TwoFactorStore;
  box: SecretBox;
  users: UsersStore;
  limits: RateLimiter;
  activity: ActivityService;
  /** The account's password check (auth's confirmPasswordOf: wrong → 401, counted for lockout). */
  confirmPassword: (userId: string, password: string | undefined, ip: string) => Promise<void>;
  /** Shown by authenticator apps beside the account name. */
  issuer?: string;
  /** Seconds since the epoch (tests move the clock). */
  now?: () => number;
}

export function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, '');
}

function drawRecoveryCode(): string {
  const bytes = randomBytes(10);
  let out = '';
  for (let i = 0; i < 10; i++) out += RECOVERY_ALPHABET[bytes[i]! & 31];
  return `${out.slice(0, 5)}-${out.slice(5)}`;
}

export class TwoFactorService implements SecondFactor {
  private readonly deps: TwoFactorDeps;
  private readonly issuer: string;
  private readonly now: () => number;

  constructor(deps: TwoFactorDeps) {
    this.deps = deps;
    this.issuer = deps.issuer ?? 'Burrow';
    this.now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  }

  private row(userId: string): TotpRow | undefined {
    return this.deps.store.get(userId);
  }

  private codesLeft(userId: string): number {
    return this.deps.store.codesLeft(userId);
  }

  status(userId: string): TwoFactorStatus {
    const row = this.row(userId);
    return {
      enabled: row?.state === 'on',
      pending: row?.state === 'pending',
      confirmedAt: row?.state === 'on' ? row.confirmed_at : null,
      recoveryCodesLeft: row?.state === 'on' ? this.codesLeft(userId) : 0,
    };
  }

  enabled(userId: string): boolean {
    return this.row(userId)?.state === 'on';
  }

  /** Draws a new pending secret (replacing an earlier pending one); the account asks for nothing yet. */
  start(owner: SessionOwner, ip: string): { secret: string; uri: string } {
    this.deps.limits.hit(`credential:${ip}`, LIMITS.credential);
    if (!owner.passwordSession)
      throw new AppError('PASSWORD_SESSION_REQUIRED', 'Sign in with your password to set up a second factor.');
    const user = this.deps.users.get(owner.userId);
    if (!user) throw new AppError('AUTH_REQUIRED');
    if (this.row(user.id)?.state === 'on')
      throw new AppError('TOTP_ALREADY_ON', 'A second factor is already on; turn it off first to set up a new one.');
    const secret = otp().generateSecret();
    const now = new Date().toISOString();
    this.deps.store.putPending(user.id, this.deps.box.seal(secret, user.id), now);
    const uri = otp().generateURI({ issuer: this.issuer, label: user.email ?? user.username, secret });
    return { secret, uri };
  }

  /** The first right code turns the pending secret on; the recovery codes are returned this once. */
  confirm(userId: string, code: string, ip: string): { recoveryCodes: string[] } {
    this.deps.limits.hit(`credential:${ip}`, LIMITS.credential);
    const row = this.row(userId);
    if (row?.state !== 'pending')
      throw new AppError('TOTP_NOT_PENDING', 'No second-factor setup is waiting: start it first.');
    if (!this.acceptCode(row, code)) {
      this.deps.activity.record({
        action: 'auth.totp-enable',
        outcome: 'failure',
        userId,
        ip,
        detail: { reason: 'wrong-code' },
      });
      throw new AppError(INVALID_TOTP_CODE, 'The code is wrong. Check the time on your phone and try the next code.');
    }
    const codes = this.drawRecoveryCodes();
    this.deps.store.turnOn(userId, new Date().toISOString(), this.codeHashes(userId, codes));
    this.deps.activity.record({ action: 'auth.totp-enable', outcome: 'success', userId, ip });
    return { recoveryCodes: codes };
  }

  /** New recovery codes (password first); the old ones stop working in the same transaction. */
  async regenerateRecoveryCodes(
    userId: string,
    password: string | undefined,
    ip: string,
  ): Promise<{ recoveryCodes: string[] }> {
    this.deps.limits.hit(`credential:${ip}`, LIMITS.credential);
    await this.deps.confirmPassword(userId, password, ip);
    const codes = this.drawRecoveryCodes();
    if (!this.deps.store.replaceCodesIfOn(userId, this.codeHashes(userId, codes)))
      throw new AppError('TOTP_NOT_ON', 'The second factor is off: there are no recovery codes to replace.');
    this.deps.activity.record({ action: 'auth.totp-recovery-codes', outcome: 'success', userId, ip });
    return { recoveryCodes: codes };
  }

  /** Turns the second factor off (password first); also drops a pending setup. */
  async turnOff(userId: string, password: string | undefined, ip: string): Promise<void> {
    this.deps.limits.hit(`credential:${ip}`, LIMITS.credential);
    await this.deps.confirmPassword(userId, password, ip);
    if (this.remove(userId)) this.deps.activity.record({ action: 'auth.totp-disable', outcome: 'success', userId, ip });
  }

  /** An administrator removes an account's second factor (404 for an unknown account). */
  adminRemove(adminId: string, userId: string, ip: string): { removed: boolean } {
    const user = this.deps.users.get(userId);
    if (!user) throw new AppError('NOT_FOUND', 'No such account.');
    const removed = this.remove(userId);
    this.deps.activity.record({
      action: 'admin.totp-remove',
      outcome: 'success',
      userId: adminId,
      ip,
      detail: { account: user.id, username: user.username, removed },
    });
    return { removed };
  }

  private remove(userId: string): boolean {
    return this.deps.store.remove(userId);
  }

  /** Sign-in: six digits, or an unused recovery code (spent). Null when wrong. */
  verify(userId: string, code: string): { usedRecoveryCode: boolean; recoveryCodesLeft: number } | null {
    const row = this.row(userId);
    if (row?.state !== 'on') return null;
    const trimmed = code.trim();
    if (/^\d{6}$/.test(trimmed)) {
      return this.acceptCode(row, trimmed)
        ? { usedRecoveryCode: false, recoveryCodesLeft: this.codesLeft(userId) }
        : null;
    }
    const normal = normaliseRecoveryCode(trimmed);
    if (normal.length !== 10) return null;
    const spent = this.deps.store.spendCode(userId, this.codeHash(userId, normal), new Date().toISOString());
    return spent ? { usedRecoveryCode: true, recoveryCodesLeft: this.codesLeft(userId) } : null;
  }

  /** A right code of a time step later than the last one accepted; that step is then used up. */
  private acceptCode(row: TotpRow, code: string): boolean {
    if (!/^\d{6}$/.test(code.trim())) return false;
    let secret: string;
    try {
      secret = this.deps.box.open(row.secret_sealed, row.user_id);
    } catch {
      return false;
    }
    const epoch = this.now();
    const result = otp().verifySync({
      secret,
      token: code.trim(),
      epoch,
      period: PERIOD,
      epochTolerance: TOLERANCE_SECONDS,
      ...(row.last_step !== null ? { afterTimeStep: row.last_step } : {}),
    });
    if (!result.valid) return false;
    const step = Math.floor(epoch / PERIOD) + result.delta;
    // Claimed with a compare-and-set: of two requests carrying the same code, one wins.
    return this.deps.store.claimStep(row.user_id, step);
  }

  private drawRecoveryCodes(): string[] {
    const codes = new Set<string>();
    while (codes.size < RECOVERY_CODE_COUNT) codes.add(drawRecoveryCode());
    return [...codes];
  }

  /** What is stored of a recovery code: a MAC bound to the account. */
  private codeHash(userId: string, normal: string): string {
    return this.deps.box.mac(`${userId}\0${normal}`);
  }

  private codeHashes(userId: string, codes: readonly string[]): string[] {
    return codes.map((code) => this.codeHash(userId, normaliseRecoveryCode(code)));
  }
}
