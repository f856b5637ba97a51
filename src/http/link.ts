// Holding a link: the step of the row pipeline that runs for `access: 'link'` rows, after the
// parameters, query and body are validated and before the handler. The link comes from the
// row's `:token`, the visitor cookie its password gave is read here (the adapter's part: no
// service sees the request), and the capability that holds links (src/shares/holder.ts)
// applies the link's rules — expiry, users list, password, the owner still reaching the item —
// and answers the held link the handler gets as `link`.
import type { IncomingMessage } from 'node:http';
import { parseCookie } from 'cookie';
import type { Caller } from '../core/caller.ts';
import type { HeldLink } from './route.ts';

export interface LinkGate {
  /** The name of the cookie a link's password gives a visitor (scoped to the link's path). */
  readonly cookie: string;
  /** The name of the cookie naming a holder who took a file of a limited link (its Range series goes on). */
  readonly takerCookie?: string;
  /** The held link, or the refusal thrown (unknown or expired: one 404; password; sign-in). */
  hold(token: string, caller: Caller | null, visitor: string | undefined, ip: string, taker?: string): HeldLink;
}

/** The value of the cookie `name`, when the request carries one of a sane length. */
export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const v = parseCookie(header)[name];
  return v && v.length <= 256 ? v : undefined;
}

/** The link a `link` row holds, from its `:token` and the request's visitor cookie. */
export function holdLink(
  gate: LinkGate | undefined,
  params: { token?: unknown },
  req: IncomingMessage,
  caller: Caller | null,
  ip: string,
): HeldLink {
  if (!gate) throw new Error('a link row is mounted without a link gate (HttpOptions.links)');
  if (typeof params.token !== 'string') throw new Error('a link row without a :token parameter');
  const taker = gate.takerCookie ? cookieOf(req, gate.takerCookie) : undefined;
  return gate.hold(params.token, caller, cookieOf(req, gate.cookie), ip, taker);
}
