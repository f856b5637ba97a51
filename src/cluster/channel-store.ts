// The change stream's statements on its own PostgreSQL connection (stream.ts holds the connection).
import type pg from 'pg';

export const CHANNEL = 'burrow_changes';

export function listen(c: pg.Client): Promise<unknown> {
  return c.query(`LISTEN ${CHANNEL}`);
}

export function notify(c: pg.Client, payload: string): Promise<unknown> {
  return c.query('SELECT pg_notify($1, $2)', [CHANNEL, payload]);
}
