// WOPI proof keys: an editing server that publishes a <proof-key> in its discovery signs every
// call back with it (X-WOPI-Proof, and X-WOPI-ProofOld with the key it is rotating out), so a
// host can tell the editing server from anyone holding a leaked access_token. The signed bytes
// are, each preceded by its length as a 4-byte big-endian integer: the access token (UTF-8),
// the request's absolute URL in upper case, and X-WOPI-TimeStamp as an 8-byte big-endian
// integer (.NET ticks: 100 ns since 0001-01-01 UTC). RSA PKCS#1 v1.5 with SHA-256.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

export interface ProofKeys {
  current: KeyObject;
  old: KeyObject | null;
}

/** How old a signed call may be (the WOPI rule), and how far ahead a clock may run. */
const MAX_AGE_TICKS = 20n * 60n * 10_000_000n;
const MAX_AHEAD_TICKS = 5n * 60n * 10_000_000n;
/** Ticks at 1970-01-01 UTC. */
const UNIX_EPOCH_TICKS = 621_355_968_000_000_000n;

export const ticksAt = (ms: number): bigint => BigInt(Math.floor(ms)) * 10_000n + UNIX_EPOCH_TICKS;

const base64url = (b64: string) => Buffer.from(b64, 'base64').toString('base64url');

/** The RSA key of a discovery's `modulus`/`exponent` (base64, big-endian), or null when absent or unusable. */
export function rsaKey(modulus: string | undefined, exponent: string | undefined): KeyObject | null {
  if (!modulus || !exponent) return null;
  try {
    return createPublicKey({ key: { kty: 'RSA', n: base64url(modulus), e: base64url(exponent) }, format: 'jwk' });
  } catch {
    return null;
  }
}

/** The bytes the editing server signed for this call. */
export function proofBytes(accessToken: string, url: string, timestamp: bigint): Buffer {
  const token = Buffer.from(accessToken, 'utf8');
  const address = Buffer.from(url.toUpperCase(), 'utf8');
  const out = Buffer.alloc(4 + token.length + 4 + address.length + 4 + 8);
  let at = out.writeInt32BE(token.length, 0);
  at += token.copy(out, at);
  at = out.writeInt32BE(address.length, at);
  at += address.copy(out, at);
  at = out.writeInt32BE(8, at);
  out.writeBigInt64BE(timestamp, at);
  return out;
}

export interface SignedCall {
  accessToken: string;
  /** The absolute URL the editing server called (its PUBLIC_URL form, with the query). */
  url: string;
  timestamp: string | undefined;
  proof: string | undefined;
  proofOld: string | undefined;
}

/** Why a call is not proven, or null when it is. `now` in milliseconds since 1970. */
export function disproof(keys: ProofKeys, call: SignedCall, now: number): string | null {
  if (!call.timestamp || !/^\d{1,19}$/.test(call.timestamp)) return 'X-WOPI-TimeStamp is missing or malformed';
  const stamp = BigInt(call.timestamp);
  const current = ticksAt(now);
  if (stamp < current - MAX_AGE_TICKS) return 'X-WOPI-TimeStamp is more than 20 minutes old';
  if (stamp > current + MAX_AHEAD_TICKS) return 'X-WOPI-TimeStamp is in the future';
  if (!call.proof) return 'X-WOPI-Proof is missing';
  const data = proofBytes(call.accessToken, call.url, stamp);
  const holds = (key: KeyObject | null, signature: string | undefined) => {
    if (!key || !signature) return false;
    try {
      return verify('RSA-SHA256', data, key, Buffer.from(signature, 'base64'));
    } catch {
      return false;
    }
  };
  // The three combinations of a key rotation: new key signs, the client's old signature under the
  // host's new key, or the host still holding the old key.
  if (holds(keys.current, call.proof) || holds(keys.current, call.proofOld) || holds(keys.old, call.proof)) return null;
  return 'the signature does not match the proof key of the discovery';
}
