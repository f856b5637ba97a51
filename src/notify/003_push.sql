-- Web Push: the installation's VAPID key pair (made once; the private key sealed under
-- notify-key), each account's browser subscriptions, and each account's recent events for the
-- bell (with when they were read).
CREATE TABLE notify_vapid (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  public_key TEXT NOT NULL,
  private_sealed TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE notify_push_subscriptions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  endpoint TEXT NOT NULL UNIQUE,
  p256dh TEXT NOT NULL,
  auth TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX notify_push_subscriptions_user ON notify_push_subscriptions (user_id);

CREATE TABLE notify_inbox (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  event_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  title TEXT NOT NULL,
  text TEXT NOT NULL,
  paths TEXT NOT NULL,
  at TEXT NOT NULL,
  read_at TEXT
);
CREATE INDEX notify_inbox_user ON notify_inbox (user_id, at);
