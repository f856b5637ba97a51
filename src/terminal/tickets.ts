// One-time tickets for the terminal's WebSocket. A browser cannot put an Authorization header
// on a WebSocket, and the cookie alone would let any page that can open a socket to us try;
// so `POST /api/terminal/session` (an administrator session, same-origin) issues a ticket that
// the upgrade redeems once, from the same session and the same Origin, within seconds.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export interface TicketBinding {
  readonly sessionId: string;
  readonly userId: string;
  readonly username: string;
  /** The Origin header of the request that asked for the ticket (the page that will connect). */
  readonly origin: string;
}

export interface IssuedTicket {
  ticket: string;
  expiresAt: string;
}

export interface TicketStore {
  issue(binding: TicketBinding): IssuedTicket;
  /**
   * Consumes the ticket whatever the outcome (a second try with the same one always fails),
   * and answers its binding only when the session and the origin are those it was issued to.
   */
  redeem(
    ticket: string,
    presented: { sessionId: string | undefined; origin: string | undefined },
  ): TicketBinding | null;
  /** Tickets not yet redeemed nor expired (tests, diagnostics). */
  readonly size: number;
}

interface Held {
  digest: Buffer;
  binding: TicketBinding;
  expiresAt: number;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

function sameText(a: string, b: string): boolean {
  // Digests have equal length, so the comparison itself leaks nothing about either value.
  return timingSafeEqual(sha256(a), sha256(b));
}

/** Tickets live in memory: they last seconds, and a restart ends every terminal anyway. */
export function createTicketStore(
  options: { ttlMs?: number; maxOutstanding?: number; now?: () => number } = {},
): TicketStore {
  const ttlMs = options.ttlMs ?? 10_000;
  const maxOutstanding = options.maxOutstanding ?? 64;
  const now = options.now ?? Date.now;
  // Keyed by a public id; the secret half is compared constant-time against its digest.
  const held = new Map<string, Held>();

  function sweep(): void {
    const t = now();
    for (const [id, h] of held) if (h.expiresAt <= t) held.delete(id);
  }

  return {
    issue(binding) {
      sweep();
      // A runaway client cannot grow the map: the oldest outstanding ticket goes first.
      while (held.size >= maxOutstanding) held.delete(held.keys().next().value!);
      const id = randomBytes(12).toString('base64url');
      const secret = randomBytes(32).toString('base64url');
      const expiresAt = now() + ttlMs;
      held.set(id, { digest: sha256(secret), binding, expiresAt });
      return { ticket: `${id}.${secret}`, expiresAt: new Date(expiresAt).toISOString() };
    },

    redeem(ticket, presented) {
      sweep();
      const dot = typeof ticket === 'string' ? ticket.indexOf('.') : -1;
      if (dot <= 0) return null;
      const id = ticket.slice(0, dot);
      const h = held.get(id);
      if (!h) return null;
      held.delete(id);
      if (!timingSafeEqual(sha256(ticket.slice(dot + 1)), h.digest)) return null;
      if (!presented.sessionId || !sameText(presented.sessionId, h.binding.sessionId)) return null;
      if (!presented.origin || !sameText(presented.origin, h.binding.origin)) return null;
      return h.binding;
    },

    get size() {
      sweep();
      return held.size;
    },
  };
}
