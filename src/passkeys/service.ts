// Passkeys: registration and management for a signed-in account, and sign-in without a name
// (discoverable credentials). Every byte on the wire is base64url (the library's JSON forms).
// Challenges are rows: drawn by a start call, spent by the first finish that names them,
// whatever its outcome, and only good for the ceremony (and account) they were drawn for.
import { randomUUID } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { ActivityService } from '../activity/service.ts';
import { LIMITS, type RateLimiter } from '../accounts/rate-limits.ts';
import type { AuthService, SignIn } from '../auth/service.ts';
import type { DeviceSeen } from '../auth/devices.ts';
import type { UsersStore } from '../accounts/users-store.ts';
import { AppError } from '../core/errors.ts';
import type { RelyingParties, RelyingParty } from './relying-party.ts';
import type { Ceremony, ChallengeRow, PasskeyRow, PasskeyStore } from './store.ts';

// The WebAuthn stack (@simplewebauthn/server with its X.509/ASN.1 and CBOR libraries, ~5 MB
// of heap once evaluated) is loaded by the first ceremony, not at start.
let loaded: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webauthn = () => (loaded ??= import('@simplewebauthn/server'));

export const PASSKEY_REJECTED = 'AUTH_PASSKEY_REJECTED';
const CHALLENGE_MS = 5 * 60_000;
export const MAX_NAME_LENGTH = 64;

export interface WirePasskey {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** `multiDevice` for a synced passkey, `singleDevice` for one bound to its authenticator. */
  deviceType: string;
  backedUp: boolean;
  transports: string[];
  /** The name (WebAuthn RP id) it was made for: browsers offer it only at that name. */
  rpId: string;
}

/** The part of a session these calls need (a Caller fits). */
export interface SessionOwner {
  readonly userId: string;
  readonly passwordSession?: boolean | undefined;
}

export interface PasskeyDeps {
  store: PasskeyStore;
  users: UsersStore;
  limits: RateLimiter;
  activity: ActivityService;
  auth: Pick<AuthService, 'signInWith' | 'confirmPasswordOf' | 'assertDirectoryKnows' | 'spendAddressBudget'>;
  relyingParties: RelyingParties;
  /** Shown by the browser when registering. */
  rpName?: string;
}

