// The second factor at the service level: codes from an independent generator (oathtool,
// RFC 6238), no replay within a time step, recovery codes spent once, the sealed secret, and
// the held sign-in whose wrong codes feed the account lockout.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { SecretBox } from '../../src/db/secret-box.ts';
import { TwoFactorService } from '../../src/twofactor/service.ts';
import { createTwoFactorStore } from '../../src/twofactor/store.ts';
import { AppError } from '../../src/core/errors.ts';
import { identityKit, type IdentityKit } from '../support/identity-kit.ts';

const T0 = 1_893_456_000; // 2030-01-01T00:00:00Z, a step boundary
const oath = (secret: string, at: number) =>
  execFileSync('oathtool', ['--totp', '-b', '--now', `@${at}`, secret], { encoding: 'utf8' }).trim();

async function setup(): Promise<{ kit: IdentityKit; tf: TwoFactorService; clock: { t: number }; userId: string }> {
  const kit = await identityKit();
  const clock = { t: T0 + 5 };
  const tf = new TwoFactorService({
    store: createTwoFactorStore(kit.db),
    box: SecretBox.fromConfigDir(kit.configDir, 'twofactor.key'),
    users: kit.users,
    limits: kit.limits,
    activity: kit.activity,
    confirmPassword: (id, pw, ip) => kit.auth.confirmPasswordOf(id, pw, ip),
    now: () => clock.t,
  });
  kit.useSecondFactor(tf);
  const userId = await kit.addUser('alice');
  return { kit, tf, clock, userId };
}

async function rejects(fn: () => unknown, status: number, code?: string): Promise<AppError> {
  try {
    await fn();
  } catch (err) {
    assert.instance(err, AppError);
    assert.is((err as AppError).status, status, (err as Error).message);
    if (code) assert.is((err as AppError).code, code);
    return err as AppError;
  }
  throw new Error('expected a refusal');
}

async function turnOn(s: Awaited<ReturnType<typeof setup>>): Promise<{ secret: string; codes: string[] }> {
  const { secret } = s.tf.start({ userId: s.userId, passwordSession: true }, '1.2.3.4');
  const { recoveryCodes } = s.tf.confirm(s.userId, oath(secret, s.clock.t), '1.2.3.4');
  return { secret, codes: recoveryCodes };
}

test('start draws a Base32 secret and an otpauth URI; nothing is asked of the account until confirmed', async () => {
  const s = await setup();
  try {
    await rejects(() => s.tf.start({ userId: s.userId, passwordSession: false }, 'ip'), 403);
    const { secret, uri } = s.tf.start({ userId: s.userId, passwordSession: true }, 'ip');
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const parsed = new URL(uri);
    assert.is(parsed.protocol, 'otpauth:');
    assert.is(parsed.searchParams.get('secret'), secret);
    assert.is(parsed.searchParams.get('issuer'), 'Burrow');
    assert.equal(s.tf.status(s.userId), { enabled: false, pending: true, confirmedAt: null, recoveryCodesLeft: 0 });
    const signIn = await s.kit.auth.login({ identifier: 'alice', password: 'alice-password' }, 'ip');
    assert.ok('user' in signIn, 'a pending secret does not hold the sign-in');
    // The secret is sealed at rest, and sealed for this account only.
    const row = s.kit.db.get<{ secret_sealed: string }>('SELECT secret_sealed FROM totp WHERE user_id = ?', [
      s.userId,
    ])!;
    assert.not.ok(row.secret_sealed.includes(secret));
    const box = SecretBox.fromConfigDir(s.kit.configDir, 'twofactor.key');
    assert.is(box.open(row.secret_sealed, s.userId), secret);
    assert.throws(() => box.open(row.secret_sealed, 'another-account'));
  } finally {
    s.kit.close();
  }
});

test("confirm takes the independent generator's code, returns ten recovery codes once, stored hashed", async () => {
  const s = await setup();
  try {
    const { secret } = s.tf.start({ userId: s.userId, passwordSession: true }, 'ip');
    await rejects(() => s.tf.confirm(s.userId, oath(secret, s.clock.t + 300), 'ip'), 401, 'AUTH_INVALID_TOTP_CODE');
    assert.is(s.tf.status(s.userId).pending, true);
    const { recoveryCodes } = s.tf.confirm(s.userId, oath(secret, s.clock.t), 'ip');
    assert.is(recoveryCodes.length, 10);
    assert.is(new Set(recoveryCodes).size, 10);
    for (const c of recoveryCodes) assert.match(c, /^[0-9a-z]{5}-[0-9a-z]{5}$/);
    const st = s.tf.status(s.userId);
    assert.is(st.enabled, true);
    assert.is(st.pending, false);
    assert.is(st.recoveryCodesLeft, 10);
    assert.ok(st.confirmedAt);
    const stored = s.kit.db.all<{ code_hash: string }>('SELECT code_hash FROM totp_recovery_codes WHERE user_id = ?', [
      s.userId,
    ]);
    assert.is(stored.length, 10);
    for (const { code_hash } of stored)
      for (const c of recoveryCodes) assert.not.ok(code_hash.includes(c.replace('-', '')));
    await rejects(() => s.tf.confirm(s.userId, oath(secret, s.clock.t), 'ip'), 409);
    await rejects(() => s.tf.start({ userId: s.userId, passwordSession: true }, 'ip'), 409);
  } finally {
    s.kit.close();
  }
});

