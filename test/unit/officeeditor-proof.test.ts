// WOPI proof keys against the protocol's own published test case (Microsoft's proof key
// tests: a key, an access token, a URL, a timestamp and the signature Office Online made), so
// the byte layout is the editing servers', not only our idea of it; and the time and key rules.
import { generateKeyPairSync, sign } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { disproof, proofBytes, rsaKey, ticksAt } from '../../src/plugins/officeeditor/proof.ts';
import { parseProofKeys } from '../../src/plugins/officeeditor/discovery.ts';

const MODULUS =
  '0HOWUPFFgmSYHbLZZzdWO/HUOr8YNfx5NAl7GUytooHZ7B9QxQKTJpj0NIJ4XEskQW8e4dLzRrPbNOOJ+KpWHttXz8HoQXkkZV/gYNxaNHJ8/pRXGMZzfVM5vchhx/2C7ULPTrpBsSpmfWQ6ShaVoQzfThFUd0MsBvIN7HVtqzPx9jbSV04wAqyNjcro7F3iu9w7AEsMejHbFlWoN+J05dP5ixryF7+2U5RVmjMt7/dYUdCoiXvCMt2CaVr0XEG6udHU4iDKVKZjmUBc7cTWRzhqEL7lZ1yQfylp38Nd2xxVJ0sSU7OkC1bBDlePcYGaF3JjJgsmp/H5BNnlW9gSxQ==';
const TOKEN =
  'yZhdN1qgywcOQWhyEMVpB6NE3pvBksvcLXsrFKXNtBeDTPW%2fu62g2t%2fOCWSlb3jUGaz1zc%2fzOzbNgAredLdhQI1Q7sPPqUv2owO78olmN74DV%2fv52OZIkBG%2b8jqjwmUobcjXVIC1BG9g%2fynMN0itZklL2x27Z2imCF6xELcQUuGdkoXBj%2bI%2bTlKM';
const URL = `https://contoso.com/wopi/files/vHxYyRGM8VfmSGwGYDBMIQPzuE+sSC6kw+zWZw2Nyg?access_token=${TOKEN}`;
const TIMESTAMP = '635655897610773532';
const PROOF =
  'IflL8OWCOCmws5qnDD5kYMraMGI3o+T+hojoDREbjZSkxbbx7XIS1Av85lohPKjyksocpeVwqEYm9nVWfnq05uhDNGp2MsNyhPO9unZ6w25Rjs1hDFM0dmvYx8wlQBNZ/CFPaz3inCMaaP4PtU85YepaDccAjNc1gikdy3kSMeG1XZuaDixHvMKzF/60DMfLMBIu5xP4Nt8i8Gi2oZs4REuxi6yxOv2vQJQ5+8Wu2Olm8qZvT4FEIQT9oZAXebn/CxyvyQv+RVpoU2gb4BreXAdfKthWF67GpJyhr+ibEVDoIIolUvviycyEtjsaEBpOf6Ne/OLRNu98un7WNDzMTQ==';
/** The moment of TIMESTAMP, in milliseconds since 1970. */
const SIGNED_AT = Number((BigInt(TIMESTAMP) - 621_355_968_000_000_000n) / 10_000n);
const call = { accessToken: TOKEN, url: URL, timestamp: TIMESTAMP, proof: PROOF, proofOld: undefined };
const published = { current: rsaKey(MODULUS, 'AQAB')!, old: null };

test("the published test case holds: Office Online's signature over our bytes", () => {
  assert.ok(published.current);
  assert.is(disproof(published, call, SIGNED_AT), null);
  assert.is(ticksAt(SIGNED_AT) / 10_000n, BigInt(TIMESTAMP) / 10_000n);
});

test('any changed part breaks it: token, address, timestamp', () => {
  assert.ok(disproof(published, { ...call, accessToken: TOKEN.slice(1) }, SIGNED_AT));
  assert.ok(disproof(published, { ...call, url: URL.replace('contoso', 'fabrikam') }, SIGNED_AT));
  assert.ok(disproof(published, { ...call, timestamp: String(BigInt(TIMESTAMP) + 1n) }, SIGNED_AT));
  // The address is compared in upper case, as the editing server signs it.
  assert.is(disproof(published, { ...call, url: URL.toLowerCase() }, SIGNED_AT), null);
});

test('older than 20 minutes or from the future is refused; malformed stamps too', () => {
  assert.match(disproof(published, call, SIGNED_AT + 21 * 60_000)!, /20 minutes/);
  assert.is(disproof(published, call, SIGNED_AT + 19 * 60_000), null);
  assert.match(disproof(published, call, SIGNED_AT - 6 * 60_000)!, /future/);
  assert.match(disproof(published, { ...call, timestamp: '12ab' }, SIGNED_AT)!, /malformed/);
  assert.match(disproof(published, { ...call, timestamp: undefined }, SIGNED_AT)!, /missing/);
  assert.match(disproof(published, { ...call, proof: undefined }, SIGNED_AT)!, /missing/);
});

test('the discovery element gives both keys; a key rotation passes in its three forms only', () => {
  const a = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const b = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const b64 = (k: typeof a, part: 'n' | 'e') =>
    Buffer.from(k.publicKey.export({ format: 'jwk' })[part]!, 'base64url').toString('base64');
  const keys = parseProofKeys(
    `<wopi-discovery><proof-key value="x" modulus="${b64(b, 'n')}" exponent="${b64(b, 'e')}" oldvalue="y" oldmodulus="${b64(a, 'n')}" oldexponent="${b64(a, 'e')}"/></wopi-discovery>`,
  )!;
  assert.ok(keys.current && keys.old);
  const now = Date.now();
  const stamp = ticksAt(now);
  const signed = (k: typeof a) =>
    sign('RSA-SHA256', proofBytes('tok', 'https://h/wopi/files/1?access_token=tok', stamp), k.privateKey).toString(
      'base64',
    );
  const base = { accessToken: 'tok', url: 'https://h/wopi/files/1?access_token=tok', timestamp: String(stamp) };
  assert.is(disproof(keys, { ...base, proof: signed(b), proofOld: undefined }, now), null, 'new key');
  assert.is(disproof(keys, { ...base, proof: 'AAAA', proofOld: signed(b) }, now), null, 'old proof, new key');
  assert.is(disproof(keys, { ...base, proof: signed(a), proofOld: undefined }, now), null, 'proof, old key');
  assert.ok(disproof(keys, { ...base, proof: 'AAAA', proofOld: signed(a) }, now), 'old proof under the old key');
  assert.is(parseProofKeys('<wopi-discovery></wopi-discovery>'), null);
  assert.is(parseProofKeys('<proof-key modulus="" exponent=""/>'), null);
});

test.run();
