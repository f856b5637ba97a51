// Opening a web address for "Add from link": GET with redirects followed by hand, each hop's
// address checked by the policy (address.ts) on the address the socket connects to; the answer
// is handed over once it is a 2xx with its body unread. No proxy, no cookies, no credentials.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { AppError } from '../core/errors.ts';
import type { AddressPolicy } from './address.ts';

/** Redirects followed before giving up (browsers follow 20; a download needs a few). */
export const MAX_REDIRECTS = 5;

export interface Opened {
  response: http.IncomingMessage;
  /** Where the body comes from, after redirects. */
  url: URL;
}

export interface OpenOptions {
  policy: AddressPolicy;
  /** Connect and answer within this, and never this long between two parts of the body. */
  timeoutMs: number;
  signal: AbortSignal;
  userAgent: string;
}

/** An http(s) address without credentials, or FETCH_BAD_URL. */
export function webAddress(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new AppError('FETCH_BAD_URL', 'That is not a web address (it should start with https:// or http://).');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AppError(
      'FETCH_BAD_URL',
      `Only http and https addresses can be fetched, not ${url.protocol.replace(':', '')}.`,
    );
  if (url.username || url.password)
    throw new AppError('FETCH_BAD_URL', 'Leave the user name and password out of the address.');
  url.hash = '';
  return url;
}

/** The host as the socket sees it ("[::1]" → "::1"). */
const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

function one(url: URL, o: OpenOptions): Promise<http.IncomingMessage> {
  const host = bareHost(url);
  // A name goes through the policy's lookup; an address in the URL is checked here.
  if (net.isIP(host)) o.policy.check(host, host);
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'GET',
      agent: false,
      lookup: o.policy.lookup,
      timeout: o.timeoutMs,
      signal: o.signal,
      headers: { 'user-agent': o.userAgent, accept: '*/*', 'accept-encoding': 'identity' },
    });
    request.on('socket', (socket) =>
      socket.once('connect', () => {
        // The address connected, whatever resolved it.
        try {
          o.policy.check(socket.remoteAddress ?? '', host);
        } catch (err) {
          request.destroy(err as Error);
        }
      }),
    );
    request.on('timeout', () =>
      request.destroy(new AppError('FETCH_TIMEOUT', `${url.host} did not answer within ${o.timeoutMs / 1000} s.`)),
    );
    request.on('response', resolve);
    request.on('error', (err) => reject(unreachable(err, url)));
    request.end();
  });
}

/** Any failure to connect or read, as an answer the person understands. */
export function unreachable(err: unknown, url: URL): Error {
  if (err instanceof AppError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e.name === 'AbortError') return new AppError('FETCH_CANCELLED');
  const why =
    e.code === 'ECONNREFUSED'
      ? 'refused the connection'
      : e.code === 'ENOTFOUND'
        ? 'has no address'
        : /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(e.code ?? '')
          ? `has a certificate that is not trusted (${e.code})`
          : `could not be reached (${e.code ?? e.message})`;
  return new AppError('FETCH_UNREACHABLE', `${url.host} ${why}.`);
}

export async function openRemote(start: URL, o: OpenOptions): Promise<Opened> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const response = await one(url, o);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location) {
      response.resume();
      if (hop === MAX_REDIRECTS)
        throw new AppError('FETCH_REDIRECTS', `${start.host} sent more than ${MAX_REDIRECTS} redirects.`);
      let next: URL;
      try {
        next = webAddress(new URL(location, url).href);
      } catch {
        throw new AppError('FETCH_REDIRECTS', `${url.host} redirected to an address that cannot be fetched.`);
      }
      url = next;
      continue;
    }
    if (status < 200 || status > 299) {
      response.resume();
      throw new AppError(
        'FETCH_REMOTE_STATUS',
        `${url.host} answered ${status} ${response.statusMessage ?? ''}`.trim() + '.',
      );
    }
    return { response, url };
  }
}