test('a code is accepted once per time step: the confirming code and a replay are refused; the next step works', async () => {
  const s = await setup();
  try {
    const { secret } = await turnOn(s);
    assert.is(s.tf.verify(s.userId, oath(secret, s.clock.t)), null, 'the code that confirmed setup is used up');
    s.clock.t += 30;
    const code = oath(secret, s.clock.t);
    assert.equal(s.tf.verify(s.userId, code), { usedRecoveryCode: false, recoveryCodesLeft: 10 });
    assert.is(s.tf.verify(s.userId, code), null, 'replay in the same step');
    // One step of drift either way is accepted, but never a step at or before the last one used.
    s.clock.t += 30;
    assert.is(s.tf.verify(s.userId, oath(secret, s.clock.t - 30)), null);
    assert.ok(s.tf.verify(s.userId, oath(secret, s.clock.t + 30)));
    assert.is(s.tf.verify(s.userId, oath(secret, s.clock.t)), null, 'an earlier step after a later one');
    s.clock.t += 300;
    assert.is(s.tf.verify(s.userId, oath(secret, s.clock.t - 120)), null, 'too old');
    assert.is(s.tf.verify(s.userId, '12345'), null);
    assert.is(s.tf.verify(s.userId, 'abcdef'), null);
  } finally {
    s.kit.close();
  }
});

test('a recovery code works once (any case, spaces or dash), and regenerating stops the old ones', async () => {
  const s = await setup();
  try {
    const { codes } = await turnOn(s);
    const typed = ` ${codes[0]!.toUpperCase().replace('-', ' ')} `;
    assert.equal(s.tf.verify(s.userId, typed), { usedRecoveryCode: true, recoveryCodesLeft: 9 });
    assert.is(s.tf.verify(s.userId, codes[0]!), null, 'spent');
    assert.is(s.tf.status(s.userId).recoveryCodesLeft, 9);
    await rejects(() => s.tf.regenerateRecoveryCodes(s.userId, 'wrong', 'ip'), 401);
    const { recoveryCodes } = await s.tf.regenerateRecoveryCodes(s.userId, 'alice-password', 'ip');
    assert.is(s.tf.status(s.userId).recoveryCodesLeft, 10);
    assert.is(s.tf.verify(s.userId, codes[1]!), null, 'old codes stop working');
    assert.ok(s.tf.verify(s.userId, recoveryCodes[1]!));
  } finally {
    s.kit.close();
  }
});

test('turn off needs the password; an administrator can remove it; both leave nothing behind', async () => {
  const s = await setup();
  try {
    await turnOn(s);
    await rejects(() => s.tf.turnOff(s.userId, 'wrong', 'ip'), 401);
    assert.is(s.tf.enabled(s.userId), true);
    await s.tf.turnOff(s.userId, 'alice-password', 'ip');
    assert.equal(s.tf.status(s.userId), { enabled: false, pending: false, confirmedAt: null, recoveryCodesLeft: 0 });
    assert.is(s.kit.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM totp_recovery_codes')!.n, 0);
    await turnOn(s);
    const adminId = await s.kit.addUser('root', { admin: true });
    assert.equal(s.tf.adminRemove(adminId, s.userId, 'ip'), { removed: true });
    assert.is(s.tf.enabled(s.userId), false);
    await rejects(() => s.tf.adminRemove(adminId, 'no-such-account', 'ip'), 404);
    assert.ok(s.kit.activityRows('admin.totp-remove').length === 1);
  } finally {
    s.kit.close();
  }
});

test('sign-in is held for the code; a wrong code counts against the same lockout as a wrong password', async () => {
  const s = await setup();
  try {
    const { secret, codes } = await turnOn(s);
    const first = await s.kit.auth.login({ identifier: 'alice@example.org', password: 'alice-password' }, 'ip');
    assert.ok('totpRequired' in first);
    const held = s.kit.sessions.find(first.session.id)!;
    assert.is(held.state, 'held');
    assert.ok(Date.parse(held.held_until!) - Date.now() <= 5 * 60_000);
    // maxFailed defaults to 5: two wrong passwords + three wrong codes lock the account.
    await rejects(() => s.kit.auth.login({ identifier: 'alice', password: 'nope' }, 'ip'), 401);
    await rejects(() => s.kit.auth.login({ identifier: 'alice', password: 'nope' }, 'ip'), 401);
    await rejects(() => s.kit.auth.loginSecondStep(held, '000000', 'ip'), 401, 'AUTH_INVALID_TOTP_CODE');
    await rejects(() => s.kit.auth.loginSecondStep(held, 'aaaaa-aaaaa', 'ip'), 401, 'AUTH_INVALID_TOTP_CODE');
    await rejects(() => s.kit.auth.loginSecondStep(held, '999999', 'ip'), 401, 'AUTH_INVALID_TOTP_CODE');
    s.clock.t += 30;
    await rejects(() => s.kit.auth.loginSecondStep(held, oath(secret, s.clock.t), 'ip'), 429, 'AUTH_ACCOUNT_LOCKED');
    assert.ok(s.kit.activityRows('auth.lockout').length === 1);
    // Unlocked (as the lock time passing would), the right code opens a new active session.
    s.kit.users.clearFailures(s.userId);
    const done = s.kit.auth.loginSecondStep(held, codes[3]!, 'ip');
    assert.is(done.usedRecoveryCode, true);
    assert.is(done.recoveryCodesLeft, 9);
    assert.is(done.user.username, 'alice');
    assert.is(s.kit.sessions.find(first.session.id), undefined, 'the held session is gone');
    assert.is(s.kit.sessions.find(done.session.id)!.state, 'active');
    await rejects(() => s.kit.auth.loginSecondStep(null, '123456', 'ip'), 401, 'AUTH_INVALID_TOTP_CODE');
  } finally {
    s.kit.close();
  }
});

test.run();