function toWire(row: PasskeyRow): WirePasskey {
  let transports: string[] = [];
  try {
    transports = JSON.parse(row.transports);
  } catch {
    /* none */
  }
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    deviceType: row.device_type,
    backedUp: row.backed_up === 1,
    transports,
    rpId: row.rp_id,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The challenge the browser signed, read from the client data (the library checks the rest). */
function challengeOf(response: unknown): string | null {
  if (!isObject(response) || typeof response.id !== 'string' || !isObject(response.response)) return null;
  const clientData = response.response.clientDataJSON;
  if (typeof clientData !== 'string' || clientData.length > 8192) return null;
  try {
    const parsed = JSON.parse(Buffer.from(clientData, 'base64url').toString('utf8'));
    return isObject(parsed) && typeof parsed.challenge === 'string' ? parsed.challenge : null;
  } catch {
    return null;
  }
}

const userHandleOf = (userId: string) => Buffer.from(userId, 'utf8').toString('base64url');

export class PasskeyService {
  private readonly deps: PasskeyDeps;
  private readonly rpName: string;

  constructor(deps: PasskeyDeps) {
    this.deps = deps;
    this.rpName = deps.rpName ?? 'Burrow';
  }

  private storeChallenge(challenge: string, ceremony: Ceremony, userId: string | null, rp: RelyingParty): void {
    this.deps.store.putChallenge({
      challenge,
      ceremony,
      user_id: userId,
      rp_id: rp.rpId,
      origins: JSON.stringify(rp.origins),
      expires_at: Date.now() + CHALLENGE_MS,
    });
  }

  /** Spends the challenge the response names; returns it only when it was live and drawn for this ceremony (and account). */
  private spendChallenge(response: unknown, ceremony: Ceremony, userId: string | null): ChallengeRow | null {
    const challenge = challengeOf(response);
    if (!challenge) return null;
    const row = this.deps.store.takeChallenge(challenge);
    if (!row || row.ceremony !== ceremony || row.expires_at <= Date.now() || row.user_id !== userId) return null;
    return row;
  }

  private passkeysOf(userId: string): PasskeyRow[] {
    return this.deps.store.ofUser(userId);
  }

  list(userId: string): WirePasskey[] {
    return this.passkeysOf(userId).map(toWire);
  }

  count(userId: string): number {
    return this.deps.store.count(userId);
  }

  // --- registration (signed in) ---

  async registrationOptions(
    owner: SessionOwner,
    requestOrigin: string | null,
    ip: string,
  ): Promise<{ options: PublicKeyCredentialCreationOptionsJSON; origins: string[] }> {
    this.deps.limits.hit(`credential:${ip}`, LIMITS.credential);
    if (!owner.passwordSession)
      throw new AppError('PASSWORD_SESSION_REQUIRED', 'Sign in with your password to add a passkey.');
    const user = this.deps.users.get(owner.userId);
    if (!user) throw new AppError('AUTH_REQUIRED');
    const rp = this.deps.relyingParties.for(requestOrigin);
    const { generateRegistrationOptions } = await webauthn();
    const options = await generateRegistrationOptions({
      rpName: this.rpName,
      rpID: rp.rpId,
      userName: user.email ?? user.username,
      userDisplayName: user.display_name ?? user.username,
      userID: new Uint8Array(Buffer.from(user.id, 'utf8')),
      attestationType: 'none',
      timeout: CHALLENGE_MS,
      // Only this name's: a passkey of another name is another credential to the authenticator.
      excludeCredentials: this.passkeysOf(user.id)
        .filter((p) => p.rp_id === rp.rpId)
        .map((p) => ({
          id: p.credential_id,
          transports: toWire(p).transports,
        })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    this.storeChallenge(options.challenge, 'registration', user.id, rp);
    return { options, origins: rp.origins };
  }

  async finishRegistration(
    userId: string,
    response: unknown,
    name: string | undefined,
    ip: string,
  ): Promise<{ passkey: WirePasskey }> {
    this.deps.limits.hit(`credential:${ip}`, LIMITS.credential);
    const label = name?.trim() || `Passkey ${this.count(userId) + 1}`;
    if (label.length > MAX_NAME_LENGTH)
      throw new AppError('BAD_REQUEST', `Invalid body: name: at most ${MAX_NAME_LENGTH} characters.`);
    const challenge = this.spendChallenge(response, 'registration', userId);
    if (!challenge)
      throw new AppError(
        'PASSKEY_CHALLENGE_INVALID',
        'This passkey registration is not the one started for this account, or it expired: start again.',
      );
    const { verifyRegistrationResponse } = await webauthn();
    let info;
    try {
      const result = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge: challenge.challenge,
        expectedOrigin: JSON.parse(challenge.origins),
        expectedRPID: challenge.rp_id,
        requireUserVerification: false,
      });
      if (!result.verified) throw new Error('not verified');
      info = result.registrationInfo;
    } catch (err) {
      this.deps.activity.record({
        action: 'auth.passkey-add',
        outcome: 'failure',
        userId,
        ip,
        detail: { reason: (err as Error).message.slice(0, 200) },
      });
      throw new AppError('PASSKEY_INVALID', `The passkey could not be verified: ${(err as Error).message}`);
    }
    const id = randomUUID();
    const now = new Date().toISOString();
    try {
      this.deps.store.insert({
        id,
        user_id: userId,
        credential_id: info.credential.id,
        public_key: info.credential.publicKey,
        counter: info.credential.counter,
        transports: JSON.stringify(info.credential.transports ?? []),
        device_type: info.credentialDeviceType,
        backed_up: info.credentialBackedUp ? 1 : 0,
        name: label,
        created_at: now,
        rp_id: challenge.rp_id,
      });
    } catch (err) {
      if (/UNIQUE/i.test((err as Error).message))
        throw new AppError('PASSKEY_EXISTS', 'This passkey is already registered.');
      throw err;
    }
    this.deps.activity.record({
      action: 'auth.passkey-add',
      outcome: 'success',
      userId,
      ip,
      detail: { passkey: id, name: label },
    });
    return { passkey: toWire(this.deps.store.get(id)!) };
  }

  rename(userId: string, id: string, name: string): { passkey: WirePasskey } {
    const label = name.trim();
    if (!label || label.length > MAX_NAME_LENGTH)
      throw new AppError('BAD_REQUEST', `Invalid body: name: 1 to ${MAX_NAME_LENGTH} characters.`);
    if (!this.deps.store.rename(userId, id, label)) throw new AppError('NOT_FOUND', 'No such passkey.');
    return { passkey: toWire(this.deps.store.get(id)!) };
  }

  /** Removes one passkey (password first when the account has one); never the last way into an account. */
  async remove(
    userId: string,
    id: string,
    password: string | undefined,
    ip: string,
    sessionId?: string,
  ): Promise<void> {
    this.deps.limits.hit(`credential:${ip}`, LIMITS.credential);
    await this.deps.auth.confirmPasswordOf(userId, password, ip, sessionId);
    const found = this.deps.store.removeChecked(userId, id, () => {
      const user = this.deps.users.get(userId);
      const otherWays =
        (user?.password_hash ? 1 : 0) +
        // The directory's password (LDAP) and the provider (OIDC) sign in without a passkey.
        this.deps.users.methods(userId).filter((m) => m.type === 'oidc' || m.type === 'ldap').length +
        this.count(userId) -
        1;
      if (otherWays === 0)
        throw new AppError(
          'LAST_SIGN_IN_METHOD',
          'This is the only way into this account: add a password or another passkey first.',
        );
    });
    if (!found) throw new AppError('NOT_FOUND', 'No such passkey.');
    this.deps.activity.record({
      action: 'auth.passkey-remove',
      outcome: 'success',
      userId,
      ip,
      detail: { passkey: id },
    });
  }

  /** An administrator removes every passkey of an account (404 for an unknown account). */
  adminRemoveAll(adminId: string, userId: string, ip: string): { removed: number } {
    const user = this.deps.users.get(userId);
    if (!user) throw new AppError('NOT_FOUND', 'No such account.');
    const removed = this.deps.store.removeAll(userId);
    this.deps.activity.record({
      action: 'admin.passkeys-remove',
      outcome: 'success',
      userId: adminId,
      ip,
      detail: { account: user.id, username: user.username, removed },
    });
    return { removed };
  }

  // --- sign-in (anonymous) ---

  async authenticationOptions(
    requestOrigin: string | null,
    ip: string,
  ): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; origins: string[] }> {
    this.deps.limits.hit(`login:${ip}`, LIMITS.signInAttempts);
    const rp = this.deps.relyingParties.for(requestOrigin);
    const { generateAuthenticationOptions } = await webauthn();
    const options = await generateAuthenticationOptions({
      rpID: rp.rpId,
      userVerification: 'preferred',
      timeout: CHALLENGE_MS,
    });
    this.storeChallenge(options.challenge, 'authentication', null, rp);
    return { options, origins: rp.origins };
  }

  /**
   * Signs in with an assertion. Every refusal is the same 401; the reason goes to the activity log.
   * A passkey that did not verify its user on an account with a second factor holds the sign-in.
   */
  async finishAuthentication(response: unknown, ip: string, seen?: DeviceSeen): Promise<SignIn> {
    this.deps.auth.spendAddressBudget(ip);
    const refuse = (reason: string, userId: string | null = null): never => {
      this.deps.limits.count(`login-fail:${ip}`, LIMITS.signInFailures);
      this.deps.activity.record({
        action: 'auth.login',
        outcome: 'failure',
        userId,
        ip,
        detail: { method: 'passkey', reason: reason.slice(0, 200) },
      });
      throw new AppError(PASSKEY_REJECTED, 'The passkey was not accepted.');
    };
    const challenge = this.spendChallenge(response, 'authentication', null);
    if (!challenge) return refuse('unknown, spent, expired or other-ceremony challenge');
    const assertion = response as AuthenticationResponseJSON;
    const row = this.deps.store.byCredential(assertion.id);
    if (!row) return refuse('unknown credential');
    // Made at another name: the browser should not have offered it here (its signature names that
    // name's hash, which the check below would refuse too): said plainly in the log.
    if (row.rp_id !== challenge.rp_id)
      return refuse(`passkey made for ${row.rp_id}, used at ${challenge.rp_id}`, row.user_id);
    const handle = isObject(assertion.response) ? assertion.response.userHandle : undefined;
    if (handle !== undefined && handle !== null && handle !== userHandleOf(row.user_id))
      return refuse('credential of another account', row.user_id);
    const { verifyAuthenticationResponse } = await webauthn();
    let info;
    try {
      const result = await verifyAuthenticationResponse({
        response: assertion,
        expectedChallenge: challenge.challenge,
        expectedOrigin: JSON.parse(challenge.origins),
        expectedRPID: challenge.rp_id,
        credential: {
          id: row.credential_id,
          publicKey: new Uint8Array(row.public_key),
          counter: row.counter,
          transports: toWire(row).transports,
        },
        requireUserVerification: false,
      });
      if (!result.verified) return refuse('signature not verified', row.user_id);
      info = result.authenticationInfo;
    } catch (err) {
      const message = (err as Error).message;
      // A counter that went backwards: two copies of one authenticator key are in use.
      if (/counter/i.test(message))
        this.deps.activity.record({
          action: 'auth.passkey-clone-suspected',
          outcome: 'failure',
          userId: row.user_id,
          ip,
          detail: { passkey: row.id },
        });
      return refuse(message, row.user_id);
    }
    this.deps.store.markUsed(row.id, info.newCounter, info.credentialBackedUp, new Date().toISOString());
    // A directory account: the directory still knows the person (a disabled one is refused here too).
    await this.deps.auth.assertDirectoryKnows(row.user_id, ip);
    return this.deps.auth.signInWith(row.user_id, 'passkey', ip, {
      twoFactorsProven: info.userVerified,
      ...(seen ? { seen } : {}),
    });
  }

  /** Gives passkeys made before RP ids were recorded the name they were made for (at start). */
  adoptLegacy(): number {
    return this.deps.store.adoptLegacy(this.deps.relyingParties.legacy());
  }

  /** Drops challenges nobody finished. */
  sweep(): number {
    return this.deps.store.sweepChallenges(Date.now());
  }
}
