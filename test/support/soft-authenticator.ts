// A software WebAuthn authenticator for tests: P-256 keys from node:crypto, attestation `none`
// and assertions encoded with the CBOR encoder @simplewebauthn/server ships (isoCBOR). It
// answers what a browser's navigator.credentials.create/get would hand to the page, in the
// JSON form (every byte base64url), and can be told to lie (other origin, RP id, user handle,
// counter, no user verification) to exercise each refusal.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64u = (b: Uint8Array | Buffer | string) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

export interface SoftCredential {
  id: Buffer;
  privateKey: KeyObject;
  publicJwk: { x: string; y: string };
  userHandle: string;
  counter: number;
}

export interface Lies {
  origin?: string;
  rpId?: string;
  userVerified?: boolean;
  userHandle?: string | null;
  counter?: number;
  challenge?: string;
  type?: string;
}

function flags(uv: boolean, attested: boolean): number {
  // UP, UV, backup eligible + backed up (a synced passkey), AT when carrying a credential.
  return 0x01 | (uv ? 0x04 : 0) | 0x08 | 0x10 | (attested ? 0x40 : 0);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

export class SoftAuthenticator {
  readonly origin: string;
  readonly rpId: string;
  readonly credentials: SoftCredential[] = [];

  constructor(origin: string, rpId = new URL(origin).hostname) {
    this.origin = origin;
    this.rpId = rpId;
  }

  private clientData(type: string, challenge: string, lies: Lies): string {
    return JSON.stringify({
      type: lies.type ?? type,
      challenge: lies.challenge ?? challenge,
      origin: lies.origin ?? this.origin,
      crossOrigin: false,
    });
  }

  /** navigator.credentials.create(): a new discoverable credential, attestation `none`. */
  create(options: { challenge: string; user: { id: string } }, lies: Lies = {}) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
    const credential: SoftCredential = {
      id: randomBytes(32),
      privateKey,
      publicJwk: jwk,
      userHandle: options.user.id,
      counter: 0,
    };
    this.credentials.push(credential);
    const cose = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, new Uint8Array(Buffer.from(jwk.x, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(jwk.y, 'base64url'))],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credential.id.length);
    const authData = Buffer.concat([
      sha256(lies.rpId ?? this.rpId),
      Buffer.from([flags(lies.userVerified ?? true, true)]),
      u32(0),
      Buffer.alloc(16),
      idLength,
      credential.id,
      Buffer.from(isoCBOR.encode(cose)),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]) as never,
    );
    return {
      id: b64u(credential.id),
      rawId: b64u(credential.id),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(this.clientData('webauthn.create', options.challenge, lies)),
        attestationObject: b64u(attestationObject),
        transports: ['internal'],
      },
    };
  }

  /** navigator.credentials.get(): an assertion by `credential` (default: the last one made). */
  get(options: { challenge: string }, credential: SoftCredential = this.credentials.at(-1)!, lies: Lies = {}) {
    credential.counter = lies.counter ?? credential.counter + 1;
    const authData = Buffer.concat([
      sha256(lies.rpId ?? this.rpId),
      Buffer.from([flags(lies.userVerified ?? true, false)]),
      u32(credential.counter),
    ]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, lies);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    const userHandle = lies.userHandle === undefined ? credential.userHandle : lies.userHandle;
    return {
      id: b64u(credential.id),
      rawId: b64u(credential.id),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        ...(userHandle === null ? {} : { userHandle }),
      },
    };
  }
}
