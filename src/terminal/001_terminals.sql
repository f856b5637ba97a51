-- The terminal's one-time tickets and its open shells, as rows so that every instance of a
-- cluster (DATABASE_URL=postgres://…) sees them: a ticket issued through one instance is
-- redeemed by whichever instance the WebSocket reaches, and TERMINAL_MAX_SESSIONS bounds the
-- shells open on all of them. A ticket is `<id>.<secret>`: the row keeps the id and the
-- secret's sha256 only, and is deleted by the statement that redeems it (once, whatever the
-- outcome). Times are milliseconds since the epoch.
CREATE TABLE terminal_tickets (
  id         TEXT PRIMARY KEY,
  digest     TEXT NOT NULL,
  session_id TEXT NOT NULL,
  user_id    TEXT NOT NULL,
  username   TEXT NOT NULL,
  origin     TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX terminal_tickets_by_expiry ON terminal_tickets (expires_at);

-- A shell running now, and the instance running it (its rows are dropped when that instance's
-- lease lapsed: a killed instance's shells died with it).
CREATE TABLE terminals_open (
  id         TEXT PRIMARY KEY,
  instance   TEXT NOT NULL,
  started_at INTEGER NOT NULL
);
