// Where a passkey ceremony can run, in words. A passkey belongs to a name (localhost,
// files.example.org), never to a numeric address, and needs a secure page: https, or localhost
// on the computer running Burrow. At http://127.0.0.1 the browser says only "127.0.0.1 is an
// invalid domain"; this says why and offers the address where passkeys work.

export interface PasskeyPlace {
  /** Why this page cannot create or use passkeys. */
  problem: string;
  /** The address where they work (this page's path kept), or null when none can be named. */
  there: string | null;
  /** How to get there when no address can be offered. */
  advice?: string;
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const isIpAddress = (host: string) => IPV4.test(host) || host.startsWith('[') || host.includes(':');
const isLoopbackIp = (host: string) => /^127(\.\d{1,3}){3}$/.test(host) || host === '[::1]' || host === '::1';

/** Same site, roughly: equal, one inside the other, or the same last two labels. */
function related(a: string, b: string): boolean {
  if (a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`)) return true;
  const tail = (h: string) => h.split('.').slice(-2).join('.');
  return !isIpAddress(a) && !isIpAddress(b) && a.includes('.') && tail(a) === tail(b);
}

/**
 * Null when passkeys can work on this page; otherwise why not and where they would.
 * `publicUrl` is PUBLIC_URL (/api/features `network`): with it, passkeys belong to its host.
 */
export function passkeyPlace(
  page: { protocol: string; hostname: string; port: string; pathname: string; search: string },
  publicUrl: string | null,
  secureContext: boolean,
): PasskeyPlace | null {
  const host = page.hostname.toLowerCase();
  const path = page.pathname + page.search;
  const there = (origin: string) => origin.replace(/\/+$/, '') + path;
  const localhost = `${page.protocol}//localhost${page.port ? `:${page.port}` : ''}`;
  if (publicUrl) {
    const pub = new URL(publicUrl);
    if (!related(host, pub.hostname))
      return {
        problem: `Passkeys of this Burrow belong to ${pub.hostname} (its PUBLIC_URL), and this page is open at ${page.hostname}, so the browser will not use them here.`,
        there: there(pub.origin),
      };
    if (!secureContext)
      return {
        problem: 'Passkeys need a secure connection (https), and this page came over plain http.',
        there: pub.protocol === 'https:' ? there(pub.origin) : null,
        advice: 'Put Burrow behind https and set PUBLIC_URL to that https address.',
      };
    return null;
  }
  if (isIpAddress(host)) {
    if (isLoopbackIp(host))
      return {
        problem: `Passkeys belong to a name, such as localhost or files.example.org, never to a numeric address like ${page.hostname}, so the browser cannot create or use them here. localhost is this same computer.`,
        there: there(localhost),
      };
    return {
      problem: `Passkeys belong to a name, never to a numeric address like ${page.hostname}, and on any address but this computer's own they need https.`,
      there: null,
      advice: `On the computer running Burrow, open ${localhost}/ instead. From other devices, passkeys need Burrow behind https with a name (set PUBLIC_URL to it).`,
    };
  }
  if (!secureContext)
    return {
      problem: `Passkeys need a secure connection: https, or localhost on the computer running Burrow. This page came over plain http at ${page.hostname}.`,
      there: null,
      advice:
        'Put Burrow behind https and set PUBLIC_URL to that address, or use localhost on the computer running it.',
    };
  return null;
}

/** The browser's own refusal, in words (a SecurityError names no reason a person can act on). */
export function passkeyErrorWords(err: unknown, place: PasskeyPlace | null): unknown {
  const e = err as { name?: string; message?: string };
  if (e?.name === 'NotAllowedError')
    return new Error(
      'The passkey request was cancelled or timed out, or this device has no passkey made at this address (a passkey works only at the name it was made at).',
    );
  if (e?.name === 'SecurityError' || /invalid domain|relying party id|not a valid domain/i.test(e?.message ?? ''))
    return new Error(
      place
        ? `${place.problem}${place.there ? ` Open ${place.there} to use passkeys.` : place.advice ? ` ${place.advice}` : ''}`
        : 'The browser refused passkeys at this address: passkeys need a name (not a numeric address) and https, or localhost on this computer.',
    );
  if (e?.name === 'InvalidStateError') return new Error('This passkey is already registered for your account.');
  return err;
}
