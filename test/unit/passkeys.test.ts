// Passkeys at the service level with a software authenticator: registration and sign-in, and
// each refusal (spent challenge, other ceremony's challenge, other account's credential,
// wrong RP id or origin, unknown credential, a counter that went backwards).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AppError } from '../../src/core/errors.ts';
import { RelyingParties } from '../../src/passkeys/relying-party.ts';
import { PasskeyService } from '../../src/passkeys/service.ts';
import { createPasskeyStore } from '../../src/passkeys/store.ts';
import { identityKit, type IdentityKit } from '../support/identity-kit.ts';
import { SoftAuthenticator } from '../support/soft-authenticator.ts';

const ORIGIN = 'https://files.example.org';

async function setup(opts: { publicUrl?: string | null; rpId?: string } = {}) {
  const kit = await identityKit();
  const passkeys = new PasskeyService({
    store: createPasskeyStore(kit.db),
    users: kit.users,
    limits: kit.limits,
    activity: kit.activity,
    auth: kit.auth,
    relyingParties: new RelyingParties({
      publicUrl: opts.publicUrl === undefined ? ORIGIN : opts.publicUrl,
      rpId: opts.rpId ?? null,
    }),
  });
  const alice = await kit.addUser('alice');
  const bob = await kit.addUser('bob');
  return { kit, passkeys, alice, bob };
}

async function refused(fn: () => Promise<unknown>, status: number, code?: string): Promise<void> {
  try {
    await fn();
  } catch (err) {
    assert.instance(err, AppError, String(err));
    assert.is((err as AppError).status, status, (err as Error).message);
    if (code) assert.is((err as AppError).code, code);
    return;
  }
  throw new Error('expected a refusal');
}

const rejected = (fn: () => Promise<unknown>) => refused(fn, 401, 'AUTH_PASSKEY_REJECTED');

async function register(s: { passkeys: PasskeyService }, userId: string, device: SoftAuthenticator, name?: string) {
  const { options, origins } = await s.passkeys.registrationOptions({ userId, passwordSession: true }, null, 'ip');
  assert.equal(origins, [ORIGIN]);
  return s.passkeys.finishRegistration(userId, device.create(options), name, 'ip');
}

async function signIn(
  s: { passkeys: PasskeyService },
  device: SoftAuthenticator,
  lies = {},
  credential = device.credentials.at(-1)!,
) {
  const { options } = await s.passkeys.authenticationOptions(null, 'ip');
  return s.passkeys.finishAuthentication(device.get(options, credential, lies), 'ip');
}

test('register, list, rename, sign in; options carry every byte as base64url and the RP from PUBLIC_URL', async () => {
  const s = await setup();
  try {
    await refused(() => s.passkeys.registrationOptions({ userId: s.alice, passwordSession: false }, null, 'ip'), 403);
    const { options } = await s.passkeys.registrationOptions({ userId: s.alice, passwordSession: true }, null, 'ip');
    assert.is(options.rp.id, 'files.example.org');
    assert.match(options.challenge, /^[A-Za-z0-9_-]+$/);
    assert.match(options.user.id, /^[A-Za-z0-9_-]+$/);
    const device = new SoftAuthenticator(ORIGIN);
    const { passkey } = await s.passkeys.finishRegistration(s.alice, device.create(options), ' Laptop ', 'ip');
    assert.is(passkey.name, 'Laptop');
    assert.is(passkey.deviceType, 'multiDevice');
    assert.equal(
      s.passkeys.list(s.alice).map((p) => p.id),
      [passkey.id],
    );
    assert.equal(s.passkeys.list(s.bob), []);
    assert.is(s.passkeys.rename(s.alice, passkey.id, 'Phone').passkey.name, 'Phone');
    await refused(async () => s.passkeys.rename(s.bob, passkey.id, 'mine'), 404);
    const again = await s.passkeys.registrationOptions({ userId: s.alice, passwordSession: true }, null, 'ip');
    assert.equal(
      again.options.excludeCredentials?.map((c) => c.id),
      [device.credentials[0]!.id.toString('base64url')],
    );

    const { options: get, origins } = await s.passkeys.authenticationOptions(null, 'ip');
    assert.equal(origins, [ORIGIN]);
    assert.is(get.rpId, 'files.example.org');
    const result = await s.passkeys.finishAuthentication(device.get(get), 'ip');
    assert.ok('user' in result && result.user.username === 'alice');
    assert.is(s.kit.sessions.find(result.session.id)!.method, 'passkey');
    assert.ok(s.passkeys.list(s.alice)[0]!.lastUsedAt);
  } finally {
    s.kit.close();
  }
});

