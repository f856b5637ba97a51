-- Accounts. Usernames and emails are unique whatever their letter case. `roles` is a JSON
-- array (`["admin"]` or `["user"]`). Lockout state lives on the account so that every
-- identifier typed for it (email or username) and every factor feeds the same counter.
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  username TEXT NOT NULL COLLATE NOCASE UNIQUE,
  email TEXT COLLATE NOCASE UNIQUE,
  display_name TEXT,
  password_hash TEXT,
  roles TEXT NOT NULL DEFAULT '["user"]',
  email_verified INTEGER NOT NULL DEFAULT 0,
  failed_count INTEGER NOT NULL DEFAULT 0,
  locked_until TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- Ways an account can sign in: one row per method (local_password, oidc…).
CREATE TABLE auth_methods (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  type TEXT NOT NULL CHECK (type IN ('local_password', 'oidc')),
  provider TEXT NOT NULL DEFAULT 'local',
  subject TEXT,
  last_used_at TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (user_id, type, provider)
);
CREATE UNIQUE INDEX auth_methods_subject ON auth_methods (type, provider, subject) WHERE subject IS NOT NULL;

-- Sessions: only a keyed hash of the cookie value is stored. `state` = held while a
-- sign-in waits for its second step (held_until bounds it).
CREATE TABLE sessions (
  id_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  state TEXT NOT NULL CHECK (state IN ('active', 'held')),
  method TEXT NOT NULL,
  held_until TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  renewed_at TEXT NOT NULL,
  ip TEXT
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

-- Per-address attempt counters (fixed windows), kept here so a restart does not reset them.
CREATE TABLE rate_limits (
  key TEXT PRIMARY KEY,
  window_start INTEGER NOT NULL,
  count INTEGER NOT NULL
);
