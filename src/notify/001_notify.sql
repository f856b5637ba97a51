-- Notifications. Destinations are added by an administrator (a webhook, an ntfy topic); their
-- secrets are sealed (notify-key in CONFIG_DIR/keys), never stored in the clear.
CREATE TABLE notify_destinations (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  url TEXT NOT NULL,
  topic TEXT,
  secret_sealed TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL
);

-- What each account wants: the kinds of event, the destinations it chose, the folders it watches.
CREATE TABLE notify_prefs (
  user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  prefs TEXT NOT NULL
);

-- The outbox: one row per event, written in the same transaction as its activity row. The
-- sender turns a 'new' event into deliveries (recipients checked at that moment) and marks it
-- 'fanned' in the same transaction as the deliveries.
CREATE TABLE notify_events (
  id TEXT PRIMARY KEY,
  at TEXT NOT NULL,
  action TEXT NOT NULL,
  outcome TEXT NOT NULL,
  user_id TEXT,
  username TEXT,
  ip TEXT,
  detail TEXT,
  activity_id INTEGER,
  state TEXT NOT NULL DEFAULT 'new'
);
CREATE INDEX notify_events_new ON notify_events (state, at);

-- One message to one destination for one recipient. The id is the message id the receiver
-- de-duplicates by (webhook-id), the same on every attempt and after a restart.
CREATE TABLE notify_deliveries (
  id TEXT PRIMARY KEY,
  event_id TEXT NOT NULL,
  destination_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at INTEGER NOT NULL,
  last_status INTEGER,
  last_error TEXT,
  created_at TEXT NOT NULL,
  done_at TEXT
);
CREATE INDEX notify_deliveries_due ON notify_deliveries (state, next_at);

-- Addresses each account has signed in from (a sign-in from a new one is an event).
CREATE TABLE notify_known_addresses (
  user_id TEXT NOT NULL,
  ip TEXT NOT NULL,
  first_at TEXT NOT NULL,
  PRIMARY KEY (user_id, ip)
);
