-- Shares: a link to one item, bound to the owner's virtual path (`path`, `user_id` = owner:
-- the bindings registry forgets rows with the item and carries them across rename/move).
-- The token is the link itself (shown to its owner, like the URL it is part of); passwords are
-- scrypt hashes. `password_gen` moves on every password change, ending that link's visitor sessions.
CREATE TABLE shares (
  id TEXT PRIMARY KEY,
  token TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  is_directory INTEGER NOT NULL,
  sharing_type TEXT NOT NULL CHECK (sharing_type IN ('anyone', 'users')),
  password_hash TEXT,
  password_gen INTEGER NOT NULL DEFAULT 0,
  expires_at TEXT,
  label TEXT,
  allow_download INTEGER NOT NULL,
  allow_upload INTEGER NOT NULL,
  allow_create_file INTEGER NOT NULL,
  allow_create_folder INTEGER NOT NULL,
  allow_rename INTEGER NOT NULL,
  allow_delete INTEGER NOT NULL,
  allow_edit INTEGER NOT NULL,
  file_request INTEGER NOT NULL DEFAULT 0,
  max_files INTEGER,
  max_bytes INTEGER,
  received_files INTEGER NOT NULL DEFAULT 0,
  received_bytes INTEGER NOT NULL DEFAULT 0,
  download_count INTEGER NOT NULL DEFAULT 0,
  access_count INTEGER NOT NULL DEFAULT 0,
  last_accessed_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX shares_path ON shares (path);
CREATE INDEX shares_user ON shares (user_id);

CREATE TABLE share_users (
  share_id TEXT NOT NULL REFERENCES shares (id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  PRIMARY KEY (share_id, user_id)
);
CREATE INDEX share_users_user ON share_users (user_id);

-- Visitor sessions of password links: the cookie carries a random id, the table its HMAC.
-- `account_session` marks an unlock by a signed-in account (its session id), for the API's
-- own routes taking `share/<token>/…` paths.
CREATE TABLE share_sessions (
  id_hash TEXT PRIMARY KEY,
  share_id TEXT NOT NULL REFERENCES shares (id) ON DELETE CASCADE,
  password_gen INTEGER NOT NULL,
  account_session TEXT,
  expires_at TEXT NOT NULL
);
CREATE INDEX share_sessions_share ON share_sessions (share_id);
CREATE INDEX share_sessions_account ON share_sessions (account_session);