test('a challenge is spent by its finish and good for one ceremony only', async () => {
  const s = await setup();
  try {
    const device = new SoftAuthenticator(ORIGIN);
    await register(s, s.alice, device);
    const { options } = await s.passkeys.authenticationOptions(null, 'ip');
    const assertion = device.get(options);
    assert.ok('user' in (await s.passkeys.finishAuthentication(assertion, 'ip')));
    await rejected(() => s.passkeys.finishAuthentication(assertion, 'ip'));
    // A fresh assertion over the spent challenge (higher counter) is refused too.
    await rejected(() => s.passkeys.finishAuthentication(device.get(options), 'ip'));
    // A registration challenge cannot sign anybody in, and the attempt spends it.
    const reg = await s.passkeys.registrationOptions({ userId: s.alice, passwordSession: true }, null, 'ip');
    await rejected(() => s.passkeys.finishAuthentication(device.get({ challenge: reg.options.challenge }), 'ip'));
    await refused(
      () => s.passkeys.finishRegistration(s.alice, new SoftAuthenticator(ORIGIN).create(reg.options), undefined, 'ip'),
      400,
      'PASSKEY_CHALLENGE_INVALID',
    );
    // A sign-in challenge cannot register a passkey.
    const auth = await s.passkeys.authenticationOptions(null, 'ip');
    await refused(
      () =>
        s.passkeys.finishRegistration(
          s.alice,
          new SoftAuthenticator(ORIGIN).create({ challenge: auth.options.challenge, user: reg.options.user }),
          undefined,
          'ip',
        ),
      400,
    );
    // A registration started by Alice cannot be finished by Bob.
    const reg2 = await s.passkeys.registrationOptions({ userId: s.alice, passwordSession: true }, null, 'ip');
    await refused(
      () => s.passkeys.finishRegistration(s.bob, new SoftAuthenticator(ORIGIN).create(reg2.options), undefined, 'ip'),
      400,
    );
    // A made-up challenge.
    await rejected(() => s.passkeys.finishAuthentication(device.get({ challenge: 'bm90LWEtY2hhbGxlbmdl' }), 'ip'));
    assert.is(
      s.kit.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM webauthn_challenges')!.n,
      0,
      'nothing left behind',
    );
    assert.is(s.passkeys.count(s.alice), 1);
    assert.is(s.passkeys.count(s.bob), 0);
  } finally {
    s.kit.close();
  }
});

test("refusals: other account's credential, wrong RP id, wrong origin, unknown credential, garbage, counter gone backwards", async () => {
  const s = await setup();
  try {
    const aliceDevice = new SoftAuthenticator(ORIGIN);
    const bobDevice = new SoftAuthenticator(ORIGIN);
    await register(s, s.alice, aliceDevice);
    await register(s, s.bob, bobDevice);
    const bobHandle = bobDevice.credentials[0]!.userHandle;
    await rejected(() => signIn(s, aliceDevice, { userHandle: bobHandle }));
    await rejected(() => signIn(s, aliceDevice, { rpId: 'evil.example' }));
    await rejected(() => signIn(s, aliceDevice, { origin: 'https://evil.example' }));
    await rejected(() => signIn(s, aliceDevice, { type: 'webauthn.create' }));
    const stranger = new SoftAuthenticator(ORIGIN);
    stranger.create({ challenge: 'x', user: { id: 'eA' } });
    await rejected(() => signIn(s, stranger));
    await rejected(() => s.passkeys.finishAuthentication({ id: 'x' }, 'ip'));
    await rejected(() => s.passkeys.finishAuthentication('nonsense', 'ip'));
    // A signature by another key over Alice's credential id.
    const forged = new SoftAuthenticator(ORIGIN);
    forged.create({ challenge: 'x', user: { id: aliceDevice.credentials[0]!.userHandle } });
    forged.credentials[0]!.id = aliceDevice.credentials[0]!.id;
    await rejected(() => signIn(s, forged));
    // A clone: the counter does not move forward.
    assert.ok('user' in (await signIn(s, aliceDevice, { counter: 10 })));
    await rejected(() => signIn(s, aliceDevice, { counter: 10 }));
    await rejected(() => signIn(s, aliceDevice, { counter: 3 }));
    assert.ok(s.kit.activityRows('auth.passkey-clone-suspected').length >= 1);
    assert.ok('user' in (await signIn(s, aliceDevice, { counter: 11 })));
    // Registration for another RP id or origin is refused too.
    const { options } = await s.passkeys.registrationOptions({ userId: s.alice, passwordSession: true }, null, 'ip');
    await refused(
      () =>
        s.passkeys.finishRegistration(
          s.alice,
          new SoftAuthenticator('https://evil.example').create(options),
          undefined,
          'ip',
        ),
      400,
      'PASSKEY_INVALID',
    );
    assert.is(s.passkeys.count(s.alice), 1);
  } finally {
    s.kit.close();
  }
});

