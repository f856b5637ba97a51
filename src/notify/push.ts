// One attempt at one Web Push delivery: the event, encrypted for each of the account's browser
// subscriptions (aes128gcm, RFC 8291) and signed with the installation's VAPID key (RFC 8292)
// by the web-push library, POSTed here with fetch (no redirects, a deadline). A push service
// answering 404 or 410 says the subscription is gone: it is removed.
//
// The endpoint is an address the browser handed us, so it is a request we make on a client's
// word: only https addresses of the known push services (Google's, Mozilla's, Microsoft's,
// Apple's) are taken, and any other origin only when the administrator lists it in
// PUSH_SERVICES (a self-hosted push server). Checked when a subscription is made and again
// before every send.
import type { Attempt } from './send.ts';
import type { EventBody } from './wire.ts';

/** Host names (and their sub-domains) of the browsers' push services. */
const KNOWN_PUSH_HOSTS = ['fcm.googleapis.com', 'push.services.mozilla.com', 'notify.windows.com', 'push.apple.com'];

/** Whether Burrow may send to this endpoint: a known push service, or an origin the administrator listed. */
export function pushEndpointAllowed(endpoint: string, extraOrigins: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (extraOrigins.some((o) => new URL(o).origin === url.origin)) return true;
  if (url.protocol !== 'https:' || (url.port !== '' && url.port !== '443')) return false;
  const host = url.hostname.toLowerCase();
  return KNOWN_PUSH_HOSTS.some((h) => host === h || host.endsWith(`.${h}`));
}

export interface PushSubscriptionKeys {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export interface PushTarget {
  kind: 'push';
  subscriptions: PushSubscriptionKeys[];
  vapid: { subject: string; publicKey: string; privateKey: string };
  allowed: readonly string[];
  /** A push service said this subscription is gone. */
  gone: (endpoint: string) => void;
}

/** What the service worker shows. */
export function pushPayload(body: EventBody): string {
  return JSON.stringify({ id: body.id, kind: body.kind, title: body.title, body: body.text, paths: body.paths });
}

export async function sendPush(
  target: PushTarget,
  body: EventBody,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<Attempt> {
  if (!target.subscriptions.length)
    return { ok: false, status: null, error: 'no browser of this account is subscribed', permanent: true };
  const payload = pushPayload(body);
  // Loaded on the first push (issue 33: kept out of the idle server's heap).
  const { default: webpush } = await import('web-push');
  let delivered = 0;
  let lastError = '';
  let lastStatus: number | null = null;
  let retry = false;
  for (const sub of target.subscriptions) {
    if (!pushEndpointAllowed(sub.endpoint, target.allowed)) {
      target.gone(sub.endpoint);
      lastError = 'the subscription’s push service is not allowed';
      continue;
    }
    const details = webpush.generateRequestDetails(
      { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } },
      payload,
      { vapidDetails: target.vapid, TTL: 24 * 3600, contentEncoding: 'aes128gcm', urgency: 'normal' },
    );
    try {
      const res = await fetch(details.endpoint, {
        method: 'POST',
        headers: details.headers as Record<string, string>,
        body: new Uint8Array(details.body as Buffer),
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), stop]),
      });
      await res.body?.cancel().catch(() => {});
      lastStatus = res.status;
      if (res.status >= 200 && res.status < 300) delivered++;
      else if (res.status === 404 || res.status === 410) {
        target.gone(sub.endpoint);
        lastError = `the push service answered ${res.status}: the subscription is gone and was removed`;
      } else {
        lastError = `the push service answered ${res.status}`;
        if (res.status === 429 || res.status >= 500) retry = true;
      }
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      lastError = `could not reach the push service (${e.cause?.code ?? e.name})`;
      retry = true;
    }
  }
  if (delivered > 0) return { ok: true, status: 201 };
  return { ok: false, status: lastStatus, error: lastError, permanent: !retry };
}
