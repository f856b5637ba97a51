// The terminal's rows (001_terminals.sql): one-time tickets, hashed, and the shells open on
// every instance. Statements only; tickets.ts decides.
import type { Database } from '../db/database.ts';

export interface TicketRow {
  id: string;
  digest: string;
  session_id: string;
  user_id: string;
  username: string;
  origin: string;
  expires_at: number;
}

export interface TerminalStore {
  /** Removes the tickets that expired at or before `now`. */
  sweepTickets(now: number): void;
  /** Tickets not yet redeemed nor expired. */
  outstanding(now: number): number;
  /** Removes the `n` tickets that expire first. */
  dropOldest(n: number): void;
  addTicket(row: TicketRow): void;
  /** Deletes ticket `id` and answers what it held (one statement: only one caller gets it). */
  takeTicket(id: string): TicketRow | undefined;
  /**
   * Runs `fn` in one transaction holding the open shells' lock (an advisory lock of PostgreSQL,
   * released at the commit; the embedded database has one writer): instances that count and
   * record open shells at once take turns, so two never both take the last place.
   */
  exclusively<T>(fn: () => T): T;
  /** Records a shell open on `instance`. */
  opened(id: string, instance: string, at: number): void;
  closed(id: string): void;
  /** Open shells per instance. */
  openPerInstance(): { instance: string; n: number }[];
  /** Forgets the shells of `instance` (one that is gone). */
  forgetInstance(instance: string): void;
}

/** The open shells' key among PostgreSQL's advisory locks ('btrm'). */
const OPEN_SHELLS_LOCK = 0x6274_726d;

export function createTerminalStore(db: Database): TerminalStore {
  return {
    exclusively: (fn) =>
      db.transaction(() => {
        if (db.dialect === 'postgres') db.get('SELECT pg_advisory_xact_lock(?) AS locked', [OPEN_SHELLS_LOCK]);
        return fn();
      }),
    sweepTickets: (now) => void db.run('DELETE FROM terminal_tickets WHERE expires_at <= ?', [now]),
    outstanding: (now) =>
      Number(db.get<{ n: number }>('SELECT COUNT(*) AS n FROM terminal_tickets WHERE expires_at > ?', [now])?.n ?? 0),
    dropOldest: (n) =>
      void db.run(
        'DELETE FROM terminal_tickets WHERE id IN (SELECT id FROM terminal_tickets ORDER BY expires_at, id LIMIT ?)',
        [n],
      ),
    addTicket: (r) =>
      void db.run(
        'INSERT INTO terminal_tickets (id, digest, session_id, user_id, username, origin, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [r.id, r.digest, r.session_id, r.user_id, r.username, r.origin, r.expires_at],
      ),
    takeTicket(id) {
      const row = db.get<TicketRow>(
        'DELETE FROM terminal_tickets WHERE id = ? RETURNING id, digest, session_id, user_id, username, origin, expires_at',
        [id],
      );
      return row ? { ...row, expires_at: Number(row.expires_at) } : undefined;
    },
    opened: (id, instance, at) =>
      void db.run('INSERT INTO terminals_open (id, instance, started_at) VALUES (?, ?, ?)', [id, instance, at]),
    closed: (id) => void db.run('DELETE FROM terminals_open WHERE id = ?', [id]),
    openPerInstance: () =>
      db
        .all<{ instance: string; n: number }>('SELECT instance, COUNT(*) AS n FROM terminals_open GROUP BY instance')
        .map((r) => ({ instance: r.instance, n: Number(r.n) })),
    forgetInstance: (instance) => void db.run('DELETE FROM terminals_open WHERE instance = ?', [instance]),
  };
}
