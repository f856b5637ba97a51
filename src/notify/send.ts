// One attempt at one delivery over HTTP: a webhook signed per Standard Webhooks, or an ntfy
// publish (JSON to the server's root, so names in any script arrive whole). Never a shell,
// never a command line; redirects are not followed (the administrator named the address).
import { createHmac, randomBytes } from 'node:crypto';
import { sendMail, type MailTarget } from './email.ts';
import { sendPush, type PushTarget } from './push.ts';
import type { EventBody } from './wire.ts';

/** A new signing secret in the Standard Webhooks form: whsec_ + base64 of 32 random bytes. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** `v1,<base64 HMAC-SHA256>` over `id.timestamp.body` with the key inside `whsec_…`. */
export function webhookSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export interface Target {
  kind: 'webhook' | 'ntfy';
  url: string;
  topic: string | null;
  /** The webhook's signing secret or ntfy's access token, opened for this attempt. */
  secret: string | null;
}

export type Attempt =
  | { ok: true; status: number }
  | { ok: false; status: number | null; error: string; permanent: boolean; retryAfterMs?: number };

const USER_AGENT = 'Burrow-Notifications/1';

/** What the request of one attempt is. */
export function requestFor(target: Target, body: EventBody, now = Date.now()): { url: string; init: RequestInit } {
  if (target.kind === 'webhook') {
    const text = JSON.stringify(body);
    const timestamp = Math.floor(now / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': body.id,
      'webhook-timestamp': String(timestamp),
    };
    if (target.secret) headers['webhook-signature'] = webhookSignature(target.secret, body.id, timestamp, text);
    return { url: target.url, init: { method: 'POST', headers, body: text } };
  }
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT };
  if (target.secret) headers.authorization = `Bearer ${target.secret}`;
  const message = {
    topic: target.topic,
    title: body.title,
    message: body.text,
    tags: [body.kind.replace(/\./g, '-')],
    priority: body.kind.startsWith('signin.') ? 4 : 3,
  };
  // ntfy's JSON publishing is a POST to the server's root; X-Message-Id is not ntfy's, receivers may ignore it.
  return {
    url: new URL('/', target.url).href.replace(/\/$/, '') + rootPath(target.url),
    init: { method: 'POST', headers: { ...headers, 'x-message-id': body.id }, body: JSON.stringify(message) },
  };
}

/** A server installed under a path (http://host/ntfy) keeps that path. */
function rootPath(url: string): string {
  const p = new URL(url).pathname.replace(/\/+$/, '');
  return p === '' ? '/' : p;
}

/** Seconds or an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Refusals that another try will not change (the receiver said no). */
const isPermanent = (status: number): boolean =>
  (status >= 300 && status < 400) || (status >= 400 && status < 500 && ![408, 425, 429].includes(status));

/** One attempt, abandoned after `timeoutMs` or when `stop` fires (the server closing). */
export async function attempt(
  target: Target | MailTarget | PushTarget,
  body: EventBody,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<Attempt> {
  if (target.kind === 'email') return sendMail(target, body, timeoutMs, stop);
  if (target.kind === 'push') return sendPush(target, body, timeoutMs, stop);
  const { url, init } = requestFor(target, body);
  try {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), stop]),
    });
    // The answer's body is not needed; dropping it lets the connection go back to the pool.
    await res.body?.cancel().catch(() => {});
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
    const wait = retryAfterMs(res.headers.get('retry-after'));
    return {
      ok: false,
      status: res.status,
      error:
        res.status >= 300 && res.status < 400
          ? `answered ${res.status} (redirects are not followed)`
          : `answered ${res.status}`,
      permanent: isPermanent(res.status),
      ...(wait !== undefined ? { retryAfterMs: wait } : {}),
    };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError';
    return {
      ok: false,
      status: null,
      error: timedOut
        ? `no answer within ${Math.round(timeoutMs / 1000)} s`
        : `could not connect (${e.cause?.code ?? e.cause?.message ?? e.message})`,
      permanent: false,
    };
  }
}
