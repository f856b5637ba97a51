// Tokens the editing servers carry: JWTs (jose, HS256) signed with the integration's secret,
// naming the file, the account and its rights, with an audience per purpose so a token made
// for one use (a config the browser sees, a download link) is never accepted for another.
// File ids are an HMAC of the file's host location: opaque, stable while the file stays where
// it is, the same for every account (co-editors share one document).
import { createHmac } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { AppError } from '../../core/errors.ts';

let loadedJose: Promise<typeof import('jose')> | undefined;
/** jose, loaded on the first office token (issue 33: not on the idle server's heap). */
export const jose = () => (loadedJose ??= import('jose'));

export interface FileClaims {
  userId: string;
  fileId: string;
  path: string;
  canWrite: boolean;
}

export function secretKey(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

export function fileIdFor(secret: string, realPath: string): string {
  return createHmac('sha256', secret).update('burrow-office-file\0').update(realPath).digest('base64url').slice(0, 32);
}

export async function signFileToken(
  key: Uint8Array,
  audience: string,
  claims: FileClaims,
  ttlMs: number,
): Promise<{ token: string; expiresAt: number }> {
  const expiresAt = Date.now() + ttlMs;
  const { SignJWT } = await jose();
  const token = await new SignJWT({ fid: claims.fileId, p: claims.path, rw: claims.canWrite })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.userId)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt / 1000))
    .sign(key);
  return { token, expiresAt };
}

/** The claims of a valid token for `fileId`; any flaw (forged, expired, other file or use) is one 401. */
export async function verifyFileToken(
  key: Uint8Array,
  audience: string,
  token: unknown,
  fileId: string,
): Promise<FileClaims> {
  const invalid = () => new AppError('OFFICE_TOKEN_INVALID', 'The access token is not valid for this file.');
  if (typeof token !== 'string' || token === '') throw invalid();
  let payload: JWTPayload;
  try {
    const { jwtVerify } = await jose();
    ({ payload } = await jwtVerify(token, key, { algorithms: ['HS256'], audience }));
  } catch {
    throw invalid();
  }
  if (
    payload.fid !== fileId ||
    typeof payload.sub !== 'string' ||
    typeof payload.p !== 'string' ||
    typeof payload.rw !== 'boolean'
  )
    throw invalid();
  return { userId: payload.sub, fileId, path: payload.p, canWrite: payload.rw };
}

// WOPI sends and expects file names in UTF-7 (RFC 2152) in X-WOPI-*Target headers.
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function decodeUtf7(input: string): string {
  return input.replace(/\+([A-Za-z0-9+/]*)-?/g, (_m, b64: string) => {
    if (b64 === '') return '+';
    const bytes = Buffer.from(b64, 'base64');
    const units: number[] = [];
    for (let i = 0; i + 1 < bytes.length; i += 2) units.push((bytes[i]! << 8) | bytes[i + 1]!);
    return String.fromCharCode(...units);
  });
}

export function encodeUtf7(input: string): string {
  return input.replace(/[^A-Za-z0-9'(),\-./:? ]+/g, (run) => {
    if (run === '+') return '+-';
    const bytes = Buffer.alloc(run.length * 2);
    for (let i = 0; i < run.length; i++) bytes.writeUInt16BE(run.charCodeAt(i), i * 2);
    let out = '';
    let bits = 0;
    let value = 0;
    for (const b of bytes) {
      value = (value << 8) | b;
      bits += 8;
      while (bits >= 6) {
        bits -= 6;
        out += B64[(value >> bits) & 63];
      }
    }
    if (bits > 0) out += B64[(value << (6 - bits)) & 63];
    return `+${out}-`;
  });
}