test('a passkey without user verification on an account with a second factor holds the sign-in', async () => {
  const s = await setup();
  try {
    s.kit.useSecondFactor({ enabled: (id) => id === s.alice, verify: () => null });
    const device = new SoftAuthenticator(ORIGIN);
    await register(s, s.alice, device);
    const held = await signIn(s, device, { userVerified: false });
    assert.ok('totpRequired' in held);
    assert.is(s.kit.sessions.find(held.session.id)!.state, 'held');
    const verified = await signIn(s, device, { userVerified: true });
    assert.ok('user' in verified);
    const bobDevice = new SoftAuthenticator(ORIGIN);
    await register(s, s.bob, bobDevice);
    assert.ok('user' in (await signIn(s, bobDevice, { userVerified: false })), 'no second factor: signed in');
  } finally {
    s.kit.close();
  }
});

test('removing: password when the account has one, never the last way in, administrator removes all', async () => {
  const s = await setup();
  try {
    const device = new SoftAuthenticator(ORIGIN);
    const { passkey } = await register(s, s.alice, device);
    await refused(() => s.passkeys.remove(s.alice, passkey.id, 'wrong', 'ip'), 401);
    await refused(() => s.passkeys.remove(s.alice, passkey.id, undefined, 'ip'), 401);
    await refused(() => s.passkeys.remove(s.bob, passkey.id, 'bob-password', 'ip'), 404);
    await s.passkeys.remove(s.alice, passkey.id, 'alice-password', 'ip');
    assert.is(s.passkeys.count(s.alice), 0);

    // No password here: the proof is her session's fresh sign-in; with no session named, none.
    const carol = await s.kit.addUser('carol', { password: null });
    const fresh = s.kit.sessions.create(carol, 'passkey', 'ip').hash;
    const one = await register(s, carol, device);
    const two = await register(s, carol, device);
    await refused(() => s.passkeys.remove(carol, one.passkey.id, undefined, 'ip'), 403, 'AUTH_CONFIRM_REQUIRED');
    await s.passkeys.remove(carol, one.passkey.id, undefined, 'ip', fresh);
    await refused(() => s.passkeys.remove(carol, two.passkey.id, undefined, 'ip', fresh), 409, 'LAST_SIGN_IN_METHOD');
    assert.is(s.passkeys.count(carol), 1);
    s.kit.users.addMethod(carol, 'oidc', 'https://id.example', 'sub-carol');
    await s.passkeys.remove(carol, two.passkey.id, undefined, 'ip', fresh);

    await register(s, s.bob, device);
    await register(s, s.bob, device);
    const admin = await s.kit.addUser('root', { admin: true });
    assert.equal(s.passkeys.adminRemoveAll(admin, s.bob, 'ip'), { removed: 2 });
    await refused(async () => s.passkeys.adminRemoveAll(admin, 'nobody', 'ip'), 404);
  } finally {
    s.kit.close();
  }
});

test("relying party: WEBAUTHN_RP_ID must cover PUBLIC_URL; without PUBLIC_URL the browser's address is used", async () => {
  assert.throws(() => new RelyingParties({ publicUrl: ORIGIN, rpId: 'other.org' }), /WEBAUTHN_RP_ID/);
  assert.equal(new RelyingParties({ publicUrl: ORIGIN, rpId: 'example.org' }).for('http://attacker'), {
    rpId: 'example.org',
    origins: [ORIGIN],
  });
  assert.equal(new RelyingParties({ publicUrl: null }).for('http://localhost:3000'), {
    rpId: 'localhost',
    origins: ['http://localhost:3000'],
  });
  const s = await setup({ publicUrl: null });
  try {
    const { options, origins } = await s.passkeys.registrationOptions(
      { userId: s.alice, passwordSession: true },
      'http://localhost:3000',
      'ip',
    );
    assert.equal(origins, ['http://localhost:3000']);
    const device = new SoftAuthenticator('http://localhost:3000');
    await s.passkeys.finishRegistration(s.alice, device.create(options), undefined, 'ip');
    // The relying party is fixed at start: a finish cannot move it to another address.
    const { options: get } = await s.passkeys.authenticationOptions('http://localhost:3000', 'ip');
    const other = new SoftAuthenticator('http://192.168.1.2:3000', 'localhost');
    other.credentials.push(device.credentials[0]!);
    await rejected(() => s.passkeys.finishAuthentication(other.get(get), 'ip'));
  } finally {
    s.kit.close();
  }
});

test.run();
