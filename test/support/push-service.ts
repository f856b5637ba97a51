// A Web Push service stand-in on loopback, as a browser vendor's would be: it takes the POST of
// a push message, checks the VAPID JWT (RFC 8292: ES256 under the `k` key, audience this
// service's origin, not expired, a subject) with jose, and decrypts the aes128gcm body
// (RFC 8188 + RFC 8291) with the subscription's own keys — written here with node:crypto, not
// by the library that encrypted it. A subscription can be told it is gone (404/410).
import { createECDH, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';

export interface PushSubscriber {
  /** What the browser would hand Burrow. */
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
  ecdh: ReturnType<typeof createECDH>;
  authSecret: Buffer;
}

export interface PushMessage {
  endpoint: string;
  headers: http.IncomingHttpHeaders;
  /** The decrypted payload (JSON), or null when it did not decrypt. */
  payload: any;
  /** The VAPID JWT checked out. */
  vapid: { ok: boolean; sub?: string; aud?: string; key?: string; error?: string };
}

export interface PushService {
  origin: string;
  messages: PushMessage[];
  /** Endpoints this service answers with the status (404, 410) instead of 201. */
  gone: Map<string, number>;
  subscriber(name: string): PushSubscriber;
  close(): Promise<void>;
}

const b64u = (b: Buffer) => b.toString('base64url');

/** RFC 8291 §3.4 and RFC 8188 §2: the plaintext of one aes128gcm record. */
export function decryptAes128gcm(body: Buffer, ecdh: ReturnType<typeof createECDH>, authSecret: Buffer): Buffer {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20]!;
  const asPublic = body.subarray(21, 21 + idlen);
  const record = body.subarray(21 + idlen);
  if (record.length > rs) throw new Error('more than one record');
  const uaPublic = ecdh.getPublicKey();
  const shared = ecdh.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02, then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('no last-record delimiter');
  return padded.subarray(0, end);
}

async function checkVapid(authorization: string | undefined, origin: string): Promise<PushMessage['vapid']> {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
  if (!m) return { ok: false, error: `not a vapid Authorization: ${authorization}` };
  const [, jwt, k] = m as unknown as [string, string, string];
  try {
    const raw = Buffer.from(k, 'base64url');
    if (raw.length !== 65 || raw[0] !== 4) return { ok: false, error: 'k is not an uncompressed P-256 point' };
    const key = await importJWK(
      { kty: 'EC', crv: 'P-256', x: b64u(raw.subarray(1, 33)), y: b64u(raw.subarray(33)) },
      'ES256',
    );
    if (decodeProtectedHeader(jwt).alg !== 'ES256') return { ok: false, error: 'not ES256' };
    const { payload } = await jwtVerify(jwt, key, { audience: origin, algorithms: ['ES256'] });
    if (typeof payload.sub !== 'string' || !/^(mailto:|https:)/.test(payload.sub))
      return { ok: false, error: `bad sub ${payload.sub}` };
    if (typeof payload.exp !== 'number' || payload.exp > Date.now() / 1000 + 24 * 3600)
      return { ok: false, error: 'exp missing or more than 24 h away' };
    return { ok: true, sub: payload.sub, aud: String(payload.aud), key: k };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

export async function startPushService(): Promise<PushService> {
  const subscribers = new Map<string, PushSubscriber>();
  const state: PushService = {
    origin: '',
    messages: [],
    gone: new Map(),
    subscriber(name) {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const authSecret = randomBytes(16);
      const endpoint = `${state.origin}/push/${encodeURIComponent(name)}-${b64u(randomBytes(9))}`;
      const s: PushSubscriber = {
        subscription: { endpoint, keys: { p256dh: b64u(ecdh.getPublicKey()), auth: b64u(authSecret) } },
        ecdh,
        authSecret,
      };
      subscribers.set(new URL(endpoint).pathname, s);
      return s;
    },
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const endpoint = `${state.origin}${req.url}`;
      const gone = state.gone.get(endpoint);
      const sub = subscribers.get(req.url ?? '');
      let payload: any = null;
      if (sub && req.headers['content-encoding'] === 'aes128gcm') {
        try {
          payload = JSON.parse(decryptAes128gcm(Buffer.concat(chunks), sub.ecdh, sub.authSecret).toString('utf8'));
        } catch {
          payload = null;
        }
      }
      state.messages.push({
        endpoint,
        headers: req.headers,
        payload,
        vapid: await checkVapid(req.headers.authorization, state.origin),
      });
      res.statusCode = gone ?? (sub ? 201 : 404);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
