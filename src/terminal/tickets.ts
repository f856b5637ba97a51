// One-time tickets for the terminal's WebSocket. A browser cannot put an Authorization header
// on a WebSocket, and the cookie alone would let any page that can open a socket to us try;
// so `POST /api/terminal/session` (an administrator session, same-origin) issues a ticket that
// the upgrade redeems once, from the same session and the same Origin, within seconds.
//
// Tickets are rows (store.ts), so on a cluster (several instances over one PostgreSQL behind a
// balancer) the instance the WebSocket reaches redeems a ticket another issued; the shell then
// runs on the instance that accepted the socket. A row keeps the ticket's public id and the
// sha256 of its secret (a copy of the database opens no terminal), and one DELETE … RETURNING
// takes it: two instances presenting one ticket at once cannot both have it. The shells open on
// every instance are rows too, so TERMINAL_MAX_SESSIONS bounds them all together.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TerminalStore } from './store.ts';

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

const sha256 = (s: string) => createHash('sha256').update(s).digest();

function sameText(a: string, b: string): boolean {
  // Digests have equal length, so the comparison itself leaks nothing about either value.
  return timingSafeEqual(sha256(a), sha256(b));
}

export function createTicketStore(options: {
  store: TerminalStore;
  ttlMs?: number;
  maxOutstanding?: number;
  now?: () => number;
}): TicketStore {
  const { store } = options;
  const ttlMs = options.ttlMs ?? 10_000;
  const maxOutstanding = options.maxOutstanding ?? 64;
  const now = options.now ?? Date.now;

  return {
    issue(binding) {
      const t = now();
      store.sweepTickets(t);
      // A runaway client cannot grow the table: the oldest outstanding tickets go first.
      const over = store.outstanding(t) - maxOutstanding + 1;
      if (over > 0) store.dropOldest(over);
      const id = randomBytes(12).toString('base64url');
      const secret = randomBytes(32).toString('base64url');
      const expiresAt = t + ttlMs;
      store.addTicket({
        id,
        digest: sha256(secret).toString('hex'),
        session_id: binding.sessionId,
        user_id: binding.userId,
        username: binding.username,
        origin: binding.origin,
        expires_at: expiresAt,
      });
      return { ticket: `${id}.${secret}`, expiresAt: new Date(expiresAt).toISOString() };
    },

    redeem(ticket, presented) {
      const dot = typeof ticket === 'string' ? ticket.indexOf('.') : -1;
      if (dot <= 0) return null;
      const row = store.takeTicket(ticket.slice(0, dot));
      if (!row || row.expires_at <= now()) return null;
      if (!timingSafeEqual(sha256(ticket.slice(dot + 1)), Buffer.from(row.digest, 'hex'))) return null;
      if (!presented.sessionId || !sameText(presented.sessionId, row.session_id)) return null;
      if (!presented.origin || !sameText(presented.origin, row.origin)) return null;
      return { sessionId: row.session_id, userId: row.user_id, username: row.username, origin: row.origin };
    },

    get size() {
      return store.outstanding(now());
    },
  };
}

/** The shells open on every instance (TERMINAL_MAX_SESSIONS counts them all). */
export interface OpenShells {
  /** Shells open now on the instances that are alive. */
  count(): number;
  /**
   * Records shell `id` open here when fewer than `max` are open on the live instances, counted
   * and recorded under one lock (store.exclusively) before the shell is spawned: false when full.
   */
  reserve(id: string, max: number): boolean;
  closed(id: string): void;
}

export function createOpenShells(deps: {
  store: TerminalStore;
  /** This instance, and whether another's lease still runs (cluster/leases.ts). */
  leases: { readonly instance: string; alive(owner: string): boolean };
  now?: () => number;
}): OpenShells {
  const { store, leases } = deps;
  const now = deps.now ?? Date.now;
  const count = () => {
    let n = 0;
    for (const row of store.openPerInstance()) {
      // An instance that is gone (killed, or this one's earlier run) took its shells with it.
      if (leases.alive(row.instance)) n += row.n;
      else store.forgetInstance(row.instance);
    }
    return n;
  };
  return {
    count,
    reserve: (id, max) =>
      store.exclusively(() => {
        if (count() >= max) return false;
        store.opened(id, leases.instance, now());
        return true;
      }),
    closed: (id) => store.closed(id),
  };
}
